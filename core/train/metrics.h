// What a trained model does: loss and accuracy on counted positions, and what each head attends to.
#pragma once

#include "batch.h"
#include "model.h"
#include "transformer.h"

#include <cstdint>
#include <vector>

namespace attnlab::train
{

// Prediction quality over the positions batch.acc_mask counts (argmax of probs against the target).
struct Accuracy
{
    double correct = 0, counted = 0;       // positions
    double exact = 0, sequences = 0;       // sequences with every counted position right / with one counted
    double loss_sum = 0, loss_counted = 0; // Σ loss over loss_mask positions, and their number

    void add(const Batch& batch, const Activations& acts);
    double accuracy() const { return counted > 0 ? correct / counted : 0; }
    double exact_match() const { return sequences > 0 ? exact / sequences : 0; }
    double mean_loss() const { return loss_counted > 0 ? loss_sum / loss_counted : 0; }
};

// What one head attends to. A is the head's (T, T) attention matrix of one sequence (row i = query, column j
// = key), x the sequence's input tokens. Each score is a mean over rows, pooled over every sequence of the
// batch:
//  - previous_token (Olsson et al. 2022, "In-context learning and induction heads": a previous-token head
//    "attends to the previous token"): A[i, i − 1], averaged over every row i >= 1 of the input (all
//    positions where i − 1 exists, whatever the task counts for accuracy);
//  - induction, the paper's prefix matching ("the head attends back to previous tokens that were followed by
//    the current and/or recent tokens ... the prefix matching score is the average attention weight on
//    those tokens"): for a row i, the earlier keys j (1 <= j <= i, the keys a causal mask lets it see) whose
//    previous token equals the query's, x[j − 1] == x[i]; the score of the row is Σ A[i, j] over those j,
//    averaged over the rows that have at least one such key (a row whose only match lies ahead, such as the
//    last token of the first period in Induction, is left out rather than counted as 0);
//  - diagonal: A[i, i]; anti_diagonal: A[i, T − 1 − i] (the mirrored position of Reverse); both averaged
//    over the query rows batch.acc_mask counts;
//  - word_start (text): A[i, j] for the last key j < i whose token ends a word (whitespace: the space before
//    the query's word, or before the word just ended when the query is a space itself), averaged over the
//    rows that have such a key; 0 for tasks without word boundaries (HeadScoreSums::set_word_boundaries).
struct HeadScores
{
    double previous_token = 0, induction = 0, diagonal = 0, anti_diagonal = 0, word_start = 0;
};

// The scores above as a list, in HeadScores' order (the Training panel's score picker, lesson files' "score",
// a task's row in core/train/tasks.cpp).
enum class HeadScoreKind
{
    PreviousToken,
    Induction,
    Diagonal,
    AntiDiagonal,
    WordStart,
    Count
};
inline constexpr int kHeadScoreCount = static_cast<int>(HeadScoreKind::Count);

// One row per score: its key in files ("anti-diagonal"), its name on a curve, its short name in a map title
// ("anti-diag") and where HeadScores keeps it.
struct HeadScoreInfo
{
    HeadScoreKind kind;
    const char* key;
    const char* name;
    const char* short_name;
    double HeadScores::*member;
};
const HeadScoreInfo& head_score_info(HeadScoreKind kind);
// The score of that kind; kind outside the list: previous-token (a score picked by index from a UI list).
double head_score(const HeadScores& s, HeadScoreKind kind);
// The kind at index i of the list, clamped into it.
HeadScoreKind head_score_kind(int i);

// Sums of the scores above over a batch, for every layer and head ([l·h + j]); finish() turns them into
// means.
class HeadScoreSums
{
public:
    void reset(const ModelConfig& config);
    // boundary[id] = 1 for the token ids that end a word (Task::word_boundaries); empty: no word-start score.
    // Kept by reset().
    void set_word_boundaries(std::vector<std::uint8_t> boundary) { boundary_ = std::move(boundary); }
    void add(const ModelConfig& config, const Batch& batch, const Activations& acts);
    // The means so far, [l·h + j], into out (no heap call when out already has that size).
    void finish(std::vector<HeadScores>& out) const;

private:
    int n_heads_ = 0;
    std::vector<HeadScores> sums_;
    std::vector<double> rows_, prev_rows_, induction_rows_, word_rows_;
    std::vector<std::uint8_t> boundary_;
};

// [SECTION] Text: what a model makes of each character

// The cross-entropy at each position of sequence b of a batch after forward(): -log p(target), the loss
// strip's values; NaN where batch.loss_mask does not count the position (no known next token).
std::vector<float> token_losses(const Batch& batch, const Activations& acts, int b);

} // namespace attnlab::train
