// The GUI's side of .ascviz session files: the same data with Qt strings and the Interactive page's
// origin and generation options. The file format lives in core (ascviz/results/session.h); this adapter
// only converts.
#pragma once
#include "common/analysis.h"

#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"
#include "ascviz/results/session.h"

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

ascviz::SessionData toCore(const SessionData& s);
SessionData fromCore(ascviz::SessionData s);

nlohmann::json sessionToJson(const SessionData& s);
// Throws InputError with the field that is wrong.
SessionData sessionFromJson(const nlohmann::json& j);

// Throws InputError when the file cannot be written / read / parsed.
void writeSessionFile(const QString& path, const SessionData& s);
SessionData readSessionFile(const QString& path);

} // namespace ascviz::ui
