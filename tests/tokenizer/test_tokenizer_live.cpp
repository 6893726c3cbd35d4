// Differential tokenizer test (live tier): >= 20,000 generated strings (code, random Unicode, emoji, CJK,
// combining marks, whitespace runs, CRLF, NUL, special-token lookalikes) encoded by Hugging Face `tokenizers`
// (tests/live/make_tokenizer_cases.py, the ctest fixture live_tokenizer_cases) with every fixture tokenizer
// and with tokenizers trained there; ids and UTF-8 byte offsets must be identical.
#include "ascviz/base/error.h"
#include "ascviz/tokenizer/tokenizer.h"
#include "tokenizer_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

std::string escaped(const std::string& s)
{
    std::string out;
    for (unsigned char c : s.substr(0, 120)) {
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

TEST(LiveTokenizer, IdsAndOffsetsMatchHuggingFace)
{
    const char* dirEnv = std::getenv("ASCVIZ_LIVE_TOKENIZER_CASES");
    ASSERT_TRUE(dirEnv) << "ASCVIZ_LIVE_TOKENIZER_CASES is not set";
    const std::filesystem::path dir = dirEnv;
    const auto manifest = toktest::readJson(dir / "manifest.json");
    // 8,000 generated strings a tokenizer (tests/tokenizer/CMakeLists.txt), on top of the corpus and fixed cases.
    ASSERT_GE(manifest.at("strings").get<int>(), 8000);
    std::size_t compared = 0, mismatches = 0;
    for (const auto& nameJ : manifest.at("tokenizers")) {
        const std::string name = nameJ;
        SCOPED_TRACE(name);
        std::shared_ptr<const ascviz::Tokenizer> tok;
        try {
            tok = ascviz::Tokenizer::fromFile(dir / (name + ".tokenizer.json"));
        } catch (const std::exception& e) {
            ADD_FAILURE() << name << ": " << e.what();
            continue;
        }
        const auto cases = toktest::readJson(dir / (name + ".cases.json")).at("cases");
        std::size_t shown = 0, bad = 0;
        for (const auto& c : cases) {
            const std::string text = c.at("text");
            const auto want = c.at("ids").get<std::vector<int32_t>>();
            std::vector<std::pair<std::size_t, std::size_t>> wantOffsets;
            for (const auto& o : c.at("offsets"))
                wantOffsets.emplace_back(o[0].get<std::size_t>(), o[1].get<std::size_t>());
            ++compared;
            std::string problem;
            try {
                const auto enc = tok->encode(text, false);
                if (enc.ids != want)
                    problem = "ids differ";
                else if (enc.offsets != wantOffsets)
                    problem = "offsets differ";
            } catch (const std::exception& e) {
                problem = std::string("threw: ") + e.what();
            }
            if (!problem.empty()) {
                ++bad;
                if (shown++ < 10)
                    ADD_FAILURE() << name << ": " << problem << " for \"" << escaped(text) << "\"";
            }
        }
        mismatches += bad;
        std::printf("tokenizer differential: %s: %zu strings, %zu mismatches\n", name.c_str(), cases.size(), bad);
    }
    std::printf("tokenizer differential (tokenizers %s): %zu encodings compared over %zu tokenizers, %zu mismatches\n",
                manifest.at("tokenizers_version").get<std::string>().c_str(), compared,
                manifest.at("tokenizers").size(), mismatches);
    EXPECT_EQ(mismatches, 0u);
}

} // namespace
