// Fuzz target: text files for training (build_text_corpus), which `attnlab train --task text --corpus FILE`
// and the app read from any file the user picks. The input is the file's bytes, with a short window (T = 8)
// so that small inputs get past the length check.
//
// Checked besides not crashing: a refused text leaves the output unchanged and says why; a built corpus has
// the unknown symbol first and at most kMaxTextSymbols symbols, every id inside the vocabulary, the held-out
// part a tenth and long enough for one window, a vocabulary that reads back from its strings, and Text task
// batches (with repeats) and held-out windows whose tokens are the corpus's ids.
#include "core/train/tasks.h"
#include "core/train/text_corpus.h"
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "fuzz_text_corpus: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    TextSource source;
    source.path = "fuzz.txt";
    TextCorpusOptions options;
    options.T = 8;
    options.min_count = 1 + static_cast<int>(size % 3);
    // Every other input at the word level, with a small vocabulary so that folding is reached.
    if (size % 2 == 1)
    {
        options.level = TextLevel::Word;
        options.max_words = 2 + static_cast<int>(size % 7);
    }
    const std::shared_ptr<const TextCorpus> before;
    std::shared_ptr<const TextCorpus> corpus = before;
    const Status s = build_text_corpus(fuzz::as_text(data, size), source, options, &corpus);
    if (!s)
    {
        if (corpus != before)
            fail("a refused text changed the output");
        if (s.message().empty())
            fail("a refused text has no message");
        return 0;
    }
    const TextCorpus& c = *corpus;
    const TextVocabulary& v = c.vocabulary;
    if (v.level() != options.level)
        fail("the corpus's level is not the one asked for");
    const int max_size = options.level == TextLevel::Word ? options.max_words : kMaxTextSymbols;
    if (v.size() < 1 || v.size() > max_size || v.symbols()[0] != kUnknownSymbol)
        fail("the vocabulary's size or its first symbol");
    if (static_cast<long long>(c.ids.size()) != c.tokens || c.train_end != c.ids.size() - c.ids.size() / 10 ||
        c.ids.size() - c.train_end < static_cast<std::size_t>(options.T) + 1)
        fail("the held-out split");
    for (const std::uint16_t id : c.ids)
        if (id >= v.size())
            fail("an id outside the vocabulary");
    TextVocabulary again;
    if (v.size() >= 2 && (!TextVocabulary::from_symbols(v.level(), v.symbols(), &again) ||
                          again.symbols() != v.symbols() || again.level() != v.level()))
        fail("the vocabulary does not read back from its strings");
    // Decoding the training part and encoding it again gives the same ids (words: the split is stable).
    const int n = static_cast<int>(std::min<std::size_t>(c.train_end, 256));
    const std::vector<int> ids(c.ids.begin(), c.ids.begin() + n);
    if (v.encode(v.decode(ids.data(), n)) != ids)
        fail("decoding then encoding a stretch of the text changed its ids");
    if (v.encode(fuzz::as_text(data, size)).size() > size)
        fail("more tokens than bytes");
    const Task task(corpus, 0.5f); // T = 64: refused when either part is shorter than 65 characters
    if (!task.status())
        return 0;
    Batch batch;
    task.make_batch(1, 0, 2, batch);
    std::vector<Batch> held_out = task.held_out(4, 2);
    held_out.push_back(batch);
    for (const Batch& b : held_out)
        for (std::size_t i = 0; i < b.tokens.size(); ++i)
            if (b.tokens[i] < 0 || b.tokens[i] >= v.size() || b.targets[i] < 0 || b.targets[i] >= v.size())
                fail("a batch token outside the vocabulary");
    return 0;
}
