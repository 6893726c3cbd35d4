// ascviz-cli on the papers' layouts (issue 30; method.md §4, §9, §10): PERPLEXED's Table 1 from the run's
// corpus, Table II with several databases, Table I with model metadata, θ over children, and a
// between-subjects study whose samples are the model's completions.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

using nlohmann::json;

namespace {
using clitest::slurp;
std::string q(const std::filesystem::path& p)
{
    return clitest::quoted(p);
}

// The bundled Python sample (12 functions) with the default model, once per test program.
const std::filesystem::path& resultsDb()
{
    static const std::filesystem::path db = [] {
        const auto p = clitest::tempDir() / "papers.db";
        const auto r = clitest::run("batch --model default --quiet --corpus default --limit 12 --db " + q(p));
        EXPECT_EQ(r.status, 0) << r.err;
        return p;
    }();
    return db;
}
} // namespace

TEST(CliPapers, PerplexedCallTableFromTheRunsCorpus)
{
    const auto r = clitest::run("analyze perplexed --db " + q(resultsDb()) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_TRUE(j["call_table"].is_object()) << r.err;
    const json& t = j["call_table"];
    // The same calls as the snippet rule, split by the repository rule instead.
    EXPECT_EQ(t["summary"]["internal"]["calls"].get<int>() + t["summary"]["external"]["calls"].get<int>(),
              j["calls"]["internal"]["calls"].get<int>() + j["calls"]["external"]["calls"].get<int>());
    EXPECT_EQ(t["builtin_calls_left_out"], j["calls"]["builtin_calls_left_out"]);
    EXPECT_EQ(t["repositories"], 1); // cpython-3.11
    EXPECT_EQ(t["unplaced_snippets"], 0);
    int tokens = 0;
    for (const auto& row : t["rows"])
        if (!row["internal"].get<bool>())
            tokens += row["count"].get<int>();
    EXPECT_EQ(t["summary"]["external"]["tokens"], tokens);
    EXPECT_TRUE(j["spearman_frequency_ce"]["tokens"].is_number());
    EXPECT_LE(j["tokens"]["worst_unfiltered"].size(), 10u);
    EXPECT_TRUE(
        json::parse(
            clitest::run("analyze perplexed --db " + q(resultsDb()) + " --json --no-call-table").out)["call_table"]
            .is_null());
    const auto missing = clitest::run("analyze perplexed --db " + q(resultsDb()) + " --corpus /nonexistent.jsonl");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("/nonexistent.jsonl"), std::string::npos) << missing.err;
}

TEST(CliPapers, TablesOneAndTwoInThePapersLayout)
{
    const auto t2 = clitest::tempDir() / "t2.tex";
    const std::string two = q(resultsDb()) + "," + q(resultsDb());
    auto r = clitest::run("analyze causal --db " + two + " --names gpt-125,mono-2B --latex " + q(t2));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string tex = slurp(t2);
    EXPECT_NE(tex.find("\\multicolumn{2}{c}{Cyclo Complexity}"), std::string::npos) << tex;
    EXPECT_NE(tex.find("& gpt-125 & mono-2B & gpt-125 & mono-2B"), std::string::npos) << tex;
    EXPECT_NE(tex.find("Natural Language & \\texttt{identifier}"), std::string::npos) << tex;
    EXPECT_NE(r.out.find("== gpt-125"), std::string::npos);
    EXPECT_EQ(clitest::run("analyze causal --db " + two).status, 2); // several databases need --latex
    EXPECT_EQ(
        clitest::run("analyze causal --db " + q(resultsDb()) + " --concepts identifier --by category --latex " + q(t2))
            .status,
        2);
    const auto t1 = clitest::tempDir() / "t1.tex";
    r = clitest::run("analyze heatmap --db " + two + " --names a,b --types mono,multi --table1 " + q(t1));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string one = slurp(t1);
    EXPECT_NE(one.find("mono & a & gpt2 & 20.9M"), std::string::npos) << one;
    EXPECT_NE(one.find("confident (\\textcolor{blue}{blue}): $\\geq$ 0.60"), std::string::npos) << one;
    EXPECT_EQ(clitest::run("analyze heatmap --db " + two + " --types mono --table1 " + q(t1)).status, 2);
}

TEST(CliPapers, ThetaOverChildren)
{
    const auto f = clitest::writeTemp("theta.py", "def f(string, character):\n    return string.count(character)\n");
    const json tokens = json::parse(clitest::run("eval --model default --text-file " + q(f)).out);
    const auto r = clitest::run("eval --model default --text-file " + q(f) + " --aggregation-scope children");
    ASSERT_EQ(r.status, 0) << r.err;
    const json children = json::parse(r.out);
    EXPECT_EQ(children["aggregation_scope"], "children");
    EXPECT_FALSE(tokens.contains("aggregation_scope"));
    // Terminals agree; the module (a non-terminal) is the median of its one child's value.
    EXPECT_EQ(children["nodes"][0]["asc_eval"], children["nodes"][1]["asc_eval"]);
    EXPECT_EQ(clitest::run("eval --model default --text-file " + q(f) + " --aggregation-scope nodes").status, 2);
}

TEST(CliPapers, BetweenSubjectsStudyOfCompletions)
{
    const auto out = clitest::tempDir() / "between.study.json";
    std::filesystem::remove(out);
    const auto r = clitest::run("study init --corpus default --samples 3 --participants 4 --conditions C,S1 "
                                "--design between --complete --max-new-tokens 8 --seed 2 --out " +
                                q(out));
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(slurp(out));
    EXPECT_EQ(s["design"], "between");
    EXPECT_EQ(s["background"].size(), 4u);
    std::map<std::string, int> groups;
    for (const auto& p : s["participants"]) {
        for (const auto& t : p["trials"])
            EXPECT_EQ(t["condition"], p["trials"][0]["condition"]);
        ++groups[p["trials"][0]["condition"].get<std::string>()];
    }
    EXPECT_EQ(groups, (std::map<std::string, int>{{"C", 2}, {"S1", 2}}));
    for (const auto& sm : s["samples"]) {
        int generated = 0;
        for (const auto& t : sm["eval"]["tokens"])
            generated += t["generated"].get<bool>() ? 1 : 0;
        EXPECT_GE(generated, 1) << sm["id"];
        EXPECT_LE(generated, 8) << sm["id"];
        EXPECT_LT(sm["eval"]["prompt_bytes"].get<std::size_t>(), sm["code"].get<std::string>().size());
    }
    EXPECT_EQ(clitest::run("study init --corpus default --samples 2 --participants 2 --design mixed --out " +
                           q(clitest::tempDir() / "x.json"))
                  .status,
              2);
}
