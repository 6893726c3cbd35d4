#include "ascviz/results/session.h"

#include "ascviz/base/error.h"
#include "ascviz/base/sha256.h"
#include "ascviz/base/utf8.h"

#include <algorithm>
#include <fstream>

namespace ascviz {

using nlohmann::json;

namespace {

const char* originName(SessionOrigin o)
{
    return o == SessionOrigin::Generated ? "generated" : "scored";
}

SessionOrigin parseOrigin(const std::string& s)
{
    return s == "generated" ? SessionOrigin::Generated : SessionOrigin::Scored;
}

template <class T> T field(const json& j, const char* key, const char* where)
{
    if (!j.is_object() || !j.contains(key))
        throw InputError(std::string("session file: missing \"") + key + "\" in " + where);
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        throw InputError(std::string("session file: \"") + key + "\" in " + where + " has the wrong type");
    }
}

json orNull(const std::string& s)
{
    return s.empty() ? json(nullptr) : json(s);
}

// A setting the file does not record: `missing` names it (the reader uses its current value).
std::string recorded(const json& j, const char* key, const char* name, std::vector<std::string>& missing)
{
    if (j.is_object() && j.contains(key) && j.at(key).is_string() && !j.at(key).get<std::string>().empty())
        return j.at(key).get<std::string>();
    missing.emplace_back(name);
    return {};
}

template <class T> T fieldOr(const json& j, const char* key, T fallback)
{
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null())
        return fallback;
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        return fallback;
    }
}

} // namespace

json sessionToJson(const SessionData& s)
{
    json tokens = json::array();
    for (const auto& t : s.scored.tokens) {
        json alts = json::array();
        for (const auto& a : t.top)
            alts.push_back({{"id", a.id}, {"text", a.text}, {"prob", a.prob}});
        tokens.push_back({{"id", t.id},
                          {"start", t.start},
                          {"end", t.end},
                          {"ntp", t.ntp ? json(*t.ntp) : json(nullptr)},
                          {"generated", t.generated},
                          {"top", std::move(alts)}});
    }
    const SessionGeneration& g = s.generation;
    return json{{"format", "ascviz-session"},
                {"version", kSessionVersion},
                {"model",
                 {{"name", s.modelName},
                  {"dir", s.modelDir},
                  {"architecture", s.architecture},
                  {"dtype", orNull(s.modelDtype)},
                  {"fingerprint", orNull(s.modelFingerprint)}}},
                {"prompt", s.prompt},
                {"settings",
                 {{"language", orNull(s.language)},
                  {"aggregation", toString(s.aggregation)},
                  {"category_file", orNull(s.categoryFile)},
                  {"category_sha256", orNull(s.categorySha256)},
                  {"category_table", orNull(s.categoryTable)},
                  {"view", s.view},
                  {"generation",
                   {{"max_new_tokens", g.maxNewTokens},
                    {"greedy", g.greedy},
                    {"temperature", g.temperature},
                    {"top_p", g.topP},
                    {"top_k", g.topK},
                    {"seed", g.seed}}}}},
                {"result",
                 {{"origin", originName(s.origin)},
                  {"cancelled", s.cancelled},
                  {"model", s.scored.model},
                  {"text", s.scored.text},
                  {"prompt_bytes", s.scored.promptBytes},
                  {"prompt_tokens", s.scored.promptTokens},
                  {"asc_eval", s.ascEval ? json(*s.ascEval) : json(nullptr)},
                  {"tokens", std::move(tokens)}}}};
}

SessionData sessionFromJson(const json& j)
{
    if (!j.is_object() || fieldOr<std::string>(j, "format", "") != "ascviz-session")
        throw InputError("not an AsC-Viz session file (no \"format\": \"ascviz-session\")");
    const int version = fieldOr<int>(j, "version", 0);
    if (version > kSessionVersion)
        throw InputError("session file version " + std::to_string(version) + " is newer than this AsC-Viz supports (" +
                         std::to_string(kSessionVersion) + ")");
    SessionData s;
    s.version = std::max(version, 1); // a file without a version is a version 1 file
    s.prompt = field<std::string>(j, "prompt", "the session");
    const json model = j.value("model", json::object());
    s.modelName = fieldOr<std::string>(model, "name", "");
    s.modelDir = fieldOr<std::string>(model, "dir", "");
    s.architecture = fieldOr<std::string>(model, "architecture", "");
    s.modelFingerprint = recorded(model, "fingerprint", "model fingerprint", s.missing);
    s.modelDtype = recorded(model, "dtype", "model dtype", s.missing);

    const json settings = j.value("settings", json::object());
    s.language = recorded(settings, "language", "language", s.missing);
    s.aggregation = parseAggregation(fieldOr<std::string>(settings, "aggregation", "median"));
    s.categoryFile = fieldOr<std::string>(settings, "category_file", "");
    s.categorySha256 = recorded(settings, "category_sha256", "category checksum", s.missing);
    s.categoryTable = fieldOr<std::string>(settings, "category_table", "");
    if (!s.categoryTable.empty() && sha256Hex(s.categoryTable) != s.categorySha256)
        throw InputError("session file: \"category_table\" does not match \"category_sha256\" (edited by hand?)");
    s.view = fieldOr<std::string>(settings, "view", "sequence");
    const json gen = settings.value("generation", json::object());
    s.generation.maxNewTokens = fieldOr<int>(gen, "max_new_tokens", 64);
    s.generation.greedy = fieldOr<bool>(gen, "greedy", true);
    s.generation.temperature = fieldOr<double>(gen, "temperature", 1.0);
    s.generation.topP = fieldOr<double>(gen, "top_p", 1.0);
    s.generation.topK = fieldOr<int>(gen, "top_k", 0);
    s.generation.seed = fieldOr<uint64_t>(gen, "seed", 0);

    const json& r = j.contains("result") ? j.at("result") : throw InputError("session file: missing \"result\"");
    s.origin = parseOrigin(fieldOr<std::string>(r, "origin", "scored"));
    s.cancelled = fieldOr<bool>(r, "cancelled", false);
    s.scored.model = fieldOr<std::string>(r, "model", "");
    s.scored.text = field<std::string>(r, "text", "result");
    if (const auto bad = findInvalidUtf8(s.scored.text))
        throw InputError("session file: result text is not valid UTF-8 at byte " + std::to_string(*bad));
    s.scored.promptBytes = fieldOr<std::size_t>(r, "prompt_bytes", s.scored.text.size());
    s.scored.promptTokens = fieldOr<std::size_t>(r, "prompt_tokens", 0);
    if (r.contains("asc_eval") && !r.at("asc_eval").is_null())
        s.ascEval = field<double>(r, "asc_eval", "result");
    const json tokens = r.value("tokens", json::array());
    if (!tokens.is_array())
        throw InputError("session file: \"tokens\" must be an array");
    std::size_t index = 0;
    for (const json& tj : tokens) {
        const std::string where = "token " + std::to_string(index++);
        ScoredToken t;
        t.id = field<int32_t>(tj, "id", where.c_str());
        t.start = field<std::size_t>(tj, "start", where.c_str());
        t.end = field<std::size_t>(tj, "end", where.c_str());
        if (t.start > t.end || t.end > s.scored.text.size())
            throw InputError("session file: " + where + " has a span outside the text");
        if (tj.contains("ntp") && !tj.at("ntp").is_null())
            t.ntp = field<double>(tj, "ntp", where.c_str());
        t.generated = fieldOr<bool>(tj, "generated", false);
        for (const json& aj : tj.value("top", json::array())) {
            Alternative a;
            a.id = fieldOr<int32_t>(aj, "id", 0);
            a.text = fieldOr<std::string>(aj, "text", "");
            a.prob = fieldOr<double>(aj, "prob", 0.0);
            t.top.push_back(std::move(a));
        }
        s.scored.tokens.push_back(std::move(t));
    }
    return s;
}

void writeSessionFile(const std::filesystem::path& path, const SessionData& s)
{
    const std::string file = path.string();
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
        throw InputError("cannot write the session file " + file);
    out << sessionToJson(s).dump(1, ' ', false, json::error_handler_t::replace) << '\n';
    out.close();
    if (!out)
        throw InputError("failed writing the session file " + file);
}

SessionData readSessionFile(const std::filesystem::path& path)
{
    const std::string file = path.string();
    const std::string text = readUtf8File(file);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) { // parse_error, or out_of_range for a number like 1e400
        throw InputError("the session file " + file + " is not valid JSON: " + e.what());
    }
    try {
        return sessionFromJson(j);
    } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
    }
}

} // namespace ascviz
