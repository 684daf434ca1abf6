// Which maps a lesson step shows (no ImGui): one decision that the presenter, the lesson slides and the
// Comparisons panel all read, so a step shows the same maps on the screen and on a slide.
#pragma once

#include "ui/model/app_state.h"

#include <vector>

namespace attnlab
{

enum class StepMapsKind
{
    Session, // no lesson, or a step with no stages: the pipeline (on a slide: the selected head's weights)
    Stages,  // the step's stages at the selection, highlighted
    Heads,   // every head's attention weights
    Comparisons, // one or all of the comparison sections
    Training,    // the Training panel's probe (its maps come from the training run, not the trace)
};

struct StepMaps
{
    StepMapsKind kind = StepMapsKind::Session;
    ComparisonSection comparison = ComparisonSection::All; // Comparisons: the section(s) shown
    // The maps in the order they are shown. Session: the selected head's weights; Stages: each stage of the
    // step (of its cross-attention block when it says so) at the selected layer, sentence and head; Heads:
    // the weights of head 1 … h; Comparisons: comparison_maps(comparison); Training: none.
    std::vector<MatrixRef> maps;
    // Stages: the step is about the softmax's axis (LessonStep::row_sums): its weights show their rows' sums
    // and its maps their axes' titles.
    bool row_sums = false;
};

// What `step` (nullptr: no lesson) shows with the selection of `state`.
StepMaps step_maps(const AppState& state, const LessonStep* step);

// The maps of a comparison section at the selection, in the order shown. Packed: X W^Q (packed), then Q_1 …
// Q_h; TwoStep: (X W^Q) W_h^Q, X (W^Q W_h^Q), then their difference; SingleHead: the single head's weights, A
// of the selected head, the single head's output, the multi-head output; All: the three sections in that
// order.
std::vector<MatrixRef> comparison_maps(const AppState& state, ComparisonSection section);

// Whether a training step shows its text model's loss strip (the probe's characters coloured by the model's
// surprise) in presenter mode and on its slide: its text talks about "the loss strip".
bool step_shows_loss_strip(const LessonStep* step);

// Whether a view of the comparison section(s) `shown` includes `section` (All includes every one).
bool shows_comparison(ComparisonSection shown, ComparisonSection section);

} // namespace attnlab
