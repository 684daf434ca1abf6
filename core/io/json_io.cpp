// Trace and weights export as JSON (attnlab-trace v1, attnlab-weights v1), streamed without a DOM.
#include "json_io.h"

#include "core/comparisons.h"
#include "core/settings.h"
#include "json_writer.h"

namespace attnlab
{

namespace
{

// [SECTION] Pieces shared by the trace and weights files

// "config": every setting, then under "resolved" the sizes actually used for those whose 0 stands for a
// default (walking the settings table).
void write_config(JsonWriter& w, const Config& config)
{
    w.key("config");
    w.begin_object();
    for (const SettingInfo& info : setting_table())
    {
        w.key(info.key);
        switch (info.kind)
        {
        case SettingKind::Int:
            w.number(config.*info.int_member);
            break;
        case SettingKind::Choice:
            w.string(choice_name(info, config));
            break;
        case SettingKind::Float:
            w.number(config.*info.float_member);
            break;
        case SettingKind::Bool:
            w.boolean(config.*info.bool_member);
            break;
        case SettingKind::Seed:
            w.number(static_cast<unsigned long long>(config.*info.seed_member));
            break;
        }
    }
    w.key("resolved");
    w.begin_object();
    for (const SettingInfo& info : setting_table())
        if (info.kind == SettingKind::Int && info.default_value != nullptr)
        {
            w.key(info.key);
            w.number(resolved_setting(info, config));
        }
    w.end_object();
    w.end_object();
}

void write_head_stack(JsonWriter& w, const char* name, const std::vector<Mat>& per_head)
{
    w.key(name);
    std::vector<const Mat*> stack;
    stack.reserve(per_head.size());
    for (const Mat& m : per_head)
        stack.push_back(&m);
    w.matrices(stack);
}

void write_row_vector(JsonWriter& w, const char* name, const RowVec& v)
{
    w.key(name);
    w.row(v.data(), static_cast<int>(v.size()));
}

void write_matrix(JsonWriter& w, const char* name, const Mat& m)
{
    w.key(name);
    w.matrix(m);
}

void write_attention_weights(JsonWriter& w, const AttentionWeights& attn)
{
    write_head_stack(w, "W_Q", attn.W_Q);
    write_head_stack(w, "W_K", attn.W_K);
    write_head_stack(w, "W_V", attn.W_V);
    write_matrix(w, "W_O", attn.W_O);
}

void write_weights_object(JsonWriter& w, const ModelWeights& weights)
{
    w.key("weights");
    w.begin_object();
    w.key("layers");
    w.begin_array(true);
    for (const LayerWeights& layer : weights.layers)
    {
        w.begin_object();
        write_attention_weights(w, layer.attn);
        write_matrix(w, "W_1", layer.W_1);
        write_row_vector(w, "b_1", layer.b_1);
        write_matrix(w, "W_2", layer.W_2);
        write_row_vector(w, "b_2", layer.b_2);
        write_row_vector(w, "gamma_1", layer.gamma_1);
        write_row_vector(w, "beta_1", layer.beta_1);
        write_row_vector(w, "gamma_2", layer.gamma_2);
        write_row_vector(w, "beta_2", layer.beta_2);
        w.end_object();
    }
    w.end_array();
    if (!weights.cross.W_Q.empty())
    {
        w.key("cross");
        w.begin_object();
        write_attention_weights(w, weights.cross);
        w.end_object();
    }
    w.end_object();
}

// [SECTION] Trace pieces

void write_tokens(JsonWriter& w, const TokenBatch& batch)
{
    w.key("tokens");
    w.begin_array(true);
    for (const auto& sentence : batch.tokens)
    {
        w.begin_array(false);
        for (const std::string& token : sentence)
            w.string(token);
        w.end_array();
    }
    w.end_array();
    w.key("lengths");
    w.begin_array(false);
    for (const int length : batch.lengths)
        w.number(length);
    w.end_array();
}

void write_batch(JsonWriter& w, const char* name, const std::vector<Mat>& per_sentence)
{
    write_head_stack(w, name, per_sentence);
}

// Writes "heads": [h] objects, each holding every per-head stage as [B][rows][cols] (in table order).
void write_heads(JsonWriter& w, const AttentionTrace& attn, int B)
{
    w.key("heads");
    w.begin_array(true);
    std::vector<const Mat*> stack(static_cast<size_t>(B));
    for (int j = 0; j < attn.n_heads; ++j)
    {
        w.begin_object();
        for (const StageInfo& info : stage_table())
        {
            if (!info.per_head || !engine_layer_stage(info))
                continue;
            for (int b = 0; b < B; ++b)
                stack[static_cast<size_t>(b)] = &attention_stage_matrix(attn, info.id, b, j);
            w.key(info.key);
            w.matrices(stack);
        }
        w.key("fully_masked");
        w.begin_array(true);
        for (int b = 0; b < B; ++b)
        {
            w.begin_array(false);
            for (const std::uint8_t flag : attn.head(b, j).fully_masked)
                w.boolean(flag != 0);
            w.end_array();
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
}

// Walks the stage table: each stage `shown` keeps as [B][rows][cols] under its key (`matrix(stage, b)`:
// sentence b's), the per-head ones grouped under "heads" at the place of the first of them.
template <typename Shown, typename Matrix>
void write_stages(JsonWriter& w, const AttentionTrace& attn, int B, Shown shown, Matrix matrix)
{
    bool heads_written = false;
    std::vector<const Mat*> stack(static_cast<size_t>(B));
    for (const StageInfo& info : stage_table())
    {
        if (!shown(info))
            continue;
        if (info.per_head)
        {
            if (!heads_written)
                write_heads(w, attn, B);
            heads_written = true;
            continue;
        }
        for (int b = 0; b < B; ++b)
            stack[static_cast<size_t>(b)] = &matrix(info.id, b);
        w.key(info.key);
        w.matrices(stack);
    }
}

// A layer's stages: those outside the attention block come from the layer.
void write_layer(JsonWriter& w, const LayerTrace& layer, int B)
{
    w.begin_object();
    write_stages(
        w, layer.attn, B, [](const StageInfo& info) { return engine_layer_stage(info); },
        [&layer](Stage stage, int b) -> const Mat& { return stage_matrix(layer, stage, b, 0); });
    w.end_object();
}

void write_cross(JsonWriter& w, const CrossTrace& cross, int B)
{
    w.key("cross");
    w.begin_object();
    write_tokens(w, cross.target);
    write_batch(w, "embedding", cross.embedding);
    write_matrix(w, "positional", cross.positional);
    write_batch(w, "X_q", cross.X_q);
    write_batch(w, "X_kv", cross.X_kv);
    write_stages(
        w, cross.attn, B,
        [](const StageInfo& info) { return info.attention_block && engine_layer_stage(info); },
        [&cross](Stage stage, int b) -> const Mat&
        { return attention_stage_matrix(cross.attn, stage, b, 0); });
    w.end_object();
}

void write_stage_table(JsonWriter& w)
{
    w.key("stages");
    w.begin_array(true);
    for (const StageInfo& info : stage_table())
    {
        if (!engine_layer_stage(info))
            continue;
        w.begin_array(false);
        w.string(info.key);
        w.string(info.name);
        w.string(info.equation);
        w.string(info.rows);
        w.string(info.cols);
        w.boolean(info.per_head);
        w.boolean(info.attention_block);
        w.end_array();
    }
    w.end_array();
}

void write_comparisons(JsonWriter& w, const Trace& trace, const ModelWeights& weights)
{
    w.key("comparisons");
    w.begin_array(true);
    Comparisons c;
    for (int b = 0; b < trace.batch_size(); ++b)
    {
        compute_comparisons(trace, weights, 0, b, 0, c);
        w.begin_object();
        w.key("layer");
        w.number(c.layer);
        w.key("b");
        w.number(c.b);
        w.key("head");
        w.number(c.head);
        write_matrix(w, "W_Q_packed", c.W_Q_packed);
        write_matrix(w, "Q_packed", c.Q_packed);
        w.key("packed_max_diff");
        w.number(c.packed_max_diff);
        write_matrix(w, "W_slide", c.W_slide);
        write_matrix(w, "Q_slide", c.Q_slide);
        write_matrix(w, "Q_two_step", c.Q_two_step);
        write_matrix(w, "W_collapsed", c.W_collapsed);
        write_matrix(w, "Q_collapsed", c.Q_collapsed);
        w.key("two_step_max_diff");
        w.number(c.two_step_max_diff);
        write_matrix(w, "single_weights", c.single_weights);
        write_matrix(w, "single_out", c.single_out);
        w.key("single_vs_multi_max_diff");
        w.number(c.single_vs_multi_max_diff);
        w.end_object();
        w.flush();
    }
    w.end_array();
}

void write_trace_document(JsonWriter& w, const Trace& trace, const ModelWeights& weights,
                          const std::string& weights_source)
{
    const int B = trace.batch_size();
    w.begin_object();
    w.key("format");
    w.string(kTraceFormat);
    w.key("version");
    w.number(kTraceVersion);
    write_config(w, trace.config);
    w.key("B");
    w.number(B);
    w.key("T");
    w.number(trace.T());
    w.key("weights_source");
    w.string(weights_source);
    write_stage_table(w);
    write_tokens(w, trace.tokens);
    write_weights_object(w, weights);
    write_batch(w, "embedding", trace.embedding);
    write_matrix(w, "positional", trace.positional);
    w.key("layers");
    w.begin_array(true);
    for (const LayerTrace& layer : trace.layers)
        write_layer(w, layer, B);
    w.end_array();
    if (trace.has_cross)
        write_cross(w, trace.cross, B);
    if (!trace.empty())
        write_comparisons(w, trace, weights);
    w.end_object();
}

size_t batch_floats(const std::vector<Mat>& mats)
{
    size_t n = 0;
    for (const Mat& m : mats)
        n += static_cast<size_t>(m.size());
    return n;
}

// The attention block's stages (walking the stage table) and its masks.
size_t attention_floats(const AttentionTrace& attn)
{
    size_t n = batch_floats(attn.mask);
    const int B = static_cast<int>(attn.mask.size());
    for (const StageInfo& info : stage_table())
        if (info.attention_block && engine_layer_stage(info))
            for (int b = 0; b < B; ++b)
                for (int j = 0; j < (info.per_head ? attn.n_heads : 1); ++j)
                    n += static_cast<size_t>(attention_stage_matrix(attn, info.id, b, j).size());
    return n;
}

} // namespace

// [SECTION] Public functions

std::string trace_to_json(const Trace& trace, const ModelWeights& weights, const std::string& weights_source)
{
    JsonWriter w;
    write_trace_document(w, trace, weights, weights_source);
    return std::move(w.text());
}

Status write_trace_json(const Trace& trace, const ModelWeights& weights, const std::string& path,
                        const std::string& weights_source)
{
    AtomicFile file;
    Status status = file.open(path);
    if (!status)
        return status;
    JsonWriter w(&file);
    write_trace_document(w, trace, weights, weights_source);
    w.flush();
    return file.commit();
}

Status write_weights_json(const ModelWeights& weights, const Config& config, const std::string& path)
{
    AtomicFile file;
    Status status = file.open(path);
    if (!status)
        return status;
    JsonWriter w(&file);
    w.begin_object();
    w.key("format");
    w.string(kWeightsFormat);
    w.key("version");
    w.number(kWeightsVersion);
    write_config(w, config);
    write_weights_object(w, weights);
    w.end_object();
    w.flush();
    return file.commit();
}

size_t trace_float_count(const Trace& trace)
{
    size_t n = batch_floats(trace.embedding) + static_cast<size_t>(trace.positional.size());
    for (const LayerTrace& layer : trace.layers)
    {
        n += attention_floats(layer.attn);
        for (const StageInfo& info : stage_table())
            if (info.layer_matrices != nullptr)
                n += batch_floats(layer.*info.layer_matrices);
    }
    // The model's own stages (LN_f, the heads, logits, probabilities, loss): empty in a seeded session's.
    for (const StageInfo& info : stage_table())
        if (info.model_matrices != nullptr && info.model_matrices != &Trace::embedding)
            n += batch_floats(trace.*info.model_matrices);
    n += batch_floats(trace.loss_uncounted);
    if (trace.has_cross)
        n += batch_floats(trace.cross.embedding) + static_cast<size_t>(trace.cross.positional.size()) +
             batch_floats(trace.cross.X_q) + batch_floats(trace.cross.X_kv) +
             attention_floats(trace.cross.attn);
    return n;
}

} // namespace attnlab
