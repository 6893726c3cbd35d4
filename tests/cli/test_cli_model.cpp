// ascviz-cli score / generate on a tiny fixture model and the bundled one.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

std::string tinyModel()
{
    return "'" + ascviz::testdata::fixtureModel("tiny-gpt2").string() + "'";
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

// Without its oneDNN module (issue 39: ASCVIZ_DNNL_MODULE names a missing file), the CLI still scores, with
// LibTorch's linear layers: --version says why the system oneDNN is not used, and every NtP equals the
// module's within 1e-5 -- a fallback never a silent different number.
TEST(CliModel, WithoutTheOneDnnModuleTheSameNtp)
{
    const std::string text = "def add(a, b):\n    total = a + b\n    return total * 2  # 合計 🙂\n";
    const auto file = clitest::writeTemp("fallback.py", text);
    const std::string cmd = "score --model default --device cpu --threads 1 --text-file '" + file.string() + "'";
    const auto with = clitest::run(cmd);
    ASSERT_EQ(with.status, 0) << with.err;
    ::setenv("ASCVIZ_DNNL_MODULE", "/nonexistent/libascviz_dnnl.so", 1);
    const auto without = clitest::run(cmd);
    const auto version = clitest::run("--version");
    ::unsetenv("ASCVIZ_DNNL_MODULE");
    ASSERT_EQ(without.status, 0) << without.err;
    EXPECT_NE(version.out.find("the oneDNN module was not found (/nonexistent/libascviz_dnnl.so)"), std::string::npos)
        << version.out;
    const auto a = nlohmann::json::parse(with.out).at("tokens"), b = nlohmann::json::parse(without.out).at("tokens");
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 10u);
    for (std::size_t i = 1; i < a.size(); ++i) {
        EXPECT_EQ(a[i].at("id"), b[i].at("id"));
        EXPECT_NEAR(a[i].at("ntp").get<double>(), b[i].at("ntp").get<double>(), 1e-5) << "token " << i;
    }
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
    const auto r =
        clitest::run("generate --model default --prompt-file '" + file.string() + "' --max-new-tokens 12 --greedy");
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

// A copy of tiny-gpt2 whose config names `eos` as its end-of-text id (weights and tokenizer linked).
std::filesystem::path tinyWithEos(const std::string& name, int eos)
{
    namespace fs = std::filesystem;
    const fs::path src = ascviz::testdata::fixtureModel("tiny-gpt2");
    const fs::path dst = clitest::tempDir() / name;
    fs::create_directories(dst);
    for (const auto& e : fs::directory_iterator(src)) {
        if (e.path().filename() == "config.json")
            continue;
        fs::create_symlink(e.path(), dst / e.path().filename());
    }
    auto config = nlohmann::json::parse(clitest::readAll(src / "config.json"));
    config["eos_token_id"] = eos;
    std::ofstream(dst / "config.json") << config.dump();
    return dst;
}

TEST(CliModel, GenerateSaysWhyItStopped)
{
    const auto file = clitest::writeTemp("stop.py", "def add(a, b):\n");
    const std::string common = " --prompt-file '" + file.string() + "' --greedy";
    // length: exactly N new tokens with --ignore-eos.
    auto r = clitest::run("generate --model " + tinyModel() + common + " --max-new-tokens 3 --ignore-eos");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("stop"), "length");
    const auto promptTokens = j.at("prompt_tokens").get<std::size_t>();
    ASSERT_EQ(j.at("tokens").size(), promptTokens + 3);
    const int first = j.at("tokens")[promptTokens].at("id");

    // eos: a model whose end-of-text id is the token greedy decoding picks first stops at once, empty.
    const auto eosModel = tinyWithEos("tiny-eos", first);
    r = clitest::run("generate --model '" + eosModel.string() + "'" + common + " --max-new-tokens 5");
    ASSERT_EQ(r.status, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("stop"), "eos");
    EXPECT_EQ(j.at("tokens").size(), promptTokens) << "the EOS token is not part of the text";
    EXPECT_EQ(j.at("text"), "def add(a, b):\n");
    // --ignore-eos generates past it.
    r = clitest::run("generate --model '" + eosModel.string() + "'" + common + " --max-new-tokens 5 --ignore-eos");
    ASSERT_EQ(r.status, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("stop"), "length");
    EXPECT_EQ(j.at("tokens").size(), promptTokens + 5);
    EXPECT_EQ(j.at("tokens")[promptTokens].at("id"), first);

    // context: tiny-gpt2's context is 128 tokens; the last token is predicted from a full context.
    r = clitest::run("generate --model " + tinyModel() + common + " --max-new-tokens 500 --ignore-eos");
    ASSERT_EQ(r.status, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("stop"), "context");
    EXPECT_EQ(j.at("tokens").size(), 129u);
}

TEST(CliModel, ModelFromTheHuggingFaceCache)
{
    namespace fs = std::filesystem;
    const fs::path hub = clitest::tempDir() / "hub";
    const fs::path repo = hub / "models--acme--tiny-gpt2";
    const fs::path src = ascviz::testdata::fixtureModel("tiny-gpt2");
    // The hub's layout: files are symlinks into blobs/; refs/main names the snapshot.
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots/0a1b2c");
    fs::create_directories(repo / "snapshots/ffffff"); // newer but not refs/main, and empty
    fs::create_directories(repo / "refs");
    std::ofstream(repo / "refs/main") << "0a1b2c";
    for (const auto& e : fs::directory_iterator(src)) {
        const fs::path blob = repo / "blobs" / ("blob-" + e.path().filename().string());
        fs::copy_file(e.path(), blob);
        fs::create_symlink(fs::path("../../blobs") / blob.filename(), repo / "snapshots/0a1b2c" / e.path().filename());
    }
    setenv("HF_HUB_CACHE", hub.c_str(), 1);
    const auto file = clitest::writeTemp("hf.py", "x = 1\n");
    auto r = clitest::run("score --model acme/tiny-gpt2 --text-file '" + file.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("model"), "acme/tiny-gpt2");
    const auto direct = clitest::run("score --model " + tinyModel() + " --text-file '" + file.string() + "'");
    EXPECT_EQ(nlohmann::json::parse(r.out).at("tokens"), nlohmann::json::parse(direct.out).at("tokens"));

    r = clitest::run("score --model acme/absent --text-file '" + file.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find((hub / "models--acme--absent").string()), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    unsetenv("HF_HUB_CACHE");
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

// `models` lists every family the decoder runs (issue 41), the same list the load error names.
TEST(CliModel, ModelsListsEveryFamilyWithItsOptions)
{
    const auto r = clitest::run("models --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto families = nlohmann::json::parse(r.out).at("families");
    std::vector<std::string> types;
    for (const auto& f : families) {
        types.push_back(f.at("model_type").get<std::string>());
        EXPECT_FALSE(f.at("honours").get<std::string>().empty()) << f.dump();
    }
    for (const char* t : {"gpt2",     "llama", "qwen2",   "qwen3",    "mistral",   "gemma",     "gemma2", "gemma3_text",
                          "phi3",     "phi",   "gptj",    "stablelm", "granite",   "olmo2",     "olmo3",  "smollm3",
                          "seed_oss", "cwm",   "exaone4", "mixtral",  "qwen2_moe", "qwen3_moe", "mellum", "gpt_oss"})
        EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t << " missing from " << r.out;
    // A config of another model_type is refused naming every listed family.
    namespace fs = std::filesystem;
    const fs::path dir = clitest::tempDir() / "unknown-family";
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << R"({"model_type": "not_a_family"})";
    const auto bad = clitest::run("score --model " + clitest::quoted(dir) + " --text-file /dev/null");
    EXPECT_EQ(bad.status, 1) << bad.err;
    for (const std::string& t : types)
        EXPECT_NE(bad.err.find(t), std::string::npos) << t << " missing from: " << bad.err;
    const auto text = clitest::run("models");
    EXPECT_EQ(text.status, 0);
    EXPECT_NE(text.out.find("  gemma2      sandwich norms"), std::string::npos) << text.out;
}

// generate --prompts (issue 56's interface): JSON Lines in, one line out per prompt in order with its id; greedy
// results equal one generate per prompt; a malformed line names file:line and nothing is generated.
TEST(CliModel, GenerateManyPromptsEqualsOneByOne)
{
    const std::string a = "def add(a, b):\n", b = "import os\n\n\ndef main():\n    \u00e9t\u00e9 = \"\U0001F600\"\n";
    const auto prompts = clitest::writeTemp("prompts.jsonl", nlohmann::json{{"id", "first"}, {"prompt", a}}.dump() +
                                                                 "\n\n" + nlohmann::json{{"prompt", b}}.dump() + "\n" +
                                                                 nlohmann::json{{"id", 7}, {"prompt", a}}.dump());
    const std::string common = " --model default --max-new-tokens 6 --greedy";
    const auto many = clitest::run("generate --prompts '" + prompts.string() + "'" + common);
    ASSERT_EQ(many.status, 0) << many.err;
    std::vector<nlohmann::json> lines;
    std::istringstream in(many.out);
    for (std::string l; std::getline(in, l);)
        lines.push_back(nlohmann::json::parse(l));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].at("id"), "first");
    EXPECT_TRUE(lines[1].at("id").is_null());
    EXPECT_EQ(lines[2].at("id"), 7);
    const std::string texts[] = {a, b, a};
    for (std::size_t i = 0; i < 3; ++i) {
        const auto file = clitest::writeTemp("prompt" + std::to_string(i) + ".py", texts[i]);
        const auto one = clitest::run("generate --prompt-file '" + file.string() + "'" + common);
        ASSERT_EQ(one.status, 0) << one.err;
        const auto single = nlohmann::json::parse(one.out);
        const auto& batched = lines[i];
        EXPECT_EQ(batched.at("text"), single.at("text")) << "prompt " << i;
        EXPECT_EQ(batched.at("stop"), single.at("stop"));
        EXPECT_EQ(batched.at("prompt_tokens"), single.at("prompt_tokens"));
        ASSERT_EQ(batched.at("tokens").size(), single.at("tokens").size());
        for (std::size_t t = 0; t < single.at("tokens").size(); ++t) {
            const auto &x = batched.at("tokens")[t], &y = single.at("tokens")[t];
            EXPECT_EQ(x.at("id"), y.at("id"));
            EXPECT_EQ(x.at("start"), y.at("start"));
            EXPECT_EQ(x.at("generated"), y.at("generated"));
            if (y.at("ntp").is_null())
                EXPECT_TRUE(x.at("ntp").is_null());
            else
                EXPECT_NEAR(x.at("ntp").get<double>(), y.at("ntp").get<double>(), 1e-9);
        }
    }

    const auto bad = clitest::writeTemp("bad-prompts.jsonl", "{\"prompt\": \"x\"}\n{\"prompt\": 5}\n");
    const auto refused = clitest::run("generate --prompts '" + bad.string() + "'" + common);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("bad-prompts.jsonl:2: \"prompt\" is not a string"), std::string::npos) << refused.err;
    EXPECT_TRUE(refused.out.empty());
    const auto both = clitest::run("generate --prompts '" + bad.string() + "' --prompt-file x.py" + common);
    EXPECT_EQ(both.status, 2);
}
