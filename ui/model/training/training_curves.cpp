// The Training panel's curves as data.
#include "ui/model/training/training_curves.h"

#include "ui/picture/colormap.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace attnlab
{

namespace
{

// ".68": a score below 1 without its leading zero (the text maps' titles are narrow).
std::string short_score(double v)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.2f", v);
    return text[0] == '0' ? text + 1 : text;
}

} // namespace

std::string text_scores_text(const train::HeadScores& s, train::HeadScoreKind except, train::TextLevel level)
{
    using K = train::HeadScoreKind;
    std::string out;
    for (const K kind : {K::PreviousToken, K::Induction, K::WordStart})
        if (kind != except && !(kind == K::WordStart && level == train::TextLevel::Word))
            out += (out.empty() ? "" : "  ") + std::string(train::head_score_info(kind).short_name) + " " +
                   short_score(train::head_score(s, kind));
    return out;
}

std::string map_scores_text(train::TaskKind task, const train::HeadScores& s)
{
    if (task == train::TaskKind::Text)
        return text_scores_text(s);
    const train::HeadScoreKind* kinds = train::task_info(task).map_scores;
    char text[96];
    std::snprintf(text, sizeof text, "%s %.2f  %s %.2f", train::head_score_info(kinds[0]).short_name,
                  train::head_score(s, kinds[0]), train::head_score_info(kinds[1]).short_name,
                  train::head_score(s, kinds[1]));
    return text;
}

HeadRole text_head_role(const train::HeadScores& s, const train::HeadScores* even)
{
    using K = train::HeadScoreKind;
    const auto clears = [&](K kind, double v)
    {
        return v >= kHeadRoleMin &&
               (even == nullptr || v >= kHeadRoleOverChance * train::head_score(*even, kind));
    };
    HeadRole best, role;
    for (const K kind : {K::PreviousToken, K::Induction, K::WordStart})
    {
        const double v = train::head_score(s, kind);
        if (v > best.score || best.kind == K::Count)
            best = {kind, v};
        if (clears(kind, v) && (v > role.score || role.kind == K::Count))
            role = {kind, v};
    }
    if (role.kind != K::Count)
        return role;
    best.kind = K::Count;
    return best;
}

std::string head_role_text(const HeadRole& role, bool short_form)
{
    using K = train::HeadScoreKind;
    const char* name = role.kind == K::PreviousToken ? (short_form ? "prev" : "previous token")
                       : role.kind == K::Induction   ? (short_form ? "ind" : "induction")
                       : role.kind == K::WordStart   ? (short_form ? "word" : "word start")
                                                     : nullptr;
    if (name == nullptr)
        return short_form ? "no role" : "no clear role";
    return std::string(name) + " " + short_score(role.score);
}

namespace
{

struct PastRunColor
{
    const char* name;
    Color32 rgb;
};
// Okabe-Ito colours, told apart with every kind of colour blindness.
const PastRunColor kPastRunColors[] = {{"grey", pack_rgba(150, 150, 150)},
                                       {"pink", pack_rgba(204, 121, 167)},
                                       {"green", pack_rgba(0, 158, 115)}};
static_assert(std::size(kPastRunColors) == TrainingRun::kKeptRuns, "one colour per kept earlier run");

} // namespace

const train::HeadScores* held_out_scores_at(const TrainingSnapshot& v, int step, int k, int* at_step)
{
    return held_out_scores_at(v.evals, step, k, at_step);
}

std::string label_difference(const std::string& label, const std::string& other)
{
    const std::string others = ", " + other + ", ";
    std::string out;
    for (std::size_t at = 0; at < label.size();)
    {
        std::size_t end = label.find(", ", at);
        end = end == std::string::npos ? label.size() : end;
        const std::string part = label.substr(at, end - at);
        if (!part.empty() && others.find(", " + part + ", ") == std::string::npos)
            out += (out.empty() ? "" : ", ") + part;
        at = end + 2;
    }
    return out;
}

const train::HeadScores* held_out_scores_at(const std::vector<TrainingEval>& evals, int step, int k,
                                            int* at_step)
{
    const auto after = std::upper_bound(evals.begin(), evals.end(), step,
                                        [](int s, const TrainingEval& e) { return s < e.step; });
    if (after == evals.begin())
        return nullptr;
    const TrainingEval& e = *(after - 1);
    if (k < 0 || k >= static_cast<int>(e.heads.size()))
        return nullptr;
    if (at_step != nullptr)
        *at_step = e.step;
    return &e.heads[static_cast<std::size_t>(k)];
}

bool same_loss_units(const train::RunSpec& a, const train::RunSpec& b)
{
    return a.task == b.task && (a.task != train::TaskKind::Text || a.level == b.level);
}

std::string not_drawn_reason(const train::RunSpec& earlier, const train::RunSpec& current)
{
    if (earlier.task != current.task)
        return "another task";
    return earlier.level == train::TextLevel::Word ? "its loss is per word" : "its loss is per character";
}

Color32 past_run_color(std::size_t i, int alpha)
{
    return (kPastRunColors[i % std::size(kPastRunColors)].rgb & 0x00FFFFFFu) |
           (static_cast<Color32>(alpha) << 24);
}

const char* past_run_color_name(std::size_t i)
{
    return kPastRunColors[i % std::size(kPastRunColors)].name;
}

namespace
{

// Whether black text reads better than white on this background.
bool light_background(Color32 background)
{
    return chip_text_color(background | 0xFF000000u) == pack_rgba(0, 0, 0);
}

} // namespace

Color32 curve_color_on(Color32 c, Color32 background)
{
    const int alpha = static_cast<int>(c >> 24);
    const auto over = [&](Color32 fg) // fg's colour composited over the background at c's alpha
    {
        const auto channel = [&](int shift)
        {
            const int f = static_cast<int>((fg >> shift) & 0xFFu),
                      b = static_cast<int>((background >> shift) & 0xFFu);
            return (f * alpha + b * (255 - alpha) + 127) / 255;
        };
        return pack_rgba(channel(0), channel(8), channel(16));
    };
    if (!light_background(background) ||
        contrast_ratio(over(c), background | 0xFF000000u) >= kCurveMinContrast)
        return c;
    return readable_on(c | 0xFF000000u, background | 0xFF000000u, kCurveMinContrast);
}

Color32 band_label_color_on(Color32 background)
{
    return !light_background(background) ? kBandLabelColor
                                         : readable_on(kBandLabelColor, background | 0xFF000000u);
}

std::vector<LossKeyEntry> loss_plot_key(const TrainingCurves& c, const TrainingSnapshot& v, bool earlier_runs)
{
    using Mark = LossKeyEntry::Mark;
    std::vector<LossKeyEntry> key = {{Mark::bar, kTrainingLossColor, "training"},
                                     {Mark::bar, kThisRunColor, "held-out"}};
    if (c.has_drop)
        key.push_back({Mark::band, kBandLabelColor, "steepest drop"});
    if (earlier_runs)
        for (std::size_t i = 0; i < v.past.size(); ++i)
        {
            const PastRun& r = v.past[i];
            std::string text = label_difference(r.label, v.config.label());
            text = "earlier: " + (text.empty() ? r.label : text);
            if (!same_loss_units(r.config, v.config))
                text += " (not drawn: " + not_drawn_reason(r.config, v.config) + ")";
            else if (!r.evals.empty())
            {
                char accuracy[48];
                std::snprintf(accuracy, sizeof accuracy, ", accuracy %.0f %%",
                              100.0 * static_cast<double>(r.evals.back().accuracy));
                text += accuracy;
            }
            key.push_back({Mark::line, past_run_color(i), text});
        }
    return key;
}

void plot_y_range(const CurvePlot& plot, float* lo, float* hi)
{
    *lo = plot.y_min;
    *hi = plot.y_max;
    if (plot.fixed_y)
        return;
    *lo = FLT_MAX;
    *hi = -FLT_MAX;
    for (const CurveSeries& s : plot.series)
        if (s.sets_range)
            for (const auto& [x, y] : s.points)
                if (std::isfinite(y) && (!plot.log_y || y > 0.0f))
                {
                    *lo = std::min(*lo, y);
                    *hi = std::max(*hi, y);
                }
    if (*lo > *hi)
    {
        *lo = plot.log_y ? 0.1f : 0.0f;
        *hi = 1.0f;
    }
}

int fit_x_max(int first, int step, int target_steps)
{
    const int full = std::max(step, target_steps);
    const double want = std::max(static_cast<double>(kMinFitSteps), 1.1 * (step - first));
    double decade = 1.0;
    while (decade * 10.0 <= want)
        decade *= 10.0;
    static const double kRound[] = {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0};
    double span = 10.0 * decade;
    for (const double r : kRound)
        if (r * decade >= want)
        {
            span = r * decade;
            break;
        }
    return std::min(first + static_cast<int>(std::lround(span)), std::max(full, first + 1));
}

namespace
{

// An earlier run's points up to step x_max, the last one on x_max itself when the run goes on past it.
void cut_at(std::vector<std::pair<float, float>>* points, int x_max)
{
    const float edge = static_cast<float>(x_max);
    const auto past = std::upper_bound(points->begin(), points->end(), edge,
                                       [](float x, const std::pair<float, float>& q) { return x < q.first; });
    if (past == points->end())
        return;
    if (past != points->begin())
    {
        const std::pair<float, float> a = *(past - 1), b = *past;
        const float t = (edge - a.first) / (b.first - a.first);
        points->erase(past, points->end());
        if (a.first < edge)
            points->emplace_back(edge, a.second + t * (b.second - a.second));
    }
    else
        points->clear();
}

// Cuts the current run's series (those after the earlier runs') of c at step `until`, each plot's y range
// first fixed at that of every point so far; the steepest drop found again in the training loss up to there.
void cut_current_run(TrainingCurves* c, const TrainingSnapshot& v, int until)
{
    const float edge = static_cast<float>(until);
    for (CurvePlot* plot : {&c->loss, &c->accuracy, &c->heads})
    {
        if (!plot->fixed_y)
        {
            plot_y_range(*plot, &plot->y_min, &plot->y_max);
            plot->fixed_y = true;
        }
        const bool has_past = plot != &c->heads;
        for (std::size_t i = has_past ? v.past.size() : 0; i < plot->series.size(); ++i)
        {
            std::vector<std::pair<float, float>>& points = plot->series[i].points;
            points.erase(std::upper_bound(points.begin(), points.end(), edge,
                                          [](float x, const std::pair<float, float>& q)
                                          { return x < q.first; }),
                         points.end());
        }
    }
    const int kept = std::clamp(until - v.first_step, 0, static_cast<int>(v.loss.size()));
    const std::vector<float> loss(v.loss.begin(), v.loss.begin() + kept);
    c->has_drop = steepest_drop(loss, v.first_step, &c->drop) && c->drop.drop >= 0.2f;
}

} // namespace

TrainingCurves training_curves(const TrainingSnapshot& v, int target_steps, int score_kind, bool fit_to_run,
                               int until_step)
{
    TrainingCurves c;
    // A model opened from a file brings its history: the curves start where it does.
    c.x_min = !v.evals.empty() && v.evals.front().step < v.first_step ? 0 : v.first_step;
    // Nothing of the current run to fit yet: the full view. Cut at a step: the whole run's axes.
    const bool fit = fit_to_run && until_step < 0 && (!v.loss.empty() || !v.evals.empty());
    if (fit)
        c.x_max = std::max(fit_x_max(c.x_min, v.step, target_steps), c.x_min + 1);
    else
    {
        c.x_max = std::max({v.step, target_steps, c.x_min + 1});
        for (const PastRun& r : v.past)
            if (same_loss_units(r.config, v.config))
                c.x_max = std::max(c.x_max, static_cast<int>(r.loss.size()));
    }
    const auto at = [](int step, float value)
    { return std::pair<float, float>(static_cast<float>(step), value); };
    const auto past_series = [&](std::size_t i)
    {
        CurveSeries s{{}, past_run_color(i, kPastRunAlpha), "earlier: " + v.past[i].label, 1.2f};
        s.sets_range = !fit;
        return s;
    };
    // An earlier run of another task or token level keeps its place (and colour) among the series with no
    // points: its loss is per another kind of token, so its curve would not compare (the legend says so).
    const auto drawn = [&](std::size_t i) { return same_loss_units(v.past[i].config, v.config); };
    const auto cut = [&](CurveSeries* s)
    {
        if (fit)
            cut_at(&s->points, c.x_max);
    };

    // Loss (log scale): earlier runs' training loss, this run's held-out loss per point, then its training
    // loss per step, drawn last: thin over the wide held-out line, so neither hides the other.
    c.loss.title = "loss (log scale): training, held-out";
    c.loss.log_y = true;
    for (std::size_t i = 0; i < v.past.size(); ++i)
    {
        CurveSeries s = past_series(i);
        for (std::size_t k = 0; drawn(i) && k < v.past[i].loss.size(); ++k)
            s.points.push_back(at(static_cast<int>(k) + 1, v.past[i].loss[k]));
        cut(&s);
        c.loss.series.push_back(std::move(s));
    }
    CurveSeries held{{}, kThisRunColor, "held-out loss", kHeldOutLossWidth};
    for (const TrainingEval& e : v.evals)
        held.points.push_back(at(e.step, e.loss));
    c.loss.series.push_back(std::move(held));
    CurveSeries train_loss{{}, kTrainingLossColor, "training loss", kTrainingLossWidth};
    train_loss.thin = true;
    for (const TrainingEval& e : v.evals)
        if (e.step <= v.first_step) // from the file: the training loss at its logged steps
            train_loss.points.push_back(at(e.step, e.train_loss));
    for (std::size_t k = 0; k < v.loss.size(); ++k)
        train_loss.points.push_back(at(v.first_step + static_cast<int>(k) + 1, v.loss[k]));
    c.loss.series.push_back(std::move(train_loss));
    c.has_drop = steepest_drop(v.loss, v.first_step, &c.drop) && c.drop.drop >= 0.2f;

    c.accuracy.title = "held-out accuracy";
    c.accuracy.percent = true;
    c.accuracy.fixed_y = true;
    for (std::size_t i = 0; i < v.past.size(); ++i)
    {
        CurveSeries s = past_series(i);
        for (std::size_t k = 0; drawn(i) && k < v.past[i].evals.size(); ++k)
            s.points.push_back(at(v.past[i].evals[k].step, v.past[i].evals[k].accuracy));
        cut(&s);
        c.accuracy.series.push_back(std::move(s));
    }
    CurveSeries a{{}, kThisRunColor, "held-out accuracy", 2.0f};
    for (const TrainingEval& e : v.evals)
        a.points.push_back(at(e.step, e.accuracy));
    c.accuracy.series.push_back(std::move(a));

    const train::HeadScoreKind score = train::head_score_kind(score_kind);
    c.heads.title = std::string("head scores: ") + train::head_score_info(score).name;
    c.heads.fixed_y = true;
    const int h = v.model.n_heads;
    const int n = v.model.n_layers * h;
    for (int k = 0; k < n; ++k)
    {
        char label[48];
        std::snprintf(label, sizeof label, "layer %d head %d", k / h + 1, k % h + 1);
        CurveSeries s{{}, head_color(k % h), label, k / h == 0 ? 1.2f : 2.4f};
        for (const TrainingEval& e : v.evals)
            if (k < static_cast<int>(e.heads.size()))
                s.points.push_back(at(e.step, static_cast<float>(train::head_score(
                                                  e.heads[static_cast<std::size_t>(k)], score))));
        c.heads.series.push_back(std::move(s));
    }
    if (until_step >= 0)
        cut_current_run(&c, v, until_step);
    return c;
}

} // namespace attnlab
