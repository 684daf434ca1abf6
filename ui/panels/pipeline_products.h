// The Pipeline's products drawn with their weight matrices: X · W_h^Q = Q_h (and K, V), Concat · W^O =
// MultiHead, the FFN's W_1 and W_2, and the packed W^Q with its h column blocks.
#pragma once

#include "ui/heatmap/heatmap.h"
#include "ui/model/app_state.h"

#include <string>
#include <vector>

namespace attnlab
{

// One term of a product row: a matrix (a stage or a weight), or the operator text between two matrices.
struct ProductTerm
{
    bool is_matrix = false;
    MatrixRef ref;      // is_matrix: the matrix
    std::string symbol; // is_matrix: its short name ("X", "W_2^Q", "Q_2"); else the operator ("·", "=")
};

// The terms of the product that makes `stage` (a layer stage at a sentence and head) from one of the model's
// weight matrices, in reading order: Q, K, V: input · W_h = Q_h; mha: Concat · W^O = MultiHead; ffn: input ·
// W_1 → ReLU · W_2 = FFN (the input is X, or LN1(X) / LN2(residual) in a pre-LN layer). Empty for every
// other stage and for cross-attention.
std::vector<ProductTerm> product_terms(const AppState& state, const MatrixRef& stage);

// Draws the terms side by side on one row, each matrix with its name and shape above it and cells of one
// size for all (so the shapes line up as in a matrix product), within the available width. `base` gives the
// heights (max_height; max_total_height for a map with its labels, the two title lines above it not counted:
// kProductTitleLines) and the frame of a lesson's stage. A row too wide for the panel goes on over more
// lines, which share max_total_height.
inline constexpr int kProductTitleLines = 2; // each map's name and shape, above it

// When the row needs more than one line, the input (drawn as its own stage above) is named instead of drawn;
// if a lesson's stage (max_total_height > 0) still needs more, nothing is drawn and false is returned (the
// caller draws the stage's map alone).
bool draw_product_row(AppState& state, const std::vector<ProductTerm>& terms, const HeatmapOptions& base);

// Under Q_h's row: the packed W^Q = [W_1^Q | … | W_h^Q] of the stage's layer, its h column blocks divided
// and the selected head's block framed in the head's colour.
void draw_packed_weights(AppState& state, const MatrixRef& stage, float max_height);

} // namespace attnlab
