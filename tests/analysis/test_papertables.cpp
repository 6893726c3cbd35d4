// The paper's Table II (concepts by category, models side by side) and Table I (model metadata, type
// groups, erroneous/confident marks) from hand-made reports.
#include "ascviz/analysis/papertables.h"
#include "ascviz/base/error.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {

CausalEstimate estimate(double rhoY, double effect, bool hasEffect = true)
{
    CausalEstimate e;
    e.n = 20;
    e.rhoOutcome = rhoY;
    e.rhoConfounders = {{"tokens", 0.4}, {"ast_nodes", 0.3}, {"ast_levels", 0.2}, {"cyclomatic", 0.1}};
    e.hasEffect = hasEffect;
    e.effect = effect;
    return e;
}

} // namespace

TEST(PaperTables, TableTwoConceptsByCategoryModelsSideBySide)
{
    CausalReport a, b;
    a.global = estimate(-0.38, -1.6);
    b.global = estimate(-0.38, -1.78);
    a.groups["identifier"] = estimate(-0.56, -1.78);
    b.groups["identifier"] = estimate(-0.8, -2.89);
    a.groups["if_statement"] = estimate(-0.22, 0, false); // too few snippets: no effect
    const auto groups = parseConceptSelection("identifier,if_statement,zzz", CategoryMap::forLanguage("python"));
    ASSERT_EQ(groups.size(), 3u); // Decision, Natural Language (in the table's order), then Other
    EXPECT_EQ(groups.back().category, "Other");
    EXPECT_EQ(groups.back().concepts, std::vector<std::string>{"zzz"});
    const std::string t = causalPaperLatex({{"gpt-125", &a}, {"mono-2B", &b}}, groups);
    // Confounders in the paper's order (cyclomatic, levels, nodes, size), the two models side by side in each.
    EXPECT_NE(t.find("\\multicolumn{2}{c}{Cyclo Complexity} & \\multicolumn{2}{c}{AST Levels}"), std::string::npos)
        << t;
    EXPECT_NE(t.find("\\multicolumn{2}{l}{Global Avg. AsC-Eval} & 0.10 & 0.10 & 0.20 & 0.20 & 0.30 & 0.30 & 0.40 & "
                     "0.40 & $-$0.38 & $-$1.60 & $-$0.38 & $-$1.78 \\\\"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("Natural Language & \\texttt{identifier} & 0.10 & 0.10 & 0.20 & 0.20 & 0.30 & 0.30 & 0.40 & "
                     "0.40 & $-$0.56 & $-$1.78 & $-$0.80 & $-$2.89 \\\\"),
              std::string::npos)
        << t;
    // if_statement: model a has ρ but no effect; model b lacks the concept.
    EXPECT_NE(t.find("Decision & \\texttt{if\\_statement} & 0.10 & -- & 0.20 & -- & 0.30 & -- & 0.40 & -- & $-$0.22 "
                     "& -- & -- & -- \\\\"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("Other & \\texttt{zzz} & -- &"), std::string::npos) << t;
    EXPECT_EQ(paperTable2Concepts().size(), 6u);
    EXPECT_EQ(parseConceptSelection("paper", CategoryMap::forLanguage("python")).front().concepts.front(),
              "for_statement");
    EXPECT_THROW(parseConceptSelection(",", CategoryMap::forLanguage("python")), InputError);
}

TEST(PaperTables, TableOneMetadataGroupsAndMarks)
{
    EXPECT_EQ(formatParameterCount(125'000'000), "125M");
    EXPECT_EQ(formatParameterCount(1'300'000'000), "1.3B");
    EXPECT_EQ(formatParameterCount(2'000'000'000), "2B");
    EXPECT_EQ(formatParameterCount(20'881'152), "20.9M");
    EXPECT_EQ(formatParameterCount(0), "--");
    CorpusStats a, b, c;
    a.run.architecture = "gpt_neo";
    a.run.parameters = 125'000'000;
    a.globalAscEval = 0.48;
    a.categories["Iterative"].median = 0.74;
    a.categories["Types"].median = 0.33;
    b.run.architecture = "codegen";
    b.run.parameters = 2'000'000'000;
    b.globalAscEval = 0.84;
    b.categories["Iterative"].median = 0.55;
    c.run.parameters = 350'000'000;
    c.globalAscEval = 0.6;
    const std::string t = tableOneLatex(
        {{"gpt-neo-125m", "Natural L.", &a}, {"codegen-2B-mono", "Mono-L.", &b}, {"x", "Natural L.", &c}});
    EXPECT_NE(t.find("Type & Name & Architecture & Size & Global & Iterative & Types \\\\"), std::string::npos) << t;
    // Erroneous (< 0.50) red, confident (>= 0.60) blue, neutral plain; the best Global underlined.
    EXPECT_NE(t.find("Natural L. & gpt-neo-125m & gpt\\_neo & 125M & \\textcolor{red}{0.48} & "
                     "\\textcolor{blue}{0.74} & \\textcolor{red}{0.33} \\\\"),
              std::string::npos)
        << t;
    // Rows grouped by type in first-appearance order: x follows gpt-neo-125m, the type on the first row only.
    EXPECT_NE(t.find("\\\\\n & x & -- & 350M & \\textcolor{blue}{0.60} & -- & -- \\\\\n\\midrule\nMono-L. & "
                     "codegen-2B-mono & codegen & 2B & \\textcolor{blue}{\\underline{0.84}} & 0.55 & -- \\\\"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("AsC-Eval $<$ 0.50; confident (\\textcolor{blue}{blue}): $\\geq$ 0.60; best Global underlined"),
              std::string::npos)
        << t;
    // No types: no Type column.
    const std::string u = tableOneLatex({{"m", "", &a}});
    EXPECT_EQ(u.find("Type &"), std::string::npos);
    EXPECT_EQ(u.find("underline"), std::string::npos); // one model: no best
    EXPECT_THROW(tableOneLatex({}), InputError);
}
