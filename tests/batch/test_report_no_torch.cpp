// `report` over a results database, linked without the model runtime: this executable links only the
// torch-free CLI part (ascviz_cli_results → the results room); ctest report_links_no_torch checks that no
// LibTorch library is loaded by it.
#include "ascviz/eval/eval.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/syntax/language.h"
#include "commands.h"
#include "eval_test_util.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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
    fs::remove_all(dir);
}
