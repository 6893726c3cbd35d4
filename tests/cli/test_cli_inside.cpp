// ascviz-cli eval --layers, analyze layers and attribute (method.md §13) on the tiny fixture model: the JSON
// contracts of docs/cli.md, and the refusals with their exit status.
#include "cli_runner.h"
#include "testdata.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
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
    // method.md §14.3: commit_layer per token (0 … L, null without a prediction), asc_commit the median of a node's
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i == 0) {
            EXPECT_TRUE(tokens[i].at("commit_layer").is_null());
        } else {
            EXPECT_GE(tokens[i].at("commit_layer").get<int>(), 0);
            EXPECT_LE(tokens[i].at("commit_layer").get<int>(), 2);
        }
        EXPECT_TRUE(tokens[i].at("straddles").is_boolean()) << "method.md §14.4";
    }
    for (const auto& n : j.at("nodes")) {
        std::vector<double> c;
        for (const auto& t : n.at("tokens"))
            if (!tokens[t.get<std::size_t>()].at("commit_layer").is_null())
                c.push_back(tokens[t.get<std::size_t>()].at("commit_layer").get<double>());
        std::sort(c.begin(), c.end());
        if (c.empty()) {
            EXPECT_TRUE(n.at("asc_commit").is_null());
            continue;
        }
        const double median = c.size() % 2 ? c[c.size() / 2] : (c[c.size() / 2 - 1] + c[c.size() / 2]) / 2;
        EXPECT_EQ(n.at("asc_commit").get<double>(), median) << n.at("type");
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

// method.md §14.1: eval under head ablation (tiny-gpt2: 2 layers of 4 heads).
TEST(CliInside, EvalWithAblatedHeads)
{
    const auto file = clitest::writeTemp("ablate.py", kCode);
    const std::string base = "eval --model " + tinyModel() + " --device cpu --text-file '" + file.string() + "'";
    const auto clean = clitest::run(base);
    const auto zero = clitest::run(base + " --ablate-heads 1.0,0.3,1.0");
    const auto mean = clitest::run(base + " --ablate-heads 0.3,1.0 --ablation mean --layers");
    ASSERT_EQ(clean.status, 0) << clean.err;
    ASSERT_EQ(zero.status, 0) << zero.err;
    ASSERT_EQ(mean.status, 0) << mean.err;
    const json c = json::parse(clean.out), z = json::parse(zero.out), m = json::parse(mean.out);
    EXPECT_FALSE(c.contains("ablation"));
    EXPECT_EQ(z.at("ablation"), json({{"heads", {"0.3", "1.0"}}, {"mode", "zero"}}));
    EXPECT_EQ(m.at("ablation").at("mode"), "mean");
    ASSERT_EQ(z.at("tokens").size(), c.at("tokens").size());
    int movedZero = 0, movedMean = 0;
    for (std::size_t i = 1; i < c.at("tokens").size(); ++i) {
        const double p = c.at("tokens")[i].at("ntp");
        movedZero += std::abs(z.at("tokens")[i].at("ntp").get<double>() - p) > 1e-6;
        movedMean += std::abs(m.at("tokens")[i].at("ntp").get<double>() - p) > 1e-6;
        EXPECT_EQ(m.at("tokens")[i].at("ntp_layers")[2], m.at("tokens")[i].at("ntp")) << "the lens runs ablated";
    }
    EXPECT_GT(movedZero, 0);
    EXPECT_GT(movedMean, 0);

    const auto outside = clitest::run(base + " --ablate-heads 2.0");
    EXPECT_EQ(outside.status, 2);
    EXPECT_NE(outside.err.find("--ablate-heads"), std::string::npos) << outside.err;
    EXPECT_NE(outside.err.find("2 layers"), std::string::npos) << outside.err;
    EXPECT_NE(outside.err.find("4 attention heads"), std::string::npos) << outside.err;
    EXPECT_EQ(clitest::run(base + " --ablate-heads 0.4").status, 2);
    EXPECT_EQ(clitest::run(base + " --ablate-heads 1").status, 2);
    EXPECT_EQ(clitest::run(base + " --ablation mean").status, 2);
    EXPECT_EQ(clitest::run(base + " --ablate-heads 0.0 --ablation resample").status, 2);
}

// method.md §14.1: the ΔAsC-Eval table (docs/cli.md's contract) and its refusals.
TEST(CliInside, AblateTableAndControl)
{
    const auto corpus = clitest::writeTemp("ablate.jsonl", "{\"code\": \"def f(a):\\n    return a + 1\\n\"}\n"
                                                           "{\"code\": \"for i in range(3):\\n    print(i)\\n\"}\n");
    const std::string base =
        "ablate --model " + tinyModel() + " --device cpu --quiet --corpus '" + corpus.string() + "' --resamples 50";
    const auto r = clitest::run(base + " --heads 0.1,1.2 --control random --draws 3 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("ablated"), json({"0.1", "1.2"}));
    EXPECT_EQ(j.at("snippets"), 2);
    ASSERT_FALSE(j.at("rows").empty());
    for (const auto& row : j.at("rows")) {
        EXPECT_LE(row.at("ci_low").get<double>(), row.at("delta").get<double>() + 1e-12);
        EXPECT_GE(row.at("ci_high").get<double>(), row.at("delta").get<double>() - 1e-12);
        EXPECT_GE(row.at("n").get<int>(), 1);
        EXPECT_TRUE(row.at("category").is_string());
    }
    ASSERT_EQ(j.at("control").at("heads").size(), 3u);
    for (const auto& draw : j.at("control").at("heads")) {
        ASSERT_EQ(draw.size(), 2u);
        for (const auto& h : draw)
            EXPECT_TRUE(h != "0.1" && h != "1.2") << "the control draws other heads";
    }
    EXPECT_FALSE(j.at("control").at("rows").empty());
    const auto plain = clitest::run(base + " --heads 0.1,1.2");
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(json::parse(plain.out).at("rows"), j.at("rows")) << "seeded";
    EXPECT_TRUE(json::parse(plain.out).at("control").is_null());
    EXPECT_EQ(clitest::run(base + " --heads 2.0").status, 2);
    EXPECT_EQ(clitest::run(base).status, 2);
    EXPECT_EQ(clitest::run(base + " --heads 0.0 --experts 0.1").status, 2);
    EXPECT_EQ(clitest::run(base + " --heads 0.0 --control best").status, 2);
}

// method.md §14.1: --relation R --top N picks the heads itself; --experts masks the router's choice.
TEST(CliInside, AblateTopHeadsAndExperts)
{
    const auto corpus = clitest::writeTemp("ablate-top.jsonl", "{\"code\": \"def f(a):\\n    return a + 1\\n\"}\n"
                                                               "{\"code\": \"def g(b, c):\\n    return b * c\\n\"}\n");
    const std::string base =
        "ablate --model " + tinyModel() + " --device cpu --quiet --corpus '" + corpus.string() + "' --resamples 50";
    const auto r =
        clitest::run(base + " --relation function_definition:def→name --top 2 --control random --draws 2 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j.at("ablated").size(), 2u);
    EXPECT_EQ(j.at("unit"), "head");
    const json& sel = j.at("selected_by");
    EXPECT_EQ(sel.at("relation"), "function_definition:def→name");
    EXPECT_GE(sel.at("edges").get<int>(), 2);
    for (const auto& h : j.at("ablated"))
        EXPECT_TRUE(sel.at("scores").contains(h.get<std::string>())) << h;
    EXPECT_EQ(clitest::run(base + " --top 2").status, 2) << "--top needs --relation";
    EXPECT_EQ(clitest::run(base + " --relation function_definition:def→name --top x").status, 2);
    EXPECT_EQ(clitest::run(base + " --relation no_such:a->b --top 1").status, 1);

    const std::string moe = "ablate --model '" + ascviz::testdata::fixtureModel("tiny-qwen3_moe").string() +
                            "' --device cpu --quiet --corpus '" + corpus.string() + "' --resamples 50";
    const auto e = clitest::run(moe + " --experts 0.1 --control random --draws 2 --json");
    ASSERT_EQ(e.status, 0) << e.err;
    const json ej = json::parse(e.out);
    EXPECT_EQ(ej.at("ablated"), json({"0.1"}));
    EXPECT_EQ(ej.at("unit"), "expert");
    EXPECT_EQ(ej.at("mode"), "router");
    ASSERT_EQ(ej.at("control").at("experts").size(), 2u);
    for (const auto& draw : ej.at("control").at("experts"))
        EXPECT_NE(draw.at(0), "0.1");
    EXPECT_FALSE(ej.at("rows").empty());
    EXPECT_EQ(clitest::run(base + " --experts 0.1").status, 2) << "a dense model has no experts";
    EXPECT_EQ(clitest::run(moe + " --experts 0.999").status, 2);
    EXPECT_EQ(clitest::run(moe + " --experts 0.1 --ablation mean").status, 2);
}

TEST(CliInside, AttributeFaithfulnessAndSurrogate)
{
    const auto file = clitest::writeTemp("faith.py", kCode);
    const std::string base = "attribute --model " + tinyModel() + " --device cpu --quiet --text-file '" +
                             file.string() + "' --prompt-bytes 32 --budget 6 --json";
    for (const char* method : {"occlusion", "gradxinput", "surrogate"}) {
        SCOPED_TRACE(method);
        const auto r = clitest::run(base + " --faithfulness --masks 16 --method " + method);
        ASSERT_EQ(r.status, 0) << r.err;
        const json j = json::parse(r.out);
        const json& f = j.at("faithfulness");
        for (const char* key : {"deletion_auc", "insertion_auc", "random_deletion_auc", "random_insertion_auc"})
            EXPECT_TRUE(f.at(key).is_number()) << key;
        EXPECT_EQ(f.at("nodes"), 6);
        EXPECT_EQ(f.at("deletion").size(), 7u);
        EXPECT_NEAR(f.at("deletion").at(0).get<double>(), j.at("target").at("log_prob").get<double>(), 1e-5);
        EXPECT_EQ(j.contains("surrogate"), std::string(method) == "surrogate");
    }
    const auto s = json::parse(clitest::run(base + " --method surrogate --masks 16").out);
    EXPECT_EQ(s.at("forward_passes"), 17);
    EXPECT_EQ(s.at("surrogate").at("masks"), 16);
    EXPECT_FALSE(s.contains("faithfulness"));
    EXPECT_EQ(clitest::run(base + " --method surrogate --masks 3").status, 2);
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
    const auto& commit = j.at("categories").at("Scope").at("commit"); // method.md §14.3
    ASSERT_TRUE(commit.is_number());
    EXPECT_GE(commit.get<double>(), 0.0);
    EXPECT_LE(commit.get<double>(), 2.0);
    EXPECT_GT(j.at("categories").at("Scope").at("commit_n").get<int>(), 0);
    EXPECT_TRUE(j.at("global_commit").is_number());
    EXPECT_NE(clitest::readAll(tex).find("\\begin{tabular}"), std::string::npos);
    // The heat map as a paper figure (issue 44): SVG and PDF at the width asked, the figure options.
    const auto svg = clitest::tempDir() / "layers.svg", pdf = clitest::tempDir() / "layers.pdf";
    const auto fig = clitest::run("analyze layers --corpus '" + corpus.string() + "' --model " + tinyModel() +
                                  " --device cpu --quiet --resamples 20 --width-mm 40 --font-pt 6 --svg '" +
                                  svg.string() + "' --pdf '" + pdf.string() + "'");
    ASSERT_EQ(fig.status, 0) << fig.err;
    const std::string fs = clitest::readAll(svg);
    EXPECT_NE(fs.find("width=\"40mm\""), std::string::npos) << fs;
    EXPECT_NE(fs.find(">emb<"), std::string::npos) << fs;
    EXPECT_EQ(clitest::readAll(pdf).rfind("%PDF", 0), 0u);
    std::filesystem::remove(svg);
    std::filesystem::remove(pdf);
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
