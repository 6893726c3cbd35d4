// ascviz-cli eval --layers, analyze layers and attribute (method.md §13) on the tiny fixture model: the JSON
// contracts of docs/cli.md, and the refusals with their exit status.
#include "cli_runner.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

std::string tinyModel()
{
    return "'" + ascviz::testdata::fixtureModel("tiny-gpt2").string() + "'";
}

const std::string kCode = "def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n";

TEST(CliInside, EvalLayersAddsPerLayerFields)
{
    const auto file = clitest::writeTemp("layers.py", kCode);
    const auto r =
        clitest::run("eval --model " + tinyModel() + " --device cpu --layers --text-file '" + file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("layers"), 2);
    const auto& tokens = j.at("tokens");
    EXPECT_TRUE(tokens[0].at("ntp_layers").is_null());
    for (std::size_t i = 1; i < tokens.size(); ++i) {
        ASSERT_EQ(tokens[i].at("ntp_layers").size(), 3u);
        EXPECT_EQ(tokens[i].at("ntp_layers")[2], tokens[i].at("ntp")) << "layer L is NtP exactly";
    }
    for (const auto& n : j.at("nodes")) {
        ASSERT_EQ(n.at("asc_eval_layers").size(), 3u);
        EXPECT_EQ(n.at("asc_eval_layers")[2], n.at("asc_eval"));
    }
    const auto scores = clitest::writeTemp("scores.json", r.out);
    EXPECT_EQ(
        clitest::run("eval --scores '" + scores.string() + "' --layers --text-file '" + file.string() + "'").status, 2);
}

// A text longer than the context (tiny-gpt2: 128 ids) is windowed as plain eval windows it.
TEST(CliInside, EvalLayersOfALongText)
{
    std::string code;
    for (int k = 0; k < 10; ++k)
        code += kCode;
    const auto file = clitest::writeTemp("long.py", code);
    const auto r =
        clitest::run("eval --model " + tinyModel() + " --device cpu --layers --text-file '" + file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto p = clitest::run("eval --model " + tinyModel() + " --device cpu --text-file '" + file.string() + "'");
    ASSERT_EQ(p.status, 0) << p.err;
    const json j = json::parse(r.out), plain = json::parse(p.out);
    const auto& tokens = j.at("tokens");
    ASSERT_GT(tokens.size(), 200u);
    ASSERT_EQ(tokens.size(), plain.at("tokens").size());
    for (std::size_t i = 1; i < tokens.size(); ++i) {
        ASSERT_EQ(tokens[i].at("ntp_layers").size(), 3u) << i;
        EXPECT_EQ(tokens[i].at("ntp_layers")[2], tokens[i].at("ntp")) << "layer L is NtP exactly, token " << i;
        EXPECT_NEAR(tokens[i].at("ntp").get<double>(), plain.at("tokens")[i].at("ntp").get<double>(), 1e-5) << i;
    }
}

TEST(CliInside, AttributeJsonAndRefusals)
{
    const auto file = clitest::writeTemp("attr.py", kCode);
    const std::string base =
        "attribute --model " + tinyModel() + " --device cpu --quiet --text-file '" + file.string() + "'";
    const auto r = clitest::run(base + " --prompt-bytes 32 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("method"), "occlusion");
    EXPECT_EQ(j.at("target").at("kind"), "completion");
    EXPECT_GE(j.at("target").at("start").get<int>(), 32);
    ASSERT_FALSE(j.at("nodes").empty());
    for (const auto& n : j.at("nodes")) {
        EXPECT_LE(n.at("end").get<int>(), 32);
        EXPECT_TRUE(n.at("attribution").is_number());
    }
    const auto g = clitest::run(base + " --prompt-bytes 32 --method gradxinput --target token:15 --json");
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(json::parse(g.out).at("target").at("tokens"), json({15, 16}));

    const auto empty = clitest::run(base + " --prompt-bytes 0");
    EXPECT_EQ(empty.status, 1);
    EXPECT_NE(empty.err.find("the prompt is empty"), std::string::npos) << empty.err;
    const auto outside = clitest::run(base + " --prompt-bytes 32 --target 1");
    EXPECT_EQ(outside.status, 1);
    EXPECT_NE(outside.err.find("is not inside the completion"), std::string::npos) << outside.err;
    EXPECT_EQ(clitest::run(base + " --prompt-bytes 32 --method saliency").status, 2);
    EXPECT_EQ(clitest::run(base + " --prompt-bytes x").status, 2);
}

TEST(CliInside, AnalyzeLayersMatrix)
{
    const auto corpus = clitest::writeTemp("layers.jsonl", "{\"code\": \"def f(a):\\n    return a + 1\\n\"}\n"
                                                           "{\"code\": \"for i in range(3):\\n    print(i)\\n\"}\n");
    const auto tex = clitest::tempDir() / "layers.tex";
    const auto r = clitest::run("analyze layers --corpus '" + corpus.string() + "' --model " + tinyModel() +
                                " --device cpu --quiet --resamples 20 --json --latex '" + tex.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("layers"), 2);
    EXPECT_EQ(j.at("snippets"), 2);
    EXPECT_EQ(j.at("global").size(), 3u);
    ASSERT_TRUE(j.at("categories").contains("Scope"));
    EXPECT_EQ(j.at("categories").at("Scope").at("median").size(), 3u);
    EXPECT_NE(clitest::readAll(tex).find("\\begin{tabular}"), std::string::npos);
    EXPECT_EQ(clitest::run("analyze layers --model " + tinyModel()).status, 2); // neither --db nor --corpus

    // --db: the database's snippets with its run's model and aggregation.
    const auto db = clitest::tempDir() / "layers.db";
    ASSERT_EQ(clitest::run("batch --model " + tinyModel() + " --device cpu --quiet --aggregation mean --corpus '" +
                           corpus.string() + "' --db '" + db.string() + "'")
                  .status,
              0);
    const auto d = clitest::run("analyze layers --db '" + db.string() + "' --quiet --resamples 20");
    ASSERT_EQ(d.status, 0) << d.err;
    const json dj = json::parse(d.out);
    EXPECT_EQ(dj.at("model"), "tiny-gpt2");
    EXPECT_EQ(dj.at("snippets"), 2);
    EXPECT_EQ(dj.at("aggregation"), "mean");
}

} // namespace
