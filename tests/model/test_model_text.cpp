// The text path (tokenizer + model): the bundled model against its Hugging Face reference, byte spans of
// scored and generated tokens, streaming, cancellation, and scoring from BOS.
#include "model_test_util.h"
#include "testdata.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace modeltest;
namespace fs = std::filesystem;

namespace {

fs::path bundled()
{
    return resourcesDir() / "models" / "ascviz-tiny-code";
}

const ascviz::LanguageModel& bundledModel()
{
    static const auto m = ascviz::LanguageModel::load(bundled(), cpuFloat32());
    return *m;
}

const ascviz::LanguageModel& tinyGpt2()
{
    static const auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32());
    return *m;
}

TEST(Bundled, NtpMatchesReference)
{
    const auto ref = readJson(bundled() / "reference.json");
    const auto input = ids(ref.at("input_ids"));
    const auto want = ref.at("ntp_fp32_from_fp16_weights").get<std::vector<double>>();
    const auto& m = bundledModel();
    EXPECT_EQ(m.info().parameters, ref.at("params").get<int64_t>());
    const auto got = m.scoreIds({input}).front();
    ASSERT_EQ(got.size(), want.size() + 1);
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(*got[i + 1], want[i], 1e-3) << "token " << i + 1;
    // Through the tokenizer: same ids, same NtPs, first token unscored (no BOS).
    const auto s = m.score(ref.at("text").get<std::string>());
    ASSERT_EQ(s.tokens.size(), input.size());
    EXPECT_FALSE(s.tokens[0].ntp.has_value());
    for (std::size_t i = 0; i < input.size(); ++i) {
        EXPECT_EQ(s.tokens[i].id, input[i]);
        if (i > 0) {
            ASSERT_TRUE(s.tokens[i].ntp.has_value());
            EXPECT_NEAR(*s.tokens[i].ntp, *got[i], 1e-6);
        }
    }
}

TEST(Bundled, GreedySamplesMatchReference)
{
    const auto ref = readJson(bundled() / "reference.json");
    const auto& m = bundledModel();
    for (const auto& sample : ref.at("samples")) {
        const auto prompt = ids(sample.at("prompt_ids"));
        const auto want = ids(sample.at("greedy_ids"));
        ascviz::GenerationOptions g;
        g.greedy = true;
        g.maxNewTokens = 48;
        g.stopAtEos = true;
        const auto got = m.generateIds(prompt, g);
        EXPECT_EQ(got, std::vector<int32_t>(want.begin() + static_cast<std::ptrdiff_t>(prompt.size()), want.end()));
        // Text level: the prompt encodes to the same ids and the completion decodes to the reference text
        // (which shows a final EOS as <|endoftext|>; generate() leaves EOS out of the text).
        const std::string promptText = sample.at("prompt").get<std::string>();
        const auto s = m.generate(promptText, g);
        std::string wantText = sample.at("text").get<std::string>();
        const std::string eos = "<|endoftext|>";
        if (wantText.size() >= eos.size() && wantText.compare(wantText.size() - eos.size(), eos.size(), eos) == 0)
            wantText.resize(wantText.size() - eos.size());
        EXPECT_EQ(s.text, wantText);
        EXPECT_EQ(s.promptTokens, prompt.size());
        EXPECT_EQ(s.promptBytes, promptText.size());
    }
}

TEST(Score, TokensCarrySpansNtpAndAlternatives)
{
    const auto ref = readJson(fixtureModel("tiny-gpt2") / "reference.json").at("cases").at(1);
    const std::string text = ref.at("text").get<std::string>();
    ascviz::ScoreOptions o;
    o.topK = 4;
    const auto s = tinyGpt2().score(text, o);
    EXPECT_EQ(s.model, "tiny-gpt2");
    EXPECT_EQ(s.text, text);
    EXPECT_EQ(s.promptBytes, text.size());
    ASSERT_EQ(s.tokens.size(), ref.at("input_ids").size());
    std::size_t pos = 0;
    const auto want = ref.at("ntp").get<std::vector<double>>();
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const auto& t = s.tokens[i];
        EXPECT_EQ(t.start, pos);
        EXPECT_GT(t.end, t.start);
        pos = t.end;
        EXPECT_FALSE(t.generated);
        if (i == 0) {
            EXPECT_FALSE(t.ntp.has_value());
            EXPECT_TRUE(t.top.empty());
            continue;
        }
        ASSERT_TRUE(t.ntp.has_value());
        EXPECT_NEAR(*t.ntp, want[i - 1], 1e-5);
        ASSERT_EQ(t.top.size(), 4u);
        for (std::size_t j = 1; j < t.top.size(); ++j)
            EXPECT_GE(t.top[j - 1].prob, t.top[j].prob);
        EXPECT_GE(t.top[0].prob, *t.ntp - 1e-7) << "the best alternative is at least as likely as the actual token";
        for (const auto& a : t.top)
            EXPECT_EQ(a.text, tinyGpt2().tokenizer().idToToken(a.id));
    }
    EXPECT_EQ(pos, text.size());
    EXPECT_NEAR(s.crossEntropy(), ref.at("cross_entropy").get<double>(), 1e-4);
}

TEST(Score, BatchEqualsOneByOne)
{
    const std::vector<std::string> texts = {"def f(x):\n    return x + 1\n", "import os\n", "", "x",
                                            "print('héllo wörld ✓')\n"};
    const auto batch = tinyGpt2().scoreBatch(texts);
    ASSERT_EQ(batch.size(), texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto one = tinyGpt2().score(texts[i]);
        ASSERT_EQ(batch[i].tokens.size(), one.tokens.size()) << i;
        EXPECT_EQ(batch[i].text, texts[i]);
        for (std::size_t j = 0; j < one.tokens.size(); ++j) {
            EXPECT_EQ(batch[i].tokens[j].id, one.tokens[j].id);
            EXPECT_EQ(batch[i].tokens[j].ntp.has_value(), one.tokens[j].ntp.has_value());
            if (one.tokens[j].ntp) {
                EXPECT_NEAR(*batch[i].tokens[j].ntp, *one.tokens[j].ntp, 1e-6);
            }
        }
    }
    EXPECT_TRUE(batch[2].tokens.empty());
}

// Generated tokens: spans are the bytes each token contributes (no gaps, covering the completion; tokens
// that split a character share its span); streamed pieces concatenate to the completion; the text stays
// valid UTF-8 (invalid byte sequences become U+FFFD as in Hugging Face's decode). Sampled hot so that odd
// byte tokens come up.
TEST(Generate, SpansStreamingAndUtf8)
{
    const auto& m = tinyGpt2();
    const std::string prompt = "def naïve(x):\n    ";
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        ascviz::GenerationOptions g;
        g.greedy = false;
        g.temperature = 2.0;
        g.seed = seed;
        g.maxNewTokens = 30;
        g.stopAtEos = false;
        std::string streamed;
        std::vector<ascviz::StreamedToken> events;
        const auto s = m.generate(prompt, g, [&](const ascviz::StreamedToken& t) {
            streamed += t.piece;
            events.push_back(t);
        });
        EXPECT_FALSE(ascviz::findInvalidUtf8(s.text).has_value()) << "seed " << seed;
        ASSERT_EQ(s.text.compare(0, prompt.size(), prompt), 0);
        EXPECT_EQ(s.promptBytes, prompt.size());
        const std::string completion = s.text.substr(prompt.size());
        EXPECT_EQ(streamed, completion) << "seed " << seed;
        ASSERT_EQ(s.tokens.size(), s.promptTokens + 30);
        ASSERT_EQ(events.size(), 30u);
        std::size_t pos = prompt.size();
        for (std::size_t i = 0; i < s.tokens.size(); ++i) {
            const auto& t = s.tokens[i];
            EXPECT_EQ(t.generated, i >= s.promptTokens);
            if (!t.generated)
                continue;
            const auto& e = events[i - s.promptTokens];
            EXPECT_EQ(e.id, t.id);
            EXPECT_EQ(e.index, static_cast<int>(i - s.promptTokens));
            ASSERT_TRUE(t.ntp.has_value());
            EXPECT_DOUBLE_EQ(e.ntp, *t.ntp);
            // No gaps; a token may share a character with the previous one (both get its span).
            EXPECT_LE(t.start, pos);
            EXPECT_GE(t.end, pos);
            pos = t.end;
            const std::string bytes = m.tokenizer().idToToken(t.id);
            if (!bytes.empty() && !ascviz::findInvalidUtf8(bytes)) {
                EXPECT_EQ(s.text.substr(t.start, t.end - t.start), bytes)
                    << "a whole-character token spans its own text";
            }
        }
        EXPECT_EQ(pos, s.text.size());
    }
}

TEST(Generate, PromptTokensAreTeacherForced)
{
    const auto& m = tinyGpt2();
    const std::string prompt = "def count_chars(string, character):\n";
    ascviz::GenerationOptions g;
    g.maxNewTokens = 5;
    g.stopAtEos = false;
    const auto s = m.generate(prompt, g);
    const auto scored = m.score(prompt);
    ASSERT_EQ(s.promptTokens, scored.tokens.size());
    for (std::size_t i = 0; i < s.promptTokens; ++i) {
        EXPECT_EQ(s.tokens[i].id, scored.tokens[i].id);
        EXPECT_EQ(s.tokens[i].start, scored.tokens[i].start);
        EXPECT_EQ(s.tokens[i].ntp.has_value(), scored.tokens[i].ntp.has_value());
        if (scored.tokens[i].ntp) {
            EXPECT_NEAR(*s.tokens[i].ntp, *scored.tokens[i].ntp, 1e-6);
        }
    }
    // The generated tokens' NtPs equal teacher-forced scoring of the whole id sequence.
    std::vector<int32_t> all;
    for (const auto& t : s.tokens)
        all.push_back(t.id);
    const auto tf = m.scoreIds({all}).front();
    for (std::size_t i = s.promptTokens; i < s.tokens.size(); ++i)
        EXPECT_NEAR(*s.tokens[i].ntp, *tf[i], 1e-5);
}

TEST(Generate, CancelStopsBetweenTokens)
{
    ascviz::CancelFlag cancel{false};
    ascviz::GenerationOptions g;
    g.maxNewTokens = 20;
    g.stopAtEos = false;
    int seen = 0;
    const auto s = tinyGpt2().generate(
        "import os\n", g,
        [&](const ascviz::StreamedToken&) {
            if (++seen == 3)
                cancel = true;
        },
        &cancel);
    EXPECT_EQ(seen, 3);
    EXPECT_EQ(s.tokens.size() - s.promptTokens, 3u);
}

TEST(Generate, EmptyPromptStartsFromEndOfText)
{
    ascviz::GenerationOptions g;
    g.maxNewTokens = 4;
    g.stopAtEos = false;
    const auto s = tinyGpt2().generate("", g);
    EXPECT_EQ(s.promptTokens, 0u);
    EXPECT_EQ(s.promptBytes, 0u);
    EXPECT_EQ(s.tokens.size(), 4u);
}

// With a tokenizer that adds BOS, the first text token is scored from BOS.
TEST(Score, ScoresTheFirstTokenFromBos)
{
    const fs::path d = ascviz::testdata::freshTempDir("bos"); // removed at exit
    for (const auto& e : fs::directory_iterator(fixtureModel("tiny-llama")))
        fs::copy_file(e.path(), d / e.path().filename());
    auto cfg = readJson(fixtureModel("tiny-llama") / "tokenizer_config.json");
    cfg["add_bos_token"] = true;
    fs::permissions(d / "tokenizer_config.json", fs::perms::owner_write, fs::perm_options::add);
    std::ofstream(d / "tokenizer_config.json", std::ios::trunc) << cfg.dump();
    const auto m = ascviz::LanguageModel::load(d, cpuFloat32());
    ASSERT_TRUE(m->tokenizer().addsBos());
    const int32_t bos = *m->tokenizer().bosId();
    const std::string text = "def f(x):\n    return x\n";
    const auto s = m->score(text);
    const auto enc = m->tokenizer().encode(text, false);
    ASSERT_EQ(s.tokens.size(), enc.ids.size()) << "BOS is not a token of the text";
    std::vector<int32_t> withBos = {bos};
    withBos.insert(withBos.end(), enc.ids.begin(), enc.ids.end());
    const auto ref = m->scoreIds({withBos}).front();
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        ASSERT_TRUE(s.tokens[i].ntp.has_value()) << i;
        EXPECT_NEAR(*s.tokens[i].ntp, *ref[i + 1], 1e-6);
    }
    fs::remove_all(d);
}

} // namespace

// Long texts report progress per forward pass and can be stopped between passes; the hooks change no NtP.
// tiny-gpt2's context is 128 ids: n ids are scored in 1 + ceil((n - 128) / 64) windows, packed up to 2048 ids
// (16 windows) per forward pass on the CPU.
TEST(Score, ProgressPerForwardPassAndCancel)
{
    std::string text;
    for (int i = 0; text.size() < 9000; ++i)
        text += "def f" + std::to_string(i) + "(x):\n    return x * " + std::to_string(i) + "\n";
    const auto plain = tinyGpt2().score(text);
    const std::size_t ids = plain.tokens.size() + (plain.tokens.front().ntp ? 1 : 0); // + BOS when scored from one
    ASSERT_GT(ids, 1100u) << "more than 16 windows: more than one forward pass";
    const std::size_t windows = 1 + (ids - 128 + 63) / 64;

    std::vector<std::pair<std::size_t, std::size_t>> calls;
    ascviz::ScoreOptions o;
    o.progress = [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); };
    const auto hooked = tinyGpt2().score(text, o);
    ASSERT_EQ(calls.size(), (windows + 15) / 16);
    EXPECT_EQ(calls.front().first, 16u);
    EXPECT_EQ(calls.back().first, windows);
    for (const auto& [done, total] : calls)
        EXPECT_EQ(total, windows);
    ASSERT_EQ(hooked.tokens.size(), plain.tokens.size());
    for (std::size_t i = 0; i < plain.tokens.size(); ++i)
        ASSERT_EQ(hooked.tokens[i].ntp, plain.tokens[i].ntp) << i;

    // Stopped after the first forward pass: Cancelled, no second pass.
    ascviz::CancelFlag cancel{false};
    o.cancel = &cancel;
    calls.clear();
    o.progress = [&](std::size_t done, std::size_t total) {
        calls.emplace_back(done, total);
        cancel = true;
    };
    EXPECT_THROW(tinyGpt2().score(text, o), ascviz::Cancelled);
    EXPECT_EQ(calls.size(), 1u);
}
