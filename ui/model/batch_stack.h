// The whole batch of one pipeline stage: its B per-sentence slices and the tensor's shape as the forum's
// thread writes it ([2, 3, 3]), for the Pipeline's "whole batch" view.
#pragma once

#include "ui/model/app_state.h"

#include <string>
#include <vector>

namespace attnlab
{

// One sentence's matrix of the stage: slice b of the [B, rows, cols] tensor.
struct BatchSlice
{
    MatrixRef ref;     // the stage's matrix for sentence b (resolve_matrix gives trace's matrix of that b)
    std::string label; // "b = 0 · sentence 1: the cat sat on the mat"
};

struct BatchStack
{
    std::string name;    // "X", "Q_h (head 2)", "scores (head 1)": how the caption names the tensor
    std::string symbols; // "[B, T, d_model]" ("[B, T_q, T_k]" in cross-attention)
    std::string shape;   // "[2, 6, 16]"
    std::vector<BatchSlice> slices; // B slices, b = 0 .. B - 1; empty when there is nothing to stack

    // "X: [2, 6, 16]"
    std::string caption() const { return name + ": " + shape; }
};

// The stage of `ref` (its layer, head and source; its b is ignored) as the stack of its B slices. Nothing to
// stack (empty slices): one sentence, a comparison, a stage with one matrix for every sentence (the
// positional encoding), or a stage the trace does not have.
BatchStack batch_stack(const AppState& state, const MatrixRef& ref);

} // namespace attnlab
