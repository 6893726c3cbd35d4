// ascviz-cli relations and analyze heads (method.md §11) on the tiny fixture model: the JSON contract, a run
// continued with --resume and shards tallied with --from giving the whole run's report, and the bad inputs.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <sys/wait.h>

namespace {

std::string tinyModel()
{
    return "'" + ascviz::testdata::fixtureModel("tiny-gpt2").string() + "'";
}

const char* kCorpus =
    "{\"id\":\"a\",\"code\":\"def f(a, b):\\n    if a > b:\\n        return a\\n    return b\\n\"}\n"
    "{\"id\":\"b\",\"code\":\"def g(x):\\n    for y in x:\\n        if y:\\n            return y\\n\"}\n"
    "{\"id\":\"c\",\"code\":\"def h(s):\\n    while s:\\n        s = s[1:]\\n    return s\\n\"}\n";

TEST(CliHeads, RelationsWithAndWithoutTokens)
{
    const auto f = clitest::writeTemp("rel.py", "x = foo(1)\n");
    const auto bare = clitest::run("relations --relations fields --text-file '" + f.string() + "' --json");
    ASSERT_EQ(bare.status, 0) << bare.err;
    const auto j = nlohmann::json::parse(bare.out);
    bool assign = false;
    for (const auto& r : j.at("relations")) {
        EXPECT_FALSE(r.at("head").contains("tokens"));
        if (r.at("type") == "assignment:left\u2192right") {
            assign = true;
            EXPECT_EQ(r.at("head").at("start"), 0);
            EXPECT_EQ(r.at("dependent").at("start"), 4);
        }
    }
    EXPECT_TRUE(assign);
    const auto tok = clitest::run("relations --relations fields --text-file '" + f.string() + "' --model " +
                                  tinyModel() + " --json");
    ASSERT_EQ(tok.status, 0) << tok.err;
    const auto withTokens = nlohmann::json::parse(tok.out); // kept alive for the loop
    for (const auto& r : withTokens.at("relations")) {
        ASSERT_FALSE(r.at("head").at("tokens").empty()) << r;
        EXPECT_EQ(r.at("offset"),
                  r.at("dependent").at("tokens").front().get<int>() - r.at("head").at("tokens").front().get<int>());
    }
}

// Issue 43: the paper mode is Python's default: its relation types over words, the tables in its layout; a
// language without a mapping refuses it.
TEST(CliHeads, PaperModeIsPythonsDefault)
{
    const auto f = clitest::writeTemp("rel-paper.py", "x = foo(1)\n");
    const auto rel = clitest::run("relations --text-file '" + f.string() + "' --json");
    ASSERT_EQ(rel.status, 0) << rel.err;
    const auto j = nlohmann::json::parse(rel.out);
    EXPECT_EQ(j.at("relation_set"), "codesyntax");
    std::vector<std::string> types;
    for (const auto& r : j.at("relations"))
        types.push_back(r.at("type"));
    // Assign x -> foo(1 (closing bracket dropped), Call foo -> 1, children x -> foo(1 and foo -> 1.
    EXPECT_EQ(types, std::vector<std::string>({"Assign:target\u2192value", "Call:func\u2192args",
                                               "children:parent\u2192child", "children:parent\u2192child"}));
    EXPECT_EQ(j.at("relations").at(0).at("dependent").at("start"), 4);
    EXPECT_EQ(j.at("relations").at(0).at("dependent").at("end"), 9); // "foo(1": the ) dropped

    const auto corpus = clitest::writeTemp("heads-paper.jsonl", kCorpus);
    const std::string common =
        "analyze heads --model " + tinyModel() + " --corpus '" + corpus.string() + "' --top-k 1,3 --min-count 1";
    const auto run = clitest::run(common + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto w = nlohmann::json::parse(run.out);
    EXPECT_EQ(w.at("relation_set"), "codesyntax");
    EXPECT_EQ(w.at("units"), "words");
    // Three functions: if a > b, if y (two Ifs), one For, one While.
    ASSERT_TRUE(w.at("relations").contains("If:if\u2192test"));
    EXPECT_EQ(w.at("relations").at("If:if\u2192test").at("count"), 2);
    EXPECT_EQ(w.at("relations").at("For:for\u2192target").at("count"), 1);
    // If:if→test is the next word: offset 1 hits every edge.
    EXPECT_EQ(w.at("relations").at("If:if\u2192test").at("offset_baseline").at("scores").front(), 1.0);
    const auto t3 = clitest::run(common + " --table 3");
    ASSERT_EQ(t3.status, 0) << t3.err;
    EXPECT_NE(t3.out.find("| Offset |"), std::string::npos) << t3.out;
    EXPECT_NE(t3.out.find("| Diff (Model - Baseline) |"), std::string::npos) << t3.out;
    const auto t6 = clitest::run(common + " --table 6");
    ASSERT_EQ(t6.status, 0) << t6.err;
    EXPECT_NE(t6.out.find("| For:for\u2192body |"), std::string::npos) << t6.out;
    EXPECT_EQ(t6.out.find("If:if\u2192test"), std::string::npos) << t6.out; // not one of the paper's seven
    EXPECT_EQ(clitest::run(common + " --table 5").status, 2);               // Table 5 is the any-token metric
    EXPECT_EQ(clitest::run(common + " --table 5 --metric any").status, 0);

    const auto java = clitest::writeTemp("rel.java", "class A { void f() { int x = 1; } }\n");
    const auto refused = clitest::run("relations --relations codesyntax --text-file '" + java.string() + "'");
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("java has no mapping"), std::string::npos) << refused.err;
    EXPECT_EQ(clitest::run("relations --text-file '" + java.string() + "' --json").status, 0); // fields there
}

TEST(CliHeads, ReportResumeAndShards)
{
    const auto corpus = clitest::writeTemp("heads.jsonl", kCorpus);
    const std::string common = "analyze heads --relations fields --model " + tinyModel() + " --corpus '" +
                               corpus.string() + "' --top-k 1,3 --min-count 1 --json";
    const auto whole = clitest::run(common);
    ASSERT_EQ(whole.status, 0) << whole.err;
    const auto w = nlohmann::json::parse(whole.out);
    EXPECT_EQ(w.at("top_k"), nlohmann::json({1, 3}));
    EXPECT_EQ(w.at("texts"), 3);
    EXPECT_EQ(w.at("metric"), "first");
    ASSERT_TRUE(w.at("relations").contains("if_statement:if\u2192condition"));
    const auto& r = w.at("relations").at("if_statement:if\u2192condition");
    EXPECT_EQ(r.at("count"), 2);
    EXPECT_EQ(r.at("best_head").at("scores").size(), 2u);
    // if → condition is always the next token: offset 1 hits every edge.
    EXPECT_EQ(r.at("offset_baseline").at("choices").front(), 1);
    EXPECT_EQ(r.at("offset_baseline").at("scores").front(), 1.0);
    EXPECT_LE(r.at("diff").front().get<double>(), 0.0);
    EXPECT_EQ(w.at("model_score").size(), 2u);

    // Two shards, the first interrupted after one snippet by --limit and continued with --resume; each shard a
    // heads run database (issue 40), tallied together by --from and merged by `ascviz-cli merge`.
    const auto p0 = clitest::tempDir() / "p0.db", p1 = clitest::tempDir() / "p1.db";
    const auto all = clitest::tempDir() / "p-all.db";
    for (const auto& f : {p0, p1, all})
        std::filesystem::remove(f);
    ASSERT_EQ(clitest::run(common + " --shard 0/2 --limit 1 --partial '" + p0.string() + "'").status, 0);
    const auto again = clitest::run(common + " --shard 0/2 --partial '" + p0.string() + "'");
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("already exists; use --resume"), std::string::npos) << again.err;
    const auto resumed = clitest::run(common + " --shard 0/2 --partial '" + p0.string() + "' --resume");
    ASSERT_EQ(resumed.status, 0) << resumed.err; // the settings are the same (--limit is not one of them)
    const auto shard0 = clitest::run("analyze heads --from '" + p0.string() + "' --top-k 1 --min-count 1 --json");
    ASSERT_EQ(shard0.status, 0) << shard0.err;
    EXPECT_EQ(nlohmann::json::parse(shard0.out).at("texts"), 2); // a and c
    const auto other = clitest::run(common + " --metric any --shard 0/2 --partial '" + p0.string() + "' --resume");
    EXPECT_EQ(other.status, 1);
    EXPECT_NE(other.err.find("a run of other settings"), std::string::npos) << other.err;
    ASSERT_EQ(clitest::run(common + " --shard 1/2 --partial '" + p1.string() + "'").status, 0);
    const auto merged = clitest::run("analyze heads --from '" + p0.string() + "','" + p1.string() +
                                     "' --top-k 1,3 --min-count 1 --json");
    ASSERT_EQ(merged.status, 0) << merged.err;
    auto m = nlohmann::json::parse(merged.out);
    EXPECT_EQ(m.at("relations"), w.at("relations"));
    EXPECT_EQ(m.at("model_score"), w.at("model_score"));
    const auto joined = clitest::run("merge --out '" + all.string() + "' '" + p0.string() + "' '" + p1.string() + "'");
    ASSERT_EQ(joined.status, 0) << joined.err;
    const auto fromAll = clitest::run("analyze heads --from '" + all.string() + "' --top-k 1,3 --min-count 1 --json");
    ASSERT_EQ(fromAll.status, 0) << fromAll.err;
    const auto a = nlohmann::json::parse(fromAll.out);
    EXPECT_EQ(a.at("relations"), w.at("relations"));
    EXPECT_EQ(a.at("warnings"), nlohmann::json::array());
    for (const auto& f : {p0, p1, all})
        std::filesystem::remove(f);
}

// Issue 54: shards of runs with different --limit (so different slices of the corpus) merged into one run without a
// word; the run's size is stored with each shard and a merge of other sizes is refused, naming both.
TEST(CliHeads, MergeRefusesShardsOfRunsOfOtherSizes)
{
    const auto corpus = clitest::writeTemp("heads-size.jsonl", kCorpus);
    const std::string common = "analyze heads --relations fields --model " + tinyModel() + " --corpus '" +
                               corpus.string() + "' --top-k 1 --min-count 1 --json";
    const auto p0 = clitest::tempDir() / "size0.db", p1 = clitest::tempDir() / "size1.db";
    const auto all = clitest::tempDir() / "size-all.db";
    for (const auto& f : {p0, p1, all})
        std::filesystem::remove(f);
    ASSERT_EQ(clitest::run(common + " --shard 0/2 --limit 2 --partial '" + p0.string() + "'").status, 0);
    ASSERT_EQ(clitest::run(common + " --shard 1/2 --partial '" + p1.string() + "'").status, 0);
    const auto joined = clitest::run("merge --out '" + all.string() + "' '" + p0.string() + "' '" + p1.string() + "'");
    EXPECT_EQ(joined.status, 1) << joined.err;
    EXPECT_NE(joined.err.find("run_size is '3', the first shard's '2'"), std::string::npos) << joined.err;
    EXPECT_FALSE(std::filesystem::exists(all));
    for (const auto& f : {p0, p1, all})
        std::filesystem::remove(f);
}

// The JSON Lines partial files of earlier builds are still read by --from, read-only: --resume names the format
// and says what to do.
TEST(CliHeads, AnOldPartialFileIsReadButNotContinued)
{
    const auto corpus = clitest::writeTemp("heads-old.jsonl", kCorpus);
    const auto p = clitest::writeTemp(
        "old-partial.jsonl", "{\"kind\":\"ascviz-heads-partial\",\"version\":1,\"model\":\"m\",\"language\":\"python\","
                             "\"metric\":\"first\",\"corpus\":\"c\",\"layers\":1,\"max_k\":3,\"shard\":\"\"}\n");
    const auto r = clitest::run("analyze heads --relations fields --model " + tinyModel() + " --corpus '" +
                                corpus.string() + "' --partial '" + p.string() + "' --resume --json");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("a JSON Lines partial file of an earlier build (ascviz-heads-partial, version 1) is read by "
                         "--from but not continued"),
              std::string::npos)
        << r.err;
}

TEST(CliHeads, HeatmapAsSvgAndPdf)
{
    // A partial file by hand: 1 layer x 2 heads, two edges of one type; head 1 has both at rank 0 (top-1 100 %),
    // head 0 one of them (50 %). The model score over that one type is the same.
    const auto p = clitest::writeTemp(
        "heat.jsonl",
        "{\"kind\":\"ascviz-heads-partial\",\"version\":1,\"model\":\"m\",\"language\":\"python\","
        "\"metric\":\"first\",\"corpus\":\"c\",\"layers\":1,\"max_k\":3,\"shard\":\"\"}\n"
        "{\"id\":\"a\",\"edges\":[{\"type\":\"call:function\u2192arguments\",\"offset\":1,\"ranks\":\"0000\","
        "\"hits\":[1]},{\"type\":\"call:function\u2192arguments\",\"offset\":2,\"ranks\":\"0100\",\"hits\":[2]}],"
        "\"outside\":{}}\n");
    const auto svg = clitest::tempDir() / "heat.svg", pdf = clitest::tempDir() / "heat.pdf";
    const auto r = clitest::run("analyze heads --top-k 1 --from '" + p.string() + "' --min-count 1 --svg '" +
                                svg.string() + "' --pdf '" + pdf.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string s = clitest::readAll(svg.string());
    EXPECT_NE(s.find(">50</text>"), std::string::npos) << s;
    EXPECT_NE(s.find(">100</text>"), std::string::npos);
    EXPECT_NE(s.find("model score"), std::string::npos);
    EXPECT_NE(s.find("mm\" height=\""), std::string::npos); // the figure room's SVG (mm)
    EXPECT_EQ(s.find("<image"), std::string::npos);
    EXPECT_EQ(clitest::readAll(pdf.string()).rfind("%PDF", 0), 0u);
    const auto one = clitest::run("analyze heads --top-k 1 --from '" + p.string() +
                                  "' --relation 'call:function\u2192arguments' --svg '" + svg.string() + "'");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_NE(clitest::readAll(svg.string()).find("call:function\u2192arguments: top-1"), std::string::npos);
    const auto none = clitest::run("analyze heads --top-k 1 --from '" + p.string() + "' --relation nope --svg '" +
                                   svg.string() + "'");
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("nope"), std::string::npos) << none.err;
    const auto alone = clitest::run("analyze heads --top-k 1 --from '" + p.string() + "' --relation x");
    EXPECT_EQ(alone.status, 2);
    // The paper options (issue 44): the width asked, not the title's; no title line with --no-title; a PDF too.
    const auto styled = clitest::run("analyze heads --top-k 1 --from '" + p.string() +
                                     "' --min-count 1 --width-mm 40 --font-pt 7 --no-title --legend bottom --svg '" +
                                     svg.string() + "' --pdf '" + pdf.string() + "'");
    ASSERT_EQ(styled.status, 0) << styled.err;
    const std::string st = clitest::readAll(svg.string());
    EXPECT_NE(st.find("width=\"40mm\""), std::string::npos) << st;
    EXPECT_EQ(st.find("\">model score"), std::string::npos) << st; // no title line (the <title> stays)
    EXPECT_NE(st.find(">score (%)"), std::string::npos) << st;     // the colour key
    EXPECT_EQ(clitest::readAll(pdf.string()).rfind("%PDF", 0), 0u);
    const auto unstyled = clitest::run("analyze heads --top-k 1 --from '" + p.string() + "' --width-mm 40");
    EXPECT_EQ(unstyled.status, 2) << unstyled.err;
}

TEST(CliHeads, BadInput)
{
    const auto empty = clitest::writeTemp("empty.jsonl", "");
    const auto e = clitest::run("analyze heads --model " + tinyModel() + " --corpus '" + empty.string() + "'");
    EXPECT_EQ(e.status, 1);
    EXPECT_NE(e.err.find("empty"), std::string::npos) << e.err;
    const auto m = clitest::run("analyze heads --corpus x.jsonl --metric middle");
    EXPECT_EQ(m.status, 2);
    EXPECT_NE(m.err.find("first, last or any"), std::string::npos) << m.err;
    const auto bad = clitest::writeTemp("bad.jsonl", "{\"kind\":\"ascviz-heads-partial\"}\n");
    const auto f = clitest::run("analyze heads --from '" + bad.string() + "'");
    EXPECT_EQ(f.status, 1);
    EXPECT_NE(f.err.find("bad.jsonl:1"), std::string::npos) << f.err;
}

// Issue 39: a crafted header and a 34 MB edge (4096 layers x 4150 heads x 254 ranks overflowed int: SIGSEGV)
// are refused with the file and line; a record that does not fit names the file.
TEST(CliHeads, CraftedPartialFilesAreRefusedNamingTheFile)
{
    const std::string header =
        "{\"kind\":\"ascviz-heads-partial\",\"version\":1,\"model\":\"m\",\"language\":\"python\","
        "\"metric\":\"first\",\"corpus\":\"c\",\"layers\":4096,\"max_k\":254,\"shard\":\"\"}\n";
    const auto huge = clitest::writeTemp("huge.jsonl", header +
                                                           "{\"id\":\"a\",\"edges\":[{\"type\":\"t\",\"offset\":1,"
                                                           "\"ranks\":\"" +
                                                           std::string(std::size_t{4096} * 4150 * 2, '0') +
                                                           "\",\"hits\":[1]}],\"outside\":{}}\n");
    const auto r = clitest::run("analyze heads --from '" + huge.string() + "' --top-k 1 --json");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("huge.jsonl:2: an edge with 16998400 ranks, more than the 16384"), std::string::npos) << r.err;
    std::filesystem::remove(huge);
    const auto odd = clitest::writeTemp(
        "odd.jsonl", "{\"kind\":\"ascviz-heads-partial\",\"version\":1,\"model\":\"m\",\"language\":\"python\","
                     "\"metric\":\"first\",\"corpus\":\"c\",\"layers\":8,\"max_k\":3,\"shard\":\"\"}\n"
                     "{\"id\":\"a\",\"edges\":[{\"type\":\"t\",\"offset\":1,\"ranks\":\"" +
                         std::string(94, '0') + "\",\"hits\":[1]}],\"outside\":{}}\n");
    const auto o = clitest::run("analyze heads --from '" + odd.string() + "' --top-k 1");
    EXPECT_EQ(o.status, 1);
    EXPECT_NE(o.err.find("odd.jsonl:2: attention heads: 47 ranks"), std::string::npos) << o.err;
}

// Issue 39, on the heads run database (issue 40): a file size limit (ulimit -f, SIGXFSZ ignored) stops the run
// with status 1 naming the database instead of a full report over records that were not kept; the texts stored
// before the failed write are kept (--from warns that the run holds fewer than it planned), and the resumed run
// completes it with the uninterrupted run's report; --from of one shard of two warns.
TEST(CliHeads, AFailedWriteStopsTheRunAndResumeCompletesIt)
{
    // 42 texts (the three functions, 14 times): enough one-transaction writes to outgrow the limit part-way.
    std::vector<std::string> lines;
    std::istringstream in(kCorpus);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    std::string many;
    for (int i = 0; i < 42; ++i) {
        std::string l = lines[static_cast<std::size_t>(i % 3)];
        l.replace(l.find("\"id\":\"") + 6, 1, "t" + std::to_string(i)); // ids t0 .. t41
        many += l + "\n";
    }
    const auto corpus = clitest::writeTemp("heads-limit.jsonl", many);
    const std::string common =
        "analyze heads --model " + tinyModel() + " --corpus '" + corpus.string() + "' --top-k 1,3 --min-count 1 --json";
    const auto whole = clitest::run(common);
    ASSERT_EQ(whole.status, 0) << whole.err;
    const auto p = clitest::tempDir() / "limited.db";
    std::filesystem::remove(p);
    const auto err = clitest::tempDir() / "limited.err";
    // 128 blocks of 512 bytes: the new database (its schema and settings) fits, the write-ahead log of the run's
    // texts (one transaction each) outgrows it.
    const std::string cmd = "sh -c \"trap '' XFSZ; ulimit -f 128; exec '" + std::string(ASCVIZ_CLI_PATH) + "' " +
                            common + " --partial '" + p.string() + "'\" >/dev/null 2>'" + err.string() + "'";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc));
    EXPECT_EQ(WEXITSTATUS(rc), 1);
    const std::string e = clitest::readAll(err);
    EXPECT_NE(e.find("heads run database " + p.string() + ": "), std::string::npos) << e;
    EXPECT_NE(e.find("every text stored so far is kept"), std::string::npos) << e;
    const auto partly = clitest::run("analyze heads --from '" + p.string() + "' --top-k 1,3 --min-count 1 --json");
    ASSERT_EQ(partly.status, 0) << partly.err;
    const auto pj = nlohmann::json::parse(partly.out);
    EXPECT_GT(pj.at("texts").get<int>(), 0);
    EXPECT_LT(pj.at("texts").get<int>(), 42);
    ASSERT_EQ(pj.at("warnings").size(), 1u) << pj.at("warnings");
    EXPECT_NE(pj.at("warnings")[0].get<std::string>().find(" of the 42 texts its run set out to analyze"),
              std::string::npos);
    EXPECT_NE(partly.err.find("analyze heads: warning: " + p.string() + " holds "), std::string::npos) << partly.err;

    const auto resumed = clitest::run(common + " --partial '" + p.string() + "' --resume");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    auto rj = nlohmann::json::parse(resumed.out);
    EXPECT_EQ(rj, nlohmann::json::parse(whole.out));
    const auto from = clitest::run("analyze heads --from '" + p.string() + "' --top-k 1,3 --min-count 1 --json");
    ASSERT_EQ(from.status, 0) << from.err;
    const auto fj = nlohmann::json::parse(from.out);
    EXPECT_EQ(fj.at("texts"), 42);
    EXPECT_EQ(fj.at("warnings"), nlohmann::json::array()) << fj.at("warnings");
    EXPECT_EQ(fj, nlohmann::json::parse(whole.out));
    std::filesystem::remove(p);
    std::filesystem::remove(err);

    // One shard of two: a warning naming the missing shard, on stderr and in the JSON.
    const auto s0 = clitest::tempDir() / "s0.db";
    std::filesystem::remove(s0);
    ASSERT_EQ(clitest::run(common + " --shard 0/2 --partial '" + s0.string() + "'").status, 0);
    const auto half = clitest::run("analyze heads --from '" + s0.string() + "' --top-k 1 --min-count 1 --json");
    ASSERT_EQ(half.status, 0) << half.err;
    EXPECT_NE(half.err.find("analyze heads: warning: the partial files hold 1 of 2 shards (missing: 1)"),
              std::string::npos)
        << half.err;
    EXPECT_EQ(nlohmann::json::parse(half.out).at("warnings").size(), 1u);
    std::filesystem::remove(s0);
}

} // namespace
