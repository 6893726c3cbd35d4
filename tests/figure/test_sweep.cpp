// The figure sweep (issue 44): every kind x widths {40, 85, 178 mm} x fonts {6, 7, 9 pt} x legends {right,
// bottom, none} x title on/off (experts: analyze experts' small multiples and one layer alone), asserting on the
// produced geometry (textBoxes): no two text boxes overlap, no text outside the page, no text below 6 pt, every plot
// area at least a third of the page wide, the SVG at the width asked.
#include "../eval/eval_test_util.h"
#include "ascviz/figure/charts.h"
#include "ascviz/figure/expertsfigure.h"
#include "ascviz/figure/heads.h"
#include "ascviz/figure/views.h"
#include "ascviz/study/report.h"
#include "figure_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

using namespace ascviz;

namespace {

// Category names of the bundled tables plus an unbreakable one that must be keyed, not overlapped.
const std::vector<std::string> kRows = {"Global",           "Functional Programming",
                                        "Natural Language", "Object-Oriented Programming",
                                        "Data Types",       "Scope",
                                        "Iterations",       "Exceptions_and_error_handling_constructs"};
const std::vector<std::string> kRuns = {"ascviz-tiny-code (θ=median, float32)", "codegen-350M-mono (θ=max)", "gpt2"};

double pseudo(std::size_t i) // deterministic values in [0, 1]
{
    return std::fmod(0.137 + 0.618034 * static_cast<double>(i), 1.0);
}

Figure categories(const FigureStyle& s)
{
    CategoryBarsData d;
    d.runs = kRuns;
    d.rows = kRows;
    d.minN = 10;
    d.warning = "runs differ in: θ (median, max), dtype (float32, bfloat16) — compare with care";
    for (std::size_t r = 0; r < d.rows.size(); ++r) {
        d.values.emplace_back();
        for (std::size_t k = 0; k < d.runs.size(); ++k) {
            BarValue v;
            if ((r + k) % 7 != 3) {
                v.median = pseudo(r * 3 + k);
                v.lo = *v.median * 0.8;
                v.hi = std::min(1.0, *v.median * 1.1);
                v.n = static_cast<long long>(r * 7 + k);
                v.tooFew = v.n < 10;
            }
            d.values.back().push_back(v);
        }
    }
    return categoryBarsFigure(d, s);
}

DistributionData distData()
{
    DistributionData d;
    d.runs = kRuns;
    d.rows = kRows;
    d.warning = "runs differ in: θ";
    for (std::size_t r = 0; r < d.rows.size(); ++r) {
        d.values.emplace_back();
        for (std::size_t k = 0; k < d.runs.size(); ++k) {
            std::vector<double> v;
            for (std::size_t i = 0; i < (r == 2 && k == 1 ? 0 : 12); ++i)
                v.push_back(pseudo(r * 100 + k * 10 + i));
            d.values.back().push_back(v);
        }
    }
    return d;
}

Figure distribution(const FigureStyle& s)
{
    return distributionFigure(distData(), s);
}

Figure treatments(const FigureStyle& s)
{
    DistributionData d = distData();
    d.rows = {"passed_tests", "cyclomatic_complexity", "levenshtein distance to the reference"};
    d.values.resize(3);
    d.runs = {"treatment: prompt with docstring", "control"};
    for (auto& row : d.values)
        row.resize(2);
    d.title = "Outcomes by treatment";
    d.axisLabel = "outcome (scaled to [0, 1])";
    d.guides = false;
    return distributionFigure(d, s);
}

Figure treemap(const FigureStyle& s)
{
    TreemapData d;
    d.run = "codegen-350M-mono";
    const std::vector<std::string> groups = {
        "Functional Programming",     "Natural Language", "Data Types", "Iterations", "Scope", "Exceptions",
        "Object-Oriented Programming"};
    const std::vector<std::string> names = {"function_definition",
                                            "call",
                                            "identifier",
                                            "comment",
                                            "string",
                                            "integer",
                                            "for_statement",
                                            "while_statement",
                                            "block",
                                            "try_statement",
                                            "except_clause",
                                            "class_definition",
                                            "attribute",
                                            "return_statement",
                                            "lambda",
                                            "list_comprehension",
                                            "dictionary",
                                            "tuple",
                                            "if_statement",
                                            "argument_list",
                                            "parameters",
                                            "assignment",
                                            "float",
                                            "true",
                                            "none",
                                            "import_statement",
                                            "raise_statement",
                                            "with_statement",
                                            "decorator",
                                            "keyword_argument",
                                            "subscript",
                                            "binary_operator"};
    for (std::size_t i = 0; i < names.size(); ++i) {
        TreemapItem it;
        it.name = names[i];
        it.group = groups[i % groups.size()];
        it.count = 2000.0 / static_cast<double>(i + 1) + 1;
        if (i % 9 != 5)
            it.value = pseudo(i);
        d.items.push_back(it);
    }
    d.items.push_back({"(", "", 500, 0.9});
    return treemapFigure(d, s);
}

Figure heatmap(const FigureStyle& s)
{
    std::vector<HeatmapColumn> cols;
    for (std::size_t k = 0; k < kRuns.size(); ++k) {
        HeatmapColumn c;
        c.name = kRuns[k];
        for (std::size_t r = 0; r < kRows.size(); ++r) {
            if ((r + k) % 5 != 2)
                c.values[kRows[r]] = pseudo(r * 3 + k);
            c.counts[kRows[r]] = static_cast<long long>(r * 4 + k);
        }
        cols.push_back(c);
    }
    return heatmapFigure(kRows, cols, s);
}

Figure likert(const FigureStyle& s)
{
    const auto qs = defaultStudyQuestions(5);
    const std::vector<std::string> conds = {"C", "T1", "T2", "T3"};
    std::vector<ResponseRow> rows;
    int trial = 0;
    for (const auto& c : conds)
        for (const auto& q : qs)
            for (int a = 1; a <= 5; ++a)
                for (int rep = 0; rep < a; ++rep)
                    rows.push_back({"P" + std::to_string(trial % 7), trial, "s", c, q.id, a, 1.0}), ++trial;
    return likertFigure(computeStudyReport(conds, qs, rows), s);
}

Figure scatter(const FigureStyle& s)
{
    ScatterData d;
    d.title = "Treatment vs cross-entropy";
    d.xLabel = "treatment T (AsC-Eval of the prompt)";
    d.yLabel = "cross-entropy of the completion (nats)";
    for (std::size_t i = 0; i < 40; ++i) {
        d.x.push_back(pseudo(i));
        d.y.push_back(2 + 3 * pseudo(i * 7));
    }
    d.fit = ScatterFit{2.1, 0.42, "adjusted effect 0.42"};
    return scatterFigure(d, s);
}

Figure heads(const FigureStyle& s)
{
    std::vector<double> scores;
    for (std::size_t i = 0; i < 12 * 16; ++i)
        scores.push_back(pseudo(i));
    return headHeatmapPaperFigure(
        scores, 12, 16, "model score: mean top-1 score per head over 5 relation types (codegen-350M-mono)", s, {3, 4});
}

Figure layers(const FigureStyle& s)
{
    std::vector<HeatmapColumn> cols;
    for (int l = 0; l <= 24; ++l) {
        HeatmapColumn c;
        c.name = l == 0 ? "emb" : "L" + std::to_string(l);
        for (std::size_t r = 0; r < kRows.size(); ++r) {
            c.values[kRows[r]] = pseudo(r * 31 + static_cast<std::size_t>(l));
            c.counts[kRows[r]] = static_cast<long long>(r * 3);
        }
        cols.push_back(c);
    }
    HeatmapFigureOptions o;
    o.title = "AsC-Eval by category and layer (codegen-350M-mono)";
    return heatmapFigure(kRows, cols, s, o);
}

// Experts by category (analyze experts --svg): 3 sparse layers of 8 experts (top-2) as small multiples, and one
// layer of 64 experts alone (headers turned, every k-th).
ExpertsFigureData expertsData(int layers, int experts)
{
    ExpertsFigureData d;
    d.model = "tiny-qwen3_moe";
    d.experts = experts;
    d.expertsPerToken = 2;
    d.categories = kRows;
    for (int l = 0; l < layers; ++l) {
        ExpertsFigureData::Layer layer;
        layer.layer = l + 1;
        for (std::size_t r = 0; r < kRows.size(); ++r) {
            auto& v = layer.shares[kRows[r]];
            for (int e = 0; e < experts; ++e)
                v.push_back(pseudo(r * 17 + static_cast<std::size_t>(e + l * 5)) * 2.0 / experts * 2);
            d.n[kRows[r]] = static_cast<long long>(r * 300);
        }
        d.layers.push_back(layer);
    }
    return d;
}
Figure experts(const FigureStyle& s)
{
    return expertsFigure(expertsData(3, 8), s);
}
Figure expertsOneLayer(const FigureStyle& s)
{
    return expertsFigure(expertsData(1, 64), s);
}

EvalResult code()
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

Figure ast(const FigureStyle& s)
{
    static const EvalResult r = code();
    return astFigure(r, AstView::Partial, s, {}).figure;
}
Figure sequence(const FigureStyle& s)
{
    static const EvalResult r = code();
    return sequenceFigure(r, s, {}).figure;
}
Figure fig5(const FigureStyle& s)
{
    static const EvalResult r = code();
    return figure5(r, AstView::Partial, s, {}).figure;
}

struct Kind {
    const char* name;
    std::function<Figure(const FigureStyle&)> build;
};

const std::vector<Kind>& kinds()
{
    static const std::vector<Kind> k = {{"categories", categories}, {"distribution", distribution},
                                        {"treatments", treatments}, {"treemap", treemap},
                                        {"heatmap", heatmap},       {"likert", likert},
                                        {"scatter", scatter},       {"heads", heads},
                                        {"layers", layers},         {"ast", ast},
                                        {"sequence", sequence},     {"figure5", fig5},
                                        {"experts", experts},       {"experts-one-layer", expertsOneLayer}};
    return k;
}

// Every problem of one figure, one per line ("" = none).
std::string problems(const Figure& f, double widthMm)
{
    std::ostringstream p;
    if (std::abs(f.widthPt - widthMm * kPointsPerMm) > 0.01)
        p << "page " << f.widthPt << " pt wide, asked " << widthMm * kPointsPerMm << "\n";
    const auto boxes = textBoxes(f);
    for (const auto& b : boxes) {
        if (b.sizePt < kMinFigureFontPt - 1e-9)
            p << "'" << b.text << "' at " << b.sizePt << " pt\n";
        if (b.box.x0 < -0.01 || b.box.y0 < -0.01 || b.box.x1 > f.widthPt + 0.01 || b.box.y1 > f.heightPt + 0.01)
            p << "'" << b.text << "' outside the page [" << b.box.x0 << ", " << b.box.y0 << ", " << b.box.x1 << ", "
              << b.box.y1 << "] on " << f.widthPt << " x " << f.heightPt << "\n";
    }
    for (const auto& [i, j] : overlappingText(boxes))
        p << "'" << boxes[i].text << "' overlaps '" << boxes[j].text << "'\n";
    for (const auto& a : f.plotAreas)
        if (a.width() < f.widthPt / 3 || a.height() <= 0)
            p << "plot area " << a.width() << " x " << a.height() << " pt\n";
    const std::string svg = figureToSvg(f);
    if (std::abs(figtest::svgWidthMm(svg) - widthMm) > 0.01)
        p << "svg width " << figtest::svgWidthMm(svg) << " mm\n";
    return p.str();
}

} // namespace

TEST(FigureSweep, TextBoxesFollowAnchorAndRotation)
{
    Figure f;
    f.widthPt = f.heightPt = 100;
    f.text(50, 50, "abc", 10, TextAnchor::End);
    FigText t;
    t.x = 20;
    t.y = 80;
    t.text = "abc";
    t.sizePt = 10;
    t.rotate = -90;
    f.items.emplace_back(t);
    const auto b = textBoxes(f);
    ASSERT_EQ(b.size(), 2u);
    const double w = measureText("abc", 10);
    EXPECT_NEAR(b[0].box.x1, 50, 1e-9);
    EXPECT_NEAR(b[0].box.x0, 50 - w, 1e-9);
    EXPECT_NEAR(b[0].box.y0, 50 - 7.6, 1e-9);
    // Turned upwards: the text runs from the baseline point up by its width.
    EXPECT_NEAR(b[1].box.y1, 80, 1e-9);
    EXPECT_NEAR(b[1].box.y0, 80 - w, 1e-9);
    EXPECT_NEAR(b[1].box.width(), 10, 1e-9);
    EXPECT_TRUE(overlappingText(b).empty());
    f.text(45, 48, "x", 10);
    EXPECT_EQ(overlappingText(textBoxes(f)).size(), 1u);
}

TEST(FigureSweep, EveryKindFitsEveryWidthFontAndLegend)
{
    int figures = 0;
    for (const auto& kind : kinds())
        for (double mm : {40.0, 85.0, 178.0})
            for (double pt : {6.0, 7.0, 9.0})
                for (auto legend : {LegendPlacement::Right, LegendPlacement::Bottom, LegendPlacement::None})
                    for (bool title : {true, false}) {
                        FigureStyle s;
                        s.widthPt = mm * kPointsPerMm;
                        s.fontPt = pt;
                        s.legend = legend;
                        s.title = title;
                        const Figure f = kind.build(s);
                        ++figures;
                        // ASCVIZ_FIGURE_SWEEP_PNG=DIR (outside the repository): 300 dpi PNGs of the 7 pt figures
                        // with the title, to look at as a reviewer would.
                        if (const char* dir = std::getenv("ASCVIZ_FIGURE_SWEEP_PNG"); dir && pt == 7 && title) {
                            std::ofstream(std::string(dir) + "/" + kind.name + "-" + std::to_string(int(mm)) + "mm-" +
                                              toString(legend) + ".png",
                                          std::ios::binary)
                                << figureToPng(f, 300);
                        }
                        EXPECT_EQ(problems(f, mm), "") << kind.name << " at " << mm << " mm, " << pt << " pt, legend "
                                                       << toString(legend) << (title ? "" : ", no title");
                    }
    EXPECT_EQ(figures, 14 * 3 * 3 * 3 * 2);
}
