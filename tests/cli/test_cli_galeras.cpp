// ascviz-cli galeras run / testbed and analyze treatments end to end with the bundled model: a run killed
// with SIGKILL after its first rows resumes with nothing lost or duplicated; bad inputs are refused clearly.
#include "cli_runner.h"

#include "ascviz/galeras/runsdb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <map>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using clitest::run;

namespace {

std::string records()
{
    const char* fns[] = {
        "def add(a, b):\n    \"\"\"Add the two numbers.\"\"\"\n    c = a + b\n    d = c * 2\n    return d\n",
        "def count(xs):\n    \"\"\"Count the true items.\"\"\"\n    n = 0\n    for x in xs:\n        if x:\n"
        "            n += 1\n    return n\n",
        "def name(p):\n    \"\"\"Return the file name.\"\"\"\n    parts = p.split('/')\n    last = parts[-1]\n"
        "    return last\n",
        "def g():\n    pass\n", // too short: skipped and counted
    };
    std::string s;
    int i = 0;
    for (const char* f : fns)
        s += nlohmann::json{{"id", "f" + std::to_string(i++)}, {"code", f}}.dump() + "\n";
    return s;
}

std::string runArgs(const fs::path& recs, const fs::path& db)
{
    return "galeras run --records '" + recs.string() + "' --testbed withdocstring --db '" + db.string() +
           "' --max-new-tokens 12 --stop-at-function-end --quiet";
}

std::size_t rowCount(const fs::path& db)
{
    try {
        return ascviz::GalerasDb::open(db).doneKeys().size();
    } catch (const std::exception&) {
        return 0; // not created yet
    }
}

} // namespace

TEST(CliGaleras, KilledRunResumesWithNothingLostOrTwice)
{
    const auto recs = clitest::writeTemp("records.jsonl", records());
    const fs::path db = clitest::tempDir() / "runs.db";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const std::string cmd = std::string("exec '") + ASCVIZ_CLI_PATH + "' " + runArgs(recs, db) + " 2>/dev/null";
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    const auto start = std::chrono::steady_clock::now();
    while (rowCount(db) < 2 && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill";
    const auto before = ascviz::GalerasDb::open(db).rows();
    ASSERT_GE(before.size(), 2u);
    ASSERT_LT(before.size(), 9u);

    const auto again = run(runArgs(recs, db));
    EXPECT_EQ(again.status, 1) << again.err; // exists without --resume
    EXPECT_NE(again.err.find("--resume"), std::string::npos);
    const auto resumed = run(runArgs(recs, db) + " --resume");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("1 record(s) skipped: too short"), std::string::npos) << resumed.err;
    const ascviz::GalerasDb g = ascviz::GalerasDb::open(db);
    const auto rows = g.rows();
    ASSERT_EQ(rows.size(), 9u); // 3 items x control, T1, T2
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& r : rows)
        keys.emplace(r.recordId, r.treatment);
    EXPECT_EQ(keys.size(), 9u);
    for (std::size_t i = 0; i < before.size(); ++i) { // the rows of the killed run are kept as they were
        EXPECT_EQ(rows[i].recordId, before[i].recordId);
        EXPECT_EQ(rows[i].completion, before[i].completion);
    }
    for (const auto& r : rows) {
        EXPECT_TRUE(r.error.empty()) << r.error;
        EXPECT_TRUE(r.values.at("levenshtein").has_value());
        EXPECT_TRUE(r.values.at("prompt_size").has_value());
        EXPECT_NE(r.prompt.find(r.partial), std::string::npos);
    }
    EXPECT_EQ(g.meta().at("testbed"), "withdocstring");

    // The same run in two shards, merged: the same rows (greedy decoding is deterministic)
    std::map<std::pair<std::string, std::string>, std::string> whole;
    for (const auto& r : rows)
        whole[{r.recordId, r.treatment}] = r.completion;
    const fs::path s0 = clitest::tempDir() / "s0.db", s1 = clitest::tempDir() / "s1.db",
                   merged = clitest::tempDir() / "merged.db";
    ASSERT_EQ(run(runArgs(recs, s0) + " --shard 0/2").status, 0);
    ASSERT_EQ(run(runArgs(recs, s1) + " --shard 1/2").status, 0);
    const auto m = run("galeras merge --out '" + merged.string() + "' '" + s0.string() + "' '" + s1.string() + "'");
    ASSERT_EQ(m.status, 0) << m.err;
    const auto mergedRows = ascviz::GalerasDb::open(merged).rows();
    ASSERT_EQ(mergedRows.size(), 9u);
    for (const auto& r : mergedRows)
        EXPECT_EQ(r.completion, (whole[{r.recordId, r.treatment}])) << r.recordId << " " << r.treatment;
    EXPECT_EQ(run("galeras merge --out '" + (clitest::tempDir() / "m2.db").string() + "' '" + s0.string() + "'").status,
              1); // shard 1 missing
    // The one merge of every kind (issue 40): `merge` reads the kind from the files, the same rows.
    const fs::path merged3 = clitest::tempDir() / "merged-any.db";
    fs::remove(merged3);
    const auto any = run("merge --out '" + merged3.string() + "' '" + s0.string() + "' '" + s1.string() + "'");
    ASSERT_EQ(any.status, 0) << any.err;
    EXPECT_NE(any.err.find("9 Galeras rows from 2 shards"), std::string::npos) << any.err;
    EXPECT_EQ(ascviz::GalerasDb::open(merged3).rows().size(), mergedRows.size());

    // A database left by a run killed before it stored the skipped records (every row there, no skipped
    // record: what an older build left after a kill during the testbed): --resume stores them, so it ends
    // with the skipped set of the uninterrupted run.
    const fs::path noSkipped = clitest::tempDir() / "noskipped.db";
    {
        auto meta = g.meta();
        meta.erase("schema_version");
        const auto made = ascviz::GalerasDb::create(noSkipped, meta);
        for (const auto& r : rows)
            made.insert(r);
        ASSERT_TRUE(made.skipped().empty());
    }
    const auto filled = run(runArgs(recs, noSkipped) + " --resume");
    ASSERT_EQ(filled.status, 0) << filled.err;
    EXPECT_EQ(ascviz::GalerasDb::open(noSkipped).skipped(), g.skipped());
    EXPECT_EQ(g.skipped().size(), 1u);

    const auto an = run("analyze treatments --db '" + db.string() +
                        "' --json --simulations 5 --confounders "
                        "prompt_size,token_count");
    ASSERT_EQ(an.status, 0) << an.err;
    const auto j = nlohmann::json::parse(an.out);
    EXPECT_EQ(j["control"], "control");
    EXPECT_EQ(j["confounders"], (nlohmann::json{"prompt_size", "token_count"}));
    ASSERT_EQ(j["treatments"].size(), 2u);
    EXPECT_EQ(j["treatments"][0]["n"], 6);
    const auto badZ = run("analyze treatments --db '" + db.string() + "' --confounders size");
    EXPECT_EQ(badZ.status, 1);
    EXPECT_NE(badZ.err.find("unknown confounder 'size'"), std::string::npos) << badZ.err;
}

TEST(CliGaleras, BadInputsAreRefusedClearly)
{
    const auto recs = clitest::writeTemp("records2.jsonl", records());
    const auto noCode = clitest::writeTemp(
        "t.json",
        R"({"control": {"name": "c", "template": "# hi"}, "treatments": [{"name": "t", "template": "{code}"}]})");
    const auto r = run("galeras run --records '" + recs.string() + "' --treatments '" + noCode.string() + "' --db '" +
                       (clitest::tempDir() / "x.db").string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no {code} placeholder"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("t.json"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(clitest::tempDir() / "x.db"));
    const auto tb = run("galeras testbed --records '" + recs.string() + "' --testbed fromdocstring");
    ASSERT_EQ(tb.status, 0) << tb.err;
    EXPECT_NE(tb.out.find("\"ground_truth\":\"    c = a + b\\n    d = c * 2\\n    return d\\n\""), std::string::npos)
        << tb.out;
    const auto badTestbed = run("galeras run --testbed nope --db x.db");
    EXPECT_EQ(badTestbed.status, 2);
    EXPECT_NE(badTestbed.err.find("--testbed: the testbed must be"), std::string::npos) << badTestbed.err;
    // Negative or fractional integers are refused (exit 2, nothing written), not clamped to "everything"
    const fs::path neg = clitest::tempDir() / "neg.db";
    for (const char* bad : {"--limit -5", "--max-new-tokens -1", "--seed -3", "--temperature 0.5 --top-k -2",
                            "--temperature 0.5 --top-k 2.5", "--sample-seed -1", "--sample-seed 1.5",
                            "--max-text-bytes -1", "--max-ast-nodes -1", "--max-ast-depth -1"}) {
        const auto r = run("galeras run --records '" + recs.string() + "' --db '" + neg.string() + "' " + bad);
        EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
        EXPECT_FALSE(fs::exists(neg)) << bad;
    }
    const auto lim = run("galeras run --records '" + recs.string() + "' --db '" + neg.string() + "' --limit -5");
    EXPECT_NE(lim.err.find("--limit must be >= 0"), std::string::npos) << lim.err;
    for (const char* bad : {"--seed -3", "--max-text-bytes -1", "--max-ast-nodes -1"})
        EXPECT_EQ(run("galeras testbed --records '" + recs.string() + "' " + bad).status, 2) << bad;
}
