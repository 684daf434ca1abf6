// Session and Config: equality, validation of the model's shape, and the names of masks and encodings.
#include "session.h"

#include <algorithm>

#include <cmath>
#include <string>

namespace attnlab
{

bool Config::operator==(const Config& o) const
{
    return d_model == o.d_model && n_heads == o.n_heads && d_k == o.d_k && d_v == o.d_v && d_ff == o.d_ff &&
           n_layers == o.n_layers && mask == o.mask && positional == o.positional &&
           temperature == o.temperature && scale == o.scale && seed == o.seed;
}

bool Session::operator==(const Session& o) const
{
    return text == o.text && target == o.target && config == o.config && weights_path == o.weights_path &&
           model_path == o.model_path;
}

namespace
{

Status check_range(const char* what, int value, int lo, int hi, const char* hint)
{
    if (value < lo || value > hi)
        return Status::error(std::string(what) + " must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi) + ", got " + std::to_string(value) + hint);
    return Status::ok();
}

} // namespace

Status validate_config(const Config& c)
{
    if (Status s = check_range("d_model", c.d_model, 1, Limits::max_d_model, ""); !s)
        return s;
    if (Status s = check_range("h (heads)", c.n_heads, 1, Limits::max_heads, ""); !s)
        return s;
    if (c.d_k < 0 || c.d_v < 0 || c.d_ff < 0)
        return Status::error("d_k, d_v and d_ff must be positive, or 0 for the paper's default");
    if ((c.d_k == 0 || c.d_v == 0) && c.d_model % c.n_heads != 0)
        return Status::error("d_model (" + std::to_string(c.d_model) + ") is not divisible by h (" +
                             std::to_string(c.n_heads) +
                             "): choose h that divides d_model, or set d_k and d_v explicitly");
    if (Status s = check_range("d_k", c.resolved_d_k(), 1, Limits::max_head_dim, ""); !s)
        return s;
    if (Status s = check_range("d_v", c.resolved_d_v(), 1, Limits::max_head_dim, ""); !s)
        return s;
    if (Status s = check_range("d_ff", c.resolved_d_ff(), 1, Limits::max_d_ff, ""); !s)
        return s;
    if (Status s = check_range("layers", c.n_layers, 1, Limits::max_layers, ""); !s)
        return s;
    if (!std::isfinite(c.temperature) || c.temperature < Limits::min_temperature ||
        c.temperature > Limits::max_temperature)
        return Status::error("temperature τ must be between 0.01 and 100 (1 is the paper's softmax), got " +
                             format_number(c.temperature));
    if (c.mask != MaskKind::None && c.mask != MaskKind::Causal)
        return Status::error("unknown mask kind: use none or causal");
    if (c.positional != PositionalKind::Sinusoidal && c.positional != PositionalKind::None)
        return Status::error("unknown positional encoding: use sinusoidal or none");
    return Status::ok();
}

int next_head_count(int d_model, int h, int direction)
{
    const int top = std::min(d_model, Limits::max_heads);
    for (int n = h + (direction > 0 ? 1 : -1); n >= 1 && n <= top; n += direction > 0 ? 1 : -1)
        if (d_model % n == 0)
            return n;
    return h;
}

const char* to_string(MaskKind mask)
{
    return mask == MaskKind::Causal ? "causal" : "none";
}

const char* to_string(PositionalKind positional)
{
    return positional == PositionalKind::None ? "none" : "sinusoidal";
}

Status parse_mask(std::string_view name, MaskKind* out)
{
    if (name == "none")
        *out = MaskKind::None;
    else if (name == "causal")
        *out = MaskKind::Causal;
    else
        return Status::error("unknown mask \"" + std::string(name) +
                             "\": use none or causal (padding is masked automatically)");
    return Status::ok();
}

Status parse_positional(std::string_view name, PositionalKind* out)
{
    if (name == "sinusoidal")
        *out = PositionalKind::Sinusoidal;
    else if (name == "none")
        *out = PositionalKind::None;
    else
        return Status::error("unknown positional encoding \"" + std::string(name) +
                             "\": use sinusoidal or none");
    return Status::ok();
}

} // namespace attnlab
