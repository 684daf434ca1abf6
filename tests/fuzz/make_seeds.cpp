// Writes the seed corpus that comes from files the app writes, with the same functions the app uses:
//   make_seeds DIR   ->  DIR/session/*.json (save_session_file), DIR/weights/*.json (write_weights_json and
//                        write_trace_json, i.e. attnlab-weights files and small `attnlab export` traces),
//                        DIR/model/*.json (write_model_file: small models of each task, trained a few steps),
//                        DIR/prefs/*.ini (prefs_to_text) and DIR/recent/*.txt (recent_files_to_text);
//                        DIR/safetensors/*.safetensors in the Hugging Face layout (the app writes none: these
//                        come from the tests' writer, tests/io/safetensors_writer.h);
//                        DIR/tokenizer/*: small tokenizer files of each kind (fuzz_tokenizer), each checked
//                        to load.
// The hand-written files (assets/lessons, tests/data) are copied beside them by the script that runs the
// fuzzers. Generated at each run, so the seeds follow the current file formats.
#include "core/engine.h"
#include "core/io/atomic_file.h"
#include "core/io/hf_tokenizer.h"
#include "core/io/json_io.h"
#include "core/io/model_file.h"
#include "core/io/session_file.h"
#include "tests/io/safetensors_writer.h"
#include "ui/model/config_files.h"
#include "ui/model/prefs.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace attnlab;

namespace
{

int failures = 0;

void report(const Status& status)
{
    if (!status)
    {
        std::fprintf(stderr, "make_seeds: %s\n", status.message().c_str());
        ++failures;
    }
}

std::vector<Session> sessions()
{
    std::vector<Session> out(6);
    // 0: the app's default session.
    out[1].text = "the cat sat on the mat\nthe dog sat";
    out[1].config.mask = MaskKind::Causal;
    out[1].config.n_layers = 2;
    out[1].config.temperature = 0.5f;
    out[2].text = "Jane visits Africa in September .";
    out[2].target = "Jane visite l'Afrique en septembre";
    out[2].config.d_model = 8;
    out[2].config.n_heads = 2;
    out[2].config.positional = PositionalKind::None;
    out[2].config.scale = false;
    out[2].weights_path = "weights.json";
    out[3].text = "« Quoi ? » — dit-il… ¿Qué? 猫が座った。";
    out[3].config.d_model = 12;
    out[3].config.n_heads = 3;
    out[3].config.d_k = 5;
    out[3].config.d_v = 7;
    out[3].config.d_ff = 20;
    out[3].config.seed = 18446744073709551615ull;
    out[4].text = "a b c d e f g h";
    out[4].config.d_model = 32;
    out[4].config.n_heads = 8;
    out[4].config.temperature = 100.0f;
    out[4].weights_path = "/tmp/attnlab/weights.json";
    out[5].text = "x";
    out[5].config.d_model = 1;
    out[5].config.n_heads = 1;
    out[5].config.temperature = 0.01f;
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir / "session");
    std::filesystem::create_directories(dir / "weights");
    std::filesystem::create_directories(dir / "model");
    std::filesystem::create_directories(dir / "prefs");
    std::filesystem::create_directories(dir / "recent");
    std::filesystem::create_directories(dir / "safetensors");
    std::filesystem::create_directories(dir / "tokenizer");

    // Preferences: the defaults, and a file with every key changed and two panels placed.
    ViewPrefs prefs;
    report(write_file_atomically((dir / "prefs" / "prefs-0.ini").string(), prefs_to_text(prefs)));
    prefs.dark_theme = false;
    prefs.font_size = 19.5f;
    prefs.numbers_in_cells = false;
    prefs.stretch_weights = true;
    prefs.presenter_light = true;
    prefs.open.fill(true);
    prefs.places[0] = PanelPlace{true, 0.0f, 0.0f, 0.25f, 0.5f};
    prefs.places[3] = PanelPlace{true, 0.5f, 0.25f, 0.5f, 0.75f};
    report(write_file_atomically((dir / "prefs" / "prefs-1.ini").string(), prefs_to_text(prefs)));
    // Recent files: empty, and a full list.
    report(write_file_atomically((dir / "recent" / "recent-0.txt").string(), recent_files_to_text({})));
    std::vector<std::string> recent;
    for (int i = 0; i < 10; ++i)
        recent.push_back("/home/user/sessions/lecture " + std::to_string(i) + ".json");
    report(write_file_atomically((dir / "recent" / "recent-1.txt").string(), recent_files_to_text(recent)));

    const std::vector<Session> all = sessions();
    for (size_t i = 0; i < all.size(); ++i)
        report(save_session_file(all[i],
                                 (dir / "session" / ("session-" + std::to_string(i) + ".json")).string()));

    // Weights files and exports, small enough to be read whole (the fuzzers read at most 64 KB).
    std::vector<Session> small(4);
    small[0].text = "the cat sat";
    small[0].config.d_model = 4;
    small[0].config.n_heads = 2;
    small[1].text = "the cat sat\nit sat";
    small[1].config.d_model = 8;
    small[1].config.n_heads = 2;
    small[1].config.n_layers = 2;
    small[1].config.d_ff = 8;
    small[1].config.mask = MaskKind::Causal;
    small[2].text = "Jane visits Africa";
    small[2].target = "Jane visite";
    small[2].config.d_model = 6;
    small[2].config.n_heads = 3;
    small[2].config.d_k = 2;
    small[2].config.d_v = 3;
    small[2].config.d_ff = 4;
    small[2].weights_path = "weights.json";
    small[3].text = "x";
    small[3].config.d_model = 1;
    small[3].config.n_heads = 1;
    for (size_t i = 0; i < small.size(); ++i)
    {
        const Config& config = small[i].config;
        const std::string n = std::to_string(i);
        report(write_weights_json(init_weights(config), config,
                                  (dir / "weights" / ("weights-" + n + ".json")).string()));
        Engine engine;
        report(engine.run(small[i]));
        report(write_trace_json(engine.trace(), engine.weights(),
                                (dir / "weights" / ("export-" + n + ".json")).string(),
                                small[i].weights_path));
    }

    // Trained models, one per task, as in tests/io/model_file_test.cpp but smaller.
    for (int t = 0; t < train::kTaskCount; ++t)
    {
        const auto task = static_cast<train::TaskKind>(t);
        train::Preset preset = train::Task(task).preset();
        preset.model.d_model = 4;
        preset.model.n_heads = 2;
        preset.model.n_layers = t % 2 + 1;
        preset.model.d_ff = 8;
        preset.model.attention_only = t == 2;
        preset.train.batch_size = 4;
        preset.train.held_out_size = 8;
        train::Trainer trainer;
        report(trainer.init(task, preset));
        std::vector<MetricRow> history;
        trainer.run(2,
                    [&](const train::StepStats& s)
                    {
                        history.push_back(metric_row(s, trainer.evaluate()));
                        return true;
                    });
        report(write_model_file(trained_model(trainer, std::move(history)),
                                (dir / "model" / ("model-" + std::to_string(t) + ".json")).string()));
    }

    // Safetensors files: a tiny GPT-2 layer in each float dtype (unaligned, with metadata and a mask buffer),
    // an I64 buffer beside a BF16 weight, and an empty header.
    for (const char* dtype : {"F32", "F16", "BF16"})
    {
        std::vector<test::TestTensor> tensors = {
            {"wte.weight", dtype, {3, 2}, {1.0f, -2.0f, 0.5f, 0.25f, 0.0f, 4.0f}, ""},
            {"h.0.attn.c_attn.bias", dtype, {6}, {1, 2, 3, 4, 5, 6}, ""},
            {"h.0.attn.masked_bias", dtype, {}, {-8.0f}, ""},
        };
        test::write_bytes((dir / "safetensors" / (std::string("gpt2-") + dtype + ".safetensors")).string(),
                          test::safetensors_bytes(tensors, nlohmann::json{{"format", "pt"}}, 1));
    }
    test::write_bytes(
        (dir / "safetensors" / "bert-ids.safetensors").string(),
        test::safetensors_bytes({{"embeddings.position_ids", "I64", {1, 2}, {}, std::string(16, '\0')},
                                 {"embeddings.LayerNorm.gamma", "BF16", {2}, {1.0f, 1.0f}, ""}},
                                nullptr, 0, 4));
    test::write_bytes((dir / "safetensors" / "empty.safetensors").string(), test::safetensors_bytes({}));

    // Tokenizers: a byte-level BPE of the 256 byte characters and a few merges (as tokenizer.json with both
    // spellings of a merge, and as vocab.json + merges.txt joined by a NUL byte, fuzz_tokenizer's split), a
    // WordPiece vocabulary (vocab.txt and tokenizer.json), a tokenizer_config.json and a text to encode.
    nlohmann::json byte_vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b)
        byte_vocab[gpt2_byte_char(static_cast<unsigned char>(b))] = b;
    const std::vector<std::pair<std::string, std::string>> merges = {
        {"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"\u0120", "w"}, {"\u0120w", "o"}};
    int next = 256;
    std::string merges_txt = "#version: 0.2\n";
    nlohmann::json as_strings = nlohmann::json::array(), as_pairs = nlohmann::json::array();
    for (const auto& [a, b] : merges)
    {
        byte_vocab[a + b] = next++;
        merges_txt += a + " " + b + "\n";
        as_strings.push_back(a + " " + b);
        as_pairs.push_back({a, b});
    }
    const nlohmann::json added = {{{"id", next}, {"content", "<|endoftext|>"}, {"special", true}}};
    const std::string text =
        "Hello world, it's 2026!\t\u00C9t\u00E9  \u4E2D\u6587 \U0001F984 [MASK] <|endoftext|>\n";
    const auto write_checked = [&](const std::string& name, const std::string& bytes, auto check)
    {
        std::unique_ptr<HfTokenizer> t;
        report(check(bytes, &t));
        test::write_bytes((dir / "tokenizer" / name).string(), bytes);
    };
    for (const auto& [name, list] :
         {std::pair{"bpe-strings.json", as_strings}, std::pair{"bpe-pairs.json", as_pairs}})
        write_checked(name,
                      nlohmann::json{{"added_tokens", added},
                                     {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
                                     {"model", {{"type", "BPE"}, {"vocab", byte_vocab}, {"merges", list}}}}
                          .dump(1),
                      [](const std::string& b, std::unique_ptr<HfTokenizer>* t)
                      { return parse_tokenizer_json(b, "tokenizer.json", t); });
    write_checked("vocab-nul-merges.bin", byte_vocab.dump() + std::string(1, '\0') + merges_txt,
                  [&](const std::string&, std::unique_ptr<HfTokenizer>* t)
                  { return parse_bpe_files(byte_vocab.dump(), merges_txt, "vocab.json", "merges.txt", t); });
    const std::string vocab_txt =
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\nhello\nworld\n,\n!\n"
        "\u4E2D\n\u6587\n";
    write_checked("vocab.txt", vocab_txt,
                  [](const std::string& b, std::unique_ptr<HfTokenizer>* t)
                  { return parse_wordpiece_vocab(b, "vocab.txt", {}, t); });
    nlohmann::json wordpiece_vocab = nlohmann::json::object();
    for (const char* t : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "##lo", "world"})
        wordpiece_vocab[t] = static_cast<int>(wordpiece_vocab.size());
    write_checked(
        "wordpiece.json",
        nlohmann::json{{"normalizer",
                        {{"type", "BertNormalizer"},
                         {"lowercase", true},
                         {"strip_accents", nullptr},
                         {"handle_chinese_chars", true}}},
                       {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", wordpiece_vocab}}}}
            .dump(1),
        [](const std::string& b, std::unique_ptr<HfTokenizer>* t)
        { return parse_tokenizer_json(b, "tokenizer.json", t); });
    test::write_bytes((dir / "tokenizer" / "tokenizer_config.json").string(),
                      R"({"do_lower_case": false, "strip_accents": null, "tokenize_chinese_chars": true})");
    test::write_bytes((dir / "tokenizer" / "merges.txt").string(), merges_txt);
    test::write_bytes((dir / "tokenizer" / "text.txt").string(), text);
    return failures == 0 ? 0 : 1;
}
