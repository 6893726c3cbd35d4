// The corpus analyses over hand-made results databases: the rows AsC-Causal takes (absent groups excluded),
// PERPLEXED's token / label / call statistics recomputed by hand, the heat map SVG and the LaTeX tables.
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/figure/charts.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"
#include "ascviz/syntax/language.h"
#include "dbcontent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ascviz;

namespace {

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("ascviz-analysis-" + name + "-" + std::to_string(::getpid())))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Tokens = whitespace-separated words (a space belongs to the next word), each with the NtP given in turn.
ScoredText scored(const std::string& text, const std::vector<double>& ntps)
{
    ScoredText s;
    s.model = "hand-made";
    std::size_t i = 0, k = 0;
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\n'))
            ++j;
        while (j < text.size() && text[j] != ' ' && text[j] != '\n')
            ++j;
        ScoredToken t;
        t.id = static_cast<int>(k);
        t.start = i;
        t.end = j;
        t.ntp = ntps[k % ntps.size()];
        s.tokens.push_back(t);
        s.text.append(text, i, j - i);
        i = j;
        ++k;
    }
    s.promptBytes = s.text.size();
    s.promptTokens = s.tokens.size();
    return s;
}

void write(ResultsDb& db, int64_t idx, const std::string& lang, const std::string& code,
           const std::vector<double>& ntps)
{
    const EvalResult r = evaluate(scored(code, ntps), lang, Aggregation::Median, CategoryMap::forLanguage(lang));
    SnippetMeta m;
    m.index = idx;
    m.id = "s" + std::to_string(idx);
    m.code = code;
    m.promptBytes = code.size();
    m.language = lang;
    db.writeSnippet(m, &r);
}

RunInfo run(const std::string& lang)
{
    RunInfo r;
    r.modelName = "hand-made";
    r.modelDir = "/nowhere";
    r.corpusPath = "/c";
    r.corpusFingerprint = "0";
    r.language = lang;
    return r;
}

} // namespace

TEST(CausalDb, RowsPerGroupExcludeSnippetsWithoutTheGroup)
{
    TempDir dir("rows");
    {
        auto db = ResultsDb::create(dir.path / "r.db", run("python"));
        write(db, 0, "python", "for x in y:\n    pass\n", {0.5, 0.25});
        write(db, 1, "python", "x = 1\n", {0.8});
        write(db, 2, "python", "while x:\n    y = 2\n", {0.3, 0.6, 0.9});
    }
    const auto db = ResultsDb::open(dir.path / "r.db");
    const CausalRows all = causalRows(db, CausalBy::Global, "");
    ASSERT_EQ(all.t.size(), 3u);
    ASSERT_EQ(all.z.size(), 4u);
    const auto snippets = db.snippets();
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_DOUBLE_EQ(all.t[i], *snippets[i].ascEval);
        EXPECT_DOUBLE_EQ(all.y[i], *snippets[i].crossEntropy);
        EXPECT_EQ(all.z[0][i], snippets[i].tokens);
        EXPECT_EQ(all.z[3][i], snippets[i].cyclomatic);
    }
    // Iterative: snippets 0 and 2 only; T = the mean of their Iterative node values.
    const CausalRows it = causalRows(db, CausalBy::Category, "Iterative");
    ASSERT_EQ(it.t.size(), 2u);
    EXPECT_DOUBLE_EQ(it.y[0], all.y[0]);
    EXPECT_DOUBLE_EQ(it.y[1], all.y[2]);
    double sum = 0;
    int n = 0;
    testdata::query(db,
                    "SELECT asc_eval FROM nodes WHERE snippet = 0 AND type = 'for_statement' AND asc_eval IS NOT NULL",
                    [&](const auto& c) {
                        sum += std::stod(*c[0]);
                        ++n;
                    });
    ASSERT_EQ(n, 1);
    EXPECT_DOUBLE_EQ(it.t[0], sum / n);
    // A concept present in one snippet: one row; the analysis gives ρ n/a and no effect (too few).
    const CausalRows wh = causalRows(db, CausalBy::Concept, "while_statement");
    EXPECT_EQ(wh.t.size(), 1u);
    const CausalReport rep = analyzeCausal(db, CausalBy::Concept);
    ASSERT_TRUE(rep.groups.count("while_statement"));
    EXPECT_FALSE(rep.groups.at("while_statement").hasEffect);
    EXPECT_FALSE(rep.groups.at("while_statement").rhoOutcome.has_value());
    const auto j = causalToJson(rep);
    EXPECT_EQ(j["n"], 3);
    EXPECT_EQ(j["treatment"], "asc_eval");
    EXPECT_EQ(j["confounders"].size(), 4u);
    EXPECT_TRUE(j["by"].contains("while_statement"));
    EXPECT_TRUE(j["ate"].is_null()); // 3 < 10 snippets
    EXPECT_THROW(parseCausalBy("nodes"), InputError);
}

TEST(PerplexedDb, TokensLabelsAndCallsByHand)
{
    TempDir dir("perplexed");
    // g is defined in the snippet (internal), h is not (external), len is a builtin (left out). `ah` is one
    // character longer than `h` (a regression: the "A::h defines h" check must not read before the name).
    const std::string code =
        "def g(y):\n    return y\n\ndef ah():\n    return 1\n\ndef f(x):\n    return g(x) + h(x) + len(x)\n";
    {
        auto db = ResultsDb::create(dir.path / "r.db", run("python"));
        write(db, 0, "python", code, {0.5});
        write(db, 1, "python", "x = [1, 2]\n", {0.25});
    }
    const auto db = ResultsDb::open(dir.path / "r.db");
    PerplexedOptions o;
    o.minCount = 1;
    o.top = 100;
    const PerplexedReport r = analyzePerplexed(db, o);
    EXPECT_EQ(r.snippets, 2);
    const auto s0 = scored(code, {0.5});
    const auto s1 = scored("x = [1, 2]\n", {0.25});
    EXPECT_EQ(r.tokens, static_cast<int64_t>(s0.tokens.size() + s1.tokens.size()));
    // Every token of snippet 0 has CE ln 2, of snippet 1 ln 4.
    const double l2 = std::log(2.0), l4 = std::log(4.0);
    const double n0 = double(s0.tokens.size()), n1 = double(s1.tokens.size());
    EXPECT_NEAR(r.all.mean, (n0 * l2 + n1 * l4) / (n0 + n1), 1e-12);
    // Token texts: "\n    return" occurs three times (ln 2 each).
    bool sawReturn = false;
    for (const auto& list : {r.worstTokens, r.bestTokens})
        for (const auto& [text, s] : list)
            if (text == "\n    return") {
                sawReturn = true;
                EXPECT_EQ(s.count, 3);
                EXPECT_NEAR(s.mean, l2, 1e-12);
                EXPECT_NEAR(s.std, 0, 1e-12);
            }
    EXPECT_TRUE(sawReturn);
    // Worst first, best first.
    ASSERT_FALSE(r.worstTokens.empty());
    EXPECT_NEAR(r.worstTokens.front().second.mean, l4, 1e-12);
    EXPECT_NEAR(r.bestTokens.front().second.mean, l2, 1e-12);
    // Labels: the `[` of the list is "list -> [".
    bool sawList = false;
    for (const auto& [label, s] : r.worstLabels)
        if (label == "list -> [") {
            sawList = true;
            EXPECT_NEAR(s.mean, l4, 1e-12);
        }
    EXPECT_TRUE(sawList);
    // Calls: g internal, h external, len left out.
    EXPECT_EQ(r.internalCalls.calls, 1);
    EXPECT_EQ(r.externalCalls.calls, 1);
    EXPECT_EQ(r.builtinCalls, 1);
    EXPECT_GT(r.internalCalls.ce.count, 0);
    EXPECT_NEAR(r.internalCalls.ce.mean, l2, 1e-12);
    const auto j = perplexedToJson(r);
    EXPECT_EQ(j["calls"]["internal"]["calls"], 1);
    EXPECT_TRUE(j["tokens"]["worst"].is_array());
    EXPECT_TRUE(j["labels"]["worst"][0].contains("label"));
}

TEST(PerplexedDb, CallsInOtherLanguagesAndErrorParentedTokens)
{
    TempDir dir("perplexed2");
    {
        auto db = ResultsDb::create(dir.path / "r.db", run("java"));
        write(db, 0, "java",
              "class A {\n  int f(int x) { return g(x) + Math.abs(x); }\n  int g(int y) { return y; }\n}\n", {0.5});
        write(db, 1, "cpp", "int A::f(int x) { return g(x) + std::abs(x); }\nint A::g(int y) { return y; }\n", {0.5});
        write(db, 2, "javascript", "function f(x) { return g(x) + Math.max(x); }\nfunction g(y) { return y; }\n",
              {0.5});
        write(db, 3, "python", "def f(x)\n    return x +\n", {0.1}); // syntax errors
    }
    const auto db = ResultsDb::open(dir.path / "r.db");
    PerplexedOptions o;
    o.minCount = 1;
    const PerplexedReport r = analyzePerplexed(db, o);
    // g() internal in each of the three; Math.abs, std::abs, Math.max external.
    EXPECT_EQ(r.internalCalls.calls, 3);
    EXPECT_EQ(r.externalCalls.calls, 3);
    EXPECT_GT(r.errorParented.count, 0);
    EXPECT_NEAR(r.errorParented.mean, -std::log(0.1), 1e-12); // only snippet 3 has ERROR nodes
    ASSERT_FALSE(r.errorLabels.empty());
    EXPECT_NE(r.errorLabels.front().first.find("ERROR -> "), std::string::npos);
}

TEST(Tables, HeatmapSvgAndLatex)
{
    CorpusStats a, b;
    a.globalAscEval = 0.7;
    b.globalAscEval = 0.4;
    BootstrapResult r1;
    r1.median = 0.8;
    r1.se = 0.01;
    BootstrapResult r2 = r1;
    r2.median = 0.3;
    a.categories["Iterative"] = r1;
    b.categories["Iterative"] = r2;
    b.categories["Types"] = r2;
    const std::vector<std::pair<std::string, const CorpusStats*>> sets = {{"model_a", &a}, {"model-b & co", &b}};
    const auto [rows, cols] = heatmapData(sets);
    EXPECT_EQ(rows, (std::vector<std::string>{"Global", "Iterative", "Types"}));
    ASSERT_EQ(cols.size(), 2u);
    EXPECT_FALSE(cols[0].values.count("Types")); // n/a
    const std::string svg = renderHeatmapSvg(rows, cols);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("data-row=\"Iterative\" data-column=\"0\" data-value=\"0.80\""), std::string::npos) << svg;
    EXPECT_NE(svg.find("data-row=\"Types\" data-column=\"0\" data-value=\"n/a\""), std::string::npos);
    EXPECT_NE(svg.find("model-b &amp; co"), std::string::npos); // escaped
    EXPECT_THROW(renderHeatmapSvg(rows, {}), InputError);
    // Issue 54: the screen's heat map marks a value over fewer than 10 values with the export's dark corner, and
    // its key says so; without counts, or with 10 or more, no mark.
    auto plain = cols;
    for (auto& c : plain)
        c.counts.clear();
    const std::string unmarked = renderHeatmapSvg(rows, plain);
    EXPECT_EQ(unmarked.find("n &lt; 10"), std::string::npos);
    auto counted = plain;
    counted[0].counts["Iterative"] = 9;
    counted[1].counts["Iterative"] = 10;
    const std::string marked = renderHeatmapSvg(rows, counted);
    EXPECT_NE(marked.find("n &lt; 10: fewer than 10 values"), std::string::npos) << marked;
    const auto corners = [](const std::string& t) {
        std::size_t n = 0;
        for (std::size_t at = t.find("fill=\"#111111\""); at != std::string::npos;
             at = t.find("fill=\"#111111\"", at + 1))
            ++n;
        return n;
    };
    EXPECT_EQ(corners(marked), corners(unmarked) + 2); // the cell's corner and the key's

    const std::string tex = comparisonLatex(sets);
    EXPECT_NE(tex.find("\\toprule"), std::string::npos);
    EXPECT_NE(tex.find("model\\_a & model-b \\& co"), std::string::npos) << tex;
    EXPECT_NE(tex.find("Iterative & \\textbf{0.800 $\\pm$ 0.010} & 0.300 $\\pm$ 0.010"), std::string::npos) << tex;
    EXPECT_NE(tex.find("Types & -- & 0.300"), std::string::npos) << tex;
    EXPECT_NE(tex.find("Global AsC-Eval & \\textbf{0.700} & 0.400"), std::string::npos) << tex;

    CausalReport c;
    c.global.n = 40;
    c.global.rhoOutcome = -0.5;
    c.global.rhoConfounders = {{"tokens", 0.1}, {"ast_nodes", std::nullopt}, {"ast_levels", 0.2}, {"cyclomatic", 0.3}};
    c.global.hasEffect = true;
    c.global.effect = -1.6;
    c.global.se = 0.2;
    c.global.lo = -2.0;
    c.global.hi = -1.2;
    c.groups["if_statement"] = c.global;
    const std::string t2 = causalLatex(c);
    EXPECT_NE(t2.find("Global AsC-Eval & 40 & $-$0.50 & 0.10 & -- & 0.20 & 0.30 & $-$1.60 (0.20) & [$-$2.00, $-$1.20]"),
              std::string::npos)
        << t2;
    EXPECT_NE(t2.find("if\\_statement & 40"), std::string::npos);
}
