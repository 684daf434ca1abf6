// Lesson slides drawn on the CPU (attnlab lesson ID --export-dir DIR without --presenter): the step's title,
// its maps with axis titles and one number format each, and its text as the caption, on a light or dark page.
// No menus, buttons or hover hints: a picture to put on a lecture slide.
#pragma once

#include "ui/model/app_state.h"
#include "ui/picture/raster.h"

#include <string>
#include <vector>

namespace attnlab
{

// The step's text for a still picture: sentences and clauses that only make sense in the window ("hover it
// to see the sum", "Drag the timeline …", "Use [ and ] …", "Toggle …") are left out. A text that would be
// left empty (an exercise for the student) stays whole.
std::string slide_caption(const std::string& text);

// The smallest text on a 1080-line slide, in pixels (labels, colour-bar ticks, numbers in cells; it scales
// with the slide's height): 8 px when the slide is pasted at half size. Labels are thinned and numbers left
// out of cells rather than drawn smaller.
inline constexpr float kSlideMinTextPx = 16.0f;

// The current lesson step as a width x height slide: a header with the lesson and the step counter, the
// step's title and where its maps come from (layer, sentence, mask, τ), the maps as large as they fit (the
// step's stages; for the heads view every head's weights; for the comparisons view the step's comparison;
// for a training step the curves and the probe's maps at the shown step), and the caption. Outside a lesson
// it shows the pipeline's attention weights of the selected head. note is set when the font is missing.
// texts (optional): every text drawn, in order (for tests).
Image render_lesson_slide(AppState& state, int width, int height, bool dark, std::string* note = nullptr,
                          std::vector<std::string>* texts = nullptr);

// The stages of one head's chain, in order: X, Q, K, V, scores, scaled, masked, weights, head_out.
std::vector<Stage> head_chain_stages();

// "Export the whole chain of this head": the head's layer, sentence and head (head.stage is not used; a
// cross-attention ref gives the cross-attention chain) as one width x height slide of the nine maps of
// head_chain_stages(), all at one cell size, with its context line and a caption that walks through them.
Image render_head_chain_slide(AppState& state, const MatrixRef& head, int width, int height, bool dark,
                              std::string* note = nullptr, std::vector<std::string>* texts = nullptr);

} // namespace attnlab
