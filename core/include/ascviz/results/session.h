// .ascviz session files: the prompt, the settings and the scored completion (tokens with their NtP and
// alternatives), enough to restore every view without running the model again. Plain std types; the GUI
// reads and writes them directly. Version 2 also keeps what the numbers depend on, so that reopening gives
// exactly what was saved: the language, the category table (its path, checksum and text), the model's
// identity (fingerprint, model/fingerprint.h, and compute dtype) and the AsC-Eval that was shown.
#pragma once
#include "ascviz/base/generation.h"
#include "ascviz/base/scored.h"
#include "ascviz/eval/eval.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

// The generation settings a session records: the user's settings (base/generation.h), which the model's
// GenerationOptions extend.
using SessionGeneration = GenerationSettings;

enum class SessionOrigin { Generated, Scored };

struct SessionData {
    std::string prompt;
    std::string language; // registry id the text was parsed as ("" = not recorded: a version 1 file)
    Aggregation aggregation = Aggregation::Median;
    AggregationScope aggregationScope = AggregationScope::Tokens; // "aggregation_scope" (absent = tokens)
    std::string categoryFile;                                     // empty = bundled
    std::string categorySha256; // SHA-256 of the table's text when saved ("" = not recorded)
    std::string categoryTable;  // the table's JSON text when saved ("" = not recorded)
    SessionGeneration generation;
    std::string view = "sequence"; // sequence | partial | complete
    SessionOrigin origin = SessionOrigin::Scored;
    bool cancelled = false;
    std::string modelName;
    std::string modelDir;
    std::string architecture;
    std::string modelDtype;       // compute dtype ("" = not recorded)
    std::string modelFingerprint; // modelFingerprint() of the model folder ("" = not recorded)
    ScoredText scored;
    std::optional<double> ascEval; // the snippet's AsC-Eval when saved (nullopt: n/a or not recorded)

    // Set when read: the version of the file and what it did not record (the names of the settings above:
    // "language", "category checksum", "model fingerprint", "model dtype"), for the reader to say so.
    int version = 0;
    std::vector<std::string> missing;
};

constexpr int kSessionVersion = 2;

// Bounds of what a session file may hold, checked as it is read (before the tokens are allocated): the file's
// size (a session of the Interactive editor's longest text, 512 KiB, with 5 alternatives per token is some
// 70 MB), the tokens (no more than the text's bytes + kSessionTokenSlack: every token covers at least one byte)
// and the alternatives of one token.
inline constexpr std::size_t kMaxSessionFileBytes = std::size_t{128} << 20;
inline constexpr std::size_t kSessionTokenSlack = 64;
inline constexpr std::size_t kMaxSessionAlternatives = 1000;

nlohmann::json sessionToJson(const SessionData& s);
// Throws InputError with the field that is wrong: a missing or mistyped field, a token span outside the text,
// an NtP or alternative probability that is not a probability (isValidNtp, as eval --scores), more tokens or
// alternatives than the bounds above, a prompt longer than the text.
SessionData sessionFromJson(const nlohmann::json& j);

// Throws InputError when the file cannot be written / read / parsed (the message names the file), or is over
// kMaxSessionFileBytes.
void writeSessionFile(const std::filesystem::path& path, const SessionData& s);
SessionData readSessionFile(const std::filesystem::path& path);
// The same from the file's text (`file` names it in messages): parsed with the bounds above.
SessionData sessionFromText(const std::string& text, const std::string& file);

} // namespace ascviz
