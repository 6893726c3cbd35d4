// ascviz-cli batch / report end to end: results DB, --resume, refusal to overwrite, interruption.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <thread>

using nlohmann::json;

namespace {

// Single-quoted for the shell (built with append: GCC 12 warns falsely on "'" + std::string).
std::string q(const std::filesystem::path& p)
{
    std::string s(1, '\'');
    s.append(p.string());
    s.push_back('\'');
    return s;
}
std::string tinyModel()
{
    return q(clitest::dataDir() + "/fixtures/models/tiny-gpt2");
}

json reportJson(const std::filesystem::path& db)
{
    auto r = clitest::run("report --db " + q(db) + " --json");
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
}

std::vector<std::string> csvLines(const std::filesystem::path& f)
{
    std::vector<std::string> out;
    std::istringstream in(clitest::readAll(f));
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

// Starts ascviz-cli with `argv` as a child (stderr to errFile); returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& errFile)
{
    const pid_t pid = fork();
    if (pid == 0) {
        freopen(errFile.c_str(), "w", stderr);
        freopen("/dev/null", "w", stdout);
        std::vector<char*> a;
        a.push_back(const_cast<char*>(ASCVIZ_CLI_PATH));
        for (const auto& s : argv)
            a.push_back(const_cast<char*>(s.c_str()));
        a.push_back(nullptr);
        execv(ASCVIZ_CLI_PATH, a.data());
        _exit(127);
    }
    return pid;
}

// Waits until the child's progress on stderr (one line per 10% when stderr is not a terminal) shows at
// least `n` snippets stored; false when the child ended first.
bool waitForProgress(const std::filesystem::path& errFile, int n, int total, pid_t child)
{
    for (int i = 0; i < 2400; ++i) {
        const std::string text = clitest::readAll(errFile);
        for (int k = n; k < total; ++k)
            if (text.find("batch: " + std::to_string(k) + "/" + std::to_string(total) + " ") != std::string::npos)
                return true;
        int st = 0;
        if (waitpid(child, &st, WNOHANG) == child)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
}

} // namespace

TEST(CliCorpus, BatchThenReportJsonCsvAndText)
{
    const auto db = clitest::tempDir() / "e2e.db";
    auto r = clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(db) + " --limit 5");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("stored 5 snippets"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("snippets/s"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());

    const json j = reportJson(db);
    EXPECT_EQ(j["model"], "tiny-gpt2");
    EXPECT_EQ(j["snippets"], 5);
    ASSERT_TRUE(j["global_asc_eval"].is_number());
    EXPECT_GT(j["global_asc_eval"].get<double>(), 0.0);
    EXPECT_LT(j["global_asc_eval"].get<double>(), 1.0);
    ASSERT_TRUE(j["concepts"].is_object());
    ASSERT_TRUE(j["concepts"].contains("identifier"));
    double sum = 0;
    int categorized = 0;
    for (const auto& [type, c] : j["concepts"].items()) {
        ASSERT_TRUE(c["median"].is_number()) << type;
        ASSERT_TRUE(c["se"].is_number()) << type;
        ASSERT_EQ(c["ci95"].size(), 2u) << type;
        EXPECT_LE(c["ci95"][0].get<double>(), c["median"].get<double>()) << type;
        EXPECT_GE(c["ci95"][1].get<double>(), c["median"].get<double>()) << type;
        EXPECT_GE(c["n"].get<int>(), 1) << type;
        if (!c["category"].is_null()) { // Table I: the global is over the categorized concepts only
            sum += c["median"].get<double>();
            ++categorized;
        }
    }
    ASSERT_GT(categorized, 0);
    EXPECT_NEAR(j["global_asc_eval"].get<double>(), sum / categorized, 1e-9);
    EXPECT_TRUE(j["global_asc_eval_all_concepts"].is_number());
    EXPECT_EQ(j["dtype"], "float32");
    // Each Table I category is the mean of its concepts' medians.
    for (const auto& [cat, cj] : j["categories"].items()) {
        double csum = 0;
        int k = 0;
        for (const auto& [type, c] : j["concepts"].items())
            if (c["category"] == cat) {
                csum += c["median"].get<double>();
                ++k;
            }
        ASSERT_EQ(cj["concepts"].get<int>(), k) << cat;
        EXPECT_NEAR(cj["median"].get<double>(), csum / k, 1e-9) << cat;
    }
    ASSERT_TRUE(j["categories"].contains("Natural Language"));
    EXPECT_TRUE(j["categories"]["Natural Language"]["ci95"].is_array());
    // Same seed, same numbers.
    EXPECT_EQ(reportJson(db).dump(), j.dump());

    const auto dir = clitest::tempDir() / "csv";
    auto c = clitest::run("report --db " + q(db) + " --csv " + q(dir));
    ASSERT_EQ(c.status, 0) << c.err;
    const auto concepts = csvLines(dir / "concepts.csv");
    const auto categories = csvLines(dir / "categories.csv");
    const auto snippets = csvLines(dir / "snippets.csv");
    EXPECT_EQ(concepts.size(), j["concepts"].size() + 1);
    EXPECT_EQ(categories.size(), j["categories"].size() + 1);
    EXPECT_EQ(snippets.size(), 6u);
    EXPECT_EQ(concepts[0].rfind("concept,category,median,se,ci95_lo,ci95_hi,n,flag", 0), 0u);

    auto t = clitest::run("report --db " + q(db));
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("Global AsC-Eval"), std::string::npos);
    EXPECT_NE(t.out.find("identifier"), std::string::npos);
}

// batch --aggregation-scope children: the run records the scope, report names it (text and JSON), the values
// differ from a tokens run of the same snippets; a bad scope is a usage error.
TEST(CliCorpus, BatchAggregationScopeChildrenIsStoredAndReported)
{
    const auto tokens = clitest::tempDir() / "scope-tokens.db", children = clitest::tempDir() / "scope-children.db";
    ASSERT_EQ(
        clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(tokens) + " --limit 3").status, 0);
    auto r = clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(children) +
                          " --limit 3 --aggregation-scope children");
    ASSERT_EQ(r.status, 0) << r.err;
    const json a = reportJson(tokens), b = reportJson(children);
    EXPECT_EQ(a["aggregation_scope"], "tokens");
    EXPECT_EQ(b["aggregation_scope"], "children");
    EXPECT_NE(a["global_asc_eval"].get<double>(), b["global_asc_eval"].get<double>());
    auto t = clitest::run("report --db " + q(children));
    EXPECT_NE(t.out.find("aggregation median over children"), std::string::npos) << t.out;
    auto bad = clitest::run("batch --model " + tinyModel() + " --corpus default --db " +
                            q(clitest::tempDir() / "scope-bad.db") + " --aggregation-scope nodes");
    EXPECT_EQ(bad.status, 2) << bad.err;
    EXPECT_NE(bad.err.find("--aggregation-scope must be tokens or children"), std::string::npos) << bad.err;
}

TEST(CliCorpus, ExistingDbNeedsResumeWhichContinues)
{
    const auto db = clitest::tempDir() / "resume.db";
    ASSERT_EQ(clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(db) + " --limit 3").status,
              0);
    auto again = clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(db) + " --limit 3");
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
    EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;

    auto res = clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(db) + " --limit 8 --resume");
    ASSERT_EQ(res.status, 0) << res.err;
    EXPECT_NE(res.err.find("stored 5 snippets (3 already in the DB)"), std::string::npos) << res.err;
    EXPECT_EQ(reportJson(db)["snippets"], 8);

    // Another corpus cannot resume this DB.
    const auto other = clitest::writeTemp("other.jsonl", "{\"code\": \"x = 1\\n\"}\n");
    auto mismatch =
        clitest::run("batch --model " + tinyModel() + " --corpus " + q(other) + " --db " + q(db) + " --resume");
    EXPECT_EQ(mismatch.status, 1);
    EXPECT_NE(mismatch.err.find("cannot resume"), std::string::npos) << mismatch.err;
    EXPECT_EQ(reportJson(db)["snippets"], 8);
}

TEST(CliCorpus, MalformedLineReportedEmptyCorpusFails)
{
    const auto corpus = clitest::writeTemp("mixed.jsonl", "{\"id\": \"a\", \"code\": \"def f(x):\\n    return x\\n\"}\n"
                                                          "{\"id\": \"b\", \"code\": \n"
                                                          "{\"id\": \"c\", \"code\": \"y = [1, 2]\\n\"}\n");
    const auto db = clitest::tempDir() / "mixed.db";
    auto r = clitest::run("batch --model " + tinyModel() + " --corpus " + q(corpus) + " --db " + q(db));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("mixed.jsonl:2"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 skipped"), std::string::npos) << r.err;
    EXPECT_EQ(reportJson(db)["snippets"], 2);

    const auto empty = clitest::writeTemp("empty.jsonl", "\n\n");
    auto e = clitest::run("batch --model " + tinyModel() + " --corpus " + q(empty) + " --db " +
                          q(clitest::tempDir() / "empty.db"));
    EXPECT_EQ(e.status, 1);
    EXPECT_NE(e.err.find("empty corpus"), std::string::npos) << e.err;
    EXPECT_FALSE(std::filesystem::exists(clitest::tempDir() / "empty.db"));
}

TEST(CliCorpus, UsageErrors)
{
    EXPECT_EQ(clitest::run("batch --corpus default").status, 2);
    EXPECT_EQ(clitest::run("batch --corpus default --db x.db --limit -1").status, 2);
    EXPECT_EQ(clitest::run("batch --corpus default --db x.db --bogus").status, 2);
    EXPECT_EQ(clitest::run("report --db x.db --json --csv d").status, 2);
    auto missing = clitest::run("report --db " + q(clitest::tempDir() / "nope.db"));
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;
}

// Ctrl-C (and SIGTERM, through the CLI's one InterruptScope) stops after the current snippet with a resumable DB;
// SIGKILL also leaves a consistent DB.
TEST(CliCorpus, InterruptedRunsResumeToTheSameCount)
{
    for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
        SCOPED_TRACE(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGKILL");
        const auto db = clitest::tempDir() / (std::string("killed-") + std::to_string(sig) + ".db");
        const auto err = clitest::tempDir() / (std::string("killed-") + std::to_string(sig) + ".err");
        const std::vector<std::string> argv = {
            "batch",     "--model", clitest::dataDir() + "/fixtures/models/tiny-gpt2",
            "--corpus",  "default", "--db",
            db.string(), "--limit", "60"};
        const pid_t pid = spawn(argv, err);
        ASSERT_GT(pid, 0);
        ASSERT_TRUE(waitForProgress(err, 6, 60, pid)) << clitest::readAll(err);
        kill(pid, sig);
        int st = 0;
        waitpid(pid, &st, 0);
        if (sig != SIGKILL) {
            ASSERT_TRUE(WIFEXITED(st));
            EXPECT_EQ(WEXITSTATUS(st), 1);
            const auto text = clitest::readAll(err);
            EXPECT_NE(text.find("interrupted after"), std::string::npos) << text;
            EXPECT_NE(text.find("--resume"), std::string::npos) << text;
        } else {
            EXPECT_TRUE(WIFSIGNALED(st));
        }
        const int partial = reportJson(db)["snippets"].get<int>();
        EXPECT_GE(partial, 6);
        EXPECT_LT(partial, 60);
        auto r =
            clitest::run("batch --model " + tinyModel() + " --corpus default --db " + q(db) + " --limit 60 --resume");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.err.find("already in the DB"), std::string::npos) << r.err;
        const json j = reportJson(db);
        EXPECT_EQ(j["snippets"], 60);
        EXPECT_EQ(j["run_status"], "complete");
        // tokens table = sum of per-snippet token counts (no duplicate or lost rows)
        const auto dir = clitest::tempDir() / (std::string("killed-csv-") + std::to_string(sig));
        ASSERT_EQ(clitest::run("report --db " + q(db) + " --csv " + q(dir)).status, 0);
        const auto rows = csvLines(dir / "snippets.csv");
        ASSERT_EQ(rows.size(), 61u);
        long tokens = 0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            std::vector<std::string> f;
            std::istringstream in(rows[i]);
            for (std::string x; std::getline(in, x, ',');)
                f.push_back(x);
            ASSERT_GE(f.size(), 7u);
            tokens += std::stol(f[6]);
        }
        EXPECT_EQ(j["tokens"].get<long>(), tokens);
    }
}
