// ascviz-cli score / generate on a tiny fixture model and the bundled one.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace {

std::string tinyModel()
{
    const char* data = std::getenv("ASCVIZ_TEST_DATA");
    return std::string("'") + (data ? data : "tests/data") + "/fixtures/models/tiny-gpt2'";
}

TEST(CliModel, ScorePrintsTokensWithNtp)
{
    const std::string text = "def f(x):\n    return x + 1\n";
    const auto file = clitest::writeTemp("score.py", text);
    const auto r = clitest::run("score --model " + tinyModel() + " --device cpu --text-file '" + file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("model"), "tiny-gpt2");
    const auto& toks = j.at("tokens");
    ASSERT_GT(toks.size(), 3u);
    EXPECT_TRUE(toks[0].at("ntp").is_null()) << "no BOS: the first token has no prediction";
    std::size_t pos = 0;
    double ce = 0;
    for (std::size_t i = 0; i < toks.size(); ++i) {
        EXPECT_EQ(toks[i].at("start").get<std::size_t>(), pos);
        pos = toks[i].at("end").get<std::size_t>();
        EXPECT_TRUE(toks[i].at("id").is_number_integer());
        if (i > 0) {
            const double p = toks[i].at("ntp").get<double>();
            EXPECT_GT(p, 0.0);
            EXPECT_LE(p, 1.0);
            ce -= std::log(p);
        }
    }
    EXPECT_EQ(pos, text.size());
    EXPECT_NEAR(j.at("cross_entropy").get<double>(), ce / static_cast<double>(toks.size() - 1), 1e-9);
}

TEST(CliModel, ScoreReadsStdin)
{
    const auto r = clitest::run("score --model " + tinyModel() + " --text-file -", "import os\n");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_GT(nlohmann::json::parse(r.out).at("tokens").size(), 1u);
}

TEST(CliModel, GenerateGreedyMarksGeneratedTokens)
{
    const std::string prompt = "def fibonacci(n):\n";
    const auto file = clitest::writeTemp("prompt.py", prompt);
    const auto r = clitest::run("generate --model default --prompt-file '" + file.string() + "' --max-new-tokens 12 --greedy");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const std::string text = j.at("text");
    ASSERT_EQ(text.compare(0, prompt.size(), prompt), 0);
    const auto promptTokens = j.at("prompt_tokens").get<std::size_t>();
    EXPECT_EQ(promptTokens, 9u) << "the bundled reference encodes this prompt to 9 tokens";
    const auto& toks = j.at("tokens");
    ASSERT_EQ(toks.size(), promptTokens + 12);
    for (std::size_t i = 0; i < toks.size(); ++i) {
        EXPECT_EQ(toks[i].at("generated").get<bool>(), i >= promptTokens);
        EXPECT_LE(toks[i].at("end").get<std::size_t>(), text.size());
        if (i > 0) {
            EXPECT_TRUE(toks[i].at("ntp").is_number());
        }
    }
    EXPECT_EQ(toks.back().at("end").get<std::size_t>(), text.size());
    // The bundled model's reference greedy continuation starts with these ids.
    EXPECT_EQ(toks[promptTokens].at("id"), 3);
}

TEST(CliModel, SeededSamplingIsReproducible)
{
    const auto file = clitest::writeTemp("prompt2.py", "import os\n");
    const std::string cmd = "generate --model " + tinyModel() + " --prompt-file '" + file.string() +
                            "' --max-new-tokens 8 --temperature 0.9 --top-p 0.95 --top-k 40 --seed 3 --ignore-eos";
    const auto a = clitest::run(cmd), b = clitest::run(cmd);
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
}

TEST(CliModel, BadFolderIsOneLineError)
{
    const auto file = clitest::writeTemp("x.py", "x = 1\n");
    const auto r = clitest::run("score --model /nonexistent/model --text-file '" + file.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST(CliModel, UsageErrors)
{
    EXPECT_EQ(clitest::run("score --model default").status, 2);
    const auto file = clitest::writeTemp("y.py", "y = 2\n");
    EXPECT_EQ(clitest::run("generate --prompt-file '" + file.string() + "' --greedy --temperature 0.5").status, 2);
    EXPECT_EQ(clitest::run("generate --prompt-file '" + file.string() + "' --bogus").status, 2);
}

} // namespace
