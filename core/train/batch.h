// A batch of training sequences: input tokens, the token to predict at each position, and which positions
// count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::train
{

// B sequences of T tokens, row-major: position t of sequence b is entry b·T + t.
struct Batch
{
    int B = 0, T = 0;
    std::vector<int> tokens;  // (B·T) input token ids
    std::vector<int> targets; // (B·T) the token to predict at each position (next token, or an answer)
    std::vector<std::uint8_t> loss_mask; // (B·T) 1 where the position's cross-entropy counts in the loss
    std::vector<std::uint8_t> acc_mask;  // (B·T) 1 where the prediction counts for accuracy

    // Sizes every vector (no heap call when the size is unchanged) and fills them with zeros.
    void resize(int B_, int T_)
    {
        B = B_;
        T = T_;
        const std::size_t n = static_cast<std::size_t>(B_) * static_cast<std::size_t>(T_);
        tokens.assign(n, 0);
        targets.assign(n, 0);
        loss_mask.assign(n, 0);
        acc_mask.assign(n, 0);
    }
    int size() const { return B * T; }
};

} // namespace attnlab::train
