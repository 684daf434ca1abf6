// Accuracy over counted positions and per-head attention scores (previous-token, induction, diagonals).
#include "metrics.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace attnlab::train
{

namespace
{

constexpr HeadScoreInfo kHeadScoreTable[] = {
    {HeadScoreKind::PreviousToken, "previous-token", "previous-token", "prev", &HeadScores::previous_token},
    {HeadScoreKind::Induction, "induction", "induction (prefix matching)", "ind", &HeadScores::induction},
    {HeadScoreKind::Diagonal, "diagonal", "diagonal", "diag", &HeadScores::diagonal},
    {HeadScoreKind::AntiDiagonal, "anti-diagonal", "anti-diagonal", "anti-diag", &HeadScores::anti_diagonal},
    {HeadScoreKind::WordStart, "word-start", "word start (last space)", "word", &HeadScores::word_start},
};

constexpr bool rows_in_order()
{
    for (int i = 0; i < kHeadScoreCount; ++i)
        if (static_cast<int>(kHeadScoreTable[i].kind) != i)
            return false;
    return true;
}
static_assert(std::size(kHeadScoreTable) == static_cast<std::size_t>(kHeadScoreCount) && rows_in_order(),
              "one row per HeadScoreKind, in its order");

} // namespace

const HeadScoreInfo& head_score_info(HeadScoreKind kind)
{
    return kHeadScoreTable[static_cast<std::size_t>(head_score_kind(static_cast<int>(kind)))];
}

double head_score(const HeadScores& s, HeadScoreKind kind)
{
    return s.*head_score_info(kind).member;
}

HeadScoreKind head_score_kind(int i)
{
    return static_cast<HeadScoreKind>(std::clamp(i, 0, kHeadScoreCount - 1));
}

void Accuracy::add(const Batch& batch, const Activations& acts)
{
    for (int b = 0; b < batch.B; ++b)
    {
        bool all_right = true, any = false;
        for (int t = 0; t < batch.T; ++t)
        {
            const int n = b * batch.T + t;
            const size_t at = static_cast<size_t>(n);
            if (batch.loss_mask[at] && batch.targets[at] >= 0)
            {
                loss_sum += static_cast<double>(acts.loss(n));
                loss_counted += 1;
            }
            if (!batch.acc_mask[at] || batch.targets[at] < 0)
                continue;
            Eigen::Index argmax = 0;
            acts.probs.row(n).maxCoeff(&argmax);
            const bool right = argmax == batch.targets[at];
            correct += right;
            counted += 1;
            all_right = all_right && right;
            any = true;
        }
        if (any)
        {
            exact += all_right;
            sequences += 1;
        }
    }
}

void HeadScoreSums::reset(const ModelConfig& c)
{
    n_heads_ = c.n_heads;
    const size_t n = static_cast<size_t>(c.n_layers) * static_cast<size_t>(c.n_heads);
    sums_.assign(n, HeadScores{});
    rows_.assign(n, 0);
    prev_rows_.assign(n, 0);
    induction_rows_.assign(n, 0);
    word_rows_.assign(n, 0);
}

void HeadScoreSums::add(const ModelConfig& c, const Batch& batch, const Activations& acts)
{
    const int T = batch.T;
    for (int l = 0; l < c.n_layers; ++l)
        for (int j = 0; j < c.n_heads; ++j)
        {
            const size_t k = static_cast<size_t>(l) * static_cast<size_t>(c.n_heads) + static_cast<size_t>(j);
            HeadScores& s = sums_[k];
            for (int b = 0; b < batch.B; ++b)
            {
                const auto A =
                    attention_block(acts.layers[static_cast<size_t>(l)].weights, b, j, c.n_heads, T);
                const int* x = &batch.tokens[static_cast<size_t>(b) * static_cast<size_t>(T)];
                const std::uint8_t* counted =
                    &batch.acc_mask[static_cast<size_t>(b) * static_cast<size_t>(T)];
                int last_boundary = -1; // the last key before i that ends a word
                for (int i = 0; i < T; ++i)
                {
                    if (last_boundary >= 0)
                    {
                        s.word_start += A(i, last_boundary);
                        word_rows_[k] += 1;
                    }
                    if (x[i] >= 0 && static_cast<size_t>(x[i]) < boundary_.size() &&
                        boundary_[static_cast<size_t>(x[i])])
                        last_boundary = i;
                    if (counted[i])
                    {
                        rows_[k] += 1;
                        s.diagonal += A(i, i);
                        s.anti_diagonal += A(i, T - 1 - i);
                    }
                    if (i >= 1)
                    {
                        s.previous_token += A(i, i - 1);
                        prev_rows_[k] += 1;
                    }
                    double on_match = 0;
                    bool any = false;
                    for (int key = 1; key <= i; ++key)
                        if (x[key - 1] == x[i])
                        {
                            on_match += A(i, key);
                            any = true;
                        }
                    if (any)
                    {
                        s.induction += on_match;
                        induction_rows_[k] += 1;
                    }
                }
            }
        }
}

void HeadScoreSums::finish(std::vector<HeadScores>& out) const
{
    out.resize(sums_.size());
    const auto mean = [](double sum, double n) { return n > 0 ? sum / n : 0.0; };
    for (size_t k = 0; k < sums_.size(); ++k)
    {
        out[k].previous_token = mean(sums_[k].previous_token, prev_rows_[k]);
        out[k].induction = mean(sums_[k].induction, induction_rows_[k]);
        out[k].diagonal = mean(sums_[k].diagonal, rows_[k]);
        out[k].anti_diagonal = mean(sums_[k].anti_diagonal, rows_[k]);
        out[k].word_start = mean(sums_[k].word_start, word_rows_[k]);
    }
}

std::vector<float> token_losses(const Batch& batch, const Activations& acts, int b)
{
    std::vector<float> out(static_cast<size_t>(batch.T), std::numeric_limits<float>::quiet_NaN());
    for (int t = 0; t < batch.T; ++t)
    {
        const int n = b * batch.T + t;
        if (batch.loss_mask[static_cast<size_t>(n)] && batch.targets[static_cast<size_t>(n)] >= 0 &&
            n < acts.loss.size())
            out[static_cast<size_t>(t)] = acts.loss(n);
    }
    return out;
}

} // namespace attnlab::train
