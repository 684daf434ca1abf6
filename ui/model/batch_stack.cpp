// The whole batch of one pipeline stage as B slices with its [B, rows, cols] shape (see batch_stack.h).
#include "ui/model/batch_stack.h"

namespace attnlab
{

namespace
{

// The sentence's tokens (padding left out), cut after about 40 characters.
std::string sentence_text(const std::vector<std::string>& tokens)
{
    std::string text;
    for (const std::string& token : tokens)
    {
        if (token == kPadToken)
            break;
        if (text.size() > 40)
        {
            text += " …";
            break;
        }
        text += (text.empty() ? "" : " ") + token;
    }
    return text;
}

} // namespace

BatchStack batch_stack(const AppState& state, const MatrixRef& ref)
{
    BatchStack stack;
    if (!state.has_trace() || ref.source == MatrixSource::Comparison)
        return stack;
    const Trace& t = state.trace();
    const int B = t.batch_size();
    const StageInfo& info = stage_info(ref.stage);
    if (B < 2 || info.shared_matrix != nullptr)
        return stack;
    const bool cross = ref.source == MatrixSource::Cross;
    const int T_q = cross ? t.cross.target.T : t.T();
    const StageDims d =
        stage_dims(t.config, ref.stage, T_q, t.T(), cross, static_cast<int>(t.vocabulary.size()));
    stack.name = info.key;
    if (info.per_head)
        stack.name += " (head " + std::to_string(ref.head + 1) + ")";
    if (cross)
        stack.name = "cross " + stack.name;
    stack.symbols = "[B, " + d.row_symbol + ", " + d.col_symbol + "]";
    stack.shape =
        "[" + std::to_string(B) + ", " + std::to_string(d.rows) + ", " + std::to_string(d.cols) + "]";
    for (int b = 0; b < B; ++b)
    {
        BatchSlice slice;
        slice.ref = ref;
        slice.ref.b = b;
        if (resolve_matrix(state, slice.ref).m == nullptr)
        {
            stack.slices.clear(); // a stage this trace does not have
            return stack;
        }
        slice.label = "b = " + std::to_string(b) + " · sentence " + std::to_string(b + 1) + ": " +
                      sentence_text(t.tokens.tokens[static_cast<std::size_t>(b)]);
        stack.slices.push_back(std::move(slice));
    }
    return stack;
}

} // namespace attnlab
