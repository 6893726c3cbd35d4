// ascviz-cli tokenize: same ids/offsets as the reference fixtures; error exits.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

nlohmann::json fixtureCases(const std::string& name)
{
    return nlohmann::json::parse(clitest::readAll(clitest::dataDir() + "/fixtures/tokenizer-cases/" + name + ".json"));
}

TEST(CliTokenize, MatchesFixtureIdsAndOffsets)
{
    for (const std::string name : {"ascviz-code-bpe2k", "llama2"}) {
        const auto cases = fixtureCases(name);
        const auto& c = cases["cases"][3]; // Unicode text
        const auto file = clitest::writeTemp(name + "-input.txt", c["text"].get<std::string>());
        const auto r = clitest::run("tokenize --tokenizer '" + clitest::dataDir() + "/fixtures/tokenizers/" + name +
                                    "/tokenizer.json' --text-file '" + file.string() + "'");
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["ids"], c["ids"]) << name;
        EXPECT_EQ(j["offsets"], c["offsets_byte"]) << name;
        EXPECT_EQ(j["tokens"], c["tokens"]) << name;
        EXPECT_EQ(j["decoded"], c["decoded"]) << name;
    }
}

TEST(CliTokenize, ModelFolderAndOutFile)
{
    const auto cases = fixtureCases("ascviz-code-bpe2k");
    const auto& c = cases["cases"][0];
    const auto file = clitest::writeTemp("model-input.txt", c["text"].get<std::string>());
    const auto out = clitest::tempDir() / "tokens.json";
    const auto r =
        clitest::run("tokenize --model '" + clitest::dataDir() + "/fixtures/models/tiny-gpt2' --text-file '" +
                     file.string() + "' --out '" + out.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(clitest::readAll(out));
    EXPECT_EQ(j["ids"], c["ids"]);
}

TEST(CliTokenize, DefaultModelFromStdin)
{
    const auto r = clitest::run("tokenize --model default --text-file -", "def f():\n    return 1\n");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["ids"].empty());
    EXPECT_EQ(j["decoded"], "def f():\n    return 1\n");
    EXPECT_EQ(j["offsets"].back()[1], 22);
}

TEST(CliTokenize, NonUtf8FileIsOneLineError)
{
    const auto file = clitest::writeTemp("latin1.txt", std::string("caf\xE9\n"));
    const auto r = clitest::run("tokenize --tokenizer '" + clitest::dataDir() +
                                "/fixtures/tokenizers/gpt2/tokenizer.json' --text-file '" + file.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(CliTokenize, MissingTextFileIsUsageError)
{
    const auto r =
        clitest::run("tokenize --tokenizer '" + clitest::dataDir() + "/fixtures/tokenizers/gpt2/tokenizer.json'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--text-file"), std::string::npos) << r.err;
}

TEST(CliTokenize, MissingTokenizerFileIsError)
{
    const auto file = clitest::writeTemp("x.txt", "x");
    const auto r = clitest::run("tokenize --tokenizer /nonexistent/tokenizer.json --text-file '" + file.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("/nonexistent/tokenizer.json"), std::string::npos) << r.err;
}

TEST(CliTokenize, UnknownOptionIsUsageError)
{
    const auto file = clitest::writeTemp("y.txt", "y");
    const auto r = clitest::run("tokenize --model default --text-file '" + file.string() + "' --frobnicate 3");
    EXPECT_EQ(r.status, 2);
}

} // namespace
