#include "ascviz/results/session.h"

#include "ascviz/base/error.h"
#include "ascviz/base/sha256.h"
#include "ascviz/base/tokenspans.h"
#include "ascviz/base/utf8.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

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

// A JSON value as T: integers only from JSON integers within T's range (5e19 read as an int32_t would be
// undefined behaviour), nullopt for any other type or range.
template <class T> std::optional<T> as(const json& v)
{
    if constexpr (std::is_same_v<T, bool>) {
        if (v.is_boolean())
            return v.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
        if (v.is_number_unsigned()) {
            const auto u = v.get<uint64_t>();
            if (std::cmp_less_equal(u, std::numeric_limits<T>::max()))
                return static_cast<T>(u);
        } else if (v.is_number_integer()) {
            const auto i = v.get<int64_t>();
            if (std::in_range<T>(i))
                return static_cast<T>(i);
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        if (v.is_number())
            return v.get<T>();
    } else {
        if (v.is_string())
            return v.get<T>();
    }
    return std::nullopt;
}

template <class T> T field(const json& j, const char* key, const char* where)
{
    if (!j.is_object() || !j.contains(key))
        throw InputError(std::string("session file: missing \"") + key + "\" in " + where);
    if (const auto v = as<T>(j.at(key)))
        return *v;
    throw InputError(std::string("session file: \"") + key + "\" in " + where +
                     " has the wrong type (or is out of range)");
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
    return as<T>(j.at(key)).value_or(fallback);
}

void checkTokenCount(std::size_t tokens, std::size_t textBytes)
{
    if (tokens > textBytes + kSessionTokenSlack)
        throw InputError("session file: more tokens (" + std::to_string(tokens) + ") than its text of " +
                         std::to_string(textBytes) + " bytes can hold");
}

// Bounds the tokens and alternatives while the file is parsed, before they are built: "result" is at depth 1,
// its keys at 2, a token object at 3, its keys at 4, an alternative object at 5. A file written by AsC-Viz has
// "text" before "tokens" (sorted keys); one without gets its count checked after parsing.
class SessionParseBounds {
public:
    bool operator()(int depth, json::parse_event_t event, json& parsed)
    {
        using E = json::parse_event_t;
        if (event == E::key && parsed.is_string()) {
            if (depth == 1)
                m_key1 = parsed.get<std::string>();
            else if (depth == 2)
                m_key2 = parsed.get<std::string>();
            else if (depth == 4)
                m_key4 = parsed.get<std::string>();
        } else if (m_key1 != "result") {
            return true;
        } else if (event == E::value && depth == 2 && m_key2 == "text" && parsed.is_string()) {
            m_textBytes = parsed.get_ref<const std::string&>().size();
        } else if (event == E::object_start && depth == 3 && m_key2 == "tokens") {
            ++m_tokens;
            m_alternatives = 0;
            if (m_textBytes)
                checkTokenCount(m_tokens, *m_textBytes);
        } else if (event == E::object_start && depth == 5 && m_key2 == "tokens" && m_key4 == "top") {
            if (++m_alternatives > kMaxSessionAlternatives)
                throw InputError("session file: token " + std::to_string(m_tokens - 1) + " has more than " +
                                 std::to_string(kMaxSessionAlternatives) + " alternatives");
        }
        return true;
    }

private:
    std::string m_key1, m_key2, m_key4;
    std::optional<std::size_t> m_textBytes;
    std::size_t m_tokens = 0, m_alternatives = 0;
};

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
        // The uncertainty of the same forward pass (issue 59), where the scores hold it.
        if (const auto& u = t.uncertainty)
            tokens.back()["uncertainty"] = {{"entropy", u->entropy},
                                            {"topk_entropy", u->topkEntropy},
                                            {"p1", u->p1},
                                            {"margin", u->margin},
                                            {"rank", u->rank}};
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
                  {"aggregation_scope", toString(s.aggregationScope)},
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

namespace {

SessionData sessionFromJsonChecked(const json& j)
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
    s.aggregationScope = parseAggregationScope(fieldOr<std::string>(settings, "aggregation_scope", "tokens"));
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
    if (s.scored.promptBytes > s.scored.text.size())
        throw InputError("session file: \"prompt_bytes\" " + std::to_string(s.scored.promptBytes) +
                         " is beyond the end of the text (" + std::to_string(s.scored.text.size()) + " bytes)");
    if (r.contains("asc_eval") && !r.at("asc_eval").is_null()) {
        s.ascEval = field<double>(r, "asc_eval", "result");
        if (!isValidNtp(*s.ascEval))
            throw InputError("session file: \"asc_eval\" is not within [0, 1]");
    }
    const json tokens = r.value("tokens", json::array());
    if (!tokens.is_array())
        throw InputError("session file: \"tokens\" must be an array");
    checkTokenCount(tokens.size(), s.scored.text.size());
    if (s.scored.promptTokens > tokens.size())
        throw InputError("session file: \"prompt_tokens\" " + std::to_string(s.scored.promptTokens) +
                         " is more than its " + std::to_string(tokens.size()) + " tokens");
    s.scored.tokens.reserve(tokens.size());
    std::size_t index = 0;
    for (const json& tj : tokens) {
        const std::string where = "token " + std::to_string(index++);
        ScoredToken t;
        t.id = field<int32_t>(tj, "id", where.c_str());
        t.start = field<std::size_t>(tj, "start", where.c_str());
        t.end = field<std::size_t>(tj, "end", where.c_str());
        if (t.start > t.end || t.end > s.scored.text.size())
            throw InputError("session file: " + where + " has a span outside the text");
        if (tj.contains("ntp") && !tj.at("ntp").is_null()) {
            t.ntp = field<double>(tj, "ntp", where.c_str());
            if (!isValidNtp(*t.ntp))
                throw InputError("session file: " + where + " has ntp outside [0, 1]");
        }
        t.generated = fieldOr<bool>(tj, "generated", false);
        const json top = tj.value("top", json::array());
        if (top.is_array() && top.size() > kMaxSessionAlternatives)
            throw InputError("session file: " + where + " has " + std::to_string(top.size()) +
                             " alternatives, over the limit of " + std::to_string(kMaxSessionAlternatives));
        for (const json& aj : top) {
            Alternative a;
            a.id = fieldOr<int32_t>(aj, "id", 0);
            a.text = fieldOr<std::string>(aj, "text", "");
            a.prob = fieldOr<double>(aj, "prob", 0.0);
            if (!isValidNtp(a.prob))
                throw InputError("session file: " + where + " has an alternative's prob outside [0, 1]");
            t.top.push_back(std::move(a));
        }
        if (tj.contains("uncertainty") && !tj.at("uncertainty").is_null()) {
            const json& uj = tj.at("uncertainty");
            const std::string uwhere = where + "'s uncertainty";
            TokenUncertainty u;
            u.entropy = field<double>(uj, "entropy", uwhere.c_str());
            u.topkEntropy = field<double>(uj, "topk_entropy", uwhere.c_str());
            u.p1 = field<double>(uj, "p1", uwhere.c_str());
            u.margin = field<double>(uj, "margin", uwhere.c_str());
            u.rank = field<int64_t>(uj, "rank", uwhere.c_str());
            if (!(u.entropy >= 0.0) || !(u.topkEntropy >= 0.0) || !isValidNtp(u.p1) || !isValidNtp(u.margin) ||
                u.rank < 1)
                throw InputError("session file: " + where +
                                 " has an uncertainty outside its range (entropies >= 0, p1 and margin in [0, 1], "
                                 "rank >= 1)");
            t.uncertainty = u;
        }
        s.scored.tokens.push_back(std::move(t));
    }
    if (const auto problem = tokenSpanProblem(s.scored))
        throw InputError("session file: " + *problem);
    return s;
}

} // namespace

SessionData sessionFromJson(const json& j)
{
    try {
        return sessionFromJsonChecked(j);
    } catch (const json::exception& e) { // a value of another type than its place takes ("settings": 5)
        throw InputError(std::string("session file: a value of the wrong type (") + e.what() + ")");
    }
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

SessionData sessionFromText(const std::string& text, const std::string& file)
{
    json j;
    try {
        j = json::parse(text, SessionParseBounds());
    } catch (const json::exception& e) { // parse_error, or out_of_range for a number like 1e400
        throw InputError("the session file " + file + " is not valid JSON: " + e.what());
    } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
    }
    try {
        return sessionFromJson(j);
    } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
    }
}

SessionData readSessionFile(const std::filesystem::path& path)
{
    const std::string file = path.string();
    return sessionFromText(readUtf8File(file, kMaxSessionFileBytes, "the session file"), file);
}

} // namespace ascviz
