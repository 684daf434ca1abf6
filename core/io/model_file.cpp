// Trained model files ("attnlab-model") and traces of a trained model's pass ("attnlab-model-trace").
#include "model_file.h"

#include "atomic_file.h"
#include "json_parse.h"
#include "json_reader.h"
#include "json_writer.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <tuple>
#include <utility>

namespace attnlab
{

using train::ModelConfig;
using train::NormPlacement;
using train::Params;
using train::PositionKind;
using train::Schedule;

namespace
{

using json = nlohmann::json;

constexpr const char* kTextTask = "text"; // the key of TaskKind::Text's row

const char* norm_name(NormPlacement norm)
{
    return norm == NormPlacement::Pre ? "pre" : "post";
}
const char* positions_name(PositionKind positions)
{
    return train::to_string(positions);
}
const char* schedule_name(Schedule schedule)
{
    return schedule == Schedule::Constant ? "constant" : "warmup_cosine";
}

// The config's sizes in the order they are written, with the limits train::validate checks (ModelConfigLimits
// test: they agree), so a value out of range is named with its real limits; validate then checks how they fit
// together.
struct ConfigInt
{
    const char* key;
    int ModelConfig::*member;
    IntRange range;
};
const ConfigInt kConfigInts[] = {
    {"vocab_size", &ModelConfig::vocab_size, {2, 65536}},
    {"T_max", &ModelConfig::T_max, {1, 4096}},
    {"d_model", &ModelConfig::d_model, {1, 4096}},
    {"heads", &ModelConfig::n_heads, {1, 4096, "and d_model must be a multiple of it"}},
    {"layers", &ModelConfig::n_layers, {1, 24}},
    {"d_ff", &ModelConfig::d_ff, {0, 16384, "0: 4 d_model"}},
};

// [SECTION] Writing

// rows x n floats, row r at base + r·stride: [[...], ...].
void write_rows(JsonWriter& w, const float* base, Eigen::Index rows, Eigen::Index stride, int n)
{
    w.begin_array(true);
    for (Eigen::Index r = 0; r < rows; ++r)
        w.row(base + r * stride, n);
    w.end_array();
}

void write_row_vector(JsonWriter& w, const Mat& m)
{
    w.row(m.data(), static_cast<int>(m.size()));
}

// A (rows, h·d_k) matrix as h matrices (rows, d_k): [h][rows][d_k].
void write_heads(JsonWriter& w, const Mat& m, int h, int d_k)
{
    w.begin_array(true);
    for (int j = 0; j < h; ++j)
        write_rows(w, m.data() + static_cast<Eigen::Index>(j) * d_k, m.rows(), m.cols(), d_k);
    w.end_array();
}

// The sizes of kConfigInts, each under its key (inside an object being written).
void write_config_sizes(JsonWriter& w, const ModelConfig& c)
{
    for (const ConfigInt& field : kConfigInts)
    {
        w.key(field.key);
        w.number(c.*field.member);
    }
}

// "resolved": the sizes that follow from the others.
void write_resolved_sizes(JsonWriter& w, const ModelConfig& c)
{
    w.key("resolved");
    w.begin_object();
    w.key("d_k");
    w.number(c.d_k());
    w.key("d_v");
    w.number(c.d_v());
    w.key("d_ff");
    w.number(c.resolved_d_ff());
    w.end_object();
}

void write_config(JsonWriter& w, const ModelConfig& c)
{
    w.begin_object();
    write_config_sizes(w, c);
    w.key("attention_only");
    w.boolean(c.attention_only);
    w.key("norm");
    w.string(norm_name(c.norm));
    w.key("positions");
    w.string(positions_name(c.positions));
    w.key("residual");
    w.boolean(c.residual);
    w.key("causal");
    w.boolean(c.causal);
    w.key("seed");
    w.number(static_cast<unsigned long long>(c.seed));
    write_resolved_sizes(w, c);
    w.end_object();
}

void write_settings(JsonWriter& w, const train::TrainSettings& t)
{
    const train::OptimizerSettings& o = t.optimizer;
    w.begin_object();
    w.key("batch_size");
    w.number(t.batch_size);
    w.key("steps");
    w.number(t.steps);
    w.key("lr");
    w.number(o.lr);
    w.key("beta1");
    w.number(o.beta1);
    w.key("beta2");
    w.number(o.beta2);
    w.key("eps");
    w.number(o.eps);
    w.key("weight_decay");
    w.number(o.weight_decay);
    w.key("grad_clip");
    w.number(o.grad_clip);
    w.key("schedule");
    w.string(schedule_name(o.schedule));
    w.key("warmup_steps");
    w.number(o.warmup_steps);
    w.key("total_steps");
    w.number(o.total_steps);
    w.key("min_lr_ratio");
    w.number(o.min_lr_ratio);
    w.key("data_seed");
    w.number(static_cast<unsigned long long>(t.data_seed));
    w.key("held_out_size");
    w.number(t.held_out_size);
    w.end_object();
}

void write_history(JsonWriter& w, const std::vector<MetricRow>& history)
{
    w.begin_array(true);
    for (const MetricRow& row : history)
    {
        w.begin_object();
        w.key("step");
        w.number(row.step);
        w.key("loss");
        w.number(row.loss);
        w.key("held_out_loss");
        w.number(row.held_out_loss);
        w.key("accuracy");
        w.number(row.accuracy);
        w.key("previous_token");
        w.row(row.previous_token.data(), static_cast<int>(row.previous_token.size()));
        w.key("induction");
        w.row(row.induction.data(), static_cast<int>(row.induction.size()));
        if (!row.word_start.empty())
        {
            w.key("word_start");
            w.row(row.word_start.data(), static_cast<int>(row.word_start.size()));
        }
        if (!row.diagonal.empty())
        {
            w.key("diagonal");
            w.row(row.diagonal.data(), static_cast<int>(row.diagonal.size()));
        }
        if (!row.anti_diagonal.empty())
        {
            w.key("anti_diagonal");
            w.row(row.anti_diagonal.data(), static_cast<int>(row.anti_diagonal.size()));
        }
        w.end_object();
    }
    w.end_array();
}

// The "weights" object (also the layout of "gradients.weights" in a trace).
void write_weights(JsonWriter& w, const ModelConfig& c, const Params& p)
{
    const int h = c.n_heads, d_k = c.d_k(), d_v = c.d_v();
    w.begin_object();
    w.key("embedding");
    w.matrix(p.E);
    if (c.positions == PositionKind::Learned)
    {
        w.key("positions");
        w.matrix(p.P);
    }
    w.key("layers");
    w.begin_array(true);
    for (const train::LayerParamsT<float>& layer : p.layers)
    {
        w.begin_object();
        w.key("W_Q");
        write_heads(w, layer.W_Q, h, d_k);
        w.key("W_K");
        write_heads(w, layer.W_K, h, d_k);
        w.key("W_V");
        write_heads(w, layer.W_V, h, d_v);
        w.key("W_O");
        w.matrix(layer.W_O);
        if (c.has_ffn())
        {
            w.key("W_1");
            w.matrix(layer.W_1);
            w.key("b_1");
            write_row_vector(w, layer.b_1);
            w.key("W_2");
            w.matrix(layer.W_2);
            w.key("b_2");
            write_row_vector(w, layer.b_2);
        }
        w.key("gamma_1");
        write_row_vector(w, layer.ln1_gamma);
        w.key("beta_1");
        write_row_vector(w, layer.ln1_beta);
        if (c.has_ffn())
        {
            w.key("gamma_2");
            write_row_vector(w, layer.ln2_gamma);
            w.key("beta_2");
            write_row_vector(w, layer.ln2_beta);
        }
        w.end_object();
    }
    w.end_array();
    if (c.has_final_norm())
    {
        w.key("ln_f");
        w.begin_object();
        w.key("gamma");
        write_row_vector(w, p.lnf_gamma);
        w.key("beta");
        write_row_vector(w, p.lnf_beta);
        w.end_object();
    }
    w.key("W_U");
    w.matrix(p.W_U);
    w.key("b_U");
    write_row_vector(w, p.b_U);
    w.end_object();
}

// A 64-bit hash as 16 hexadecimal digits (JSON numbers lose precision past 2^53).
std::string hex64(std::uint64_t v)
{
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
    return s;
}

void write_text(JsonWriter& w, const TrainedText& t)
{
    w.key("text");
    w.begin_object();
    if (!t.corpus.empty())
    {
        w.key("corpus");
        w.string(t.corpus);
    }
    else
    {
        w.key("file");
        w.string(t.file);
        w.key("bytes");
        w.number(static_cast<unsigned long long>(t.bytes));
        w.key("fnv1a64");
        w.string(hex64(t.hash));
    }
    w.key("repeat");
    w.number(t.repeat);
    w.key("min_count");
    w.number(t.min_count);
    if (t.level == train::TextLevel::Word) // absent: a character model, as every file before the word level
    {
        w.key("level");
        w.string(train::text_level_key(t.level));
        w.key("max_words");
        w.number(t.max_words);
    }
    w.end_object();
}

void write_model(JsonWriter& w, const TrainedModel& m)
{
    w.begin_object();
    w.key("format");
    w.string(kModelFormat);
    w.key("version");
    w.number(kModelVersion);
    w.key("task");
    w.string(m.task);
    w.key("config");
    write_config(w, m.config);
    w.key("vocabulary");
    w.begin_array(false);
    for (const std::string& token : m.vocabulary)
        w.string(token);
    w.end_array();
    if (m.task == kTextTask)
        write_text(w, m.text);
    w.key("training");
    write_settings(w, m.settings);
    w.key("step");
    w.number(m.steps_taken);
    w.key("history");
    write_history(w, m.history);
    if (m.has_view)
    {
        w.key("view");
        w.begin_object();
        w.key("step");
        w.number(m.view_step);
        w.key("main_panels");
        w.boolean(m.view_main_panels);
        w.key("probe");
        w.string(m.view_probe);
        w.end_object();
    }
    w.key("weights");
    write_weights(w, m.config, m.params);
    w.end_object();
}

// [SECTION] Reading

using Reader = JsonReader;

Status read_config(const Reader& r, const json& root, ModelConfig* out)
{
    const json* j = nullptr;
    ATTNLAB_TRY(r.member(root, "", "config", Need::Required, &j));
    const std::string f = "config";
    ModelConfig c;
    for (const ConfigInt& field : kConfigInts)
        ATTNLAB_TRY(r.integer(*j, f, field.key, field.range, &(c.*field.member)));
    ATTNLAB_TRY(r.boolean(*j, f, "attention_only", &c.attention_only));
    ATTNLAB_TRY(
        r.choice(*j, f, "norm", {{"pre", NormPlacement::Pre}, {"post", NormPlacement::Post}}, &c.norm));
    ATTNLAB_TRY(r.choice(*j, f, "positions",
                         {{"learned", PositionKind::Learned},
                          {"sinusoidal", PositionKind::Sinusoidal},
                          {"none", PositionKind::None}},
                         &c.positions));
    // Absent in files written before the switch existed: those models add the input back.
    ATTNLAB_TRY(r.boolean(*j, f, "residual", &c.residual, Need::Optional));
    ATTNLAB_TRY(r.boolean(*j, f, "causal", &c.causal));
    ATTNLAB_TRY(r.uint64(*j, f, "seed", &c.seed));
    if (Status valid = train::validate(c); !valid)
        return r.error("\"config\": " + valid.message());
    *out = c;
    return Status::ok();
}

Status read_settings(const Reader& r, const json& root, train::TrainSettings* out)
{
    const json* j = nullptr;
    ATTNLAB_TRY(r.member(root, "", "training", Need::Required, &j));
    const std::string f = "training";
    train::TrainSettings t;
    train::OptimizerSettings& o = t.optimizer;
    ATTNLAB_TRY(r.integer(*j, f, "batch_size", {1, 4096}, &t.batch_size));
    ATTNLAB_TRY(r.integer(*j, f, "steps", {0, INT_MAX}, &t.steps));
    ATTNLAB_TRY(r.real(*j, f, "lr", RealRange{}, &o.lr));
    ATTNLAB_TRY(r.real(*j, f, "beta1", RealRange{}, &o.beta1));
    ATTNLAB_TRY(r.real(*j, f, "beta2", RealRange{}, &o.beta2));
    ATTNLAB_TRY(r.real(*j, f, "eps", RealRange{}, &o.eps));
    ATTNLAB_TRY(r.real(*j, f, "weight_decay", RealRange{}, &o.weight_decay));
    ATTNLAB_TRY(r.real(*j, f, "grad_clip", RealRange{}, &o.grad_clip));
    ATTNLAB_TRY(r.choice(*j, f, "schedule",
                         {{"constant", Schedule::Constant}, {"warmup_cosine", Schedule::WarmupCosine}},
                         &o.schedule));
    ATTNLAB_TRY(r.integer(*j, f, "warmup_steps", {0, INT_MAX}, &o.warmup_steps));
    ATTNLAB_TRY(r.integer(*j, f, "total_steps", {0, INT_MAX}, &o.total_steps));
    ATTNLAB_TRY(r.real(*j, f, "min_lr_ratio", RealRange{}, &o.min_lr_ratio));
    ATTNLAB_TRY(r.uint64(*j, f, "data_seed", &t.data_seed));
    ATTNLAB_TRY(r.integer(*j, f, "held_out_size", {1, 100000}, &t.held_out_size));
    *out = t;
    return Status::ok();
}

// text: a text model's (its level says what a token is), null for the other tasks.
Status read_vocabulary(const Reader& r, const json& root, int vocab_size, const TrainedText* text,
                       std::vector<std::string>* out)
{
    const json* j = nullptr;
    ATTNLAB_TRY(r.member(root, "", "vocabulary", Need::Required, &j));
    if (!j->is_array() || j->empty() || static_cast<long long>(j->size()) > vocab_size)
        return r.error("vocabulary", "should be a list of 1 to vocab_size = " + std::to_string(vocab_size) +
                                         " token strings, got " + describe_json(*j));
    std::vector<std::string> vocabulary;
    for (size_t i = 0; i < j->size(); ++i)
    {
        const json& token = (*j)[i];
        const std::string field = "vocabulary[" + std::to_string(i) + "]";
        if (!token.is_string())
            return r.error(field, "must be a string, got " + describe_json(token));
        const std::string& s = token.get_ref<const std::string&>();
        if (!text && (s.empty() || s.find_first_of(" \t\r\n") != std::string::npos))
            return r.error(field, "must be a token without spaces, got " + json_excerpt(token));
        vocabulary.push_back(s);
    }
    // A text model's tokens are characters (a space and a line feed among them) or words and marks, after the
    // unknown symbol.
    train::TextVocabulary checked;
    if (text)
        if (Status s = train::TextVocabulary::from_symbols(text->level, vocabulary, &checked); !s)
            return r.error("vocabulary", s.message());
    *out = std::move(vocabulary);
    return Status::ok();
}

Status read_history(const Reader& r, const json& root, int n_scores, std::vector<MetricRow>* out)
{
    const json* j = nullptr;
    ATTNLAB_TRY(r.member(root, "", "history", Need::Required, &j));
    if (!j->is_array())
        return r.error("history", "must be a list of logged steps, got " + describe_json(*j));
    std::vector<MetricRow> history(j->size());
    for (size_t i = 0; i < j->size(); ++i)
    {
        const json& row = (*j)[i];
        const std::string f = "history[" + std::to_string(i) + "]";
        MetricRow& m = history[i];
        ATTNLAB_TRY(r.integer(row, f, "step", {0, INT_MAX}, &m.step));
        const json* field = nullptr;
        ATTNLAB_TRY(r.member(row, f, "loss", Need::Required, &field));
        ATTNLAB_TRY(r.number_value(*field, f + ".loss", &m.loss, true));
        ATTNLAB_TRY(r.member(row, f, "held_out_loss", Need::Required, &field));
        ATTNLAB_TRY(r.number_value(*field, f + ".held_out_loss", &m.held_out_loss, true));
        ATTNLAB_TRY(r.member(row, f, "accuracy", Need::Required, &field));
        ATTNLAB_TRY(r.number_value(*field, f + ".accuracy", &m.accuracy, true));
        // Word start (text models), diagonal and anti-diagonal (kept since later versions) are optional.
        const std::pair<const char*, std::vector<float>*> rows[] = {{"previous_token", &m.previous_token},
                                                                    {"induction", &m.induction},
                                                                    {"word_start", &m.word_start},
                                                                    {"diagonal", &m.diagonal},
                                                                    {"anti_diagonal", &m.anti_diagonal}};
        for (const auto& [key, kept] : rows)
        {
            std::vector<float>& scores = *kept;
            const Need need =
                kept == &m.previous_token || kept == &m.induction ? Need::Required : Need::Optional;
            ATTNLAB_TRY(r.member(row, f, key, need, &field));
            if (field == nullptr)
                continue;
            const std::string name = f + "." + key;
            if (!field->is_array() || static_cast<int>(field->size()) != n_scores)
                return r.error(name, "should be a list of layers·heads = " + std::to_string(n_scores) +
                                         " numbers, got " + describe_json(*field));
            scores.resize(static_cast<size_t>(n_scores));
            for (int k = 0; k < n_scores; ++k)
                ATTNLAB_TRY(r.number_value((*field)[static_cast<size_t>(k)],
                                           name + "[" + std::to_string(k) + "]",
                                           &scores[static_cast<size_t>(k)], true));
        }
    }
    *out = std::move(history);
    return Status::ok();
}

// The "text" object of a text model (required there, refused elsewhere).
Status read_text(const Reader& r, const json& root, bool text_model, TrainedText* out)
{
    if (!text_model)
        return r.absent(root, "", "text", "only a text model records its text");
    const json* j = nullptr;
    ATTNLAB_TRY(r.member(root, "", "text", Need::Required, &j));
    if (!j->is_object())
        return r.error("text", "must be an object {\"corpus\"} or {\"file\", \"bytes\", \"fnv1a64\"}, got " +
                                   describe_json(*j));
    const std::string f = "text";
    TrainedText t;
    ATTNLAB_TRY(r.unknown_keys(
        *j, f, {"corpus", "file", "bytes", "fnv1a64", "repeat", "min_count", "level", "max_words"}));
    ATTNLAB_TRY(r.string(*j, f, "corpus", &t.corpus, Need::Optional));
    if (!t.corpus.empty())
    {
        bool known = false;
        for (const train::BuiltinCorpus& c : train::builtin_corpora())
            known = known || t.corpus == c.key;
        if (!known)
            return r.error("text.corpus", "must be a built-in text (" + train::builtin_corpus_keys() +
                                              "), got \"" + t.corpus + "\"");
        ATTNLAB_TRY(r.absent(*j, f, "file", "a built-in corpus has no file"));
    }
    else
    {
        ATTNLAB_TRY(r.string(*j, f, "file", &t.file));
        if (t.file.empty())
            return r.error("text", "needs a \"corpus\" (" + train::builtin_corpus_keys() + ") or a \"file\"");
        ATTNLAB_TRY(r.uint64(*j, f, "bytes", &t.bytes));
        std::string hash;
        ATTNLAB_TRY(r.string(*j, f, "fnv1a64", &hash));
        char* end = nullptr;
        t.hash = std::strtoull(hash.c_str(), &end, 16);
        if (hash.size() != 16 || end != hash.c_str() + hash.size())
            return r.error("text.fnv1a64", "must be 16 hexadecimal digits, got \"" + hash + "\"");
    }
    ATTNLAB_TRY(r.real(*j, f, "repeat", RealRange{0, 1, false, false, false}, &t.repeat));
    ATTNLAB_TRY(r.integer(*j, f, "min_count", {1, INT_MAX}, &t.min_count));
    std::string level = "char";
    ATTNLAB_TRY(r.string(*j, f, "level", &level, Need::Optional));
    if (Status s = train::parse_text_level(level, &t.level); !s)
        return r.error("text.level", s.message());
    if (t.level == train::TextLevel::Word)
        ATTNLAB_TRY(r.integer(*j, f, "max_words", {2, 65535}, &t.max_words));
    else
        ATTNLAB_TRY(r.absent(*j, f, "max_words", "only a word-level model (\"level\": \"word\") has one"));
    *out = std::move(t);
    return Status::ok();
}

Status read_weights(const Reader& r, const json& root, const ModelConfig& c, size_t text_bytes, Params* out)
{
    const json* w = nullptr;
    ATTNLAB_TRY(r.member(root, "", "weights", Need::Required, &w));
    const std::string f = "weights";
    // Every trained scalar takes at least two bytes of text: a config asking for more than the file can hold
    // is refused before any tensor is allocated.
    const long long count = trained_scalar_count(c);
    if (count > static_cast<long long>(text_bytes) / 2)
        return r.error("config", "asks for " + std::to_string(count) + " parameters, more than a file of " +
                                     format_bytes(static_cast<double>(text_bytes)) + " can hold");
    // init_params gives every tensor its shape and a sinusoidal P its sinusoids; the file sets the rest.
    Params p;
    train::init_params(c, p);
    const int V = c.vocab_size, d = c.d_model, h = c.n_heads, d_k = c.d_k(), d_v = c.d_v();
    const int d_ff = c.resolved_d_ff();
    ATTNLAB_TRY(r.member_matrix(*w, f, "embedding", V, d, "V x d_model", p.E));
    if (c.positions == PositionKind::Learned)
        ATTNLAB_TRY(r.member_matrix(*w, f, "positions", c.T_max, d, "T_max x d_model", p.P));
    else
        ATTNLAB_TRY(r.absent(*w, f, "positions",
                             c.positions == PositionKind::None
                                 ? "the model has no positional encoding"
                                 : "the model's positions are the fixed sinusoids"));
    const json* layers = nullptr;
    ATTNLAB_TRY(r.member(*w, f, "layers", Need::Required, &layers));
    if (!layers->is_array() || static_cast<int>(layers->size()) != c.n_layers)
        return r.error("weights.layers", "should be a list of layers = " + std::to_string(c.n_layers) +
                                             " objects, got " + describe_json(*layers));
    for (int l = 0; l < c.n_layers; ++l)
    {
        const json& j = (*layers)[static_cast<size_t>(l)];
        const std::string lf = "weights.layers[" + std::to_string(l) + "]";
        train::LayerParamsT<float>& L = p.layers[static_cast<size_t>(l)];
        ATTNLAB_TRY(r.member_heads(j, lf, "W_Q", h, d, d_k, "d_model x d_k", L.W_Q));
        ATTNLAB_TRY(r.member_heads(j, lf, "W_K", h, d, d_k, "d_model x d_k", L.W_K));
        ATTNLAB_TRY(r.member_heads(j, lf, "W_V", h, d, d_v, "d_model x d_v", L.W_V));
        ATTNLAB_TRY(r.member_matrix(j, lf, "W_O", h * d_v, d, "h·d_v x d_model", L.W_O));
        ATTNLAB_TRY(r.member_vector(j, lf, "gamma_1", d, "d_model", L.ln1_gamma));
        ATTNLAB_TRY(r.member_vector(j, lf, "beta_1", d, "d_model", L.ln1_beta));
        if (c.has_ffn())
        {
            ATTNLAB_TRY(r.member_matrix(j, lf, "W_1", d, d_ff, "d_model x d_ff", L.W_1));
            ATTNLAB_TRY(r.member_vector(j, lf, "b_1", d_ff, "d_ff", L.b_1));
            ATTNLAB_TRY(r.member_matrix(j, lf, "W_2", d_ff, d, "d_ff x d_model", L.W_2));
            ATTNLAB_TRY(r.member_vector(j, lf, "b_2", d, "d_model", L.b_2));
            ATTNLAB_TRY(r.member_vector(j, lf, "gamma_2", d, "d_model", L.ln2_gamma));
            ATTNLAB_TRY(r.member_vector(j, lf, "beta_2", d, "d_model", L.ln2_beta));
        }
        else
        {
            for (const char* key : {"W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2"})
                ATTNLAB_TRY(r.absent(j, lf, key, "the model is attention-only (no FFN, no LayerNorm 2)"));
        }
    }
    if (c.has_final_norm())
    {
        const json* ln_f = nullptr;
        ATTNLAB_TRY(r.member(*w, f, "ln_f", Need::Required, &ln_f));
        ATTNLAB_TRY(r.member_vector(*ln_f, "weights.ln_f", "gamma", d, "d_model", p.lnf_gamma));
        ATTNLAB_TRY(r.member_vector(*ln_f, "weights.ln_f", "beta", d, "d_model", p.lnf_beta));
    }
    else
    {
        ATTNLAB_TRY(r.absent(*w, f, "ln_f", "a post-LN model has no final LayerNorm"));
    }
    ATTNLAB_TRY(r.member_matrix(*w, f, "W_U", d, V, "d_model x V", p.W_U));
    ATTNLAB_TRY(r.member_vector(*w, f, "b_U", V, "V", p.b_U));
    *out = std::move(p);
    return Status::ok();
}

// [SECTION] Trace writing

// The rows of sentence b, columns [col0, col0 + n), of an (B·T, cols) matrix: [T][n].
void write_sentence_cols(JsonWriter& w, const Mat& m, int b, int T, int col0, int n)
{
    write_rows(w, m.data() + static_cast<Eigen::Index>(b) * T * m.cols() + col0, T, m.cols(), n);
}

// A whole (B·T, n) matrix as [B][T][n].
void write_sentences(JsonWriter& w, const Mat& m, int B, int T)
{
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
        write_sentence_cols(w, m, b, T, 0, static_cast<int>(m.cols()));
    w.end_array();
}

// Head j's columns of a (B·T, h·d_k) matrix as [B][T][d_k].
void write_head_cols(JsonWriter& w, const Mat& m, int B, int T, int j, int d_k)
{
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
        write_sentence_cols(w, m, b, T, j * d_k, d_k);
    w.end_array();
}

// Head j of a (B·h·T, T) attention matrix as [B][T][T].
void write_attention(JsonWriter& w, const Mat& m, int B, int T, int j, int h)
{
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
        write_rows(w, m.data() + ((static_cast<Eigen::Index>(b) * h + j) * T) * m.cols(), T, m.cols(), T);
    w.end_array();
}

// A (B·T, n) matrix under its key, as [B][T][n].
void write_named(JsonWriter& w, const char* key, const Mat& m, int B, int T)
{
    w.key(key);
    write_sentences(w, m, B, T);
}

// The batch's tokens: "tokens" as text (an id past the vocabulary as its number) and "token_ids", [B][T]
// each.
void write_trace_tokens(JsonWriter& w, const TrainedModel& model, const train::Batch& batch)
{
    const int B = batch.B, T = batch.T;
    const auto token = [&](int b, int t) { return batch.tokens[static_cast<size_t>(b * T + t)]; };
    w.key("tokens");
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        w.begin_array(false);
        for (int t = 0; t < T; ++t)
        {
            const int id = token(b, t);
            w.string(id < static_cast<int>(model.vocabulary.size())
                         ? model.vocabulary[static_cast<size_t>(id)]
                         : std::to_string(id));
        }
        w.end_array();
    }
    w.end_array();
    w.key("token_ids");
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        w.begin_array(false);
        for (int t = 0; t < T; ++t)
            w.number(token(b, t));
        w.end_array();
    }
    w.end_array();
}

// Head j of a layer: its Q, K, V columns, its four T×T maps and its output columns of concat.
void write_trace_head(JsonWriter& w, const ModelConfig& c, const train::LayerActsT<float>& L, int B, int T,
                      int j)
{
    const int h = c.n_heads, d_k = c.d_k(), d_v = c.d_v();
    w.begin_object();
    for (const auto& [key, m, d] : {std::tuple{"Q", &L.Q, d_k}, {"K", &L.K, d_k}, {"V", &L.V, d_v}})
    {
        w.key(key);
        write_head_cols(w, *m, B, T, j, d);
    }
    for (const auto& [key, m] : {std::pair{"scores", &L.scores},
                                 {"scaled", &L.scaled},
                                 {"masked", &L.masked},
                                 {"weights", &L.weights}})
    {
        w.key(key);
        write_attention(w, *m, B, T, j, h);
    }
    w.key("head_out");
    write_head_cols(w, L.concat, B, T, j, d_v);
    w.end_object();
}

// One layer's activations in the order they are computed: a pre-LN layer normalises before each sub-layer,
// a post-LN one after it.
void write_trace_layer(JsonWriter& w, const ModelConfig& c, const train::LayerActsT<float>& L, int B, int T)
{
    const bool pre = c.norm == NormPlacement::Pre;
    w.begin_object();
    write_named(w, "X", L.X, B, T);
    if (pre)
        write_named(w, "ln1", L.ln1, B, T);
    w.key("heads");
    w.begin_array(true);
    for (int j = 0; j < c.n_heads; ++j)
        write_trace_head(w, c, L, B, T, j);
    w.end_array();
    for (const auto& [key, m] : {std::pair{"concat", &L.concat}, {"mha", &L.mha}, {"residual", &L.residual}})
        write_named(w, key, *m, B, T);
    if (!pre)
        write_named(w, "ln1", L.ln1, B, T);
    if (c.has_ffn())
    {
        if (pre)
            write_named(w, "ln2", L.ln2, B, T);
        for (const auto& [key, m] : {std::pair{"ffn_pre", &L.ffn_pre},
                                     {"ffn_hidden", &L.ffn_hidden},
                                     {"ffn", &L.ffn},
                                     {"residual2", &L.residual2}})
            write_named(w, key, *m, B, T);
        if (!pre)
            write_named(w, "ln2", L.ln2, B, T);
    }
    w.end_object();
}

// After the last layer: the final norm (pre-LN), logits, probabilities, then the positions the batch scores
// with their targets (-1: not scored) and the loss at each (0 where not scored).
void write_trace_outputs(JsonWriter& w, const ModelConfig& c, const train::Activations& a,
                         const train::Batch& batch)
{
    const int B = batch.B, T = batch.T;
    if (c.has_final_norm())
        write_named(w, "lnf", a.lnf, B, T);
    write_named(w, "logits", a.logits, B, T);
    write_named(w, "probs", a.probs, B, T);
    w.key("targets");
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        w.begin_array(false);
        for (int t = 0; t < T; ++t)
        {
            const std::size_t i =
                static_cast<std::size_t>(b) * static_cast<std::size_t>(T) + static_cast<std::size_t>(t);
            w.number(batch.loss_mask[i] ? batch.targets[i] : -1);
        }
        w.end_array();
    }
    w.end_array();
    std::vector<float> row(static_cast<std::size_t>(T));
    w.key("loss");
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        for (int t = 0; t < T; ++t)
        {
            const std::size_t i =
                static_cast<std::size_t>(b) * static_cast<std::size_t>(T) + static_cast<std::size_t>(t);
            row[static_cast<std::size_t>(t)] =
                batch.loss_mask[i] ? a.loss(static_cast<Eigen::Index>(i)) : 0.0f;
        }
        w.row(row.data(), T);
    }
    w.end_array();
    w.key("mean_loss");
    w.number(a.mean_loss);
}

// "gradients": the weights' gradients and, per layer and head, ∂L/∂A_h.
void write_trace_gradients(JsonWriter& w, const ModelConfig& c, const ModelPass& pass, int B, int T)
{
    w.key("gradients");
    w.begin_object();
    w.key("weights");
    write_weights(w, c, *pass.grads);
    w.key("layers");
    w.begin_array(true);
    for (const train::LayerGradsT<float>& G : pass.act_grads->layers)
    {
        w.begin_object();
        w.key("heads");
        w.begin_array(true);
        for (int j = 0; j < c.n_heads; ++j)
        {
            w.begin_object();
            w.key("weights");
            write_attention(w, G.dweights, B, T, j, c.n_heads);
            w.end_object();
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void write_model_trace(JsonWriter& w, const ModelPass& pass)
{
    const TrainedModel& model = *pass.model;
    const ModelConfig& c = model.config;
    const train::Batch& batch = *pass.batch;
    const int B = batch.B, T = batch.T;

    w.begin_object();
    w.key("format");
    w.string(kModelTraceFormat);
    w.key("version");
    w.number(kModelTraceVersion);
    w.key("task");
    w.string(model.task);
    w.key("config");
    write_config(w, c);
    w.key("step");
    w.number(model.steps_taken);
    w.key("B");
    w.number(B);
    w.key("T");
    w.number(T);
    write_trace_tokens(w, model, batch);
    w.key("weights");
    write_weights(w, c, model.params);
    w.key("positions");
    write_rows(w, model.params.P.data(), T, model.params.P.cols(), c.d_model);
    w.key("layers");
    w.begin_array(true);
    for (const train::LayerActsT<float>& L : pass.acts->layers)
        write_trace_layer(w, c, L, B, T);
    w.end_array();
    write_trace_outputs(w, c, *pass.acts, batch);
    if (pass.grads != nullptr && pass.act_grads != nullptr)
        write_trace_gradients(w, c, pass, B, T);
    w.end_object();
}

// The config of an opened model: the sizes and choices of "config" (no seed: the weights were read, not
// drawn) and what the pretrained architectures add to them.
void write_opened_config(JsonWriter& w, const ModelConfig& c)
{
    w.begin_object();
    write_config_sizes(w, c);
    w.key("norm");
    w.string(norm_name(c.norm));
    w.key("positions");
    w.string(positions_name(c.positions));
    w.key("causal");
    w.boolean(c.causal);
    w.key("activation");
    w.string(train::to_string(c.activation));
    w.key("layer_norm_eps");
    w.number(c.layer_norm_eps);
    w.key("attention_bias");
    w.boolean(c.attention_bias);
    w.key("token_types");
    w.number(c.token_types);
    w.key("embedding_norm");
    w.boolean(c.embedding_norm);
    w.key("scale_by_layer");
    w.boolean(c.scale_by_layer);
    w.key("mlm_head");
    w.boolean(c.mlm_head);
    w.key("tied_unembedding");
    w.boolean(c.tied_unembedding);
    w.key("unembedding_bias");
    w.boolean(c.unembedding_bias);
    write_resolved_sizes(w, c);
    w.end_object();
}

// [B][T] strings, from a flat [B·T] list.
void write_string_rows(JsonWriter& w, const std::vector<std::string>& strings, int B, int T)
{
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        w.begin_array(false);
        for (int t = 0; t < T; ++t)
        {
            const std::size_t i =
                static_cast<std::size_t>(b) * static_cast<std::size_t>(T) + static_cast<std::size_t>(t);
            w.string(i < strings.size() ? strings[i] : std::string());
        }
        w.end_array();
    }
    w.end_array();
}

void write_opened_model_trace(JsonWriter& w, const OpenedModelPass& pass)
{
    const ModelConfig& c = *pass.config;
    const train::Batch& batch = *pass.batch;
    const train::Activations& a = *pass.acts;
    const int B = batch.B, T = batch.T;

    w.begin_object();
    w.key("format");
    w.string(kModelTraceFormat);
    w.key("version");
    w.number(kModelTraceVersion);
    w.key("model");
    w.begin_object();
    w.key("architecture");
    w.string(pass.architecture);
    w.key("label");
    w.string(pass.label);
    w.key("source");
    w.string(pass.source);
    w.key("folder");
    w.string(pass.folder);
    w.key("parameters");
    w.number(pass.parameters);
    w.end_object();
    w.key("config");
    write_opened_config(w, c);
    w.key("B");
    w.number(B);
    w.key("T");
    w.number(T);
    w.key("tokens");
    write_string_rows(w, pass.pieces, B, T);
    w.key("vocab_tokens");
    write_string_rows(w, pass.vocab_tokens, B, T);
    w.key("token_ids");
    w.begin_array(true);
    for (int b = 0; b < B; ++b)
    {
        w.begin_array(false);
        for (int t = 0; t < T; ++t)
            w.number(batch.tokens[static_cast<std::size_t>(b) * static_cast<std::size_t>(T) +
                                  static_cast<std::size_t>(t)]);
        w.end_array();
    }
    w.end_array();
    w.key("positions");
    write_rows(w, pass.params->P.data(), T, pass.params->P.cols(), c.d_model);
    write_named(w, "embed", a.embed, B, T);
    w.key("layers");
    w.begin_array(true);
    for (const train::LayerActsT<float>& L : a.layers)
        write_trace_layer(w, c, L, B, T);
    w.end_array();
    if (c.mlm_head)
        for (const auto& [key, m] :
             {std::pair{"mlm_pre", &a.mlm_pre}, {"mlm_hidden", &a.mlm_hidden}, {"mlm_norm", &a.mlm_norm}})
            write_named(w, key, *m, B, T);
    write_trace_outputs(w, c, a, batch);
    w.end_object();
}

} // namespace

long long trained_scalar_count(const ModelConfig& c)
{
    return train::parameter_count(c);
}

MetricRow metric_row(const train::StepStats& step, const train::EvalStats& eval)
{
    MetricRow row;
    row.step = step.step;
    row.loss = step.loss;
    row.held_out_loss = static_cast<float>(eval.loss);
    row.accuracy = static_cast<float>(eval.accuracy);
    for (const train::HeadScores& head : eval.heads)
    {
        row.previous_token.push_back(static_cast<float>(head.previous_token));
        row.induction.push_back(static_cast<float>(head.induction));
        if (eval.word_scores)
            row.word_start.push_back(static_cast<float>(head.word_start));
        row.diagonal.push_back(static_cast<float>(head.diagonal));
        row.anti_diagonal.push_back(static_cast<float>(head.anti_diagonal));
    }
    return row;
}

TrainedModel trained_model(const train::Trainer& trainer, std::vector<MetricRow> history)
{
    TrainedModel m;
    m.task = trainer.task().info().key;
    m.config = trainer.model();
    m.vocabulary = trainer.task().vocabulary();
    m.settings = trainer.settings();
    m.steps_taken = trainer.steps_taken();
    m.history = std::move(history);
    m.params = trainer.params();
    m.text = trained_text_of(trainer.task());
    return m;
}

TrainedText trained_text_of(const train::Task& task)
{
    TrainedText t;
    if (const std::shared_ptr<const train::TextCorpus>& corpus = task.corpus())
    {
        t.corpus = corpus->source.builtin;
        if (t.corpus.empty())
        {
            t.file = corpus->source.path;
            t.bytes = corpus->source.bytes;
            t.hash = corpus->source.hash;
        }
        t.repeat = task.repeat_share();
        t.min_count = corpus->min_count;
        t.level = corpus->level();
        t.max_words = corpus->max_words;
    }
    return t;
}

Status write_model_file(const TrainedModel& model, AtomicFile& file)
{
    JsonWriter writer(&file);
    write_model(writer, model);
    writer.flush();
    return file.commit();
}

Status write_model_file(const TrainedModel& model, const std::string& path)
{
    AtomicFile file;
    ATTNLAB_TRY(file.open(path));
    return write_model_file(model, file);
}

std::string model_to_json(const TrainedModel& model)
{
    JsonWriter writer;
    write_model(writer, model);
    return std::move(writer.text());
}

Status load_model_file(const std::string& path, TrainedModel* out)
{
    // A file of a Hugging Face folder given instead of the folder (its weights were read as JSON: "byte 2 is
    // a NUL byte").
    const std::filesystem::path p(path);
    const std::string name = p.filename().string();
    if (p.extension() == ".safetensors" || name == "model.safetensors.index.json")
        return Status::error(
            path_for_message(path) + " is a file of a Hugging Face model folder: give the " +
            "folder that holds it (config.json, model.safetensors and the tokenizer files), " +
            "or an attnlab model file (attnlab train -o)");
    std::string text;
    ATTNLAB_TRY(read_file(path, &text, kMaxWeightsFileBytes, "model file"));
    return parse_model_json(text, path, out);
}

Status parse_model_json(std::string_view text, const std::string& source, TrainedModel* out)
{
    const Reader r(source);
    json root;
    ATTNLAB_TRY(r.parse(text, &root));
    if (!root.is_object())
        return r.error("is not an attnlab model (the file is not a JSON object)");
    // A Hugging Face folder's config.json given instead of the folder.
    if (!root.contains("format") && (root.contains("model_type") || root.contains("architectures")))
        return r.error(
            "is a Hugging Face model's config.json, not an attnlab model: give the folder that holds "
            "it (config.json, model.safetensors and the tokenizer files)");
    ATTNLAB_TRY(r.format(root, {kModelFormat},
                         "the file is not an attnlab model: train one with: attnlab train --task reverse -o "
                         "model.json"));
    int version = 0;
    ATTNLAB_TRY(r.version(root, kModelVersion, &version));

    TrainedModel m;
    ATTNLAB_TRY(r.string(root, "", "task", &m.task));
    train::TaskKind kind = train::TaskKind::Count;
    if (Status s = train::parse_task(m.task, &kind); !s)
        return r.error("task", s.message());
    ATTNLAB_TRY(read_config(r, root, &m.config));
    const bool text_model = kind == train::TaskKind::Text;
    ATTNLAB_TRY(read_text(r, root, text_model, &m.text));
    ATTNLAB_TRY(read_vocabulary(r, root, m.config.vocab_size, text_model ? &m.text : nullptr, &m.vocabulary));
    ATTNLAB_TRY(read_settings(r, root, &m.settings));
    ATTNLAB_TRY(r.integer(root, "", "step", {0, INT_MAX}, &m.steps_taken));
    ATTNLAB_TRY(read_history(r, root, m.config.n_layers * m.config.n_heads, &m.history));
    if (const auto view = root.find("view"); view != root.end())
    {
        if (!view->is_object())
            return r.error("view", "must be an object {\"step\", \"main_panels\", \"probe\"}, got " +
                                       describe_json(*view));
        m.has_view = true;
        ATTNLAB_TRY(r.integer(*view, "view", "step", {0, m.steps_taken}, &m.view_step));
        ATTNLAB_TRY(r.boolean(*view, "view", "main_panels", &m.view_main_panels));
        ATTNLAB_TRY(r.string(*view, "view", "probe", &m.view_probe));
    }
    ATTNLAB_TRY(read_weights(r, root, m.config, text.size(), &m.params));
    *out = std::move(m);
    return Status::ok();
}

Status check_trained_text(const TrainedModel& m)
{
    if (m.task != kTextTask || !m.text.corpus.empty())
        return Status::ok();
    std::string bytes;
    if (Status s = read_file(m.text.file, &bytes, train::kMaxTextBytes, "text file"); !s)
        return Status::error("the text this model was trained on cannot be read now: " + s.message());
    if (bytes.size() != m.text.bytes)
        return Status::error(m.text.file + " has changed since this model was trained on it (" +
                             std::to_string(bytes.size()) + " bytes now, " + std::to_string(m.text.bytes) +
                             " then): held-out figures on it are not the ones of training");
    if (train::fnv1a64(bytes) != m.text.hash)
        return Status::error(m.text.file +
                             " has changed since this model was trained on it (same size, other "
                             "content): held-out figures on it are not the ones of training");
    return Status::ok();
}

Status trained_text_task(const TrainedModel& m, train::Task* out)
{
    if (m.task != kTextTask)
        return Status::error("a " + m.task + " model has no text");
    ATTNLAB_TRY(check_trained_text(m));
    train::TextCorpusOptions options;
    options.T = train::task_info(train::TaskKind::Text).T;
    options.min_count = m.text.min_count;
    options.level = m.text.level;
    options.max_words = m.text.max_words;
    std::shared_ptr<const train::TextCorpus> corpus;
    ATTNLAB_TRY(
        train::load_text_corpus(m.text.corpus.empty() ? m.text.file : m.text.corpus, options, &corpus));
    if (corpus->vocabulary.symbols() != m.vocabulary)
        return Status::error("the vocabulary built from " + corpus->source.name() +
                             " now differs from the model's: the text or its reading has changed");
    *out = train::Task(std::move(corpus), m.text.repeat);
    return Status::ok();
}

Status write_model_trace_json(const ModelPass& pass, const std::string& path)
{
    AtomicFile file;
    ATTNLAB_TRY(file.open(path));
    JsonWriter writer(&file);
    write_model_trace(writer, pass);
    writer.flush();
    return file.commit();
}

} // namespace attnlab

namespace attnlab
{

Status write_opened_model_trace_json(const OpenedModelPass& pass, const std::string& path)
{
    AtomicFile file;
    ATTNLAB_TRY(file.open(path));
    JsonWriter writer(&file);
    write_opened_model_trace(writer, pass);
    writer.flush();
    return file.commit();
}

std::string opened_model_trace_to_json(const OpenedModelPass& pass)
{
    JsonWriter writer;
    write_opened_model_trace(writer, pass);
    return std::move(writer.text());
}

} // namespace attnlab
