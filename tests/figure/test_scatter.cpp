// The scatter figure (charts.h): nice ticks, the points where their values put them, the fit line.
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "figure_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace ascviz;

namespace {

std::vector<FigRect> dots(const Figure& f)
{
    std::vector<FigRect> out;
    for (const auto& it : f.items)
        if (const auto* r = std::get_if<FigRect>(&it); r && r->radius > 0 && !r->tooltip.empty())
            out.push_back(*r);
    return out;
}

} // namespace

TEST(Scatter, NiceTicksByHand)
{
    // [-0.05, 1.05]: steps 1 (2 ticks), 0.5 (3 ticks), 0.2 (6 ticks) -> 0, 0.2, ..., 1.
    const auto t = niceTicks(-0.05, 1.05);
    ASSERT_EQ(t.size(), 6u);
    EXPECT_NEAR(t.front(), 0.0, 1e-12);
    EXPECT_NEAR(t[1], 0.2, 1e-12);
    EXPECT_NEAR(t.back(), 1.0, 1e-12);
    // [2.3, 7.9]: step 1 gives 3..7 (5 ticks).
    const auto u = niceTicks(2.3, 7.9);
    ASSERT_EQ(u.size(), 5u);
    EXPECT_NEAR(u.front(), 3.0, 1e-12);
    EXPECT_NEAR(u.back(), 7.0, 1e-12);
    EXPECT_TRUE(niceTicks(1, 1).empty());
}

TEST(Scatter, PointsAndFitLineSitAtTheirValues)
{
    ScatterData d;
    d.title = "T vs cross-entropy";
    d.xLabel = "T: AsC-Eval";
    d.yLabel = "cross-entropy";
    d.x = {0, 1, 0.25};
    d.y = {0, 1, 0.75};
    d.fit = ScatterFit{0, 1, "adjusted effect 1.00"};
    const Figure f = scatterFigure(d, FigureStyle{});
    EXPECT_NEAR(f.widthPt, 85 * kPointsPerMm, 1e-9);
    const auto p = dots(f);
    ASSERT_EQ(p.size(), 3u);
    auto cx = [](const FigRect& r) { return r.x + r.w / 2; };
    auto cy = [](const FigRect& r) { return r.y + r.h / 2; };
    // Both axes are linear: the third point is a quarter of the way along x and three quarters along y.
    EXPECT_NEAR((cx(p[2]) - cx(p[0])) / (cx(p[1]) - cx(p[0])), 0.25, 1e-9);
    EXPECT_NEAR((cy(p[2]) - cy(p[0])) / (cy(p[1]) - cy(p[0])), 0.75, 1e-9);
    EXPECT_LT(cy(p[1]), cy(p[0])); // larger y is higher on the page
    // y = x from x = 0 to 1 runs through the first and second points.
    bool fit = false;
    for (const auto& it : f.items)
        if (const auto* l = std::get_if<FigLine>(&it); l && l->width == 1.0 && std::abs(l->x1 - cx(p[0])) < 1e-9) {
            fit = true;
            EXPECT_NEAR(l->y1, cy(p[0]), 1e-9);
            EXPECT_NEAR(l->x2, cx(p[1]), 1e-9);
            EXPECT_NEAR(l->y2, cy(p[1]), 1e-9);
        }
    EXPECT_TRUE(fit);
    const std::string svg = figureToSvg(f);
    EXPECT_EQ(svg.find("<image"), std::string::npos);
    EXPECT_NE(svg.find(">cross-entropy<"), std::string::npos);
    EXPECT_NE(svg.find(">0.2<"), std::string::npos);
    EXPECT_NE(svg.find(">adjusted effect 1.00<"), std::string::npos);
    EXPECT_NEAR(figtest::svgWidthMm(svg), 85.0, 0.01);
    for (double s : figtest::svgFontSizes(svg))
        EXPECT_GE(s, kMinFigureFontPt);
    if (const char* shots = std::getenv("ASCVIZ_FIGURE_SHOTS"))
        writeFigure(f, std::string(shots) + "/scatter-fit.svg", false);
}

TEST(Scatter, BadInputIsAnInputError)
{
    ScatterData d;
    EXPECT_THROW(scatterFigure(d, FigureStyle{}), InputError);
    d.x = {1, 2};
    d.y = {1};
    EXPECT_THROW(scatterFigure(d, FigureStyle{}), InputError);
    d.y = {1, NAN};
    EXPECT_THROW(scatterFigure(d, FigureStyle{}), InputError);
    d.y = {1, 1}; // an empty y range still draws
    EXPECT_NO_THROW(scatterFigure(d, FigureStyle{}));
}
