// The training tasks' generators, vocabularies and presets.
#include "tasks.h"

#include "core/random.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <vector>

namespace attnlab::train
{

namespace
{

// A stream of random numbers from a key (core/random.h's mix).
struct Rng
{
    std::uint64_t state;
    std::uint64_t next() { return mix64(state++); }
    int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

constexpr int kMaxSequence = 128;
constexpr const char* kDefaultCorpus =
    "austen"; // Text's corpus when none is given // tokens of one generated sequence (T + 1)

// Whether a sequence of input tokens belongs to the held-out fifth.
bool is_held_out(const int* tokens, int n)
{
    std::uint64_t h = 0x68656C646F7574ull; // "heldout"
    for (int t = 0; t < n; ++t)
        h = mix64(h ^ static_cast<std::uint64_t>(tokens[t]));
    return h % 5 == 0;
}

// The smallest p with seq[t] == seq[t - p] for every t in [p, n).
int shortest_period(const int* seq, int n)
{
    int p = 1;
    while (p < n && !std::equal(seq + p, seq + n, seq))
        ++p;
    return p;
}

// [SECTION] Tally's tokens: the two votes, then the answers "previous vote, leader" ('=': a tie).
constexpr int kVoteA = 0, kTallyAnswer0 = 2;

// [SECTION] Agreement's grammar: token ids into its vocabulary (the table's row).
constexpr int kPad = 0, kDot = 1, kThe = 2, kThat = 3, kIs = 4, kAre = 5, kAdj0 = 6, kAdjN = 6, kPrep0 = 12,
              kPrepN = 7, kNoun0 = 19, kNounN = 14, kVerb0 = 47, kVerbN = 4;

// [SECTION] The generators: one per task, a pure function of the key (a stream of random numbers).

// A sequence being generated: input tokens [0, T), their targets, and which positions the loss and accuracy
// count. Next-token tasks write the whole sequence to seq and call shifted() (input seq[0, T), targets
// seq[1, T]).
} // namespace

struct TaskDraft
{
    int T;
    int* tokens;
    int* targets;
    std::uint8_t* loss_mask;
    std::uint8_t* acc_mask;
    int seq[kMaxSequence + 1];
    const TextCorpus* corpus = nullptr; // Text's
    float repeat = 0;                   // Text's share of sequences with a repeated snippet

    void shifted()
    {
        for (int t = 0; t < T; ++t)
        {
            tokens[t] = seq[t];
            targets[t] = seq[t + 1];
        }
    }
    void mark(int t, bool loss, bool acc)
    {
        loss_mask[t] = loss;
        acc_mask[t] = acc;
    }
};

namespace
{

// 8 digits, the separator, then the digits again (reversed or not).
void digits_then(Rng& rng, TaskDraft& d, bool reversed)
{
    constexpr int L = 8, separator = 10;
    for (int i = 0; i < L; ++i)
        d.seq[i] = rng.below(10);
    d.seq[L] = separator;
    for (int i = 0; i < L; ++i)
        d.seq[L + 1 + i] = reversed ? d.seq[L - 1 - i] : d.seq[i];
    d.shifted();
    for (int t = L; t < 2 * L; ++t) // positions L..2L-1 predict the output digits
        d.mark(t, true, true);
}

void generate_copy(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    digits_then(rng, d, false);
}

void generate_reverse(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    digits_then(rng, d, true);
}

void generate_sort(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    constexpr int L = 6;
    for (int i = 0; i < L; ++i)
        d.seq[i] = rng.below(3);
    std::copy(d.seq, d.seq + L, d.seq + L);
    std::sort(d.seq + L, d.seq + 2 * L);
    d.shifted();
    for (int t = L - 1; t < 2 * L - 1; ++t)
        d.mark(t, true, true);
}

void generate_induction(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    // Each token of a period is drawn from all 32, so a period may hold one twice ("A B A C"): the
    // current token alone does not say what follows, the token before it has to match too, at every
    // position. With distinct tokens each token's match lies in the first period (positions 1-16), and
    // the previous-token head stayed sharp there only: 0.9 on i - 1 up to position 16, 0.01-0.25 after.
    const int period = 4 + rng.below(13); // 4..16
    do
        for (int t = 0; t <= d.T; ++t)
            d.seq[t] = t < period ? rng.below(32) : d.seq[t - period];
    while (shortest_period(d.seq, d.T + 1) < period); // "A B A B" repeats every 2
    d.shifted();
    for (int t = 0; t < d.T; ++t) // the loss counts everywhere; accuracy where the repeat is predictable
        d.mark(t, true, t + 1 >= period);
}

void generate_brackets(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    constexpr int L = 12, open = 0, close = 1, equals = 2, yes = 3, no = 4;
    const int want = rng.below(2); // 1: balanced, 0: not; half of the unbalanced ones have 6 of each
    const int style = rng.below(2);
    for (;;)
    {
        if (want || style)
        {
            for (int i = 0; i < L; ++i)
                d.seq[i] = i < L / 2 ? open : close;
            for (int i = L - 1; i > 0; --i)
                std::swap(d.seq[i], d.seq[rng.below(i + 1)]);
        }
        else
            for (int i = 0; i < L; ++i)
                d.seq[i] = rng.below(2);
        int depth = 0, lowest = 0;
        for (int i = 0; i < L; ++i)
        {
            depth += d.seq[i] == open ? 1 : -1;
            lowest = std::min(lowest, depth);
        }
        const bool balanced = depth == 0 && lowest == 0;
        if (balanced == (want == 1))
            break;
    }
    for (int i = 0; i < L; ++i)
        d.tokens[i] = d.seq[i];
    d.tokens[L] = equals;
    d.targets[L] = want ? yes : no;
    d.mark(L, true, true);
}

void generate_agreement(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    // the [adj] N1 (P the [adj] N2 | that the [adj] N2 V2 | that V1 the [adj] N2) is/are .
    int n = 0;
    const auto noun_phrase = [&](int noun, bool plural)
    {
        d.seq[n++] = kThe;
        if (rng.below(2))
            d.seq[n++] = kAdj0 + rng.below(kAdjN);
        d.seq[n++] = kNoun0 + 2 * noun + plural;
    };
    const int n1 = rng.below(kNounN), n2 = (n1 + 1 + rng.below(kNounN - 1)) % kNounN;
    const bool plural1 = rng.below(2), plural2 = rng.below(2);
    noun_phrase(n1, plural1);
    switch (rng.below(3))
    {
    case 0:
        d.seq[n++] = kPrep0 + rng.below(kPrepN);
        noun_phrase(n2, plural2);
        break;
    case 1:
        d.seq[n++] = kThat;
        noun_phrase(n2, plural2);
        d.seq[n++] = kVerb0 + 2 * rng.below(kVerbN) + plural2;
        break;
    default:
        d.seq[n++] = kThat;
        d.seq[n++] = kVerb0 + 2 * rng.below(kVerbN) + plural1;
        noun_phrase(n2, plural2);
        break;
    }
    const int verb_at = n;
    d.seq[n++] = plural1 ? kAre : kIs;
    d.seq[n++] = kDot;
    while (n <= d.T)
        d.seq[n++] = kPad;
    d.shifted();
    d.mark(verb_at - 1, true, true);
}

void generate_tally(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    // Each answer needs one position sharply (the vote before, i - 1) and all of 0..i evenly (the lead).
    // One softmax row cannot be both: with h = 1 the head spreads evenly, the lead comes out right and
    // the vote before is a guess (right 71-83% of the time at step 500, seeds 1-3).
    int lead = 0; // votes for A minus votes for B among d.tokens[0..t]
    for (int t = 0; t < d.T; ++t)
    {
        d.tokens[t] = rng.below(2);
        lead += d.tokens[t] == kVoteA ? 1 : -1;
        if (t == 0)
            continue;
        d.targets[t] = kTallyAnswer0 + 3 * d.tokens[t - 1] + (lead > 0 ? 0 : lead < 0 ? 1 : 2);
        d.mark(t, true, true);
    }
}

void generate_text(std::uint64_t key, TaskDraft& d)
{
    Rng rng{key};
    const TextCorpus& c = *d.corpus;
    const int n = d.T + 1;
    const std::uint64_t starts =
        c.train_end - static_cast<std::size_t>(n) + 1; // windows of the training part
    const std::size_t start = static_cast<std::size_t>(rng.next() % starts);
    for (int t = 0; t < n; ++t)
        d.seq[t] = c.ids[start + static_cast<std::size_t>(t)];
    // A snippet of L characters at a, then the snippet again and again to the end of the window: from a + L
    // on, every character is predictable by finding its earlier copy (induction), not from English alone.
    // One later copy of the snippet instead (about 15 predictable characters of 64) taught no copying
    // within 5,000 steps on seed 2; repeating it to the end (about 32) forms induction heads by step 750
    // (seeds 1-2).
    if (d.repeat > 0 && static_cast<double>(rng.next() >> 11) * 0x1.0p-53 < static_cast<double>(d.repeat))
    {
        const int L = std::min(8 + rng.below(17), n / 2); // 8..24
        const int a = rng.below(n - 2 * L + 1);
        for (int t = a + L; t < n; ++t)
            d.seq[t] = d.seq[t - L];
    }
    d.shifted();
    for (int t = 0; t + 1 < d.T;
         ++t) // the last position's target is not in the input: not counted (label_text)
        d.mark(t, true, true);
}

// [SECTION] The labels: what each position of an input sequence should predict, and which positions count,
// from the input tokens alone (a sequence the user wrote, such as the Training panel's probe). For every
// sequence a generator writes, its label gives the generator's own targets and masks (a test checks it).

// Counts position t with that target, for the loss and the accuracy.
void count(TaskLabels& l, int t, int target, bool acc = true)
{
    l.targets[t] = target;
    l.loss_mask[t] = 1;
    l.acc_mask[t] = acc;
}

// Copy and Reverse: digits, the separator at s, then the answer; position t in [s, 2s − 1] predicts the
// answer's digit t − s (Copy) or 2s − 1 − t (Reverse).
void label_digits(TaskLabels& l, bool reversed)
{
    constexpr int separator = 10;
    const int s = static_cast<int>(std::find(l.tokens, l.tokens + l.T, separator) - l.tokens);
    if (s == l.T || std::any_of(l.tokens, l.tokens + s, [](int x) { return x >= separator; }))
        return;
    for (int t = s; t < std::min(l.T, 2 * s); ++t)
        count(l, t, l.tokens[reversed ? 2 * s - 1 - t : t - s]);
}

void label_copy(TaskLabels& l)
{
    label_digits(l, false);
}

void label_reverse(TaskLabels& l)
{
    label_digits(l, true);
}

// Sort: 6 symbols, then the same sorted; position t in [5, 10] predicts the sorted symbol t − 5.
void label_sort(TaskLabels& l)
{
    constexpr int L = 6;
    if (l.T < L)
        return;
    int sorted[L];
    std::copy(l.tokens, l.tokens + L, sorted);
    std::sort(sorted, sorted + L);
    for (int t = L - 1; t < std::min(l.T, 2 * L - 1); ++t)
        count(l, t, sorted[t - L + 1]);
}

// Induction: every position predicts the next token; the accuracy counts from the first repeat on, and the
// last position predicts the token one period back.
void label_induction(TaskLabels& l)
{
    const int period = shortest_period(l.tokens, l.T);
    for (int t = 0; t + 1 < l.T; ++t)
        count(l, t, l.tokens[t + 1], t + 1 >= period);
    if (period < l.T)
        count(l, l.T - 1, l.tokens[l.T - period]);
}

// Brackets: the '=' after the brackets predicts yes when they are balanced, no when not.
void label_brackets(TaskLabels& l)
{
    constexpr int open = 0, equals = 2, yes = 3, no = 4;
    const int e = static_cast<int>(std::find(l.tokens, l.tokens + l.T, equals) - l.tokens);
    if (e == l.T)
        return;
    int depth = 0, lowest = 0;
    for (int i = 0; i < e; ++i)
    {
        if (l.tokens[i] > 1)
            return; // not a bracket
        depth += l.tokens[i] == open ? 1 : -1;
        lowest = std::min(lowest, depth);
    }
    count(l, e, depth == 0 && lowest == 0 ? yes : no);
}

// Agreement: the position before "is"/"are" predicts the verb that agrees with the first noun.
void label_agreement(TaskLabels& l)
{
    const int v = static_cast<int>(
        std::find_if(l.tokens, l.tokens + l.T, [](int x) { return x == kIs || x == kAre; }) - l.tokens);
    const AgreementNouns nouns = agreement_nouns(l.tokens, v);
    if (v == l.T || v == 0 || nouns.subject < 0)
        return;
    count(l, v - 1, (l.tokens[nouns.subject] - kNoun0) % 2 == 1 ? kAre : kIs);
}

// Tally: from the second vote on, each position names the vote before and who leads so far.
void label_tally(TaskLabels& l)
{
    int lead = 0;
    for (int t = 0; t < l.T; ++t)
    {
        if (l.tokens[t] > 1)
            return; // not a vote: the answers after it are undefined
        lead += l.tokens[t] == kVoteA ? 1 : -1;
        if (t > 0)
            count(l, t, kTallyAnswer0 + 3 * l.tokens[t - 1] + (lead > 0 ? 0 : lead < 0 ? 1 : 2));
    }
}

// Text: every position but the last predicts the character after it.
void label_text(TaskLabels& l)
{
    for (int t = 0; t + 1 < l.T; ++t)
        count(l, t, l.tokens[t + 1]);
}

// [SECTION] The table

using S = HeadScoreKind;
constexpr bool kCausal = true, kAttentionOnly = true;
constexpr const char* kDigits = "0 1 2 3 4 5 6 7 8 9 |";

// Presets as measured (seeds and steps in the comments). Column order of a preset: layers, h, d_model,
// attention-only, batch, steps, lr, then β2, weight decay and the embeddings' std where they differ.
constexpr std::array<TaskInfo, kTaskCount> kTaskTable = {{
    // 100% by step 100: an offset-diagonal head.
    {TaskKind::Copy,
     "copy",
     "Copy",
     "8 digits, a separator, then the same digits: one head looks 9 back.",
     kDigits,
     16,
     kCausal,
     {1, 1, 32, false, 64, 300},
     S::Diagonal,
     {S::Diagonal, S::PreviousToken},
     generate_copy,
     label_copy},
    // 100% by step 100, anti-diagonal layer-0 heads.
    {TaskKind::Reverse,
     "reverse",
     "Reverse",
     "8 digits, a separator, then the digits reversed: heads attend to the mirrored position.",
     kDigits,
     16,
     kCausal,
     {2, 2, 48, false, 64, 500},
     S::AntiDiagonal,
     {S::AntiDiagonal, S::PreviousToken},
     generate_reverse,
     label_reverse},
    // minGPT's demo model (85.7k parameters), its lr and betas, no dropout.
    {TaskKind::Sort,
     "sort",
     "Sort",
     "minGPT's task: 6 symbols of {0, 1, 2}, then the same symbols sorted.",
     "0 1 2",
     11,
     kCausal,
     {3, 3, 48, false, 64, 2000, 5e-4f},
     S::PreviousToken,
     {S::PreviousToken, S::Induction},
     generate_sort,
     label_sort},
    // Attention-only, 2 layers: the smallest circuit that does it. Embeddings at GPT-2's 0.02 left the
    // circuit
    // to chance: seeds 2, 5, 7 and 8 of 1-8 stalled at 92-94% with no previous-token head. At 0.05 every seed
    // of 1-14 got there by step 1500-1750.
    {TaskKind::Induction,
     "induction",
     "Induction heads",
     "32 random tokens repeating with a random period of 4 to 16: predict the repeat from the first period.",
     "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z a b c d e f",
     32,
     kCausal,
     {2, 4, 64, kAttentionOnly, 32, 3000, 1e-3f, 0.99f, 0.01f, 0.05f},
     S::Induction,
     {S::PreviousToken, S::Induction},
     generate_induction,
     label_induction},
    {TaskKind::Brackets,
     "brackets",
     "Balanced brackets",
     "12 brackets, then '=': are they balanced? Every position sees every other (no causal mask).",
     "( ) = yes no",
     13,
     !kCausal,
     {2, 4, 48, false, 64, 2000},
     S::PreviousToken,
     {S::PreviousToken, S::Induction},
     generate_brackets,
     label_brackets},
    {TaskKind::Agreement,
     "agreement",
     "Subject-verb agreement",
     "\"the keys to the old cabinet\" -> are: the verb agrees with the subject, not the nearest noun.",
     // Token ids are the generator's (kPad ... kVerb0 below).
     "<pad> . the that is are "
     "old small red big new happy "                                    // adjectives (6)
     "to near behind of on with under "                                // prepositions (7)
     "key keys cabinet cabinets dog dogs teacher teachers book books " // nouns: singular, plural (14 pairs)
     "car cars door doors girl girls boy boys house houses table tables friend friends bird birds farmer "
     "farmers "
     "likes like sees see holds hold knows know", // verbs of the relative clause: singular, plural (4 pairs)
     10,
     kCausal,
     {2, 2, 32, false, 64, 1000},
     S::PreviousToken,
     {S::PreviousToken, S::Induction},
     generate_agreement,
     label_agreement},
    // h = 2 is exact by step 500 on seeds 1-8; the same model with h = 1 reaches 70-82% at 500 and 71-92% at
    // 1000. The previous-vote head sharpens after the answers are exact (weight on i - 1 0.33-0.88 at step
    // 500, 0.79-0.95 at 1000), hence 1000 steps.
    {TaskKind::Tally,
     "tally",
     "Vote tally",
     "24 votes for A or B; at each, name the vote before and who leads so far: one look back, one count.",
     "A B AA AB A= BA BB B=",
     24,
     kCausal,
     {1, 2, 32, kAttentionOnly, 64, 1000},
     S::PreviousToken,
     {S::PreviousToken, S::Induction},
     generate_tally,
     label_tally},
    // TRAINING.md's model (47k parameters). Embeddings at 0.02 (or 0.05) left the previous-token role spread
    // over several heads (the best 0.40 at step 1000, seeds 1-2); E and P at N(0, 1) make one layer-0 head
    // take it, >= 0.5 by step 500-550 (0.68-0.70 at 1000, seeds 1-2), and the held-out loss follows
    // TRAINING.md's curve (2.18 at 500, 1.90-1.93 at 1000). With repeat 0.5 (generate_text), layer-1
    // induction heads reach 0.15 on held-out text by step 750 (0.37-0.38 at 1500, seeds 1-2).
    {TaskKind::Text,
     "text",
     "Text",
     "English (a built-in book or your own file), a token per character or per word: predict the next one.",
     "",
     64,
     kCausal,
     {2, 4, 64, kAttentionOnly, 32, 2000, 3e-3f, 0.99f, 0.01f, 1.0f},
     S::PreviousToken,
     {S::PreviousToken, S::Induction},
     generate_text,
     label_text},
}};

// A forgotten or misplaced row, or one without its generator, is a compile error (a missing row would be a
// zero row of kind Copy).
constexpr bool task_rows_in_order()
{
    for (int i = 0; i < kTaskCount; ++i)
        if (static_cast<int>(kTaskTable[static_cast<std::size_t>(i)].kind) != i ||
            kTaskTable[static_cast<std::size_t>(i)].key == nullptr ||
            kTaskTable[static_cast<std::size_t>(i)].generate == nullptr ||
            kTaskTable[static_cast<std::size_t>(i)].label == nullptr)
            return false;
    return true;
}
// GCC cannot compare a function's address with null in a constant expression under -fsanitize=undefined: the
// sanitizer build (CMakePresets.json, ATTNLAB_SANITIZER_BUILD) checks the rows at run time instead.
#ifndef ATTNLAB_SANITIZER_BUILD
static_assert(task_rows_in_order(), "kTaskTable needs one row per TaskKind, in its order");
#endif

} // namespace

const TaskInfo& task_info(TaskKind kind)
{
    assert(kind != TaskKind::Count);
    return kTaskTable[static_cast<size_t>(kind)];
}

AgreementNouns agreement_nouns(const int* tokens, int n)
{
    AgreementNouns where;
    for (int t = 0; t < n; ++t)
        if (tokens[t] >= kNoun0 && tokens[t] < kNoun0 + 2 * kNounN)
            (where.subject < 0 ? where.subject : where.distractor) = t;
    return where;
}

Status parse_task(std::string_view key, TaskKind* out)
{
    for (const TaskInfo& info : kTaskTable)
        if (key == info.key)
        {
            *out = info.kind;
            return Status::ok();
        }
    return Status::error("unknown task '" + std::string(key) + "' (tasks: " + task_keys() + ")");
}

std::string task_keys()
{
    std::string keys;
    for (const TaskInfo& info : kTaskTable)
        keys += (keys.empty() ? "" : ", ") + std::string(info.key);
    return keys;
}

Task::Task(TaskKind kind) : kind_(kind)
{
    set_row(kind);
    if (kind == TaskKind::Text)
    {
        std::shared_ptr<const TextCorpus> corpus;
        TextCorpusOptions options;
        options.T = T_;
        status_ = load_text_corpus(kDefaultCorpus, options, &corpus);
        if (status_)
            *this = Task(std::move(corpus), 0.0f);
    }
}

Task::Task(std::shared_ptr<const TextCorpus> corpus, float repeat_share)
    : kind_(TaskKind::Text), corpus_(std::move(corpus)), repeat_(std::clamp(repeat_share, 0.0f, 1.0f))
{
    set_row(TaskKind::Text);
    if (!corpus_)
    {
        status_ = Status::error("the text task needs a text (" + builtin_corpus_keys() + " or a file)");
        return;
    }
    if (corpus_->train_end < static_cast<std::size_t>(T_) + 1 ||
        corpus_->ids.size() - corpus_->train_end < static_cast<std::size_t>(T_) + 1)
    {
        status_ = Status::error(corpus_->source.name() + " is too short for sequences of " +
                                std::to_string(T_) + " " + corpus_->vocabulary.unit() + "s");
        corpus_.reset();
        return;
    }
    vocabulary_ = corpus_->vocabulary.symbols();
}

void Task::set_row(TaskKind kind)
{
    const TaskInfo& row = task_info(kind);
    vocabulary_.clear();
    for (std::string_view rest = row.vocabulary; !rest.empty();)
    {
        const std::size_t space = std::min(rest.find(' '), rest.size());
        vocabulary_.emplace_back(rest.substr(0, space));
        rest.remove_prefix(std::min(space + 1, rest.size()));
    }
    T_ = row.T;
    causal_ = row.causal;
}

std::vector<std::uint8_t> Task::word_boundaries() const
{
    return corpus_ ? corpus_->vocabulary.word_boundaries() : std::vector<std::uint8_t>();
}

Preset Task::preset() const
{
    const TaskPreset& row = info().preset;
    Preset p;
    ModelConfig& m = p.model;
    m.vocab_size = vocab_size();
    m.T_max = T_;
    m.causal = causal_;
    m.norm = NormPlacement::Pre;
    m.positions = PositionKind::Learned;
    m.n_layers = row.n_layers;
    m.n_heads = row.n_heads;
    m.d_model = row.d_model;
    m.attention_only = row.attention_only;
    m.embedding_std = row.embedding_std;
    TrainSettings& t = p.train;
    t.batch_size = row.batch_size;
    t.steps = row.steps;
    OptimizerSettings& o = t.optimizer;
    o.lr = row.lr;
    o.beta1 = 0.9f;
    o.beta2 = row.beta2;
    o.weight_decay = row.weight_decay;
    o.grad_clip = 1.0f;
    return p;
}

Batch Task::probe() const
{
    if (corpus_)
        return held_out(1, 1).front();
    const std::vector<Batch> held_out = this->held_out(256, 1);
    for (const Batch& b : held_out)
    {
        const int period = shortest_period(b.tokens.data(), b.T);
        std::vector<int> first(b.tokens.begin(), b.tokens.begin() + period);
        std::sort(first.begin(), first.end());
        if (std::adjacent_find(first.begin(), first.end()) == first.end())
            return b;
    }
    return held_out.front();
}

void Task::label(Batch& batch, int vocab_size) const
{
    for (int b = 0; b < batch.B; ++b)
    {
        const std::size_t at = static_cast<std::size_t>(b) * static_cast<std::size_t>(batch.T);
        TaskLabels l{&batch.tokens[at], batch.T, &batch.targets[at], &batch.loss_mask[at],
                     &batch.acc_mask[at]};
        std::fill(l.targets, l.targets + l.T, -1);
        std::fill(l.loss_mask, l.loss_mask + l.T, std::uint8_t{0});
        std::fill(l.acc_mask, l.acc_mask + l.T, std::uint8_t{0});
        info().label(l);
        for (int t = 0; t < l.T; ++t)
            if (l.targets[t] < 0 || l.targets[t] >= vocab_size)
            {
                l.targets[t] = 0;
                l.loss_mask[t] = 0;
                l.acc_mask[t] = 0;
            }
    }
}

bool Task::generate(std::uint64_t key, int* tokens, int* targets, std::uint8_t* loss_mask,
                    std::uint8_t* acc_mask) const
{
    assert(T_ + 1 <= kMaxSequence);
    std::fill(targets, targets + T_, -1);
    std::fill(loss_mask, loss_mask + T_, std::uint8_t{0});
    std::fill(acc_mask, acc_mask + T_, std::uint8_t{0});
    TaskDraft draft{T_, tokens, targets, loss_mask, acc_mask, {}};
    draft.corpus = corpus_.get();
    draft.repeat = repeat_;
    info().generate(key, draft);
    return !corpus_ && is_held_out(tokens, T_); // Text's held-out part is the corpus's last tenth
}

void Task::make_batch(std::uint64_t seed, std::uint64_t index, int B, Batch& batch) const
{
    assert(kind_ != TaskKind::Text || corpus_); // check status() first
    if (batch.B != B || batch.T != T_)
        batch.resize(B, T_);
    const std::uint64_t base = mix64(mix64(seed ^ 0x747261696E696E67ull) + index); // "training"
    for (int b = 0; b < B; ++b)
    {
        const size_t at = static_cast<size_t>(b) * static_cast<size_t>(T_);
        for (std::uint64_t attempt = 0;; ++attempt)
        {
            const std::uint64_t key =
                mix64(base + static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull + attempt);
            if (!generate(key, &batch.tokens[at], &batch.targets[at], &batch.loss_mask[at],
                          &batch.acc_mask[at]))
                break;
        }
    }
}

std::vector<Batch> Task::held_out(int n, int B) const
{
    std::vector<Batch> out(static_cast<size_t>((n + B - 1) / B));
    if (corpus_)
    {
        // Text: windows of T + 1 characters spread evenly over the last tenth, as they are (no repeats).
        const std::size_t first = corpus_->train_end,
                          last = corpus_->ids.size() - static_cast<size_t>(T_) - 1;
        const std::size_t count = out.size() * static_cast<size_t>(B);
        std::size_t k = 0;
        for (Batch& batch : out)
        {
            batch.resize(B, T_);
            for (int b = 0; b < B; ++b, ++k)
            {
                const std::size_t start = first + (count > 1 ? (last - first) * k / (count - 1) : 0);
                const size_t at = static_cast<size_t>(b) * static_cast<size_t>(T_);
                for (int t = 0; t < T_; ++t)
                    batch.tokens[at + static_cast<size_t>(t)] = corpus_->ids[start + static_cast<size_t>(t)];
                TaskLabels l{&batch.tokens[at], T_, &batch.targets[at], &batch.loss_mask[at],
                             &batch.acc_mask[at]};
                label_text(l);
                batch.targets[at + static_cast<size_t>(T_) - 1] =
                    corpus_->ids[start + static_cast<size_t>(T_)]; // shown, not counted
            }
        }
        return out;
    }
    // Every candidate gets a key of its own through mix64: generate() draws key, key + 1, ... (Rng), so
    // consecutive keys would share their streams shifted by one, and a held-out sequence would repeat most of
    // the one before it (Copy's 8 digits shifted by a place).
    const std::uint64_t base = mix64(0x686F6C646F7574ull + static_cast<std::uint64_t>(kind_)); // "holdout"
    std::uint64_t candidate = 0;
    for (Batch& batch : out)
    {
        batch.resize(B, T_);
        for (int b = 0; b < B; ++b)
        {
            const size_t at = static_cast<size_t>(b) * static_cast<size_t>(T_);
            while (!generate(mix64(base + candidate++), &batch.tokens[at], &batch.targets[at],
                             &batch.loss_mask[at], &batch.acc_mask[at]))
            {
            }
        }
    }
    return out;
}

std::string Task::to_text(const int* tokens, int n) const
{
    if (kind_ == TaskKind::Text) // without a corpus: every token unknown
        return corpus_ ? corpus_->vocabulary.decode(tokens, n) : TextVocabulary().decode(tokens, n);
    std::string text;
    for (int t = 0; t < n; ++t)
    {
        if (t > 0)
            text += ' ';
        text += vocabulary_[static_cast<size_t>(tokens[t])];
    }
    return text;
}

} // namespace attnlab::train
