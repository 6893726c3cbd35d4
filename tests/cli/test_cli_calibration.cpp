// ascviz-cli analyze calibration (docs/method.md §17, issue 59) on a batch run of the bundled model: the JSON
// contract, its numbers recomputed here from the stored tokens (n, errors, ECE, Brier), categories, the other
// confidences, usage errors, and a database of an older schema (the fields missing); eval --json's new fields.
#include "cli_runner.h"
#include "dbcontent.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

using nlohmann::json;

namespace {
std::string q(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

const std::filesystem::path& resultsDb()
{
    static const std::filesystem::path db = [] {
        const auto p = clitest::tempDir() / "calibration.db";
        std::filesystem::remove(p);
        const auto r = clitest::run("batch --model default --quiet --corpus default --limit 12 --db " + q(p));
        EXPECT_EQ(r.status, 0) << r.err;
        return p;
    }();
    return db;
}

struct StoredToken {
    double p1 = 0;
    int64_t rank = 0;
};

// The stored tokens that have a prediction (status-ok snippets), read with SQL of its own.
std::vector<StoredToken> storedTokens(const std::filesystem::path& p)
{
    std::vector<StoredToken> out;
    ascviz::testdata::query(
        p,
        "SELECT t.p1, t.rank FROM tokens t JOIN snippets s ON s.idx = t.snippet WHERE s.status = 'ok' AND t.ntp IS "
        "NOT NULL",
        [&](const auto& cols) {
            out.push_back({std::stod(*cols[0]), std::stoll(*cols[1])});
        },
        ascviz::sqlite::OpenMode::ReadOnly);
    return out;
}
} // namespace

TEST(CliCalibration, JsonFollowsTheContractAndTheStoredTokens)
{
    const auto r = clitest::run("analyze calibration --db " + q(resultsDb()) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["confidence"], "p1");
    EXPECT_EQ(j["label"], "teacher-forced");
    EXPECT_EQ(j["bins"], 15);
    ASSERT_EQ(j["groups"].size(), 1U);
    const json& g = j["groups"][0];
    for (const char* k :
         {"group", "n", "errors", "ece", "ece_ci", "ece_mass", "mce", "brier", "auroc", "auroc_ci", "auprc"})
        EXPECT_TRUE(g.contains(k)) << k;
    EXPECT_EQ(g["group"], "global");
    for (const char* k : {"t", "ece_before", "ece_after"})
        EXPECT_TRUE(j["temperature"].contains(k)) << k;
    EXPECT_TRUE(j["temperature"]["t"].is_null()); // no database stores the temperature grid yet

    // n, errors, ECE (15 equal-width bins) and Brier, from the stored p1 and rank.
    const auto toks = storedTokens(resultsDb());
    ASSERT_GT(toks.size(), 50U);
    int64_t errors = 0;
    double brier = 0;
    std::vector<double> n(15), conf(15), right(15);
    for (const auto& t : toks) {
        const bool ok = t.rank == 1;
        errors += ok ? 0 : 1;
        brier += (t.p1 - (ok ? 1 : 0)) * (t.p1 - (ok ? 1 : 0));
        const auto b = static_cast<std::size_t>(std::min(14.0, std::floor(t.p1 * 15)));
        n[b] += 1;
        conf[b] += t.p1;
        right[b] += ok ? 1 : 0;
    }
    double ece = 0;
    for (std::size_t b = 0; b < 15; ++b)
        if (n[b] > 0)
            ece += n[b] / static_cast<double>(toks.size()) * std::abs(right[b] / n[b] - conf[b] / n[b]);
    EXPECT_EQ(g["n"].get<std::size_t>(), toks.size());
    EXPECT_EQ(g["errors"].get<int64_t>(), errors);
    ASSERT_GT(errors, 0);
    EXPECT_NEAR(g["ece"].get<double>(), ece, 1e-12);
    EXPECT_NEAR(g["brier"].get<double>(), brier / static_cast<double>(toks.size()), 1e-12);
    EXPECT_LE(g["ece_ci"][0].get<double>(), g["ece_ci"][1].get<double>());
    EXPECT_GE(g["mce"].get<double>(), g["ece"].get<double>());
    const double auroc = g["auroc"];
    EXPECT_GT(auroc, 0.0);
    EXPECT_LT(auroc, 1.0);
    EXPECT_LE(g["auroc_ci"][0].get<double>(), g["auroc_ci"][1].get<double>());
    // Seeded: the same output twice.
    EXPECT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --json").out, r.out);
}

TEST(CliCalibration, ByCategoryAndOtherConfidences)
{
    const auto r = clitest::run("analyze calibration --db " + q(resultsDb()) + " --by category --bins 10 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["bins"], 10);
    ASSERT_GT(j["groups"].size(), 2U);
    EXPECT_EQ(j["groups"][0]["group"], "global");
    const int64_t all = j["groups"][0]["n"];
    bool scope = false;
    for (std::size_t i = 1; i < j["groups"].size(); ++i) {
        EXPECT_LE(j["groups"][i]["n"].get<int64_t>(), all);
        scope |= j["groups"][i]["group"] == "Scope";
    }
    EXPECT_TRUE(scope) << j.dump();
    // Entropy: scored by AUROC and AUPRC only.
    const json e = json::parse(
        clitest::run("analyze calibration --db " + q(resultsDb()) + " --confidence topk-entropy --json").out);
    EXPECT_EQ(e["confidence"], "topk_entropy");
    EXPECT_TRUE(e["groups"][0]["ece"].is_null());
    EXPECT_TRUE(e["groups"][0]["brier"].is_null());
    EXPECT_TRUE(e["groups"][0]["auroc"].is_number());
    // The text table flags with Table I's thresholds.
    const auto t = clitest::run("analyze calibration --db " + q(resultsDb()));
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("global: n "), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("AUROC"), std::string::npos) << t.out;
    // Usage errors.
    EXPECT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --confidence asc").status, 2);
    EXPECT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --by node").status, 2);
    EXPECT_NE(clitest::run("analyze --help").out.find("calibration"), std::string::npos);
}

// --by concept: a group per node type, each the tokens aligned to at least one node of it (counted here with SQL);
// --confidence asc-eval: per token the AsC-Eval of the deepest valued node it is aligned to, its AUROC recomputed
// here as the Mann–Whitney count (ties half) over every (wrong, right) pair.
TEST(CliCalibration, ByConceptAndAscEvalConfidence)
{
    const auto r = clitest::run("analyze calibration --db " + q(resultsDb()) + " --by concept --resamples 20 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["by"], "concept");
    std::map<std::string, int64_t> want;
    ascviz::testdata::query(
        resultsDb(),
        "SELECT n.type, COUNT(DISTINCT t.snippet || ':' || t.idx) FROM tokens t JOIN snippets s ON s.idx = t.snippet "
        "JOIN nodes n ON n.snippet = t.snippet AND t.start_byte < n.end_byte AND t.end_byte > n.start_byte "
        "AND n.end_byte > n.start_byte WHERE s.status = 'ok' AND t.ntp IS NOT NULL GROUP BY n.type",
        [&](const auto& cols) { want[*cols[0]] = std::stoll(*cols[1]); }, ascviz::sqlite::OpenMode::ReadOnly);
    ASSERT_GT(want.size(), 10U);
    std::map<std::string, int64_t> got;
    for (std::size_t i = 1; i < j["groups"].size(); ++i)
        got[j["groups"][i]["group"].get<std::string>()] = j["groups"][i]["n"].get<int64_t>();
    EXPECT_EQ(got, want);
    EXPECT_TRUE(got.count("identifier")) << r.out;

    const auto a = clitest::run("analyze calibration --db " + q(resultsDb()) + " --confidence asc-eval --json");
    ASSERT_EQ(a.status, 0) << a.err;
    const json ja = json::parse(a.out);
    EXPECT_EQ(ja["confidence"], "asc_eval");
    const json& g = ja["groups"][0];
    EXPECT_TRUE(g["ece"].is_null()); // not a probability of being right: AUROC and AUPRC only
    // Per token: the deepest aligned node with an AsC-Eval (first in pre-order on equal depth).
    std::map<std::string, std::pair<int64_t, double>> best; // token -> (depth, asc_eval)
    std::map<std::string, bool> right;
    ascviz::testdata::query(
        resultsDb(),
        "SELECT t.snippet || ':' || t.idx, t.rank, n.depth, n.asc_eval FROM tokens t JOIN snippets s ON s.idx = "
        "t.snippet JOIN nodes n ON n.snippet = t.snippet AND t.start_byte < n.end_byte AND t.end_byte > n.start_byte "
        "AND n.end_byte > n.start_byte AND n.asc_eval IS NOT NULL WHERE s.status = 'ok' AND t.ntp IS NOT NULL ORDER "
        "BY t.snippet, t.idx, n.node",
        [&](const auto& cols) {
            const int64_t depth = std::stoll(*cols[2]);
            const auto it = best.find(*cols[0]);
            if (it == best.end() || depth > it->second.first)
                best[*cols[0]] = {depth, std::stod(*cols[3])};
            right[*cols[0]] = std::stoll(*cols[1]) == 1;
        },
        ascviz::sqlite::OpenMode::ReadOnly);
    std::vector<double> wrongC, rightC;
    for (const auto& [tok, v] : best)
        (right[tok] ? rightC : wrongC).push_back(v.second);
    ASSERT_FALSE(wrongC.empty());
    ASSERT_FALSE(rightC.empty());
    double pairs = 0; // error score −c: a wrong token above a right one when its AsC-Eval is lower
    for (const double w : wrongC)
        for (const double k : rightC)
            pairs += w < k ? 1.0 : w == k ? 0.5 : 0.0;
    EXPECT_EQ(g["n"].get<std::size_t>(), best.size());
    EXPECT_EQ(g["errors"].get<std::size_t>(), wrongC.size());
    EXPECT_NEAR(g["auroc"].get<double>(), pairs / (static_cast<double>(wrongC.size()) * rightC.size()), 1e-9);
}

TEST(CliCalibration, AnOlderDatabaseSaysTheFieldsAreMissing)
{
    const auto old = clitest::tempDir() / "schema4.db";
    std::filesystem::copy_file(resultsDb(), old, std::filesystem::copy_options::overwrite_existing);
    for (const char* c : {"entropy", "topk_entropy", "p1", "margin", "rank"})
        ascviz::testdata::query(old, std::string("ALTER TABLE tokens DROP COLUMN ") + c, [](const auto&) {});
    ascviz::testdata::query(old, "UPDATE run SET schema_version = 4", [](const auto&) {});
    // It opens (report reads it) ...
    EXPECT_EQ(clitest::run("report --db " + q(old) + " --json").status, 0);
    // ... and calibration says what is missing.
    const auto r = clitest::run("analyze calibration --db " + q(old) + " --json");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
}

TEST(CliCalibration, EvalJsonTokensCarryTheUncertainty)
{
    const auto f = clitest::writeTemp("cal.py", "def add(a, b):\n    return a + b\n");
    const auto r = clitest::run("eval --model default --text-file " + q(f));
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    const json& toks = j["tokens"];
    ASSERT_GT(toks.size(), 3U);
    for (std::size_t i = 0; i < toks.size(); ++i) {
        const json& t = toks[i];
        for (const char* k : {"entropy", "topk_entropy", "p1", "margin", "rank"})
            ASSERT_TRUE(t.contains(k)) << k;
        if (t["ntp"].is_null()) {
            EXPECT_TRUE(t["rank"].is_null());
            EXPECT_TRUE(t["p1"].is_null());
            continue;
        }
        const double p1 = t["p1"], ntp = t["ntp"], margin = t["margin"];
        const int64_t rank = t["rank"];
        EXPECT_GE(p1, ntp - 1e-6) << i; // the top probability is at least the actual token's (float rounding)
        EXPECT_GE(margin, 0.0);
        EXPECT_LE(margin, p1);
        EXPECT_GE(rank, 1);
        EXPECT_EQ(rank == 1, std::abs(p1 - ntp) < 1e-6) << i;
        EXPECT_GE(t["entropy"].get<double>(), 0.0);
        // The top-10 renormalised: at most ln 10.
        EXPECT_LE(t["topk_entropy"].get<double>(), std::log(10.0) + 1e-12);
    }
}

// The reliability diagrams (--svg/--pdf with the figure options) and the LaTeX table (--latex).
TEST(CliCalibration, ReliabilityDiagramsAndLatexTable)
{
    const auto dir = clitest::tempDir();
    const auto svg = dir / "reliability.svg";
    const auto r =
        clitest::run("analyze calibration --db " + q(resultsDb()) + " --by category --svg " + q(svg) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out); // the JSON still goes to stdout
    std::ifstream in(svg);
    const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(s.find("Reliability of p1 by category"), std::string::npos);
    // One panel per group, each headed by its n and ECE as the JSON gives them.
    for (const auto& g : j["groups"]) {
        EXPECT_NE(s.find("data-group=\"" + g["group"].get<std::string>() + "\""), std::string::npos) << g["group"];
        char ece[32];
        std::snprintf(ece, sizeof ece, "%.2f", g["ece"].get<double>());
        const std::string nbsp = "\u00a0"; // the heading keeps "n = N" and "ECE = x" whole (no-break spaces)
        EXPECT_NE(s.find("n" + nbsp + "=" + nbsp + std::to_string(g["n"].get<long long>()) + ","), std::string::npos)
            << g["group"];
        EXPECT_NE(s.find("ECE" + nbsp + "=" + nbsp + ece), std::string::npos) << g["group"];
    }
    // The page width asked for (mm in the SVG's width attribute).
    for (const char* mm : {"40", "85", "178"}) {
        const auto f = dir / (std::string("rel-") + mm + ".svg");
        ASSERT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --by category --width-mm " + mm +
                               " --svg " + q(f))
                      .status,
                  0);
        std::ifstream fin(f);
        const std::string t((std::istreambuf_iterator<char>(fin)), std::istreambuf_iterator<char>());
        EXPECT_NE(t.find(std::string("width=\"") + mm + "mm\""), std::string::npos) << t.substr(0, 300);
    }
    const auto tex = dir / "calibration.tex";
    ASSERT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --latex " + q(tex)).status, 0);
    std::ifstream tin(tex);
    const std::string t((std::istreambuf_iterator<char>(tin)), std::istreambuf_iterator<char>());
    EXPECT_NE(t.find("\\toprule"), std::string::npos);
    EXPECT_NE(t.find("global & " + std::to_string(j["groups"][0]["n"].get<long long>()) + " & "), std::string::npos)
        << t;
    // The figure options without a figure, and diagrams of a confidence that is not a probability of being right.
    EXPECT_EQ(clitest::run("analyze calibration --db " + q(resultsDb()) + " --width-mm 85").status, 2);
    EXPECT_EQ(
        clitest::run("analyze calibration --db " + q(resultsDb()) + " --confidence entropy --svg " + q(svg)).status, 2);
}
