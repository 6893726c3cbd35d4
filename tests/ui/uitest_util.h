// Helpers for the ui tests: test data paths and scored texts with the real tokenizer's offsets.
#pragma once
#include "ascviz/base/scored.h"
#include "ascviz/tokenizer/tokenizer.h"
#include "testdata.h"

#include <QByteArray>
#include <QString>
#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace uitest {

inline std::filesystem::path testData()
{
    return ascviz::testdata::dataDir();
}

inline std::filesystem::path tinyModel(const std::string& arch = "gpt2")
{
    return testData() / "fixtures" / "models" / ("tiny-" + arch);
}

inline QString tinyModelQ(const std::string& arch = "gpt2")
{
    return QString::fromStdString(tinyModel(arch).string());
}

// `text` tokenized by the tiny models' tokenizer, with NtP values made from the token index (a fixed,
// varied pattern over [0.02, 0.98]; the first token has none, as without BOS), tokens starting at or after
// `promptBytes` flagged generated, and two alternatives per token.
inline ascviz::ScoredText tokenizedText(const std::string& text, std::size_t promptBytes = std::string::npos)
{
    const auto tok = ascviz::Tokenizer::fromModelDir(tinyModel());
    const ascviz::Encoding enc = tok->encode(text);
    ascviz::ScoredText s;
    s.model = "hand-scored";
    s.text = text;
    s.promptBytes = std::min(promptBytes, text.size());
    for (std::size_t i = 0; i < enc.ids.size(); ++i) {
        ascviz::ScoredToken t;
        t.id = enc.ids[i];
        t.start = enc.offsets[i].first;
        t.end = enc.offsets[i].second;
        if (i > 0)
            t.ntp = 0.02 + 0.96 * double((i * 37) % 101) / 100.0;
        t.generated = t.start >= s.promptBytes;
        if (!t.generated)
            s.promptTokens = i + 1;
        t.top = {{t.id, enc.tokens[i], t.ntp.value_or(0.0)}, {7, "x", 0.01}};
        s.tokens.push_back(std::move(t));
    }
    return s;
}

} // namespace uitest
