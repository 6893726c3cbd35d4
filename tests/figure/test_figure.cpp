// The Figure model (figure.h): SVG in mm with a viewBox in points and text as text, PDF through Cairo with
// its page size, text measurement and wrapping, the style options' limits.
#include "ascviz/base/error.h"
#include "ascviz/figure/figure.h"
#include "figure_test_util.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {
Figure smallFigure()
{
    Figure f;
    f.widthPt = 85 * kPointsPerMm;
    f.heightPt = 100;
    f.title = "a <test> figure";
    f.text(10, 20, "Functional Programming & more", 8);
    f.rect(10, 30, 50, 10, Rgb{0, 114, 178}, Rgb{0, 0, 0});
    f.line(0, 0, 10, 10);
    FigPath p;
    p.ops = {{'M', {0, 0}}, {'C', {1, 1, 2, 2, 3, 3}}, {'Z', {}}};
    p.stroke = Rgb{1, 2, 3};
    f.items.emplace_back(p);
    return f;
}
} // namespace

TEST(Figure, SvgHasTheWidthInMmTextAsTextAndNoRaster)
{
    const std::string svg = figureToSvg(smallFigure());
    EXPECT_NEAR(figtest::svgWidthMm(svg), 85.0, 0.01) << svg;
    EXPECT_NE(svg.find("viewBox=\"0 0 240.94 100\""), std::string::npos) << svg;
    EXPECT_NE(svg.find(">Functional Programming &amp; more</text>"), std::string::npos) << svg;
    EXPECT_NE(svg.find("<title>a &lt;test&gt; figure</title>"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("<image"), std::string::npos);
    EXPECT_EQ(svg.find("data:image"), std::string::npos);
    EXPECT_NE(svg.find("d=\"M0 0 C1 1 2 2 3 3 Z \""), std::string::npos) << svg;
}

TEST(Figure, PdfStartsWithPdfAndHasThePageSize)
{
    const std::string pdf = figureToPdf(smallFigure());
    ASSERT_GE(pdf.size(), 5u);
    EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
    const auto [w, h] = figtest::pdfMediaBox(pdf);
    EXPECT_NEAR(w, 85 * 72 / 25.4, 0.5);
    EXPECT_NEAR(h, 100, 0.5);
    // Text stays text: an embedded font with a ToUnicode map (so a reader can select and search it).
    EXPECT_NE(pdf.find("/ToUnicode"), std::string::npos);
    EXPECT_NE(pdf.find("DejaVu"), std::string::npos);
    EXPECT_EQ(pdf.find("/Subtype /Image"), std::string::npos);
}

TEST(Figure, MeasuresTextLikeDejaVuSans)
{
    // DejaVu Sans advances (units per em 2048): 'M' 1767, 'i' 569 -> at 10 pt 8.63 and 2.78 pt.
    EXPECT_NEAR(measureText("M", 10), 8.63, 0.05);
    EXPECT_NEAR(measureText("i", 10), 2.78, 0.05);
    EXPECT_NEAR(measureText("MM", 20), 4 * measureText("M", 10), 0.05);
    EXPECT_GT(measureText("M", 10, true), measureText("M", 10)); // bold is wider
    EXPECT_EQ(measureText("", 10), 0);
}

TEST(Figure, WrapNeverCutsAWord)
{
    const std::string text = "Functional Programming, parenthesized_expression and a very_long_identifier_name";
    const auto lines = wrapText(text, 8, 60);
    ASSERT_GT(lines.size(), 2u);
    std::string joined;
    for (const auto& l : lines) {
        joined += (joined.empty() || joined.back() == '_' ? "" : " ") + l;
    }
    EXPECT_EQ(joined, text);
    // One word wider than the width stays whole on its line.
    const auto one = wrapText("Supercalifragilistic", 8, 10);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0], "Supercalifragilistic");
}

TEST(Figure, StyleLimits)
{
    FigureStyle s;
    EXPECT_NO_THROW(s.validate());
    s.fontPt = 5.9;
    EXPECT_THROW(s.validate(), InputError);
    s.fontPt = 8;
    s.widthPt = 0;
    EXPECT_THROW(s.validate(), InputError);
    // Below 30 mm the labels do not fit the page (1 mm drew them off a 2.8 pt page; 1e-300 mm wrote "0mm").
    for (double mm : {1e-300, 1.0, 29.9, 2000.1}) {
        s.widthPt = mm * kPointsPerMm;
        EXPECT_THROW(s.validate(), InputError) << mm;
    }
    for (double mm : {30.0, 85.0, 2000.0}) {
        s.widthPt = mm * kPointsPerMm;
        EXPECT_NO_THROW(s.validate()) << mm;
    }
    EXPECT_EQ(parseLegendPlacement("bottom"), LegendPlacement::Bottom);
    EXPECT_THROW(parseLegendPlacement("left"), InputError);
}
