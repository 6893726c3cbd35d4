// .ascviz session files: the prompt, the settings and the scored completion (tokens with their NtP and
// alternatives), enough to restore every view without running the model again.
#pragma once
#include "analysis.h"

#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"

#include <QString>

#include <nlohmann/json.hpp>

namespace ascviz::ui {

struct SessionData {
    QString prompt;
    Aggregation aggregation = Aggregation::Median;
    QString categoryFile; // empty = bundled
    GenerationOptions generation;
    QString view = QStringLiteral("sequence"); // sequence | partial | complete
    AnalysisOrigin origin = AnalysisOrigin::Scored;
    bool cancelled = false;
    QString modelName;
    QString modelDir;
    QString architecture;
    ScoredText scored;
};

constexpr int kSessionVersion = 1;

nlohmann::json sessionToJson(const SessionData& s);
// Throws InputError with the field that is wrong.
SessionData sessionFromJson(const nlohmann::json& j);

// Throws InputError when the file cannot be written / read / parsed.
void writeSessionFile(const QString& path, const SessionData& s);
SessionData readSessionFile(const QString& path);

} // namespace ascviz::ui
