// Fuzz target: the tokenizer files of a Hugging Face model folder and the text they encode. Each input goes
// to every parser (tokenizer.json, vocab.txt, tokenizer_config.json, and vocab.json + merges.txt: the input
// split at its first NUL byte into the two, or without one, a byte-level vocabulary written here and the
// input as merges.txt), then is encoded by every tokenizer that loaded and by GPT-2's and BERT's real ones
// (tests/data/gpt2_tokenizer, tests/data/bert_tokenizer).
//
// Checked besides not crashing: a failed parse gives no tokenizer; encoding valid UTF-8 succeeds with as many
// ids as tokens and pieces, each id below the vocabulary size and naming its token; BERT's encoding starts
// with [CLS] and ends with [SEP]; GPT-2's decodes back to the exact text (byte-level BPE loses nothing);
// invalid UTF-8 is refused and leaves the output unchanged.
#include "core/io/atomic_file.h"
#include "core/io/hf_tokenizer.h"
#include "core/tokenizer.h"
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace attnlab;

namespace
{

std::unique_ptr<HfTokenizer> gpt2, bert;
std::string byte_vocab_json;

[[noreturn]] void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "fuzz_tokenizer: %s: %s\n", what, detail.c_str());
    std::abort();
}

std::string read_data(const char* relative)
{
    std::string text;
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/" + relative;
    if (const Status s = read_file(path, &text, kMaxTokenizerFileBytes); !s)
        fail("cannot read the test vocabulary", s.message());
    return text;
}

void check_encode(const HfTokenizer& t, std::string_view text, bool exact_decode)
{
    Encoding e;
    e.ids = {-7};
    const Status s = t.encode(text, &e);
    const bool valid = invalid_utf8_offset(text) == std::string_view::npos;
    if (!valid)
    {
        if (s || e.ids != std::vector<int>{-7})
            fail("invalid UTF-8 accepted or output changed", s.message());
        return;
    }
    if (!s)
        fail("valid UTF-8 refused", s.message());
    if (e.ids.size() != e.tokens.size() || e.ids.size() != e.pieces.size())
        fail("ids, tokens and pieces differ in count", std::to_string(e.ids.size()));
    for (std::size_t i = 0; i < e.ids.size(); ++i)
        if (e.ids[i] < 0 || e.ids[i] >= t.vocab_size() || t.token(e.ids[i]) != e.tokens[i])
            fail("id outside the vocabulary or not its token", std::to_string(e.ids[i]));
    if (t.kind() == HfTokenizerKind::WordPiece &&
        (e.ids.size() < 2 || e.tokens.front() != "[CLS]" || e.tokens.back() != "[SEP]"))
        fail("WordPiece encoding without [CLS] ... [SEP]", std::string(text));
    if (exact_decode && t.decode(e.ids) != text)
        fail("GPT-2 decode is not the text", std::string(text));
    const std::string decoded = t.decode(e.ids);
    if (invalid_utf8_offset(decoded) != std::string_view::npos)
        fail("decode gave invalid UTF-8", decoded);
}

void check_loaded(const Status& s, const std::unique_ptr<HfTokenizer>& t, std::string_view text)
{
    if (static_cast<bool>(s) != (t != nullptr))
        fail("a parse result and its tokenizer disagree", s.message());
    if (!t)
        return;
    check_encode(*t, text, false);
    check_encode(*t, "Hello, w\u00F6rld! [MASK] <|endoftext|> \u4E2D\u6587  42", false);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    if (const Status s =
            parse_bpe_files(read_data("gpt2_tokenizer/vocab.json"), read_data("gpt2_tokenizer/merges.txt"),
                            "vocab.json", "merges.txt", &gpt2);
        !s)
        fail("GPT-2's tokenizer does not load", s.message());
    if (const Status s = parse_wordpiece_vocab(read_data("bert_tokenizer/vocab.txt"), "vocab.txt", {}, &bert);
        !s)
        fail("BERT's tokenizer does not load", s.message());
    nlohmann::json v = nlohmann::json::object();
    for (int b = 0; b < 256; ++b)
        v[gpt2_byte_char(static_cast<unsigned char>(b))] = b;
    int next = 256;
    for (const char* t : {"he", "ll", "hell", "hello", "\u0120w", "\u0120wo", "<|endoftext|>"})
        v[t] = next++;
    byte_vocab_json = v.dump();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = fuzz::as_text(data, size);

    check_encode(*gpt2, text, true);
    check_encode(*bert, text, false);

    std::unique_ptr<HfTokenizer> t;
    Status s = parse_tokenizer_json(text, "tokenizer.json", &t);
    check_loaded(s, t, text);

    t.reset();
    s = parse_wordpiece_vocab(text, "vocab.txt", {}, &t);
    check_loaded(s, t, text);

    WordPieceOptions options;
    options.split_cjk = false;
    const WordPieceOptions before = options;
    s = parse_wordpiece_options(text, "tokenizer_config.json", &options);
    if (!s && (options.lower_case != before.lower_case || options.strip_accents != before.strip_accents ||
               options.split_cjk != before.split_cjk))
        fail("a refused tokenizer_config.json changed the options", s.message());

    t.reset();
    const std::size_t nul = text.find('\0');
    if (nul != std::string_view::npos)
        s = parse_bpe_files(text.substr(0, nul), text.substr(nul + 1), "vocab.json", "merges.txt", &t);
    else
        s = parse_bpe_files(byte_vocab_json, text, "vocab.json", "merges.txt", &t);
    check_loaded(s, t, nul == std::string_view::npos ? text : text.substr(nul + 1));
    return 0;
}
