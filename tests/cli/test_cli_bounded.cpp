// Bounded work from the command line (issue 17, docs/limits.md): over-limit texts and trees fail fast with exit 1
// and a one-line message naming the size, the limit and the option; big trees render with the tree layout; the
// batch runner stores an over-limit snippet as an error row; the options are in --help.
#include "cli_runner.h"

#include "ascviz/galeras/runsdb.h"
#include "ascviz/results/resultsdb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

std::string q(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

std::filesystem::path emptyScores()
{
    return clitest::writeTemp("empty.scores.json", R"({"model":"none","tokens":[]})");
}

std::string paren(int depth)
{
    return "x = " + std::string(static_cast<std::size_t>(depth), '(') + "1" +
           std::string(static_cast<std::size_t>(depth), ')') + "\n";
}

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TEST(CliBounded, TextOverTheLimitIsRefusedBeforeScoring)
{
    const auto f = clitest::writeTemp("big.py", std::string(33000, '#') + "\n");
    const auto svg = clitest::tempDir() / "big.svg";
    for (const std::string& cmd : std::vector<std::string>{
             "score --model default --text-file " + q(f), "eval --model default --text-file " + q(f),
             "render --model default --view complete --svg " + q(svg) + " --text-file " + q(f),
             "generate --model default --max-new-tokens 1 --prompt-file " + q(f)}) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = clitest::run(cmd);
        std::printf("[timing] refused in %.2f s: %s\n", since(t0), cmd.substr(0, 6).c_str());
        EXPECT_EQ(r.status, 1) << cmd << "\n" << r.err;
        EXPECT_NE(r.err.find("big.py is 33,001 bytes, over the limit of 32,768 bytes"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--max-text-bytes N raises it"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(svg));
    // Raised, the same text is scored.
    const auto ok = clitest::run("score --model default --max-text-bytes 40000 --text-file " + q(f));
    EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(CliBounded, DeepTreeRefusedThenAllowedWithZero)
{
    const auto f = clitest::writeTemp("deep.py", paren(10000));
    const auto r = clitest::run("eval --scores " + q(emptyScores()) + " --text-file " + q(f));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("the syntax tree is 10,00"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("levels deep, over the limit of 1,000 levels for AsC-Eval (--max-ast-depth N raises it"),
              std::string::npos)
        << r.err;
    const auto svg = clitest::tempDir() / "deep.svg";
    const auto t0 = std::chrono::steady_clock::now();
    const auto ok = clitest::run("render --scores " + q(emptyScores()) + " --max-ast-depth 0 --view complete --svg " +
                                 q(svg) + " --text-file " + q(f));
    std::printf("[timing] render --view complete of 10,000 nested parentheses: %.2f s\n", since(t0));
    ASSERT_EQ(ok.status, 0) << ok.err;
    const std::string doc = clitest::readAll(svg);
    EXPECT_NE(doc.find("30006 of 30006 nodes shown"), std::string::npos);
    EXPECT_NE(doc.find("tree layout"), std::string::npos);
    EXPECT_NE(doc.find("</svg>"), std::string::npos);
}

TEST(CliBounded, DeepTreeRefusedBeforeTheModelLoads)
{
    // The tree is checked right after parsing, before the model: a model folder that does not exist is never
    // reached (were the model loaded first, the error would name the folder).
    const auto f = clitest::writeTemp("deep.py", paren(2000));
    const auto missing = clitest::tempDir() / "no-such-model";
    const auto svg = clitest::tempDir() / "deep.svg";
    for (const std::string& cmd : std::vector<std::string>{"eval --model " + q(missing) + " --text-file " + q(f),
                                                           "render --model " + q(missing) + " --view partial --svg " +
                                                               q(svg) + " --text-file " + q(f)}) {
        const auto r = clitest::run(cmd);
        EXPECT_EQ(r.status, 1) << cmd << "\n" << r.err;
        EXPECT_NE(r.err.find("levels deep, over the limit of 1,000 levels for AsC-Eval"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("no-such-model"), std::string::npos) << r.err;
    }
    // Within the limits, the same command reaches the model (and fails there).
    const auto small = clitest::writeTemp("small.py", paren(3));
    const auto r = clitest::run("eval --model " + q(missing) + " --text-file " + q(small));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no-such-model"), std::string::npos) << r.err;
}

TEST(CliBounded, TreeOverTheNodeLimitRefusedByParseEvalAndRender)
{
    // 5 MB of Python: ~900,000 nodes. parse and eval --scores used to copy the whole tree (parse: 10 s of CPU,
    // 1.3 GB); now the count is checked first.
    std::string code;
    for (int i = 0; code.size() < 5'000'000; ++i)
        code +=
            "def f" + std::to_string(i) + "(a, b):\n    return [a * b + x for x in range(" + std::to_string(i) + ")]\n";
    const auto big = clitest::writeTemp("big5mb.py", code);
    const auto svg = clitest::tempDir() / "big.svg";
    for (const std::string& cmd : std::vector<std::string>{
             "parse --text-file " + q(big), "eval --scores " + q(emptyScores()) + " --text-file " + q(big),
             "render --scores " + q(emptyScores()) + " --view complete --svg " + q(svg) + " --text-file " + q(big)}) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = clitest::run(cmd);
        std::printf("[timing] 5 MB refused in %.2f s: %s\n", since(t0), cmd.substr(0, 6).c_str());
        EXPECT_EQ(r.status, 1) << cmd << "\n" << r.err;
        EXPECT_NE(r.err.find("nodes, over the limit of 200,000 nodes (--max-ast-nodes N raises it, 0 = no limit)"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    EXPECT_FALSE(std::filesystem::exists(svg));
    // The option: a small file under a tight limit is refused, and 0 lifts it.
    const auto f = clitest::writeTemp("small.py", "def f(a):\n    return a + 1\n"); // 16 nodes
    const auto tight = clitest::run("parse --max-ast-nodes 10 --text-file " + q(f));
    EXPECT_EQ(tight.status, 1);
    EXPECT_NE(tight.err.find("the syntax tree has 16 nodes, over the limit of 10 nodes"), std::string::npos)
        << tight.err;
    EXPECT_EQ(clitest::run("parse --max-ast-nodes 16 --text-file " + q(f)).status, 0);
    EXPECT_EQ(clitest::run("parse --max-ast-nodes 0 --text-file " + q(f)).status, 0);
    EXPECT_EQ(clitest::run("eval --scores " + q(emptyScores()) + " --max-ast-nodes 10 --text-file " + q(f)).status, 1);
    EXPECT_EQ(clitest::run("eval --scores " + q(emptyScores()) + " --max-ast-nodes 0 --text-file " + q(f)).status, 0);
}

TEST(CliBounded, GraphvizNodeLimitOption)
{
    const auto f = clitest::writeTemp("small.py", "def f(a):\n    return a + 1\n");
    const auto svg = clitest::tempDir() / "small.svg";
    const std::string base =
        "render --scores " + q(emptyScores()) + " --view complete --svg " + q(svg) + " --text-file " + q(f);
    ASSERT_EQ(clitest::run(base).status, 0);
    EXPECT_EQ(clitest::readAll(svg).find("tree layout"), std::string::npos);
    ASSERT_EQ(clitest::run(base + " --max-graphviz-nodes 5").status, 0);
    EXPECT_NE(clitest::readAll(svg).find("tree layout (over 5 nodes for Graphviz)"), std::string::npos);
}

TEST(CliBounded, BatchStoresOverLimitSnippetAsErrorRow)
{
    const std::string big(300, 'x');
    const auto corpus =
        clitest::writeTemp("corpus.jsonl", "{\"id\":\"small\",\"code\":\"def f():\\n    return 1\\n\"}\n"
                                           "{\"id\":\"big\",\"code\":\"" +
                                               big + "\"}\n");
    const auto db = clitest::tempDir() / "run.db";
    const auto r =
        clitest::run("batch --model default --quiet --max-text-bytes 200 --corpus " + q(corpus) + " --db " + q(db));
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = ascviz::ResultsDb::open(db).snippets();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_TRUE(rows[0].ok);
    EXPECT_FALSE(rows[1].ok);
    EXPECT_EQ(rows[1].message, "the snippet is 300 bytes, over the limit of 200 bytes for scoring with a model "
                               "(--max-text-bytes N raises it, 0 = no limit)");
}

TEST(CliBounded, BatchStoresOverTheTreeLimitsSnippetsAsErrorRows)
{
    // Both with one-by-one and with batched scoring: the trees are checked before the model runs.
    // small: 6 nodes, 4 levels; wide: 17 nodes, 5 levels; deep: 12 nodes, 6 levels.
    const auto corpus = clitest::writeTemp("corpus.jsonl", "{\"id\":\"small\",\"code\":\"x = 1\\n\"}\n"
                                                           "{\"id\":\"wide\",\"code\":\"y = [1, 2, 3, 4, 5]\\n\"}\n"
                                                           "{\"id\":\"deep\",\"code\":\"x = ((1))\\n\"}\n");
    for (const std::string batchSize : {"1", "3"}) {
        const auto db = clitest::tempDir() / ("run" + batchSize + ".db");
        const auto r = clitest::run("batch --model default --quiet --batch-size " + batchSize +
                                    " --max-ast-nodes 14 --max-ast-depth 5 --corpus " + q(corpus) + " --db " + q(db));
        ASSERT_EQ(r.status, 0) << r.err;
        const auto rows = ascviz::ResultsDb::open(db).snippets();
        ASSERT_EQ(rows.size(), 3u);
        EXPECT_TRUE(rows[0].ok) << rows[0].message;
        EXPECT_FALSE(rows[1].ok);
        EXPECT_EQ(
            rows[1].message,
            "the syntax tree has 17 nodes, over the limit of 14 nodes (--max-ast-nodes N raises it, 0 = no limit)");
        EXPECT_FALSE(rows[2].ok);
        EXPECT_NE(rows[2].message.find("the syntax tree is 6 levels deep, over the limit of 5 levels for AsC-Eval"),
                  std::string::npos)
            << rows[2].message;
    }
}

TEST(CliBounded, HelpNamesTheLimits)
{
    const auto render = clitest::run("render --help");
    EXPECT_NE(render.out.find("--max-text-bytes N"), std::string::npos);
    EXPECT_NE(render.out.find("--max-ast-depth N"), std::string::npos);
    EXPECT_NE(render.out.find("--max-graphviz-nodes N"), std::string::npos);
    EXPECT_NE(clitest::run("eval --help").out.find("--max-text-bytes N"), std::string::npos);
    EXPECT_NE(clitest::run("score --help").out.find("--max-text-bytes N"), std::string::npos);
    EXPECT_NE(clitest::run("batch --help").out.find("--max-ast-depth N"), std::string::npos);
    EXPECT_NE(clitest::run("generate --help").out.find("--max-text-bytes N"), std::string::npos);
    EXPECT_NE(clitest::run("galeras --help").out.find("--max-text-bytes N"), std::string::npos);
    EXPECT_NE(clitest::run("attribute --help").out.find("--max-ast-nodes N"), std::string::npos);
    for (const char* cmd : {"parse", "eval", "render", "batch"})
        EXPECT_NE(clitest::run(std::string(cmd) + " --help").out.find("--max-ast-nodes N"), std::string::npos) << cmd;
}

namespace {

// A records file: two small functions and, between them, `big` (one over the text limit, or a deep one).
std::filesystem::path galerasRecords(const std::string& name, const std::string& big)
{
    const std::string small = "def add(a, b):\n    \"\"\"Add.\"\"\"\n    c = a + b\n    d = c * 2\n    return d\n";
    return clitest::writeTemp(name, nlohmann::json{{"id", "small1"}, {"code", small}}.dump() + "\n" +
                                        nlohmann::json{{"id", "big"}, {"code", big}}.dump() + "\n" +
                                        nlohmann::json{{"id", "small2"}, {"code", small}}.dump() + "\n");
}

std::string longFunction(std::size_t lines)
{
    std::string code = "def long_one(x):\n";
    for (std::size_t i = 0; i < lines; ++i)
        code += "    x = x + " + std::to_string(i) + "\n";
    return code + "    return x\n";
}

} // namespace

TEST(CliBounded, GalerasSkipsTheRecordOverALimitAndKeepsTheOthers)
{
    const auto recs = galerasRecords("bounded-records.jsonl", longFunction(2000)); // ~40 KB
    // testbed: the record over the text limit is skipped, named with its line; the others are kept
    const auto tb = clitest::run("galeras testbed --testbed randomcut --max-text-bytes 32768 --records " + q(recs));
    ASSERT_EQ(tb.status, 0) << tb.err;
    EXPECT_NE(tb.err.find("bounded-records.jsonl:2: record big skipped: the code is "), std::string::npos) << tb.err;
    EXPECT_NE(tb.err.find("over the limit of 32,768 bytes"), std::string::npos) << tb.err;
    EXPECT_EQ(std::count(tb.out.begin(), tb.out.end(), '\n'), 2) << tb.out;
    EXPECT_EQ(tb.out.find("\"big\""), std::string::npos);
    // a syntax tree over the node limit (the 20 MB function of the hostile runs, in small): skipped, named
    const auto nodes = clitest::run(
        "galeras testbed --testbed randomcut --max-text-bytes 0 --max-ast-nodes 2000 --records " + q(recs));
    ASSERT_EQ(nodes.status, 0) << nodes.err;
    EXPECT_NE(nodes.err.find("record big skipped: the syntax tree has "), std::string::npos) << nodes.err;
    EXPECT_EQ(std::count(nodes.out.begin(), nodes.out.end(), '\n'), 2) << nodes.out;

    // run: the same record skipped and stored with its id among the skipped records
    const auto db = clitest::tempDir() / "bounded-galeras.db";
    const auto r = clitest::run(
        "galeras run --testbed randomcut --model default --max-text-bytes 32768 --max-ast-depth 1000 --limit 1 "
        "--max-new-tokens 2 --quiet --records " +
        q(recs) + " --db " + q(db));
    ASSERT_EQ(r.status, 0) << r.err;
    const ascviz::GalerasDb g = ascviz::GalerasDb::open(db);
    const auto skipped = g.skipped();
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0].first, "big");
    EXPECT_EQ(skipped[0].second, "code over the text limit");
    EXPECT_EQ(g.doneKeys().size(), 3u); // small1 under control, T1, T2

    // a template over the limit is refused before anything is written
    const auto huge = clitest::writeTemp(
        "huge-treatments.json",
        nlohmann::json{{"control", {{"name", "control"}, {"template", "{code}"}}},
                       {"treatments", {{{"name", "T1"}, {"template", std::string(40000, '#') + "\n{code}"}}}}}
            .dump());
    const auto db2 = clitest::tempDir() / "bounded-galeras2.db";
    const auto t =
        clitest::run("galeras run --testbed randomcut --model default --max-new-tokens 2 --quiet --records " + q(recs) +
                     " --treatments " + q(huge) + " --db " + q(db2));
    EXPECT_EQ(t.status, 1) << t.err;
    EXPECT_NE(t.err.find("the template of treatment T1 is 40,007 bytes, over the limit of 32,768 bytes"),
              std::string::npos)
        << t.err;
    EXPECT_FALSE(std::filesystem::exists(db2));
}

TEST(CliBounded, AttributeTakesTheTreeLimits)
{
    const auto f = clitest::writeTemp("attr.py", "def f(a):\n    return a + 1\n");
    const auto r = clitest::run("attribute --model default --prompt-bytes 10 --max-ast-nodes 3 --text-file " + q(f));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("nodes, over the limit of 3 nodes"), std::string::npos) << r.err;
    const auto d = clitest::run("attribute --model default --prompt-bytes 10 --max-ast-depth 2 --text-file " + q(f));
    EXPECT_EQ(d.status, 1) << d.err;
    EXPECT_NE(d.err.find("levels deep, over the limit of 2 levels"), std::string::npos) << d.err;
}

// Issue 54: `ablate --draws 1000000000` was accepted (bounded now as --resamples is); a repeated option was called
// "unknown"; --top named no upper bound.
TEST(CliBounded, DrawsRepeatedOptionsAndTopNameTheirBounds)
{
    const auto draws = clitest::run("ablate --model default --corpus default --heads 0.0 --control random --draws "
                                    "1000000000");
    EXPECT_EQ(draws.status, 2) << draws.err;
    EXPECT_NE(draws.err.find("--draws must be between 1 and 1000"), std::string::npos) << draws.err;
    const auto twice = clitest::run("tokenize --model default --text-file a.py --text-file b.py");
    EXPECT_EQ(twice.status, 2) << twice.err;
    EXPECT_NE(twice.err.find("--text-file is given more than once"), std::string::npos) << twice.err;
    const auto unknown = clitest::run("tokenize --model default --text-file a.py --no-such-option");
    EXPECT_NE(unknown.err.find("unknown argument '--no-such-option'"), std::string::npos) << unknown.err;
    const auto top = clitest::run("ablate --model default --corpus default --relation x --top 1000000");
    EXPECT_EQ(top.status, 2) << top.err;
    EXPECT_NE(top.err.find("from 1 to 9999"), std::string::npos) << top.err;
}
