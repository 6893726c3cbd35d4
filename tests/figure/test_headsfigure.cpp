// The heads view's pictures as Figures (figure/heads.h): the heat map's cells and the picked head, the arcs'
// curves (attention and dashed relation edges), SVG without raster, PDF.
#include "ascviz/base/error.h"
#include "ascviz/figure/heads.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

TEST(HeadsFigure, HeatmapCellsAndPick)
{
    const auto f = ascviz::headHeatmapFigure({0.0, 1.0, 0.5, 0.25}, 2, 2, "if_statement:if\u2192body", {1, 0});
    const auto heat = ascviz::figureToSvg(f);
    EXPECT_NE(heat.find(">100</text>"), std::string::npos);
    EXPECT_NE(heat.find(">25</text>"), std::string::npos);
    EXPECT_NE(heat.find("stroke=\"#d62728\""), std::string::npos); // the picked head
    EXPECT_EQ(heat.find("<image"), std::string::npos);
    // 2 heads: 40 + 2 x 24 + 12 = 100 pt unless the title is wider.
    EXPECT_GE(f.widthPt, 100.0);
    EXPECT_DOUBLE_EQ(f.heightPt, 34 + 2 * 24 + 12);
    EXPECT_EQ(ascviz::figureToPdf(f).rfind("%PDF", 0), 0u);
    EXPECT_THROW(ascviz::headHeatmapFigure({}, 0, 2, "t"), ascviz::InputError);
}

TEST(HeadsFigure, ArcsOverTheCode)
{
    const auto f = ascviz::attentionArcsFigure("x = a<b\n", {{0, 1}, {1, 3}, {3, 5}, {5, 6}, {6, 7}}, 3,
                                               {{0, 0.5f}, {1, 0.25f}, {-1, 0.1f}}, {{0, 2}}, "L0 H1");
    const auto arcs = ascviz::figureToSvg(f);
    EXPECT_NE(arcs.find(">&lt;</text>"), std::string::npos) << arcs; // escaped token text
    int curves = 0, dashed = 0;
    for (const auto& item : f.items)
        if (const auto* p = std::get_if<ascviz::FigPath>(&item)) {
            ++curves;
            dashed += p->dashed ? 1 : 0;
        }
    EXPECT_EQ(curves, 3); // two attention arcs (BOS not drawn) and one relation edge
    EXPECT_EQ(dashed, 1);
    EXPECT_NE(arcs.find("stroke-dasharray"), std::string::npos);
    EXPECT_EQ(arcs.find("<image"), std::string::npos);
}

} // namespace
