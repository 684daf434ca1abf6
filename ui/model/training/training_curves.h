// The Training panel's curves as data (no ImGui): the three plots with their series, shared by the panel and
// the PNG export, so a slide shows exactly what the window shows.
#pragma once

#include "ui/model/training/training_run.h"
#include "ui/picture/colormap.h"

#include <string>
#include <utility>
#include <vector>

namespace attnlab
{

// This run's held-out curves (Okabe–Ito vermilion), wide: the training loss drawn over it still leaves its
// edges showing where the two coincide (early in a run they do, at every step).
inline constexpr Color32 kThisRunColor = pack_rgba(213, 94, 0);
inline constexpr float kHeldOutLossWidth = 3.0f;
// This run's per-step training loss (Okabe–Ito blue): a colour of its own, not a fainter held-out colour,
// opaque and thin, drawn last, so it reads on top of the held-out line's vermilion edges.
inline constexpr Color32 kTrainingLossColor = pack_rgba(0, 114, 178);
inline constexpr float kTrainingLossWidth = 1.2f;
// The alpha of the earlier runs' curves, which stay behind the current run's.
inline constexpr int kPastRunAlpha = 100;
// The steepest drop's name and its patch in the loss plot's key (Okabe–Ito orange; the patch is the band's
// colour, stronger on a line of text than over the data).
inline constexpr Color32 kBandLabelColor = pack_rgba(230, 159, 0);
inline constexpr Color32 kBandKeyColor = pack_rgba(230, 159, 0, 140);

// The contrast (WCAG 2 ratio) a curve's colour keeps on a light background, as drawn (its alpha over the
// background): the Okabe–Ito yellow of a fourth head (1.3:1 on white), the orange of the steepest drop's name
// and the dimmed grey of an earlier run are too faint there.
inline constexpr float kCurveMinContrast = 3.0f;
// The colour a curve is drawn in on `background`: c itself on a dark background, or where it reaches
// kCurveMinContrast over it; else a darker shade of its hue, opaque, that just reaches it.
Color32 curve_color_on(Color32 c, Color32 background);
// The steepest drop's name as text on `background`: kBandLabelColor, darkened on a light background to the
// contrast text needs (4.5).
Color32 band_label_color_on(Color32 background);

struct CurveSeries
{
    std::vector<std::pair<float, float>> points; // (step, value), steps increasing
    Color32 color = 0;
    std::string label;
    float width = 1.5f;     // line width in pixels at the normal font size
    bool thin = false;      // widened less with the font size (the training loss over the wider held-out)
    bool sets_range = true; // the y range fits it (an earlier run does not when the axes fit the current one)
};

struct CurvePlot
{
    std::string title;
    bool log_y = false;
    bool percent = false; // values in [0, 1] shown as %
    bool fixed_y = false; // [y_min, y_max], else the data's range
    float y_min = 0.0f, y_max = 1.0f;
    std::vector<CurveSeries> series;
};

struct TrainingCurves
{
    int x_min = 0, x_max = 1;
    CurvePlot loss, accuracy, heads; // left to right
    bool has_drop = false;           // the steepest drop of the loss, marked on the loss plot
    LossDrop drop;
};

// The held-out scores of head k ([l·h + j]) at the last evaluation at or before that step (*at_step set to
// its step), as the head-score curves show them there; nullptr when there is none.
const train::HeadScores* held_out_scores_at(const TrainingSnapshot& v, int step, int k,
                                            int* at_step = nullptr);
// The same over any run's evaluations (an earlier run's: PastRun::evals, at its last step).
const train::HeadScores* held_out_scores_at(const std::vector<TrainingEval>& evals, int step, int k,
                                            int* at_step = nullptr);
// What the legend says of run `label` that it does not say of run `other` (both RunSpec::label()s): the
// parts of label, comma-separated, that other lacks ("h = 1" for the 1-head run beside the 2-head one; ""
// when none).
std::string label_difference(const std::string& label, const std::string& other);
// "anti-diag 0.91  prev 0.10": the two scores the task's row puts above each head's map (Text: its three
// roles' scores, short: "prev .22  ind .05  word .10").
std::string map_scores_text(train::TaskKind task, const train::HeadScores& s);

// What a text head does, told by its scores: the largest of previous-token, induction and word-start that
// clearly beats chance, else no role (kind Count). Clearly: at least kHeadRoleMin (a head spreading its
// weight evenly over the held-out 64-character windows scores about .06, .09 and .05 on the three), and, when
// `even` gives what evenly spread weights score on the same text (TrainingProbe::even_scores: a short
// probe's chance is higher, .20 previous-token on 11 characters), at least kHeadRoleOverChance times that.
inline constexpr double kHeadRoleMin = 0.15;
inline constexpr double kHeadRoleOverChance = 2.0;
struct HeadRole
{
    train::HeadScoreKind kind = train::HeadScoreKind::Count;
    double score = 0; // the role's score (with no role: the best of the three, below the bar)
};
HeadRole text_head_role(const train::HeadScores& s, const train::HeadScores* even = nullptr);
// "previous token .68", "induction .31", "word start .29", or "no clear role" (short_form: "prev .68",
// "ind .31", "word .29", "no role").
std::string head_role_text(const HeadRole& role, bool short_form = false);
// A text head's three role scores, short ("prev .22  ind .05  word .10"), leaving out `except` (the role its
// map title names already), and word start for a word-level model (every token starts a word).
std::string text_scores_text(const train::HeadScores& s,
                             train::HeadScoreKind except = train::HeadScoreKind::Count,
                             train::TextLevel level = train::TextLevel::Char);
// The colour of an earlier run's curves, with alpha: the i-th earlier run is always grey, then pink (reddish
// purple), then green (bluish green). A lesson's compare[i] is earlier run i, so its text may name the colour
// (assets/lessons/README.md says so).
Color32 past_run_color(std::size_t i, int alpha = 255);
// True when two runs' losses and accuracies are per the same kind of token (the same task, and for Text the
// same level): only then is an earlier run's curve drawn with the current one.
bool same_loss_units(const train::RunSpec& a, const train::RunSpec& b);
// Why an earlier run's curve is not drawn, for its legend line: "another task", "its loss is per word".
std::string not_drawn_reason(const train::RunSpec& earlier, const train::RunSpec& current);
// The name a lesson's text uses for past_run_color(i): "grey", "pink", "green".
const char* past_run_color_name(std::size_t i);

// One entry of the loss plot's key, drawn by the window, presenter mode and the exported pictures alike: a
// mark, then its text.
struct LossKeyEntry
{
    enum class Mark
    {
        bar,  // a loss's colour
        band, // the steepest drop's patch (its text in the band's colour)
        line  // an earlier run's curve
    };
    Mark mark = Mark::bar;
    Color32 color = 0;
    std::string text;
};
// The loss plot's key, after "loss (log scale):": "training" and "held-out" beside a bar of their colours,
// "steepest drop" beside the band's patch when the plot marks one (its name kept off the data), then, with
// `earlier_runs`, each earlier run's line before what sets it apart from the current run and its final
// accuracy ("earlier: 1 layer, accuracy 33 %").
std::vector<LossKeyEntry> loss_plot_key(const TrainingCurves& c, const TrainingSnapshot& v,
                                        bool earlier_runs);

// The y range a plot shows: [y_min, y_max] when fixed, else the data's of its series that set the range
// (CurveSeries::sets_range; positive values only on a log axis; [0.1 or 0, 1] when there are none).
void plot_y_range(const CurvePlot& plot, float* lo, float* hi);

// The end of the step axis that fits a run at `step` of `target_steps` from `first`: the steps so far with a
// tenth more, rounded up to a round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten), at
// least kMinFitSteps, and never past max(step, target_steps).
inline constexpr int kMinFitSteps = 20;
int fit_x_max(int first, int step, int target_steps);

// The curves of run v; score_kind (a train::HeadScoreKind) picks the head score. fit_to_run: the axes fit
// the current run (steps from fit_x_max; the loss's y range its values only), earlier runs cut at the right
// edge; otherwise (or while the current run has no points yet) the steps go up to at least target_steps and
// every earlier run's end, the y range covers every run. Earlier runs are drawn at kPastRunAlpha either way.
// until_step >= 0 (a lesson step's maps and text at that step of the run): the current run's curves and its
// steepest drop end there, on the axes of the whole run so far (the steps up to the target, the y range of
// every point), so the curves grow into them as the lesson goes on; earlier runs stay whole.
TrainingCurves training_curves(const TrainingSnapshot& v, int target_steps, int score_kind,
                               bool fit_to_run = true, int until_step = -1);

} // namespace attnlab
