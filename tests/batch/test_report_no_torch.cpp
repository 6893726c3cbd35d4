// `report` over a results database, linked without the model runtime: this executable links only the
// torch-free CLI part (ascviz_cli_results → the results room); ctest report_links_no_torch checks that no
// LibTorch library is loaded by it.
#include "ascviz/eval/eval.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/straddles.h"
#include "ascviz/syntax/language.h"
#include "commands.h"
#include "eval_test_util.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace ascviz;
namespace fs = std::filesystem;

TEST(ReportWithoutTorch, ReportsAHandMadeResultsDatabase)
{
    const fs::path dir = ascviz::testdata::freshTempDir("report"); // removed at exit
    const std::string language = LanguageRegistry::instance().defaultLanguage().id;
    const CategoryMap cats = CategoryMap::forLanguage(language);
    RunInfo run;
    run.modelName = "hand-made";
    run.modelDir = "/nowhere";
    run.corpusPath = "/c.jsonl";
    run.corpusFingerprint = "00";
    run.corpusEntries = 2;
    run.planned = 2;
    run.language = language;
    {
        auto db = ResultsDb::create(dir / "r.db", run);
        const std::vector<std::vector<std::pair<std::string, std::optional<double>>>> snippets = {
            {{"for", 0.9}, {" x", 0.5}, {" in", 0.8}, {" y", 0.4}, {":", 0.7}, {" pass", 0.6}},
            {{"while", 0.2}, {" x", 0.3}, {":", 0.9}, {" pass", 0.1}}};
        for (std::size_t i = 0; i < snippets.size(); ++i) {
            const EvalResult r = evaluate(evaltest::scoredFromPieces(snippets[i]), language, Aggregation::Median, cats);
            SnippetMeta m;
            m.index = static_cast<int64_t>(i);
            m.id = "s" + std::to_string(i);
            m.code = r.scored.text;
            m.ok = true;
            db.writeSnippet(m, &r);
        }
        run.status = RunStatus::Complete;
        db.updateRun(run);
    }
    cli::Args args({"--db", (dir / "r.db").string(), "--json", "--out", (dir / "r.json").string(), "--seed", "7"});
    ASSERT_EQ(cli::cmdReport(args), 0);
    std::ifstream in(dir / "r.json");
    const auto j = nlohmann::json::parse(in);
    ASSERT_TRUE(j.contains("categories")) << j.dump();
    // Both snippets are iterative: the Iterative category's median is over the two loop statements' values.
    ASSERT_TRUE(j["categories"].contains("Iterative")) << j["categories"].dump();
    const double it = j["categories"]["Iterative"]["median"].get<double>();
    EXPECT_GT(it, 0.2);
    EXPECT_LT(it, 0.8);
    // method.md 14.4 per category, by hand: every token here is one whole leaf (or whitespace plus one) except
    // none; the Iterative tokens are all 10, none straddles, their median NtP is the median of the 10 values.
    ASSERT_TRUE(j.contains("straddles")) << j.dump();
    const auto& iter = j["straddles"]["Iterative"];
    EXPECT_EQ(iter["tokens"], 10);
    EXPECT_EQ(iter["straddling"], 0);
    EXPECT_EQ(iter["share"], 0.0);
    EXPECT_TRUE(iter["asc_straddling"].is_null());
    EXPECT_DOUBLE_EQ(iter["asc_rest"].get<double>(), 0.55); // sorted: .1 .2 .3 .4 .5 .6 .7 .8 .9 .9
    fs::remove_all(dir);
}

// method.md 14.4 by hand: " x:" covers parts of two leaves, "\n    pa" + "ss" split the leaf `pass`.
TEST(ReportWithoutTorch, StraddlingTokensPerCategory)
{
    const fs::path dir = ascviz::testdata::freshTempDir("straddles"); // removed at exit
    const CategoryMap cats = CategoryMap::forLanguage("python");
    RunInfo run;
    run.modelName = "hand-made";
    run.modelDir = "/nowhere";
    run.corpusPath = "/c.jsonl";
    run.corpusFingerprint = "00";
    run.corpusEntries = 1;
    run.planned = 1;
    run.language = "python";
    {
        auto db = ResultsDb::create(dir / "s.db", run);
        const EvalResult r = evaluate(
            evaltest::scoredFromPieces({{"while", 0.2}, {" x:", 0.3}, {"\n    pa", 0.9}, {"ss", 0.1}, {"\n", 0.5}}),
            "python", Aggregation::Median, cats);
        SnippetMeta m;
        m.id = "s0";
        m.code = r.scored.text;
        m.ok = true;
        db.writeSnippet(m, &r);
    }
    const auto db = ResultsDb::open(dir / "s.db");
    std::map<std::string, StraddleRow> rows;
    for (const auto& row : straddlesByCategory(db))
        rows[row.category] = row;
    // while_statement (Iterative) spans "while x:\n    pass": its tokens are the first four (the last "\n" is
    // outside it); three of them straddle.
    ASSERT_TRUE(rows.count("Iterative"));
    EXPECT_EQ(rows["Iterative"].tokens, 4);
    EXPECT_EQ(rows["Iterative"].straddling, 3);
    EXPECT_DOUBLE_EQ(*rows["Iterative"].ascStraddling, 0.3); // median of .3 .9 .1
    EXPECT_DOUBLE_EQ(*rows["Iterative"].ascRest, 0.2);
    // ":" (Scope) and the identifier x (Natural Language) lie inside " x:" only.
    EXPECT_EQ(rows["Scope"].tokens, 1);
    EXPECT_EQ(rows["Scope"].straddling, 1);
    EXPECT_EQ(rows["Natural Language"].straddling, 1);
    EXPECT_FALSE(rows["Natural Language"].ascRest);
    const auto j = straddlesJson(straddlesByCategory(db));
    EXPECT_DOUBLE_EQ(j["Iterative"]["share"].get<double>(), 0.75);
    fs::remove_all(dir);
}
