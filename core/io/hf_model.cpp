// Loading a Hugging Face folder into the engine's model description, and running texts through it.
#include "hf_model.h"

#include "core/io/model_file.h"
#include "core/tokenizer.h"
#include "core/train/model_trace.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <new>
#include <utility>

namespace attnlab
{

namespace
{

// "124M", "4.4M", "20k": a parameter count as model cards write it.
std::string short_count(long long n)
{
    char buf[32];
    if (n >= 1000000000)
        std::snprintf(buf, sizeof buf, "%.1fB", static_cast<double>(n) / 1e9);
    else if (n >= 10000000)
        std::snprintf(buf, sizeof buf, "%lldM", (n + 500000) / 1000000);
    else if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(n) / 1e6);
    else if (n >= 1000)
        std::snprintf(buf, sizeof buf, "%lldk", (n + 500) / 1000);
    else
        std::snprintf(buf, sizeof buf, "%lld", n);
    return buf;
}

// Moves a stored vector (1 x n) into a (1, n) row of the model (stored is left with dst's old storage).
void put_row(Mat& stored, train::MatT<float>& dst)
{
    dst = std::move(stored); // no copy: stored is read again for the next tensor
}

// Puts a stored matrix into dst: transposed (a copy) when the rule says the file holds it output x input,
// else moved (stored is left with dst's old storage).
void put_matrix(Mat& stored, bool transpose, train::MatT<float>& dst)
{
    if (transpose)
        dst = stored.transpose();
    else
        dst = std::move(stored); // no copy: stored is read again for the next tensor
}

// Where a slot of the table goes among the parameters (nullptr: handled apart, or not used).
train::MatT<float>* slot_target(HfSlot slot, train::Params& p, train::LayerParamsT<float>* L)
{
    switch (slot)
    {
    case HfSlot::TokenEmbedding:
        return &p.E;
    case HfSlot::PositionEmbedding:
        return &p.P;
    case HfSlot::TokenTypeEmbedding:
        return &p.T_type;
    case HfSlot::EmbeddingNormGain:
        return &p.emb_gamma;
    case HfSlot::EmbeddingNormBias:
        return &p.emb_beta;
    case HfSlot::QueryWeight:
        return &L->W_Q;
    case HfSlot::QueryBias:
        return &L->b_Q;
    case HfSlot::KeyWeight:
        return &L->W_K;
    case HfSlot::KeyBias:
        return &L->b_K;
    case HfSlot::ValueWeight:
        return &L->W_V;
    case HfSlot::ValueBias:
        return &L->b_V;
    case HfSlot::OutWeight:
        return &L->W_O;
    case HfSlot::OutBias:
        return &L->b_O;
    case HfSlot::AttnNormGain:
        return &L->ln1_gamma;
    case HfSlot::AttnNormBias:
        return &L->ln1_beta;
    case HfSlot::FfnInWeight:
        return &L->W_1;
    case HfSlot::FfnInBias:
        return &L->b_1;
    case HfSlot::FfnOutWeight:
        return &L->W_2;
    case HfSlot::FfnOutBias:
        return &L->b_2;
    case HfSlot::FfnNormGain:
        return &L->ln2_gamma;
    case HfSlot::FfnNormBias:
        return &L->ln2_beta;
    case HfSlot::FinalNormGain:
        return &p.lnf_gamma;
    case HfSlot::FinalNormBias:
        return &p.lnf_beta;
    case HfSlot::MlmTransformWeight:
        return &p.W_T;
    case HfSlot::MlmTransformBias:
        return &p.b_T;
    case HfSlot::MlmNormGain:
        return &p.mlm_gamma;
    case HfSlot::MlmNormBias:
        return &p.mlm_beta;
    case HfSlot::MlmBias:
        return &p.b_U;
    case HfSlot::QkvWeight:
    case HfSlot::QkvBias:
    case HfSlot::LmHeadWeight:
    case HfSlot::MlmDecoderWeight:
    case HfSlot::MlmDecoderBias:
        return nullptr;
    }
    return nullptr;
}

// The index of the first element of data[0, n) that is not finite (NaN or infinity), or -1. Scans a block at
// a time with a test the compiler vectorises (exponent bits all ones), and looks for the element only in a
// block that has one (GPT-2 small's 124M numbers: a tenth of a second, where a test per number took half).
long long first_non_finite(const float* data, std::size_t n)
{
    constexpr std::size_t kBlock = 4096;
    for (std::size_t begin = 0; begin < n; begin += kBlock)
    {
        const std::size_t end = std::min(n, begin + kBlock);
        std::uint32_t any = 0;
        for (std::size_t i = begin; i < end; ++i)
        {
            std::uint32_t bits;
            std::memcpy(&bits, data + i, sizeof bits);
            any |= static_cast<std::uint32_t>((bits & 0x7F800000u) == 0x7F800000u);
        }
        if (any == 0)
            continue;
        for (std::size_t i = begin; i < end; ++i)
            if (!std::isfinite(data[i]))
                return static_cast<long long>(i);
    }
    return -1;
}

bool is_vector(HfSlot slot)
{
    switch (slot)
    {
    case HfSlot::EmbeddingNormGain:
    case HfSlot::EmbeddingNormBias:
    case HfSlot::QkvBias:
    case HfSlot::QueryBias:
    case HfSlot::KeyBias:
    case HfSlot::ValueBias:
    case HfSlot::OutBias:
    case HfSlot::AttnNormGain:
    case HfSlot::AttnNormBias:
    case HfSlot::FfnInBias:
    case HfSlot::FfnOutBias:
    case HfSlot::FfnNormGain:
    case HfSlot::FfnNormBias:
    case HfSlot::FinalNormGain:
    case HfSlot::FinalNormBias:
    case HfSlot::MlmTransformBias:
    case HfSlot::MlmNormGain:
    case HfSlot::MlmNormBias:
    case HfSlot::MlmBias:
    case HfSlot::MlmDecoderBias:
        return true;
    default:
        return false;
    }
}

// Reads every tensor of the plan into params (sized by size_params for config).
Status read_weights(const HfModel& files, const train::ModelConfig& config, train::Params* params,
                    const std::function<bool(double)>& progress)
{
    train::Params& p = *params;
    const int d = config.d_model;
    double total = 0, done = 0;
    for (const HfTensorRef& ref : files.plan.tensors)
        if (const TensorInfo* info = files.index.find(ref.name))
            total += static_cast<double>(info->end - info->begin);
    // The tensors that are moved in whole (put_row, put_matrix) give up the zeros size_params gave them
    // first, so the weights are held once while they are read, not twice.
    for (const HfTensorRef& ref : files.plan.tensors)
        if (!ref.transpose)
            if (train::MatT<float>* dst = slot_target(
                    ref.slot, p, ref.layer >= 0 ? &p.layers[static_cast<std::size_t>(ref.layer)] : nullptr))
                *dst = train::MatT<float>();
    Mat stored;
    for (const HfTensorRef& ref : files.plan.tensors)
    {
        if (progress && !progress(total > 0 ? done / total : 0.0))
            return Status::error("Opening " + files.folder + " was cancelled.");
        ATTNLAB_TRY(read_tensor(files.index, ref.name, &stored));
        if (const TensorInfo* info = files.index.find(ref.name))
            done += static_cast<double>(info->end - info->begin);
        train::LayerParamsT<float>* L =
            ref.layer >= 0 ? &p.layers[static_cast<std::size_t>(ref.layer)] : nullptr;
        if (const long long i = first_non_finite(stored.data(), static_cast<std::size_t>(stored.size()));
            i >= 0)
            return Status::error("Tensor " + ref.name + " holds a number that is not finite (NaN or " +
                                 "infinity) at element " + std::to_string(i) +
                                 ": the file is damaged. Download the model again.");
        switch (ref.slot)
        {
        case HfSlot::QkvWeight: // [W_Q | W_K | W_V] side by side, input x output
            L->W_Q = stored.middleCols(0, d);
            L->W_K = stored.middleCols(d, d);
            L->W_V = stored.middleCols(2 * d, d);
            break;
        case HfSlot::QkvBias:
            L->b_Q = stored.middleCols(0, d);
            L->b_K = stored.middleCols(d, d);
            L->b_V = stored.middleCols(2 * d, d);
            break;
        case HfSlot::LmHeadWeight:
        case HfSlot::MlmDecoderWeight:
            // The unembedding: tied models save it too. One equal to the token embedding is the tie itself.
            if (stored != p.E)
                return Status::error(
                    "Tensor " + ref.name +
                    " differs from the token embedding: Attention Lab reads models whose output layer is "
                    "tied to the token embedding (as GPT-2 and BERT are), and this one is not.");
            break;
        case HfSlot::MlmDecoderBias:
            if (config.unembedding_bias && p.b_U.size() == stored.size() && stored != p.b_U)
                return Status::error("Tensor " + ref.name +
                                     " differs from cls.predictions.bias: the file is inconsistent.");
            break;
        default:
        {
            train::MatT<float>* dst = slot_target(ref.slot, p, L);
            if (dst == nullptr)
                break;
            if (is_vector(ref.slot))
                put_row(stored, *dst);
            else
                put_matrix(stored, ref.transpose, *dst);
            break;
        }
        }
    }
    return Status::ok();
}

// Declared here, defined after load_hf_model, which they serve.
Status read_params(HfLoadedModel& m, const std::function<bool(double)>& progress);
std::vector<std::string> display_vocabulary(const HfTokenizer& tokenizer, int vocab_size);

} // namespace

std::string HfLoadedModel::label() const
{
    return std::string(is_gpt2() ? "GPT-2" : "BERT") + " (" + short_count(parameters) + " parameters)";
}

std::string HfLoadedModel::source() const
{
    return label() + ", pretrained, from " + files.folder;
}

Status hf_model_config(const HfConfig& hf, bool mlm_head, train::ModelConfig* out)
{
    const bool gpt2 = hf.architecture == HfArchitecture::Gpt2;
    if (gpt2 && !hf.scale_attn_weights)
        return Status::error("config.json sets scale_attn_weights to false (scores not divided by √d_k): "
                             "Attention Lab reads GPT-2 models that scale them, as every released one does.");
    // The engine's limits, said with config.json's own keys (the engine's message would name n_layers and
    // d_model, which the file does not have).
    struct Limit
    {
        int value, most;
        const char *gpt2_key, *bert_key, *what;
    };
    const Limit limits[] = {
        {hf.n_layers, train::kMaxLayers, "n_layer", "num_hidden_layers", "layers"},
        {hf.d_model, train::kMaxDModel, "n_embd", "hidden_size", "a width (d_model)"},
        {hf.d_ff, train::kMaxDFF, "n_inner", "intermediate_size", "a feed-forward width"},
        {hf.vocab_size, 65536, "vocab_size", "vocab_size", "a vocabulary"},
    };
    for (const Limit& l : limits)
        if (l.value > l.most)
            return Status::error(
                "config.json's " + std::string(gpt2 ? l.gpt2_key : l.bert_key) + " is " +
                std::to_string(l.value) + ": Attention Lab runs models of at most " + std::to_string(l.most) +
                " " + (std::string(l.what) == "layers" ? "layers" : "in " + std::string(l.what)) +
                " (GPT-2 medium and BERT-large have 24 layers of width 1024): open a smaller "
                "model");
    train::ModelConfig c;
    c.vocab_size = hf.vocab_size;
    c.T_max = hf.n_positions;
    c.d_model = hf.d_model;
    c.n_heads = hf.n_heads;
    c.n_layers = hf.n_layers;
    c.d_ff = hf.d_ff;
    c.attention_only = false;
    c.norm = gpt2 ? train::NormPlacement::Pre : train::NormPlacement::Post;
    c.positions = train::PositionKind::Learned;
    c.residual = true;
    c.causal = gpt2;
    c.activation = hf.activation == HfActivation::GeluTanh  ? train::Activation::GeluTanh
                   : hf.activation == HfActivation::GeluErf ? train::Activation::GeluErf
                                                            : train::Activation::Relu;
    c.layer_norm_eps = hf.layer_norm_eps;
    c.attention_bias = true;
    c.token_types = gpt2 ? 0 : hf.type_vocab_size;
    c.embedding_norm = !gpt2;
    c.scale_by_layer = gpt2 && hf.scale_attn_by_inverse_layer_idx;
    c.mlm_head = !gpt2 && mlm_head;
    c.tied_unembedding = true;
    c.unembedding_bias = c.mlm_head;
    const Status valid = train::validate(c);
    if (!valid)
        return Status::error("config.json describes a model beyond what Attention Lab runs: " +
                             valid.message());
    *out = c;
    return Status::ok();
}

namespace
{

// "1.4 GB" for a size in bytes.
std::string gigabytes(double bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    return text;
}

Status load_hf_model_of(const std::string& folder, HfLoadedModel& m,
                        const std::function<bool(double)>& progress);

} // namespace

Status check_hf_model_size(const train::ModelConfig& c, const std::string& folder)
{
    const double weight_bytes = 4.0 * static_cast<double>(train::parameter_count(c));
    if (weight_bytes <= kMaxHfWeightBytes)
        return Status::ok();
    return Status::error(
        path_for_message(folder) + ": config.json describes a model of " +
        std::to_string(train::parameter_count(c) / 1000000) +
        " million parameters, whose weights would take " + gigabytes(weight_bytes) +
        " of memory as float, more than the " + gigabytes(kMaxHfWeightBytes) +
        " Attention Lab opens (GPT-2 medium and BERT-large take 1.4 GB): open a smaller model");
}

Status load_hf_model(const std::string& folder, HfLoadedModel* out,
                     const std::function<bool(double)>& progress)
{
    // config.json's sizes first, against the engine's limits and the memory its weights would take: a model
    // too large is refused before its safetensors header is read and checked against them.
    HfConfig early_config;
    ATTNLAB_TRY(read_hf_config(folder, &early_config));
    train::ModelConfig early;
    if (Status s = hf_model_config(early_config, false, &early); !s)
        return Status::error(path_for_message(folder) + "/" + s.message());
    ATTNLAB_TRY(check_hf_model_size(early, folder));
    HfLoadedModel m;
    ATTNLAB_TRY(open_hf_model(folder, &m.files));
    ATTNLAB_TRY(hf_model_config(m.files.config, m.files.plan.has_head, &m.config));
    ATTNLAB_TRY(check_hf_model_size(m.config, folder));
    const double weight_bytes = 4.0 * static_cast<double>(train::parameter_count(m.config));
    // The size above bounds what is read; a machine with less free memory than that still ends here, with
    // its size named, rather than in an abort.
    try
    {
        ATTNLAB_TRY(load_hf_model_of(folder, m, progress));
    }
    catch (const std::bad_alloc&)
    {
        return Status::error("not enough memory to open " + path_for_message(folder) + ": its weights take " +
                             gigabytes(weight_bytes) +
                             " as float; close other programs or open a smaller model");
    }
    *out = std::move(m);
    return Status::ok();
}

namespace
{

Status load_hf_model_of(const std::string& folder, HfLoadedModel& m,
                        const std::function<bool(double)>& progress)
{
    // The tokenizer and the display vocabulary are read on a second thread while this one reads the weights
    // (GPT-2: about a third of the time to open). Its failure stops the weights early, and its message comes
    // first, as when the tokenizer was read before the weights.
    std::atomic<bool> tokenizer_failed{false};
    std::unique_ptr<HfTokenizer> tokenizer;
    std::future<Status> tokenizer_read =
        std::async(std::launch::async,
                   [&]
                   {
                       Status s = read_hf_tokenizer(folder, m.files.config.architecture, &tokenizer);
                       if (s && tokenizer->vocab_size() <= m.config.vocab_size)
                           m.vocabulary = display_vocabulary(*tokenizer, m.config.vocab_size);
                       tokenizer_failed = !s || tokenizer->vocab_size() > m.config.vocab_size;
                       return s;
                   });
    const Status weights = read_params(m, [&](double fraction)
                                       { return !tokenizer_failed && (!progress || progress(fraction)); });
    ATTNLAB_TRY(tokenizer_read.get());
    if (tokenizer->vocab_size() > m.config.vocab_size)
    {
        // Named by its largest id, the one past vocab_size (a count would mislead: one stray id of 10^7 is
        // not ten million tokens).
        const int largest = tokenizer->vocab_size() - 1;
        const std::string whole = tokenizer->token(largest);
        const std::string token = std::string(utf8_prefix(whole, 40)) + (whole.size() > 40 ? "…" : "");
        return Status::error(
            path_for_message(folder) +
            ": the tokenizer's files (vocab.json, vocab.txt or tokenizer.json) give the token \"" + token +
            "\" the id " + std::to_string(largest) + ", but config.json's vocab_size is " +
            std::to_string(m.config.vocab_size) + " (ids 0 to " + std::to_string(m.config.vocab_size - 1) +
            "): the tokenizer and config.json belong to different models; take both from the "
            "same one.");
    }
    ATTNLAB_TRY(weights);
    if (progress)
        progress(1.0);
    m.parameters = train::parameter_count(m.config);
    m.mask_id = m.is_gpt2() ? -1 : tokenizer->id("[MASK]");
    m.tokenizer = std::move(tokenizer);
    return Status::ok();
}

// Every weight of the plan read into a new m.params (read_weights), m.params set only when all are in.
Status read_params(HfLoadedModel& m, const std::function<bool(double)>& progress)
{
    auto params = std::make_shared<train::Params>();
    // Every tensor the plan fills gets its shape first, left unwritten, so size_params does not fill it with
    // zeros that read_weights replaces at once (GPT-2 small: 500 MB touched for nothing): the file's shape,
    // reversed when the rule transposes it, and a third of GPT-2's c_attn for each of W_Q, W_K and W_V.
    params->layers.resize(static_cast<std::size_t>(m.config.n_layers));
    for (const HfTensorRef& ref : m.files.plan.tensors)
    {
        if (ref.layer >= m.config.n_layers)
            continue;
        train::LayerParamsT<float>* L =
            ref.layer >= 0 ? &params->layers[static_cast<std::size_t>(ref.layer)] : nullptr;
        Eigen::Index rows = 1;
        for (std::size_t i = 0; i + 1 < ref.shape.size(); ++i)
            rows *= static_cast<Eigen::Index>(ref.shape[i]);
        const Eigen::Index cols = ref.shape.empty() ? 1 : static_cast<Eigen::Index>(ref.shape.back());
        if ((ref.slot == HfSlot::QkvWeight || ref.slot == HfSlot::QkvBias) && L != nullptr)
        {
            const bool weight = ref.slot == HfSlot::QkvWeight;
            for (train::MatT<float>* part :
                 {weight ? &L->W_Q : &L->b_Q, weight ? &L->W_K : &L->b_K, weight ? &L->W_V : &L->b_V})
            {
                part->resize(rows, cols / 3);
                prepare_tensor_memory(part->data(), static_cast<std::size_t>(part->size()));
            }
            continue;
        }
        train::MatT<float>* dst = slot_target(ref.slot, *params, L);
        if (dst == nullptr)
            continue;
        if (ref.transpose)
        {
            dst->resize(cols, rows); // written in place by the transpose
            prepare_tensor_memory(dst->data(), static_cast<std::size_t>(dst->size()));
        }
        else
            dst->resize(rows, cols); // replaced by the tensor read, see read_weights
    }
    train::size_params(m.config, *params);
    ATTNLAB_TRY(read_weights(m.files, m.config, params.get(), progress));
    m.params = std::move(params);
    return Status::ok();
}

// [V] each id as a token chip shows it ("#id" for an id the tokenizer does not have).
std::vector<std::string> display_vocabulary(const HfTokenizer& tokenizer, int vocab_size)
{
    std::vector<std::string> vocabulary(static_cast<std::size_t>(vocab_size));
    for (int id = 0; id < vocab_size; ++id)
    {
        std::string piece = tokenizer.piece(id);
        vocabulary[static_cast<std::size_t>(id)] =
            piece.empty() ? "#" + std::to_string(id) : std::move(piece);
    }
    return vocabulary;
}

} // namespace

Status encode_for_model(const HfLoadedModel& model, std::string_view text, Encoding* out)
{
    Encoding e;
    ATTNLAB_TRY(model.tokenizer->encode(text, &e));
    if (e.ids.empty())
        return Status::error("The text has no token: type a word for " + model.label() + " to read.");
    if (static_cast<int>(e.ids.size()) > model.config.T_max)
        return Status::error("The text is " + std::to_string(e.ids.size()) + " tokens long, but " +
                             model.label() + " reads at most " + std::to_string(model.config.T_max) +
                             " (its context length): shorten the text.");
    for (const int id : e.ids)
        if (id < 0 || id >= model.config.vocab_size)
            return Status::error("The tokenizer gave id " + std::to_string(id) + ", beyond the model's " +
                                 std::to_string(model.config.vocab_size) +
                                 " embeddings: the tokenizer files do not belong to this model.");
    *out = std::move(e);
    return Status::ok();
}

Status run_hf_ids(const HfLoadedModel& model, const std::vector<int>& ids, HfRun* run,
                  const train::HeadMask* heads_off)
{
    const int T = static_cast<int>(ids.size());
    if (T < 1 || T > model.config.T_max)
        return Status::error("A run needs between 1 and " + std::to_string(model.config.T_max) +
                             " tokens, not " + std::to_string(T) + ".");
    for (const int id : ids)
        if (id < 0 || id >= model.config.vocab_size)
            return Status::error("Token id " + std::to_string(id) + " is not in the model's vocabulary of " +
                                 std::to_string(model.config.vocab_size) + ".");
    if (heads_off != nullptr && !heads_off->empty() &&
        heads_off->size() != static_cast<std::size_t>(model.config.n_layers * model.config.n_heads))
        return Status::error("The switched-off heads do not match the model's layers x heads.");
    train::Batch& batch = run->batch;
    batch.resize(1, T);
    for (int t = 0; t < T; ++t)
    {
        const auto i = static_cast<std::size_t>(t);
        batch.tokens[i] = ids[i];
        const bool next = model.is_gpt2() && t + 1 < T;
        batch.targets[i] = next ? ids[i + 1] : -1;
        batch.loss_mask[i] = next ? 1 : 0;
        batch.acc_mask[i] = batch.loss_mask[i];
    }
    train::size_activations(model.config, 1, T, run->acts);
    train::forward<float>(model.config, *model.params, batch, run->acts, nullptr, train::Detail::Full,
                          heads_off);
    // Weights that load can still be too large for float arithmetic (a damaged or hand-made file): an
    // overflow ends as an infinity or NaN in the logits, which would reach the screen.
    if (!run->acts.logits.allFinite())
        return Status::error(
            "The model's numbers overflow float arithmetic on this text (its weights are too "
            "large): the folder's weights are damaged. Download the model again.");
    return Status::ok();
}

Status run_hf_text(const HfLoadedModel& model, std::string_view text, HfRun* run,
                   const train::HeadMask* heads_off)
{
    Encoding e;
    ATTNLAB_TRY(encode_for_model(model, text, &e));
    ATTNLAB_TRY(run_hf_ids(model, e.ids, run, heads_off));
    run->encoding = std::move(e);
    return Status::ok();
}

void fill_hf_trace(const HfLoadedModel& model, const HfRun& run, Trace* trace)
{
    train::fill_trace(model.config, *model.params, run.batch, run.acts, nullptr, model.vocabulary, *trace);
    trace->model_source = model.source();
}

void take_hf_trace(const HfLoadedModel& model, HfRun& run, Trace* trace)
{
    train::take_trace(model.config, *model.params, run.batch, run.acts, model.vocabulary, *trace);
    trace->model_source = model.source();
}

Status write_hf_run_json(const HfLoadedModel& model, const HfRun& run, const std::string& path)
{
    OpenedModelPass pass;
    pass.config = &model.config;
    pass.params = model.params.get();
    pass.batch = &run.batch;
    pass.acts = &run.acts;
    pass.architecture = model.files.config.model_type;
    pass.label = model.label();
    pass.source = model.source();
    pass.folder = model.files.folder;
    pass.parameters = model.parameters;
    pass.pieces = run.encoding.pieces;
    pass.vocab_tokens = run.encoding.tokens;
    return write_opened_model_trace_json(pass, path);
}

} // namespace attnlab
