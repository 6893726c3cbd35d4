// `ascviz-cli study`: init (the assignment JSON, balanced and seeded, with the bundled model), report and
// export (numbers recomputed here from the exported CSV), render (a PNG through the GUI executable), and
// bad input (exit status and one-line messages; nothing overwritten).
#include "cli_runner.h"
#include "testdata.h"

#include "ascviz/galeras/testbed.h"
#include "ascviz/study/report.h"
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

using ascviz::testdata::TempDir;
using nlohmann::json;

namespace {

std::string quoted(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

// One study made once for the whole suite (the model runs once).
struct Made {
    TempDir dir{"cli-study"};
    clitest::Result init;
    std::filesystem::path study;
};

Made& made()
{
    static Made m;
    static const bool once = [] {
        m.study = m.dir / "s.json";
        m.init =
            clitest::run("study init --corpus default --samples 8 --participants 4 --seed 11 --out " + quoted(m.study));
        return true;
    }();
    (void)once;
    return m;
}

// Answers for every participant: a pattern of trial, question and participant.
void answerAll(const std::filesystem::path& responses, const ascviz::Study& s)
{
    auto db = ascviz::ResponsesDb::open(responses, s);
    for (std::size_t p = 0; p < s.participants.size(); ++p) {
        const auto& part = s.participants[p];
        db.startParticipant(part.id, false);
        for (int t = 0; t < int(part.trials.size()); ++t) {
            for (std::size_t q = 0; q < s.questions.size(); ++q)
                db.recordAnswer(part.id, t, s.questions[q].id, 1 + int((t * 7 + q * 3 + p) % 5), 1.0);
            db.completeTrial(part.id, t, 2.5, "");
        }
    }
}

} // namespace

TEST(CliStudy, InitPrintsABalancedSeededAssignment)
{
    const auto& m = made();
    ASSERT_EQ(m.init.status, 0) << m.init.err;
    const json a = json::parse(m.init.out);
    EXPECT_TRUE(a["study"].is_string());
    EXPECT_EQ(a["conditions"], json({"C", "S1", "S2", "S3"}));
    EXPECT_EQ(a["samples"], 8);
    ASSERT_EQ(a["participants"].size(), 4u);
    std::map<std::pair<int, std::string>, int> cells;
    for (const auto& p : a["participants"]) {
        EXPECT_TRUE(p["id"].is_string());
        ASSERT_EQ(p["trials"].size(), 8u);
        std::map<std::string, int> perCondition;
        std::set<int> samples;
        for (const auto& t : p["trials"]) {
            ++perCondition[t["condition"].get<std::string>()];
            samples.insert(t["sample"].get<int>());
            ++cells[{t["sample"].get<int>(), t["condition"].get<std::string>()}];
        }
        EXPECT_EQ(samples.size(), 8u); // every sample once
        for (const char* c : {"C", "S1", "S2", "S3"})
            EXPECT_EQ(perCondition[c], 2) << c; // every condition samples/k times
    }
    EXPECT_EQ(cells.size(), 32u); // every sample under every condition across the 4 participants
    for (const auto& [k, n] : cells)
        EXPECT_EQ(n, 1);

    // The study file: versioned, with the evaluations stored; the same seed gives the same assignment.
    const json f = json::parse(clitest::readAll(m.study));
    EXPECT_EQ(f["format"], "ascviz-study");
    EXPECT_EQ(f["version"], 1);
    EXPECT_EQ(f["samples"].size(), 8u);
    EXPECT_FALSE(f["samples"][0]["eval"]["tokens"].empty());
    EXPECT_FALSE(f["samples"][0]["eval"]["nodes"].empty());
    const auto again = clitest::run("study init --corpus default --samples 8 --participants 4 --seed 11 --out " +
                                    quoted(m.dir / "s2.json"));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(json::parse(again.out)["participants"], a["participants"]);
    const auto other = clitest::run("study init --corpus default --samples 8 --participants 4 --seed 12 --out " +
                                    quoted(m.dir / "s3.json") + " --conditions C,S3");
    ASSERT_EQ(other.status, 0) << other.err;
    EXPECT_NE(json::parse(other.out)["participants"], a["participants"]);
    EXPECT_EQ(json::parse(other.out)["conditions"], json({"C", "S3"}));
}

TEST(CliStudy, InitRefusesBadInput)
{
    const auto& m = made();
    ASSERT_EQ(m.init.status, 0);
    const std::string before = clitest::readAll(m.study);
    auto r = clitest::run("study init --corpus default --samples 8 --participants 4 --out " + quoted(m.study));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("not overwritten"), std::string::npos) << r.err;
    EXPECT_EQ(clitest::readAll(m.study), before);
    r = clitest::run("study init --corpus default --samples 6 --participants 4 --out " + quoted(m.dir / "x.json"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("multiple of the 4 conditions"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(m.dir / "x.json"));
    r = clitest::run("study init --corpus default --participants 4 --out " + quoted(m.dir / "x.json"));
    EXPECT_EQ(r.status, 2);
    r = clitest::run("study init --corpus default --samples 4 --participants 4 --conditions C,S7 --out " +
                     quoted(m.dir / "x.json"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("unknown condition 'S7'"), std::string::npos) << r.err;
    r = clitest::run("study frobnicate");
    EXPECT_EQ(r.status, 2);
    r = clitest::run("study --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("study init"), std::string::npos);
}

TEST(CliStudy, ReportNumbersRecomputedFromTheExportedCsv)
{
    const auto& m = made();
    ASSERT_EQ(m.init.status, 0);
    const ascviz::Study s = ascviz::readStudyFile(m.study);
    const auto responses = m.dir / "s.responses.sqlite";
    std::filesystem::remove(responses);
    answerAll(responses, s);

    const auto csv = m.dir / "answers.csv";
    auto r = clitest::run("study export --responses " + quoted(responses) + " --csv " + quoted(csv));
    ASSERT_EQ(r.status, 0) << r.err;
    r = clitest::run("study report --responses " + quoted(responses) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json rep = json::parse(r.out);

    // Count from the CSV text alone.
    std::istringstream in(clitest::readAll(csv));
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line, "participant,trial,sample,condition,question,answer,seconds");
    std::map<std::string, std::map<std::string, std::vector<int>>> counts;
    int rows = 0;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');)
            f.push_back(x);
        ASSERT_EQ(f.size(), 7u) << line;
        auto& v = counts[f[3]][f[4]];
        v.resize(5);
        ++v[std::size_t(std::stoi(f[5]) - 1)];
        EXPECT_EQ(f[6], "2.500");
        ++rows;
    }
    EXPECT_EQ(rows, 4 * 8 * 3);
    for (const char* c : {"C", "S1", "S2", "S3"})
        for (const char* q : {"useful", "readable", "complex"}) {
            const auto& v = counts[c][q];
            const int n = v[0] + v[1] + v[2] + v[3] + v[4];
            const json& qr = rep["conditions"][c]["questions"][q];
            EXPECT_EQ(qr["n"], n);
            EXPECT_EQ(qr["distribution"].get<std::vector<int>>(), v);
            EXPECT_NEAR(qr["agree_pct"].get<double>(), 100.0 * (v[3] + v[4]) / n, 1e-9);
        }

    // The CSV form reads the same (with the study for the scales); without it, a usage error.
    r = clitest::run("study report --responses " + quoted(csv) + " --study " + quoted(m.study) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out), rep);
    r = clitest::run("study report --responses " + quoted(csv) + " --json");
    EXPECT_EQ(r.status, 2);
    r = clitest::run("study report --responses " + quoted(responses) + " --csv " + quoted(m.dir / "rep"));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string table = clitest::readAll(m.dir / "rep" / "study_report.csv");
    EXPECT_EQ(table.rfind("condition,question,n,agree_pct,p1,p2,p3,p4,p5\n", 0), 0u) << table;
    r = clitest::run("study report --responses " + quoted(responses));
    ASSERT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("sequence view with NtP"), std::string::npos);

    // Another study's file.
    r = clitest::run("study report --responses " + quoted(responses) + " --study " + quoted(m.dir / "s3.json"));
    if (std::filesystem::exists(m.dir / "s3.json")) {
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find("belongs to study"), std::string::npos) << r.err;
    }
    r = clitest::run("study report --responses " + quoted(m.dir / "absent.sqlite"));
    EXPECT_EQ(r.status, 1);
}

#ifdef ASCVIZ_HAS_GUI
TEST(CliStudy, RenderWritesWhatTheParticipantSees)
{
    const auto& m = made();
    ASSERT_EQ(m.init.status, 0);
    const auto png = m.dir / "trial.png";
    auto r =
        clitest::run("study render --study " + quoted(m.study) + " --participant P02 --trial 3 --png " + quoted(png));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string data = clitest::readAll(png);
    ASSERT_GT(data.size(), 1000u);
    EXPECT_EQ(data.substr(1, 3), "PNG");
    r = clitest::run("study render --study " + quoted(m.study) + " --participant P02 --trial 8 --png " + quoted(png));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no trial 8"), std::string::npos) << r.err;
    r = clitest::run("study render --study " + quoted(m.study) + " --participant P77 --trial 0 --png " + quoted(png));
    EXPECT_EQ(r.status, 1);
}
#endif

// Issue 44: the default corpus's entries have a `prompt` field; without --complete their code is the corpus's
// own (human-written), so the study file flags no token as generated (it flagged the text after the prompt:
// 349 of 462 tokens) and no trial can call it the model's completion.
TEST(CliStudy, InitWithoutCompleteFlagsNothingGenerated)
{
    const auto& m = made();
    ASSERT_EQ(m.init.status, 0) << m.init.err;
    const json j = json::parse(clitest::readAll(m.study));
    std::size_t tokens = 0;
    for (const auto& s : j.at("samples"))
        for (const auto& t : s.at("eval").at("tokens")) {
            ++tokens;
            EXPECT_FALSE(t.value("generated", false)) << s.at("id");
        }
    EXPECT_GT(tokens, 0u);
    const ascviz::Study st = ascviz::readStudyFile(m.study);
    for (const auto& s : st.samples)
        EXPECT_FALSE(ascviz::generatedSpan(s).has_value()) << s.id;
}

// --stop-at-function-end (as galeras run) cuts each completion where the function ends; only with --complete.
TEST(CliStudy, CompleteStopsAtTheFunctionEnd)
{
    TempDir dir("cli-study-complete");
    const auto out = dir / "c.json";
    auto r = clitest::run("study init --corpus default --samples 2 --participants 1 --conditions C "
                          "--stop-at-function-end --out " +
                          quoted(out));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--stop-at-function-end"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    r = clitest::run("study init --corpus default --samples 2 --participants 1 --conditions C --seed 3 --complete "
                     "--max-new-tokens 48 --stop-at-function-end --out " +
                     quoted(out));
    ASSERT_EQ(r.status, 0) << r.err;
    const ascviz::Study st = ascviz::readStudyFile(out);
    ASSERT_EQ(st.samples.size(), 2u);
    for (const auto& s : st.samples) {
        const std::string& text = s.eval->scored.text;
        // nothing past the function (Galeras's rule: no code after the first definition)
        EXPECT_FALSE(ascviz::functionEnd(text, s.language).has_value()) << s.id << ": text past the function:\n"
                                                                        << text;
        // the tokens stored are those of the text shown
        ASSERT_FALSE(s.eval->scored.tokens.empty());
        EXPECT_LE(s.eval->scored.tokens.back().end, text.size());
    }
}
