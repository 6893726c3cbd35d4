// The chart kinds (charts.h) on hand-made data: squarified areas, box plot statistics, the too-few flag,
// every label at least 6 pt at 85 mm, the requested width, the Likert bar segments.
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/figure/data.h"
#include "ascviz/study/report.h"
#include "figure_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

using namespace ascviz;

namespace {

void expectLegibleAt85mm(const Figure& f)
{
    const std::string svg = figureToSvg(f);
    EXPECT_NEAR(figtest::svgWidthMm(svg), 85.0, 0.01);
    const auto sizes = figtest::svgFontSizes(svg);
    ASSERT_FALSE(sizes.empty());
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), kMinFigureFontPt) << svg;
    EXPECT_EQ(svg.find("<image"), std::string::npos);
    // Nothing drawn outside the page.
    for (const auto& item : f.items)
        if (const auto* t = std::get_if<FigText>(&item)) {
            const double w = measureText(t->text, t->sizePt, t->bold);
            const double left = t->anchor == TextAnchor::Start    ? t->x
                                : t->anchor == TextAnchor::Middle ? t->x - w / 2
                                                                  : t->x - w;
            EXPECT_GE(left, -0.01) << t->text;
            EXPECT_LE(left + w, f.widthPt + 0.01) << t->text;
            EXPECT_LE(t->y, f.heightPt) << t->text;
        }
}

CategoryBarsData twoRuns()
{
    CategoryBarsData d;
    d.runs = {"ascviz-tiny-code (θ=median)", "ascviz-tiny-code (θ=max)"};
    d.rows = {"Functional Programming", "Natural Language"};
    d.minN = 10;
    BarValue few;
    few.median = 0.61;
    few.lo = 0.36;
    few.hi = 0.82;
    few.n = 3;
    few.tooFew = true;
    BarValue many = few;
    many.n = 120;
    many.tooFew = false;
    d.values = {{few, few}, {many, BarValue{}}};
    return d;
}

} // namespace

TEST(Charts, SquarifyAreasAreProportionalToTheSizes)
{
    // Bruls et al.'s example: sizes 6 6 4 3 2 2 1 on a 6 x 4 rectangle (total 24 = the area): each
    // rectangle's area is its size; the first row is the two 6s stacked as a 3-wide column (3 x 2 each).
    const std::vector<double> sizes = {6, 6, 4, 3, 2, 2, 1};
    const auto rects = squarify(sizes, 0, 0, 6, 4);
    ASSERT_EQ(rects.size(), sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        EXPECT_NEAR(rects[i].w * rects[i].h, sizes[i], 1e-9) << i;
        EXPECT_GE(rects[i].x, -1e-9);
        EXPECT_GE(rects[i].y, -1e-9);
        EXPECT_LE(rects[i].x + rects[i].w, 6 + 1e-9);
        EXPECT_LE(rects[i].y + rects[i].h, 4 + 1e-9);
    }
    EXPECT_NEAR(rects[0].w, 3, 1e-9);
    EXPECT_NEAR(rects[0].h, 2, 1e-9);
    EXPECT_NEAR(rects[1].y, 2, 1e-9);
    // Scaled sizes: the same layout (areas proportional, not equal, to the sizes).
    const auto scaled = squarify({60, 60, 40, 30, 20, 20, 10}, 0, 0, 6, 4);
    for (std::size_t i = 0; i < sizes.size(); ++i)
        EXPECT_NEAR(scaled[i].w * scaled[i].h, sizes[i], 1e-9);
    EXPECT_TRUE(squarify({}, 0, 0, 6, 4).empty());
}

TEST(Charts, BoxStatsByHand)
{
    // 1 2 3 4 100: quartiles 2 and 4 (linear interpolation), median 3; IQR 2, fences -1 and 7: 100 is an
    // outlier and the upper whisker ends at 4.
    const BoxStats b = boxStats({100, 3, 1, 4, 2});
    EXPECT_DOUBLE_EQ(b.q1, 2);
    EXPECT_DOUBLE_EQ(b.median, 3);
    EXPECT_DOUBLE_EQ(b.q3, 4);
    EXPECT_DOUBLE_EQ(b.whiskerLo, 1);
    EXPECT_DOUBLE_EQ(b.whiskerHi, 4);
    ASSERT_EQ(b.outliers.size(), 1u);
    EXPECT_DOUBLE_EQ(b.outliers[0], 100);
    EXPECT_EQ(b.n, 5u);
    EXPECT_THROW(boxStats({}), InputError);
}

TEST(Charts, BoxStatsWhiskersStopAtTheBox)
{
    // 0 1 1 1: quartiles 0.75 and 1, IQR 0.25, lower fence 0.375: 0 is an outlier, and the nearest inlier (1)
    // lies inside the box, so the lower whisker stops at q1.
    const BoxStats b = boxStats({1, 0, 1, 1});
    EXPECT_DOUBLE_EQ(b.q1, 0.75);
    EXPECT_DOUBLE_EQ(b.whiskerLo, 0.75);
    EXPECT_DOUBLE_EQ(b.whiskerHi, 1);
    ASSERT_EQ(b.outliers.size(), 1u);
    EXPECT_DOUBLE_EQ(b.outliers[0], 0);
    const BoxStats one = boxStats({0.4});
    EXPECT_EQ(one.n, 1u);
    EXPECT_DOUBLE_EQ(one.whiskerLo, 0.4);
    EXPECT_DOUBLE_EQ(one.whiskerHi, 0.4);
    EXPECT_TRUE(one.outliers.empty());
}

TEST(Charts, CategoryBarsFlagTooFewAndStayLegible)
{
    const FigureStyle style; // 85 mm, 8 pt
    const Figure f = categoryBarsFigure(twoRuns(), style);
    expectLegibleAt85mm(f);
    const std::string svg = figureToSvg(f);
    // Hollow bars for too few: no fill, the run's colour as the outline; the legend says the minimum.
    EXPECT_NE(svg.find("fill=\"none\" stroke=\"#0072b2\""), std::string::npos) << svg;
    // "(n < 10)" is one unbreakable unit: the caption never wraps into "(n <" / "10)" (issue 44).
    EXPECT_NE(svg.find("(n\u00a0&lt;\u00a010)<"), std::string::npos) << svg;
    EXPECT_EQ(svg.find(">10)<"), std::string::npos) << svg;
    EXPECT_NE(svg.find("<title>ascviz-tiny-code (θ=median): 0.61 [0.36, 0.82], n=3, too few</title>"),
              std::string::npos);
    EXPECT_NE(svg.find(">n/a</text>"), std::string::npos); // the second run has no Natural Language value
    // The run labels are whole (wrapped, never cut).
    EXPECT_EQ(svg.find("\u2026"), std::string::npos);
    // Without a title and with the legend below: no bold title line, the page is as wide.
    FigureStyle bottom = style;
    bottom.title = false;
    bottom.legend = LegendPlacement::Bottom;
    const Figure g = categoryBarsFigure(twoRuns(), bottom);
    expectLegibleAt85mm(g);
    EXPECT_EQ(figureToSvg(g).find("AsC-Eval by category (bootstrapped"), std::string::npos);
}

TEST(Charts, TreemapCellsAreProportionalToCounts)
{
    TreemapData d;
    d.run = "r";
    d.items = {{"identifier", "Natural Language", 300, 0.2},
               {"if_statement", "Decision", 100, 0.7},
               {"else", "Decision", 100, std::nullopt},
               {"(", "", 50, 0.5}}; // no category: counted in the caption, not drawn
    const Figure f = treemapFigure(d, FigureStyle{});
    expectLegibleAt85mm(f);
    std::map<std::string, double> area;
    std::string current;
    for (const auto& item : f.items) {
        if (const auto* g = std::get_if<FigGroup>(&item))
            current = g->attributes.empty() ? std::string() : g->attributes.front().second;
        else if (const auto* r = std::get_if<FigRect>(&item); r && !current.empty() && r->fill)
            area[current] = r->w * r->h;
    }
    ASSERT_EQ(area.size(), 3u);
    EXPECT_NEAR(area["identifier"] / area["if_statement"], 3.0, 1e-6);
    EXPECT_NEAR(area["else"] / area["if_statement"], 1.0, 1e-6);
    const std::string svg = figureToSvg(f);
    EXPECT_NE(svg.find("1 concepts without a category are not drawn"), std::string::npos) << svg;
    EXPECT_NE(svg.find("fill=\"#c8c8c8\""), std::string::npos); // n/a grey (0.5 is white)
}

TEST(Charts, HeatmapAndDistributionAreLegible)
{
    HeatmapColumn a{"ascviz-tiny-code (θ=median)", {{"Global", 0.44}, {"Functional Programming", std::nullopt}}, {}};
    HeatmapColumn b{"ascviz-tiny-code (θ=max)", {{"Global", 0.755}}, {}};
    const Figure h = heatmapFigure({"Global", "Functional Programming"}, {a, b}, FigureStyle{});
    expectLegibleAt85mm(h);
    const std::string svg = figureToSvg(h);
    EXPECT_NE(svg.find("data-row=\"Global\" data-column=\"1\" data-value=\"0.76\""), std::string::npos) << svg;
    EXPECT_NE(svg.find("data-row=\"Functional Programming\" data-column=\"0\" data-value=\"n/a\""), std::string::npos);

    DistributionData d;
    d.runs = {"run A", "run B"};
    d.rows = {"Decision"};
    d.values = {{{0.1, 0.2, 0.3, 0.4, 1.0}, {}}};
    const Figure f = distributionFigure(d, FigureStyle{});
    expectLegibleAt85mm(f);
    EXPECT_NE(figureToSvg(f).find("<title>run A: median 0.30, IQR [0.20, 0.40], n=5</title>"), std::string::npos);
}

TEST(Charts, LikertSegmentsAreTheShares)
{
    const std::vector<StudyQuestion> qs = {{"useful", "Useful?", defaultLikertLabels(5)}};
    // Condition C: answers 1, 2, 3, 5 -> shares 1/4 each at points 1, 2, 3 and 5.
    std::vector<ResponseRow> rows;
    int trial = 0;
    for (int a : {1, 2, 3, 5})
        rows.push_back({"P" + std::to_string(trial), trial, "s", "C", "useful", a, 1.0}), ++trial;
    const StudyReport r = computeStudyReport({"C"}, qs, rows);
    const Figure f = likertFigure(r, FigureStyle{});
    expectLegibleAt85mm(f);
    std::vector<double> widths, xs;
    for (const auto& item : f.items)
        if (const auto* s = std::get_if<FigRect>(&item); s && !s->tooltip.empty()) {
            widths.push_back(s->w);
            xs.push_back(s->x);
        }
    ASSERT_EQ(widths.size(), 5u);
    EXPECT_NEAR(widths[0], widths[1], 1e-9);
    EXPECT_NEAR(widths[0], widths[2], 1e-9);
    EXPECT_NEAR(widths[3], 0, 1e-9);
    EXPECT_NEAR(widths[4], widths[0], 1e-9);
    // Disagreement (1/4 + 1/4) and half the neutral point (1/8) lie left of the centre: the centre is at
    // x0 + 2.5 quarter widths.
    const double centre = xs[0] + 2.5 * widths[0];
    EXPECT_NEAR(xs[2] + widths[2] / 2, centre, 1e-9);
}

TEST(Charts, CategoryBarsDataFromStatistics)
{
    CorpusStats s;
    s.minN = 10;
    BootstrapResult fp;
    fp.median = 0.873;
    fp.lo = 0.8;
    fp.hi = 0.9;
    fp.n = 1;
    BootstrapResult nl = fp;
    nl.median = 0.444;
    nl.n = 12;
    s.categories = {{"Functional Programming", fp}, {"Natural Language", nl}};
    const auto d = categoryBarsData({{"run", &s, nullptr}}, "a warning");
    ASSERT_EQ(d.rows.size(), 2u);
    EXPECT_EQ(d.rows[0], "Functional Programming");
    EXPECT_TRUE(d.values[0][0].tooFew);  // n = 1 < 10: never confident
    EXPECT_FALSE(d.values[1][0].tooFew); // n = 12
    EXPECT_DOUBLE_EQ(*d.values[1][0].median, 0.444);
    EXPECT_EQ(d.minN, 10);
    EXPECT_EQ(d.warning, "a warning");
    CorpusStats empty;
    EXPECT_THROW(categoryBarsData({{"run", &empty, nullptr}}), InputError);
}

TEST(Charts, OneTextColourRule)
{
    // White below relative luminance 0.3, else #111111 (render/layout.h textColourOn), on every heat map's cells.
    auto same = [](Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; };
    EXPECT_TRUE(same(textColourOn(Rgb{0, 0, 0}), Rgb{255, 255, 255}));
    EXPECT_TRUE(same(textColourOn(Rgb{255, 255, 255}), Rgb{17, 17, 17}));
    EXPECT_TRUE(same(textColourOn(ascColor(0.0)), Rgb{255, 255, 255}));       // deep red
    EXPECT_TRUE(same(textColourOn(ascColor(0.5)), Rgb{17, 17, 17}));          // white
    EXPECT_TRUE(same(textColourOn(ascColor(1.0)), Rgb{255, 255, 255}));       // deep blue
    EXPECT_TRUE(same(textColourOn(ascColor(std::nullopt)), Rgb{17, 17, 17})); // grey n/a
    // The category heat map writes it for each cell (the value 0.2 was dark text on a dark fill before).
    HeatmapColumn col{"run", {{"a", 0.2}, {"b", 0.5}, {"c", 0.9}}, {}};
    const Figure f = heatmapFigure({"a", "b", "c"}, {col}, FigureStyle{});
    int checked = 0;
    for (std::size_t i = 1; i < f.items.size(); ++i) {
        const auto* t = std::get_if<FigText>(&f.items[i]);
        if (!t || (t->text != "0.20" && t->text != "0.50" && t->text != "0.90"))
            continue;
        const double v = std::stod(t->text);
        EXPECT_TRUE(same(t->color, textColourOn(ascColor(v)))) << t->text;
        ++checked;
    }
    EXPECT_EQ(checked, 3);
}
