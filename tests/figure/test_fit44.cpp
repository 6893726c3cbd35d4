// Issue 44's figure items, each on the geometry a reader sees: a --max-depth given is honoured; the completion's
// underline sits below the underscores; code wraps at token boundaries; n/a hatched in the views and cells;
// heat-map cells with n < 10 marked; the treemap labels or keys every category and concept and never splits a
// name at "_" that fits a line; treatments without the 0.5/0.6 guides.
#include "../eval/eval_test_util.h"
#include "ascviz/figure/charts.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/sequence.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

using namespace ascviz;

namespace {

constexpr Rgb kHatch{120, 120, 120};

EvalResult longerEval()
{
    std::vector<std::pair<std::string, std::optional<double>>> pieces = {
        {"def", std::nullopt}, {" compute_total", 0.2}, {"(items", 0.4}, {", tax_rate", 0.5},
        {"):", 0.6},           {"\n    ", 0.9},         {"total", 0.3},  {" =", 0.5},
        {" 0", 0.7},           {"\n    ", 0.9},         {"for", 0.3},    {" item", 0.5},
        {" in", 0.7},          {" items", 0.8},         {":", 0.6},      {"\n        ", 0.9},
        {"if", 0.3},           {" item", 0.5},          {".price", 0.2}, {" >", 0.7},
        {" 0:", 0.8},          {"\n            ", 0.9}, {"total", 0.1},  {" +=", 0.5},
        {" item", 0.6},        {".price", 0.7},         {" *", 0.6},     {" (1", 0.4},
        {" +", 0.5},           {" tax_rate", 0.7},      {")", 0.9},      {"\n    ", 0.9},
        {"return", 0.1},       {" total", 0.5},         {"\n", 0.9}};
    auto s = evaltest::scoredFromPieces(pieces, "hand-made");
    for (std::size_t i = 20; i < s.tokens.size(); ++i)
        s.tokens[i].generated = true;
    return evaluate(s, "python", Aggregation::Median, CategoryMap::forLanguage("python"));
}

FigureStyle at(double mm)
{
    FigureStyle s;
    s.widthPt = mm * kPointsPerMm;
    return s;
}

std::vector<const FigText*> texts(const Figure& f)
{
    std::vector<const FigText*> out;
    for (const auto& i : f.items)
        if (const auto* t = std::get_if<FigText>(&i))
            out.push_back(t);
    return out;
}

bool isNa(Rgb c)
{
    const Rgb na = ascColor(std::nullopt);
    return c.r == na.r && c.g == na.g && c.b == na.b;
}

// Hatch lines (grey diagonals) lying inside the rectangle.
int hatchLinesIn(const Figure& f, double x, double y, double w, double h)
{
    int n = 0;
    for (const auto& i : f.items)
        if (const auto* l = std::get_if<FigLine>(&i))
            if (l->stroke.r == kHatch.r && l->stroke.g == kHatch.g && l->x1 != l->x2 && l->y1 != l->y2 &&
                l->x1 >= x - 1e-6 && l->x2 <= x + w + 1e-6 && std::min(l->y1, l->y2) >= y - 1e-6 &&
                std::max(l->y1, l->y2) <= y + h + 1e-6)
                ++n;
    return n;
}

} // namespace

TEST(Fit44, AMaxDepthGivenIsDrawnAsGivenEvenWhenItDoesNotFit)
{
    const EvalResult r = longerEval();
    ViewFigureOptions o;
    o.layout.maxDepth = 4;
    o.layout.leftToRight = true;
    o.autoOrientation = false;
    const ViewFigure v = astFigure(r, AstView::Partial, at(40), o);
    EXPECT_EQ(v.maxDepth, 4); // before: folded to the depth that fits 40 mm
    EXPECT_GE(v.labelPt, kMinFigureFontPt);
    // Without a depth the tree is folded to fit the width.
    const ViewFigure fitted = astFigure(r, AstView::Partial, at(40), ViewFigureOptions{});
    EXPECT_NEAR(fitted.figure.widthPt, 40 * kPointsPerMm, 1e-6);
}

TEST(Fit44, TheCompletionsUnderlineSitsBelowTheUnderscores)
{
    const ViewFigure v = figure5(longerEval(), AstView::Partial, at(85), ViewFigureOptions{});
    int underlines = 0;
    for (const auto* t : texts(v.figure)) {
        if (!t->mono || !t->bold)
            continue;
        for (const auto& i : v.figure.items)
            if (const auto* l = std::get_if<FigLine>(&i); l && l->y1 == l->y2 && l->x1 >= t->x - 1e-6 &&
                                                          l->x1 < t->x + 1e-6 && l->y1 > t->y &&
                                                          l->y1 < t->y + t->sizePt) {
                ++underlines;
                // The underscore's stroke reaches 0.24 em below the baseline: the underline is clear of it.
                EXPECT_GE(l->y1 - l->width / 2, t->y + 0.24 * t->sizePt + 0.2) << t->text;
            }
    }
    EXPECT_GT(underlines, 0);
}

TEST(Fit44, CodeWrapsAtTokenBoundaries)
{
    const EvalResult r = longerEval();
    std::set<std::string> tokenTexts; // the runs of the sequence layout: tokens, cut only at line breaks
    for (const auto& run : layoutSequence(r.scored).runs)
        tokenTexts.insert(run.text);
    for (double mm : {40.0, 85.0}) {
        const ViewFigure v = sequenceFigure(r, at(mm), ViewFigureOptions{});
        int continuation = 0;
        for (const auto* t : texts(v.figure)) {
            if (t->text == "\u21aa")
                ++continuation;
            if (t->mono) { // every token here is shorter than a row: each is drawn whole
                EXPECT_TRUE(tokenTexts.count(t->text)) << "'" << t->text << "' at " << mm << " mm";
            }
        }
        if (mm == 40.0) {
            EXPECT_GT(continuation, 0); // the first line does not fit 40 mm
        }
    }
}

TEST(Fit44, NaIsHatchedInTheSequenceAndAstViews)
{
    const EvalResult r = longerEval(); // "def" has no NtP
    const ViewFigure seq = sequenceFigure(r, at(85), ViewFigureOptions{});
    const FigRect* defCell = nullptr;
    for (const auto& i : seq.figure.items)
        if (const auto* c = std::get_if<FigRect>(&i); c && c->fill && isNa(*c->fill)) {
            defCell = c;
            break;
        }
    ASSERT_NE(defCell, nullptr);
    EXPECT_GT(hatchLinesIn(seq.figure, defCell->x, defCell->y, defCell->w, defCell->h), 0);
    const ViewFigure ast = astFigure(r, AstView::Complete, at(178), ViewFigureOptions{});
    int naBoxes = 0;
    for (const auto& i : ast.figure.items)
        if (const auto* c = std::get_if<FigRect>(&i); c && c->fill && isNa(*c->fill)) {
            ++naBoxes;
            EXPECT_GT(hatchLinesIn(ast.figure, c->x, c->y, c->w, c->h), 0);
        }
    EXPECT_GT(naBoxes, 0);
}

TEST(Fit44, HeatmapMarksCellsWithFewValuesAndHatchesNa)
{
    HeatmapColumn a;
    a.name = "run";
    a.values = {{"Global", 0.5}, {"Scope", 0.7}, {"Data Types", std::nullopt}};
    a.counts = {{"Global", 120}, {"Scope", 4}};
    const Figure f = heatmapFigure({"Global", "Scope", "Data Types"}, {a}, at(85));
    int marks = 0;
    for (const auto& i : f.items)
        if (const auto* p = std::get_if<FigPath>(&i); p && p->fill && p->fill->r == 17)
            ++marks;
    EXPECT_EQ(marks, 1); // Scope only (n = 4)
    std::string all;
    for (const auto* t : texts(f))
        all += t->text + " ";
    EXPECT_NE(all.find("(n\u00a0<\u00a010)"), std::string::npos) << all;
    int naCells = 0;
    for (const auto& i : f.items)
        if (const auto* c = std::get_if<FigRect>(&i); c && c->fill && isNa(*c->fill) && c->w > 20) {
            ++naCells;
            EXPECT_GT(hatchLinesIn(f, c->x, c->y, c->w, c->h), 2);
        }
    EXPECT_EQ(naCells, 1);
}

TEST(Fit44, TreemapLabelsOrKeysEveryCategoryAndConcept)
{
    TreemapData d;
    d.run = "m";
    const std::vector<std::string> groups = {
        "Functional Programming",     "Natural Language", "Data Types", "Iterations", "Scope", "Exceptions",
        "Object-Oriented Programming"};
    for (std::size_t i = 0; i < 28; ++i) {
        TreemapItem it;
        it.name = "concept_name_" + std::to_string(i);
        it.group = groups[i % groups.size()];
        it.count = 1000.0 / static_cast<double>(i + 1);
        it.value = 0.1 + 0.03 * static_cast<double>(i);
        d.items.push_back(it);
    }
    for (double mm : {40.0, 85.0}) {
        const Figure f = treemapFigure(d, at(mm));
        std::string all;
        for (const auto* t : texts(f)) {
            all += t->text + " ";
            if (t->text.size() > 1) { // a name that fits a line is never split after its "_"
                EXPECT_NE(t->text.back(), '_') << t->text << " at " << mm << " mm";
            }
        }
        for (const auto& g : groups) // named on its block, or keyed "X = name" / listed in the caption
            EXPECT_NE(all.find(g), std::string::npos) << g << " at " << mm << " mm";
        for (const auto& it : d.items) // every concept is in its cell or in the caption (no "(no key)")
            EXPECT_NE(all.find(it.name), std::string::npos) << it.name << " at " << mm << " mm";
        EXPECT_EQ(all.find("(no key)"), std::string::npos);
    }
}

TEST(Fit44, TreatmentsHaveNoThresholdGuides)
{
    DistributionData d;
    d.runs = {"treatment", "control"};
    d.rows = {"levenshtein"};
    d.values = {{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}}};
    auto dashed = [](const Figure& f) {
        int n = 0;
        for (const auto& i : f.items)
            if (const auto* l = std::get_if<FigLine>(&i); l && l->dashed)
                ++n;
        return n;
    };
    EXPECT_EQ(dashed(distributionFigure(d, at(85))), 2); // AsC-Eval: the 0.5 and 0.6 guides
    d.guides = false;
    EXPECT_EQ(dashed(distributionFigure(d, at(85))), 0);
}

TEST(Fit44, Figure5WithASubtreeShowsOnlyTheLinesThatHoldIt)
{
    const EvalResult r = longerEval();
    int ifNode = -1;
    for (const auto& n : r.tree.nodes())
        if (n.type == "if_statement") {
            ifNode = n.id;
            break;
        }
    ASSERT_GE(ifNode, 0);
    ViewFigureOptions o;
    o.layout.subtree = ifNode;
    const ViewFigure whole = figure5(r, AstView::Partial, at(85), ViewFigureOptions{});
    const ViewFigure part = figure5(r, AstView::Partial, at(85), o);
    EXPECT_LT(part.figure.heightPt, whole.figure.heightPt);
    std::string code;
    std::set<std::string> numbers;
    for (const auto* t : texts(part.figure)) {
        if (t->mono)
            code += t->text;
        else if (!t->text.empty() && std::isdigit(static_cast<unsigned char>(t->text[0])) && t->text.size() == 1)
            numbers.insert(t->text);
    }
    EXPECT_EQ(code.find("def"), std::string::npos) << code; // line 1 is not in the if statement
    EXPECT_NE(code.find("if item.price"), std::string::npos) << code;
    EXPECT_TRUE(numbers.count("4")) << "the if statement's first line keeps its number in the file";
}
