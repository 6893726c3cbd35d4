// The views as paper figures (views.h) and the render options under them (layout.h, svg.h): subtree and
// depth limits with the collapsed counts, left-to-right layout, whitespace tokens faint, labels >= 6 pt
// at 85 mm.
#include "../eval/eval_test_util.h"
#include "ascviz/base/error.h"
#include "ascviz/base/xml.h"
#include "ascviz/figure/viewrender.h"
#include "ascviz/figure/views.h"
#include "figure_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ascviz;

namespace {

// def f(x): / if x > 0: / return x * 2 / return x — tokens by hand, NtP 0.1 ... 0.9.
EvalResult handEval(const std::string& model = "hand-made")
{
    auto s = evaltest::scoredFromPieces({{"def", std::nullopt},
                                         {" f", 0.2},
                                         {"(x", 0.4},
                                         {"):", 0.6},
                                         {"\n    ", 0.9},
                                         {"if", 0.3},
                                         {" x", 0.5},
                                         {" >", 0.7},
                                         {" 0:", 0.8},
                                         {"\n        ", 0.9},
                                         {"return", 0.1},
                                         {" x", 0.5},
                                         {" *", 0.6},
                                         {" 2", 0.7},
                                         {"\n", 0.9}},
                                        model);
    for (std::size_t i = 10; i < s.tokens.size(); ++i)
        s.tokens[i].generated = true;
    return evaluate(s, "python", Aggregation::Median, CategoryMap::forLanguage("python"));
}

int firstOfType(const EvalResult& r, const std::string& type)
{
    for (const auto& n : r.tree.nodes())
        if (n.type == type)
            return n.id;
    return -1;
}

void expectLegible(const Figure& f, double widthMm)
{
    const std::string svg = figureToSvg(f);
    EXPECT_NEAR(figtest::svgWidthMm(svg), widthMm, 0.01);
    const auto sizes = figtest::svgFontSizes(svg);
    ASSERT_FALSE(sizes.empty());
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), kMinFigureFontPt);
    EXPECT_EQ(svg.find("<image"), std::string::npos);
}

} // namespace

TEST(Views, DepthLimitCollapsesAndCountsTheHiddenNodes)
{
    const EvalResult r = handEval();
    const auto total = static_cast<int>(r.tree.nodes().size());
    LayoutOptions o;
    o.maxDepth = 0; // the root alone, hiding every other node
    EXPECT_EQ(visibleNodes(r, AstView::Complete, o), std::vector<int>{0});
    EXPECT_EQ(collapsedCounts(r, AstView::Complete, o)[0], total - 1);
    o.maxDepth = 1; // module and function_definition
    const auto two = visibleNodes(r, AstView::Complete, o);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(r.tree.nodes()[static_cast<std::size_t>(two[1])].type, "function_definition");
    const auto hidden = collapsedCounts(r, AstView::Complete, o);
    EXPECT_EQ(hidden[0], 0);
    EXPECT_EQ(hidden[static_cast<std::size_t>(two[1])], total - 2);
    // The layout labels the collapsed node with "…(n)".
    const GraphLayout g = layoutAst(r, AstView::Complete, o);
    ASSERT_EQ(g.nodes.size(), 2u);
    EXPECT_NE(g.nodes[1].label.find("\u2026(" + std::to_string(total - 2) + ")"), std::string::npos)
        << g.nodes[1].label;
}

TEST(Views, SubtreeShowsOneNodeAndItsDescendants)
{
    const EvalResult r = handEval();
    const int ifNode = firstOfType(r, "if_statement");
    ASSERT_GE(ifNode, 0);
    LayoutOptions o;
    o.subtree = ifNode;
    const auto shown = visibleNodes(r, AstView::Complete, o);
    ASSERT_FALSE(shown.empty());
    EXPECT_EQ(shown.front(), ifNode);
    const auto& n = r.tree.nodes()[static_cast<std::size_t>(ifNode)];
    for (int id : shown) { // every shown node lies inside the if statement's bytes
        EXPECT_GE(r.tree.nodes()[static_cast<std::size_t>(id)].start, n.start);
        EXPECT_LE(r.tree.nodes()[static_cast<std::size_t>(id)].end, n.end);
    }
    const GraphLayout g = layoutAst(r, AstView::Complete, o);
    EXPECT_EQ(g.nodes.size(), shown.size());
    o.subtree = 100000;
    EXPECT_THROW(visibleNodes(r, AstView::Complete, o), InputError);
}

TEST(Views, LeftToRightPutsChildrenRightOfTheirParent)
{
    const EvalResult r = handEval();
    LayoutOptions o;
    o.leftToRight = true;
    for (const GraphLayout& g : {layoutAst(r, AstView::Partial, o), layoutAstTree(r, AstView::Partial, o)}) {
        std::map<int, const LayoutNode*> at;
        for (const auto& n : g.nodes)
            at[n.node] = &n;
        ASSERT_FALSE(g.edges.empty());
        for (const auto& e : g.edges)
            EXPECT_GT(at[e.to]->x, at[e.from]->x) << e.from << "->" << e.to;
    }
}

TEST(Views, WhitespaceTokensAreFaintByDefault)
{
    const EvalResult r = handEval();
    // Token 4 is "\n    " (NtP 0.9), token 5 "if".
    EXPECT_TRUE(isWhitespaceToken(r.scored, 4));
    EXPECT_FALSE(isWhitespaceToken(r.scored, 5));
    const Rgb full = ascColor(0.9);
    const auto faint = tokenFill(r.scored, 4, WhitespaceTokens::Faint);
    ASSERT_TRUE(faint);
    EXPECT_EQ(faint->r, 255 - (255 - full.r) / 8);
    EXPECT_EQ(faint->b, 255 - (255 - full.b) / 8);
    EXPECT_FALSE(tokenFill(r.scored, 4, WhitespaceTokens::None));
    EXPECT_EQ(tokenFill(r.scored, 4, WhitespaceTokens::Full)->b, full.b);
    EXPECT_EQ(tokenFill(r.scored, 5, WhitespaceTokens::None)->r, ascColor(0.3).r); // other tokens unchanged
    // The SVG export: the saturated colour of 0.9 is no longer drawn for the indentation.
    const std::string faintSvg = renderSequenceSvg(r);
    const std::string fullSvg = renderSequenceSvg(r, WhitespaceTokens::Full);
    auto count = [](const std::string& s, const std::string& what) {
        std::size_t n = 0;
        for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
            ++n;
        return n;
    };
    char hex[8];
    std::snprintf(hex, sizeof hex, "#%02x%02x%02x", full.r, full.g, full.b);
    EXPECT_LT(count(faintSvg, std::string("fill=\"") + hex), count(fullSvg, std::string("fill=\"") + hex));
}

TEST(Views, FiguresKeepLabelsLegibleAt85mm)
{
    const EvalResult r = handEval();
    const FigureStyle style; // 85 mm, 8 pt
    ViewFigureOptions o;
    const ViewFigure ast = astFigure(r, AstView::Complete, style, o);
    EXPECT_GE(ast.labelPt, kMinFigureFontPt);
    expectLegible(ast.figure, 85);
    const ViewFigure seq = sequenceFigure(r, style, o);
    expectLegible(seq.figure, 85);
    const ViewFigure f5 = figure5(r, AstView::Partial, style, o);
    expectLegible(f5.figure, 85);
    const std::string svg = figureToSvg(f5.figure);
    EXPECT_NE(svg.find(">return</text>"), std::string::npos) << svg; // the completion's code, as text
    // At 40 mm the complete tree no longer fits at 6 pt: deep levels are collapsed, the width kept.
    FigureStyle narrow = style;
    narrow.widthPt = 40 * kPointsPerMm;
    const ViewFigure small = astFigure(r, AstView::Complete, narrow, o);
    EXPECT_GE(small.labelPt, kMinFigureFontPt);
    EXPECT_GE(small.maxDepth, 0);
    EXPECT_NE(small.note.find("collapsed"), std::string::npos);
    // issue 40: the note names no command-line flag; what changes it is a Remedy the front ends phrase
    EXPECT_EQ(small.note.find("--"), std::string::npos) << small.note;
    EXPECT_TRUE(hasRemedy(small.noteRemedy, Remedy::DepthLimit)) << small.note;
    expectLegible(small.figure, 40);
}

TEST(Views, OneDrawerDecidesScreenViewOrPaperFigure)
{
    const EvalResult r = handEval();
    ViewRequest q; // no option: the screen view, as renderAstSvg draws it (CSS pixels, not mm)
    DrawnView d = drawView(r, q);
    EXPECT_FALSE(d.paper);
    EXPECT_EQ(d.bytes, renderAstSvg(r, AstView::Complete));
    EXPECT_EQ(d.bytes.find("mm\""), std::string::npos);
    EXPECT_NE(d.bytes.find("id=\"node-0\""), std::string::npos);
    EXPECT_TRUE(d.summary.empty());
    q.view = ViewKind::Sequence;
    setViewOption(q, "whitespace", "full"); // applies to both drawings: still the screen view
    EXPECT_FALSE(q.paper);
    EXPECT_EQ(drawView(r, q).bytes, renderSequenceSvg(r, WhitespaceTokens::Full));
    setViewOption(q, "width_mm", "120"); // a figure option: the paper figure at that width
    d = drawView(r, q);
    EXPECT_TRUE(d.paper);
    EXPECT_NEAR(figtest::svgWidthMm(d.bytes), 120.0, 0.01);
    EXPECT_NE(d.summary.find("120.0 x "), std::string::npos);
    ViewRequest pdf; // PDF and figure5 are always paper figures
    pdf.pdf = true;
    EXPECT_EQ(drawView(r, pdf).bytes.rfind("%PDF", 0), 0U);
    ViewRequest f5;
    f5.view = parseViewKind("figure5");
    EXPECT_TRUE(drawView(r, f5).paper);
    // Messages name the option as the caller spells it.
    ViewRequest bad;
    try {
        setViewOption(bad, "orientation", "up", "--orientation");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--orientation must be td or lr (got 'up')"), std::string::npos);
    }
    EXPECT_THROW(setViewOption(bad, "max_depth", "-1"), InputError);
    EXPECT_THROW(setViewOption(bad, "colour", "red"), InputError);
    EXPECT_THROW(parseViewKind("tree"), InputError);
}

TEST(Views, GradientRectsAndGroupTooltipsAreWritten)
{
    Figure f;
    f.widthPt = 100;
    f.heightPt = 50;
    f.pixelUnits = true;
    f.items.emplace_back(FigGroup({{"data-node", "1"}}, "a & b"));
    FigRect bar;
    bar.w = 50;
    bar.h = 10;
    bar.gradient = {Rgb{255, 0, 0}, Rgb{255, 255, 255}, Rgb{0, 0, 255}};
    f.items.emplace_back(bar);
    f.items.emplace_back(bar);
    f.items.emplace_back(FigGroup{});
    const std::string svg = figureToSvg(f);
    EXPECT_NE(svg.find("width=\"100\" height=\"50\""), std::string::npos); // pixels: no mm
    EXPECT_NE(svg.find("<g data-node=\"1\"><title>a &amp; b</title>"), std::string::npos);
    EXPECT_NE(svg.find("<linearGradient id=\"ascviz-scale\""), std::string::npos);
    EXPECT_NE(svg.find("<linearGradient id=\"ascviz-scale-2\""), std::string::npos); // unique per document
    EXPECT_NE(svg.find("<stop offset=\"0.5\" stop-color=\"#ffffff\"/>"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"url(#ascviz-scale-2)\""), std::string::npos);
    EXPECT_EQ(figureToPdf(f).rfind("%PDF", 0), 0U); // Cairo paints the gradient
}

TEST(Views, OneXmlEscaperForEverySvgAndPage)
{
    EXPECT_EQ(xmlEscape("a&<>\"'\t\n\r"), "a&amp;&lt;&gt;&quot;&apos;&#9;&#10;&#13;");
    EXPECT_EQ(xmlEscape("\x01\xe5\x87\xbd"), "\xef\xbf\xbd\xe5\x87\xbd"); // forbidden -> U+FFFD, 函 kept
    EXPECT_TRUE(xmlAllowed(0x10FFFF));
    EXPECT_FALSE(xmlAllowed(0xFFFE));
}

// Issue 54: the sequence figure's caption spoke of generated tokens for a text with none (a scored text).
TEST(Views, TheSequenceCaptionNamesGeneratedTokensOnlyWhereThereAreSome)
{
    const EvalResult generated = handEval();
    EvalResult scored = handEval();
    for (auto& t : scored.scored.tokens)
        t.generated = false;
    FigureStyle style;
    style.widthPt = 178.0 * kPointsPerMm; // two columns: the caption on one line
    const std::string withGenerated = figureToSvg(sequenceFigure(generated, style, {}).figure);
    const std::string withoutGenerated = figureToSvg(sequenceFigure(scored, style, {}).figure);
    EXPECT_NE(withGenerated.find("generated tokens bold and underlined"), std::string::npos);
    EXPECT_EQ(withoutGenerated.find("generated tokens"), std::string::npos);
    EXPECT_NE(withoutGenerated.find("NtP of each token"), std::string::npos);
}
