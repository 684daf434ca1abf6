// The residual switch as the panels show it: its box in the Model panel, the Add & Norm equations in the
// Pipeline, and the Inspector's numbers for the residual and LayerNorm cells with the switch on and off.
#include "core/settings.h"
#include "ui/panels/panels.h"
#include "ui/picture/heatmap_math.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace attnlab;
using namespace attnlab::test;

namespace
{

using test::contains;

class Switches : public ::testing::Test
{
protected:
    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

} // namespace

TEST_F(Switches, TheResidualSwitchIsInTheModelPanelAndThePipelineSaysItIsOff)
{
    const auto model = ui.frames(*state, 2, panel_only(draw_model_panel));
    EXPECT_TRUE(contains(model.text, "residual")) << model.text;
    state->session.config.residual = false;
    state->edit();
    state->stage_collapsed.fill(true);
    const auto out = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok());
    EXPECT_TRUE(contains(out.text, "LayerNorm(MultiHead(X))")) << out.text;
    EXPECT_FALSE(contains(out.text, "LayerNorm(X + MultiHead(X))")) << out.text;
}

TEST_F(Switches, TheInspectorGivesTheResidualsNumbersWithTheSwitchOnAndOff)
{
    for (const bool residual : {true, false})
    {
        state->session.config.residual = residual;
        state->edit();
        ui.frames(*state, 2);
        state->pinned.valid = true;
        state->pinned.matrix = MatrixRef{};
        state->pinned.matrix.stage = Stage::residual;
        state->pinned.row = 1;
        state->pinned.col = 2;
        const auto out = ui.frames(*state, 2, panel_only(draw_inspector_panel));
        const LayerTrace& layer = state->trace().layers[0];
        const std::string mha = format_value_long(layer.attn.mha[0](1, 2));
        EXPECT_TRUE(contains(out.text, mha)) << out.text;
        if (residual)
            EXPECT_TRUE(contains(out.text, format_value_long(layer.X[0](1, 2)))) << out.text;
        else
            EXPECT_TRUE(contains(out.text, "residual connection is off")) << out.text;
        // LayerNorm's cell reads the residual as computed: the sub-layer alone when the switch is off.
        state->pinned.matrix.stage = Stage::norm1;
        const auto norm = ui.frames(*state, 2, panel_only(draw_inspector_panel));
        const float mean = layer.residual[0].row(1).mean();
        EXPECT_TRUE(contains(norm.text, "μ_i = " + format_value_long(mean))) << norm.text;
        EXPECT_EQ(contains(norm.text, "residual connection is off"), !residual) << norm.text;
    }
}
