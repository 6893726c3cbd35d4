// ascviz-cli eval --experts and analyze experts (issue 42; method.md §15) on the tiny mixture-of-experts fixtures:
// the JSON contracts of docs/cli.md and the refusals (a dense model, --scores, neither --db nor --corpus).
#include "cli_runner.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

using nlohmann::json;

namespace {

std::string fixture(const char* name)
{
    return "'" + ascviz::testdata::fixtureModel(name).string() + "'";
}

const std::string kCode = "def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n";

TEST(CliExperts, EvalExpertsPerToken)
{
    const auto file = clitest::writeTemp("experts.py", kCode);
    // tiny-qwen2_moe: 3 layers, the middle one dense (mlp_only_layers), 4 experts, top-2.
    const auto r = clitest::run("eval --model " + fixture("tiny-qwen2_moe") + " --device cpu --experts --text-file '" +
                                file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    const auto& tokens = j.at("tokens");
    ASSERT_GT(tokens.size(), 5u);
    for (const auto& t : tokens) {
        const auto& ex = t.at("experts");
        ASSERT_EQ(ex.size(), 2u) << t.dump();
        EXPECT_EQ(ex[0].at("layer"), 0);
        EXPECT_EQ(ex[1].at("layer"), 2);
        for (const auto& l : ex) {
            ASSERT_EQ(l.at("ids").size(), 2u);
            ASSERT_EQ(l.at("probs").size(), 2u);
            EXPECT_NE(l.at("ids")[0], l.at("ids")[1]);
            for (const auto& id : l.at("ids"))
                EXPECT_TRUE(id.get<int>() >= 0 && id.get<int>() < 4) << id;
            // the router's order: descending weight; qwen2_moe does not renormalise (norm_topk_prob false)
            EXPECT_GE(l.at("probs")[0].get<double>(), l.at("probs")[1].get<double>());
            EXPECT_LT(l.at("probs")[0].get<double>() + l.at("probs")[1].get<double>(), 1.0);
        }
    }
    // The NtP are the plain eval's.
    const auto plain =
        clitest::run("eval --model " + fixture("tiny-qwen2_moe") + " --device cpu --text-file '" + file.string() + "'");
    ASSERT_EQ(plain.status, 0) << plain.err;
    const json p = json::parse(plain.out);
    ASSERT_EQ(p.at("tokens").size(), tokens.size());
    for (std::size_t i = 1; i < tokens.size(); ++i)
        EXPECT_NEAR(p.at("tokens")[i].at("ntp").get<double>(), tokens[i].at("ntp").get<double>(), 1e-6);
}

// deepseek_v3 (tiny-deepseek_v3: 3 layers, the first dense, 8 experts in 4 groups of which 2 compete, top-2,
// norm_topk_prob, routed_scaling_factor 2.5): the weights the layer applies are renormalised and scaled, so each
// token's sum to 2.5.
TEST(CliExperts, EvalExpertsDeepseekV3)
{
    const auto file = clitest::writeTemp("experts-v3.py", kCode);
    const auto r = clitest::run("eval --model " + fixture("tiny-deepseek_v3") +
                                " --device cpu --experts --text-file '" + file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_GT(j.at("tokens").size(), 5u);
    for (const auto& t : j.at("tokens")) {
        const auto& ex = t.at("experts");
        ASSERT_EQ(ex.size(), 2u) << t.dump();
        EXPECT_EQ(ex[0].at("layer"), 1);
        EXPECT_EQ(ex[1].at("layer"), 2);
        for (const auto& l : ex) {
            ASSERT_EQ(l.at("ids").size(), 2u);
            const int a = l.at("ids")[0], b = l.at("ids")[1];
            EXPECT_NE(a, b);
            EXPECT_TRUE(a >= 0 && a < 8 && b >= 0 && b < 8) << l.dump();
            EXPECT_NEAR(l.at("probs")[0].get<double>() + l.at("probs")[1].get<double>(), 2.5, 1e-5) << l.dump();
        }
    }
}

TEST(CliExperts, EvalExpertsRefusals)
{
    const auto file = clitest::writeTemp("experts-dense.py", kCode);
    const auto dense = clitest::run("eval --model " + fixture("tiny-gpt2") + " --device cpu --experts --text-file '" +
                                    file.string() + "'");
    EXPECT_EQ(dense.status, 1);
    EXPECT_NE(dense.err.find("is dense"), std::string::npos) << dense.err;
    EXPECT_NE(dense.err.find("mixture-of-experts"), std::string::npos) << dense.err;
    EXPECT_EQ(clitest::run("eval --model " + fixture("tiny-qwen3_moe") + " --experts --layers --text-file '" +
                           file.string() + "'")
                  .status,
              2);
}

TEST(CliExperts, AnalyzeExpertsByCategory)
{
    const auto corpus = clitest::writeTemp("experts.jsonl", "{\"code\": \"def f(a):\\n    return a + 1\\n\"}\n"
                                                            "{\"code\": \"for i in range(3):\\n    print(i)\\n\"}\n");
    // tiny-qwen3_moe: 3 layers, all sparse, 4 experts, top-2.
    const auto r = clitest::run("analyze experts --corpus '" + corpus.string() + "' --model " +
                                fixture("tiny-qwen3_moe") + " --device cpu --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("layers"), 3);
    EXPECT_EQ(j.at("experts"), 4);
    EXPECT_EQ(j.at("snippets"), 2);
    std::map<std::pair<std::string, int>, double> sums;
    for (const auto& row : j.at("rows")) {
        EXPECT_GT(row.at("n").get<int>(), 0);
        const double share = row.at("share");
        EXPECT_TRUE(share >= 0 && share <= 1) << row.dump();
        sums[{row.at("category").get<std::string>(), row.at("layer").get<int>()}] += share;
    }
    ASSERT_FALSE(sums.empty());
    for (const auto& [key, sum] : sums)
        EXPECT_NEAR(sum, 2.0, 1e-9) << key.first << " layer " << key.second; // top-2: shares sum to k
    EXPECT_EQ(j.at("specialisation").size(), sums.size());
    for (const auto& s : j.at("specialisation"))
        EXPECT_GE(s.at("kl_bits").get<double>(), 0.0);

    // --db: the database's snippets with its run's model.
    const auto db = clitest::tempDir() / "experts.db";
    ASSERT_EQ(clitest::run("batch --model " + fixture("tiny-qwen3_moe") + " --device cpu --quiet --corpus '" +
                           corpus.string() + "' --db '" + db.string() + "'")
                  .status,
              0);
    const auto d = clitest::run("analyze experts --db '" + db.string() + "' --device cpu --json");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_EQ(json::parse(d.out).at("rows"), j.at("rows"));

    EXPECT_EQ(clitest::run("analyze experts --model " + fixture("tiny-qwen3_moe")).status, 2); // no --db / --corpus
    const auto dense = clitest::run("analyze experts --corpus '" + corpus.string() + "' --model " +
                                    fixture("tiny-gpt2") + " --device cpu --json");
    EXPECT_EQ(dense.status, 1);
    EXPECT_NE(dense.err.find("is dense"), std::string::npos) << dense.err;
}

// --svg / --pdf: the category x expert heat map per sparse layer through the figure room (small multiples), or
// one layer with --layer; the style options need a figure, --layer a sparse layer.
TEST(CliExperts, AnalyzeExpertsFigure)
{
    const auto corpus = clitest::writeTemp("experts-fig.jsonl", "{\"code\": \"def f(a):\\n    return a + 1\\n\"}\n");
    const auto svg = clitest::tempDir() / "experts.svg";
    const auto pdf = clitest::tempDir() / "experts-layer.pdf";
    const std::string base =
        "analyze experts --corpus '" + corpus.string() + "' --model " + fixture("tiny-qwen2_moe") + " --device cpu";
    const auto r = clitest::run(base + " --svg '" + svg.string() + "' --width-mm 40 --font-pt 7");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << "a figure run prints no table: " << r.out;
    const std::string s = clitest::readAll(svg);
    EXPECT_NE(s.find("width=\"40mm\""), std::string::npos);
    // tiny-qwen2_moe: layers 0 and 2 sparse, the middle one dense: two panels, 4 experts each.
    EXPECT_NE(s.find(">layer 0<"), std::string::npos);
    EXPECT_NE(s.find(">layer 2<"), std::string::npos);
    EXPECT_EQ(s.find(">layer 1<"), std::string::npos);
    EXPECT_NE(s.find(">E3<"), std::string::npos);
    EXPECT_EQ(s.find(">E4<"), std::string::npos);
    const auto one = clitest::run(base + " --layer 2 --pdf '" + pdf.string() + "' --legend bottom");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(clitest::readAll(pdf).rfind("%PDF", 0), 0u);
    const auto dense = clitest::run(base + " --layer 1 --svg '" + svg.string() + "'");
    EXPECT_EQ(dense.status, 2);
    EXPECT_NE(dense.err.find("sparse layers: 0, 2"), std::string::npos) << dense.err;
    EXPECT_EQ(clitest::run(base + " --width-mm 40 --json").status, 2) << "style options without a figure";
    std::filesystem::remove(svg);
    std::filesystem::remove(pdf);
}

// export-html --experts (docs/share.md): the page's embedded JSON carries each token's experts exactly as
// eval --experts gives them (the same document: tokens with "experts", the NtP, the nodes).
TEST(CliExperts, ExportHtmlEmbedsEvalExperts)
{
    const auto file = clitest::writeTemp("experts-share.py", kCode);
    const auto page = clitest::tempDir() / "experts.html";
    const std::string model =
        " --model " + fixture("tiny-qwen3_moe") + " --device cpu --experts --text-file '" + file.string() + "'";
    const auto h = clitest::run("export-html" + model + " --out '" + page.string() + "'");
    ASSERT_EQ(h.status, 0) << h.err;
    const auto e = clitest::run("eval" + model);
    ASSERT_EQ(e.status, 0) << e.err;
    const std::string html = clitest::readAll(page);
    const std::string open = "<script type=\"application/json\" id=\"ascviz-data\">";
    const auto a = html.find(open);
    ASSERT_NE(a, std::string::npos);
    const auto b = html.find("</script>", a);
    ASSERT_NE(b, std::string::npos);
    const json doc = json::parse(html.substr(a + open.size(), b - a - open.size()));
    const json ev = json::parse(e.out);
    ASSERT_EQ(doc.at("tokens").size(), ev.at("tokens").size());
    ASSERT_GT(ev.at("tokens").size(), 5u);
    for (std::size_t i = 0; i < ev.at("tokens").size(); ++i) {
        const auto& x = doc.at("tokens")[i].at("experts");
        ASSERT_EQ(x.size(), 3u) << "tiny-qwen3_moe: 3 sparse layers";
        EXPECT_EQ(x, ev.at("tokens")[i].at("experts")) << "token " << i;
    }
    json rest = doc;
    rest.erase("text");
    rest.erase("share");
    EXPECT_EQ(rest, ev) << "the embedded data is eval --experts' document";
    std::filesystem::remove(page);
}

} // namespace
