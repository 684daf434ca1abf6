// Which maps a lesson step shows.
#include "ui/picture/step_maps.h"

namespace attnlab
{

bool shows_comparison(ComparisonSection shown, ComparisonSection section)
{
    return shown == ComparisonSection::All || shown == section;
}

std::vector<MatrixRef> comparison_maps(const AppState& state, ComparisonSection section)
{
    std::vector<MatrixRef> out;
    if (shows_comparison(section, ComparisonSection::Packed))
    {
        out.push_back(selected_comparison(state, ComparisonMatrix::Q_packed));
        for (int j = 0; j < state.heads(); ++j)
            out.push_back(selected_stage(state, Stage::Q, j));
    }
    if (shows_comparison(section, ComparisonSection::TwoStep))
    {
        out.push_back(selected_comparison(state, ComparisonMatrix::Q_two_step));
        out.push_back(selected_comparison(state, ComparisonMatrix::Q_collapsed));
        out.push_back(selected_comparison(state, ComparisonMatrix::Q_difference));
    }
    if (shows_comparison(section, ComparisonSection::SingleHead))
    {
        out.push_back(selected_comparison(state, ComparisonMatrix::single_weights));
        out.push_back(selected_stage(state, Stage::weights, state.sel.head));
        out.push_back(selected_comparison(state, ComparisonMatrix::single_out));
        out.push_back(selected_stage(state, Stage::mha, 0));
    }
    return out;
}

StepMaps step_maps(const AppState& state, const LessonStep* step)
{
    StepMaps out;
    if (step != nullptr && step->view == LessonView::Training)
    {
        out.kind = StepMapsKind::Training;
        return out;
    }
    if (step != nullptr && step->view == LessonView::Heads)
    {
        out.kind = StepMapsKind::Heads;
        for (int j = 0; j < state.heads(); ++j)
            out.maps.push_back(selected_stage(state, Stage::weights, j));
    }
    else if (step != nullptr && step->view == LessonView::Comparisons)
    {
        out.kind = StepMapsKind::Comparisons;
        out.comparison = step->comparison;
        out.maps = comparison_maps(state, step->comparison);
    }
    else if (step != nullptr && !step->stages.empty())
    {
        out.kind = StepMapsKind::Stages;
        out.row_sums = step->row_sums;
        for (const Stage stage : step->stages)
            out.maps.push_back(selected_stage(state, stage, state.sel.head, step->cross));
    }
    else
        out.maps.push_back(selected_stage(state, Stage::weights, state.sel.head));
    return out;
}

bool step_shows_loss_strip(const LessonStep* step)
{
    return step != nullptr && step->text.find("loss strip") != std::string::npos;
}

} // namespace attnlab
