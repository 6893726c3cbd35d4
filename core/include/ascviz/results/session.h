// .ascviz session files: the prompt, the settings and the scored completion (tokens with their NtP and
// alternatives), enough to restore every view without running the model again. Plain std types; the GUI
// reads and writes them directly.
#pragma once
#include "ascviz/base/generation.h"
#include "ascviz/base/scored.h"
#include "ascviz/eval/eval.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace ascviz {

// The generation settings a session records: the user's settings (base/generation.h), which the model's
// GenerationOptions extend.
using SessionGeneration = GenerationSettings;

enum class SessionOrigin { Generated, Scored };

struct SessionData {
    std::string prompt;
    Aggregation aggregation = Aggregation::Median;
    std::string categoryFile; // empty = bundled
    SessionGeneration generation;
    std::string view = "sequence"; // sequence | partial | complete
    SessionOrigin origin = SessionOrigin::Scored;
    bool cancelled = false;
    std::string modelName;
    std::string modelDir;
    std::string architecture;
    ScoredText scored;
};

constexpr int kSessionVersion = 1;

nlohmann::json sessionToJson(const SessionData& s);
// Throws InputError with the field that is wrong.
SessionData sessionFromJson(const nlohmann::json& j);

// Throws InputError when the file cannot be written / read / parsed (the message names the file).
void writeSessionFile(const std::filesystem::path& path, const SessionData& s);
SessionData readSessionFile(const std::filesystem::path& path);

} // namespace ascviz
