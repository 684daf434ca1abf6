// The Pipeline panel's views beside its stage list (pipeline_panel_batch.cpp: the whole batch of a stage;
// pipeline_logit_lens.cpp: what every layer of an opened model would predict).
#pragma once

#include "ui/heatmap/heatmap.h"
#include "ui/model/app_state.h"

namespace attnlab
{

// The toolbar's "whole batch" box, beside the last item when it fits; nothing when the session has one
// sentence.
void pipeline_batch_toggle(AppState& state);

// With the box ticked and B > 1: the stage of `ref` as its whole [B, T, ·] tensor, the caption ("X: [2, 6,
// 16]") and the B slices one below the other, each labelled "b = 0 · sentence 1: ..." (a click selects that
// sentence). Returns false, drawing nothing, otherwise (then the caller draws the selected sentence's map).
bool draw_stage_batch(AppState& state, const MatrixRef& ref, const HeatmapOptions& options);

// Under an opened model's predictions: the logit lens, closed until asked for (opening it makes every run
// compute it, closing it stops that). Layers down, positions across: each cell the token the residual stream
// after that layer would predict, coloured by its probability; the last row is the model's own prediction.
void draw_logit_lens(AppState& state, const Trace& t);

} // namespace attnlab
