#include "common/session.h"

#include "common/textpos.h"

namespace ascviz::ui {

ascviz::SessionData toCore(const SessionData& s)
{
    ascviz::SessionData c;
    c.prompt = toUtf8(s.prompt);
    c.aggregation = s.aggregation;
    c.categoryFile = toUtf8(s.categoryFile);
    c.generation.maxNewTokens = s.generation.maxNewTokens;
    c.generation.greedy = s.generation.greedy;
    c.generation.temperature = s.generation.temperature;
    c.generation.topP = s.generation.topP;
    c.generation.topK = s.generation.topK;
    c.generation.seed = s.generation.seed;
    c.view = toUtf8(s.view);
    c.origin = s.origin == AnalysisOrigin::Generated ? SessionOrigin::Generated : SessionOrigin::Scored;
    c.cancelled = s.cancelled;
    c.modelName = toUtf8(s.modelName);
    c.modelDir = toUtf8(s.modelDir);
    c.architecture = toUtf8(s.architecture);
    c.scored = s.scored;
    return c;
}

SessionData fromCore(ascviz::SessionData c)
{
    SessionData s;
    s.prompt = toQString(c.prompt);
    s.aggregation = c.aggregation;
    s.categoryFile = toQString(c.categoryFile);
    s.generation.maxNewTokens = c.generation.maxNewTokens;
    s.generation.greedy = c.generation.greedy;
    s.generation.temperature = c.generation.temperature;
    s.generation.topP = c.generation.topP;
    s.generation.topK = c.generation.topK;
    s.generation.seed = c.generation.seed;
    s.view = toQString(c.view);
    s.origin = c.origin == SessionOrigin::Generated ? AnalysisOrigin::Generated : AnalysisOrigin::Scored;
    s.cancelled = c.cancelled;
    s.modelName = toQString(c.modelName);
    s.modelDir = toQString(c.modelDir);
    s.architecture = toQString(c.architecture);
    s.scored = std::move(c.scored);
    return s;
}

nlohmann::json sessionToJson(const SessionData& s)
{
    return ascviz::sessionToJson(toCore(s));
}
SessionData sessionFromJson(const nlohmann::json& j)
{
    return fromCore(ascviz::sessionFromJson(j));
}

void writeSessionFile(const QString& path, const SessionData& s)
{
    ascviz::writeSessionFile(std::filesystem::path(toUtf8(path)), toCore(s));
}

SessionData readSessionFile(const QString& path)
{
    return fromCore(ascviz::readSessionFile(std::filesystem::path(toUtf8(path))));
}

} // namespace ascviz::ui
