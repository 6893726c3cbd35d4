// The study file: JSON schema "ascviz-study" version 1 with the stored evaluations (docs/study.md).
#include "ascviz/eval/evaluate.h"
#include "ascviz/study/study.h"
#include "study_internal.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <type_traits>
#include <utility>

namespace ascviz {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& what)
{
    throw InputError("study file: " + what);
}

template <class T> T field(const json& j, const char* key, const std::string& where)
{
    if (!j.is_object() || !j.contains(key))
        bad("missing \"" + std::string(key) + "\" in " + where);
    const json& v = j.at(key);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        // A JSON integer in T's range only: nlohmann's get<T>() of a float such as 5e19 converts it to T,
        // undefined behaviour (found by the study fuzz target: a token id of 50777777777777777777).
        if (v.is_number_unsigned() && std::in_range<T>(v.get<uint64_t>()))
            return static_cast<T>(v.get<uint64_t>());
        if (v.is_number_integer() && std::in_range<T>(v.get<int64_t>()))
            return static_cast<T>(v.get<int64_t>());
        bad("\"" + std::string(key) + "\" in " + where + " is not an integer in range");
    } else {
        try {
            return v.get<T>();
        } catch (const json::exception&) {
            bad("\"" + std::string(key) + "\" in " + where + " has the wrong type");
        }
    }
}

// An optional integer field (field's checks) or its default.
template <class T> T integerOr(const json& j, const char* key, T fallback, const std::string& where)
{
    return j.is_object() && j.contains(key) ? field<T>(j, key, where) : fallback;
}

// The sample's evaluation from its stored JSON: the tree and alignment are recomputed from the text (the
// parser is deterministic), the node values are the stored ones; a tree that differs is refused.
std::shared_ptr<const EvalResult> evalFromJson(const std::string& code, const std::string& language, Aggregation agg,
                                               const json& ej, const std::string& where)
{
    ScoredText s;
    s.model = ej.value("model", std::string());
    s.text = code;
    s.promptBytes = integerOr<std::size_t>(ej, "prompt_bytes", code.size(), where);
    s.promptTokens = integerOr<std::size_t>(ej, "prompt_tokens", 0, where);
    const json tokens = ej.value("tokens", json::array());
    if (!tokens.is_array())
        bad(where + ": \"tokens\" must be an array");
    for (const json& tj : tokens) {
        ScoredToken t;
        t.id = field<int32_t>(tj, "id", where + " token");
        t.start = field<std::size_t>(tj, "start", where + " token");
        t.end = field<std::size_t>(tj, "end", where + " token");
        if (t.start > t.end || t.end > code.size())
            bad(where + ": a token's span is outside the code");
        if (tj.contains("ntp") && !tj.at("ntp").is_null())
            t.ntp = field<double>(tj, "ntp", where + " token");
        t.generated = tj.value("generated", false);
        s.tokens.push_back(std::move(t));
    }
    EvalRequest req;
    req.language = language;
    req.aggregation = agg;
    auto r = std::make_shared<EvalResult>(evaluateScores(std::move(s), req));
    const json nodes = ej.value("nodes", json::array());
    if (!nodes.is_array() || nodes.size() != r->nodes.size())
        bad(where + ": the stored AST has " + std::to_string(nodes.size()) + " nodes, this build parses " +
            std::to_string(r->nodes.size()));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].value("type", std::string()) != r->tree.nodes()[i].type)
            bad(where + ": stored AST node " + std::to_string(i) + " is '" + nodes[i].value("type", std::string()) +
                "', this build parses '" + r->tree.nodes()[i].type + "'");
        const json& v = nodes[i].contains("asc_eval") ? nodes[i].at("asc_eval") : json(nullptr);
        r->nodes[i].value = v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
    }
    return r;
}

} // namespace

json studyToJson(const Study& s)
{
    json questions = json::array();
    for (const auto& q : s.questions)
        questions.push_back({{"id", q.id}, {"text", q.text}, {"points", q.points()}, {"labels", q.labels}});
    json samples = json::array();
    for (const auto& sm : s.samples)
        samples.push_back({{"id", sm.id},
                           {"language", sm.language},
                           {"code", sm.eval->scored.text},
                           {"eval", evalResultJson(*sm.eval)}});
    json participants = assignmentJson(s).at("participants");
    json out{{"format", "ascviz-study"},
             {"version", kStudyVersion},
             {"id", s.id},
             {"title", s.title},
             {"created", s.created},
             {"fingerprint", s.fingerprint()},
             {"model", s.model},
             {"source", s.source},
             {"seed", s.seed},
             {"aggregation", toString(s.aggregation)},
             {"conditions", s.conditions},
             {"questions", std::move(questions)},
             {"participant_mode", {{"exit_key", s.exitKey}, {"comments", s.allowComments}}},
             {"samples", std::move(samples)},
             {"participants", std::move(participants)}};
    // Written only when used, so that files of studies without them stay as they were.
    if (s.design != StudyDesignKind::Within)
        out["design"] = toString(s.design);
    if (!s.background.empty())
        out["background"] = backgroundToJson(s.background);
    return out;
}

namespace {

Study studyFromJsonUnchecked(const json& j)
{
    if (!j.is_object() || j.value("format", std::string()) != "ascviz-study")
        throw InputError("not an AsC-Viz study file (no \"format\": \"ascviz-study\")");
    const int version = integerOr<int>(j, "version", 0, "the study");
    if (version > kStudyVersion)
        throw InputError("study file version " + std::to_string(version) +
                         " is newer than this AsC-Viz reads (version " + std::to_string(kStudyVersion) +
                         "); open it with a newer AsC-Viz");
    if (version < 1)
        bad("\"version\" must be a positive integer");
    Study s;
    s.id = field<std::string>(j, "id", "the study");
    s.title = j.value("title", std::string());
    s.created = j.value("created", std::string());
    s.model = j.value("model", std::string());
    s.source = j.value("source", std::string());
    s.seed = integerOr<uint64_t>(j, "seed", 0, "the study");
    s.aggregation = parseAggregation(j.value("aggregation", std::string("median")));
    s.conditions = field<std::vector<std::string>>(j, "conditions", "the study");
    for (const json& qj : field<json>(j, "questions", "the study")) {
        StudyQuestion q;
        q.id = field<std::string>(qj, "id", "a question");
        q.text = field<std::string>(qj, "text", "question " + q.id);
        q.labels = field<std::vector<std::string>>(qj, "labels", "question " + q.id);
        s.questions.push_back(std::move(q));
    }
    try {
        checkConditions(s.conditions);
        checkQuestions(s.questions);
    } catch (const InputError& e) {
        bad(e.what());
    }
    try {
        s.design = parseStudyDesign(j.value("design", std::string("within")));
        if (j.contains("background"))
            s.background = backgroundFromJson(j.at("background"));
    } catch (const InputError& e) {
        bad(e.what());
    }
    const json pm = j.value("participant_mode", json::object());
    s.exitKey = pm.value("exit_key", s.exitKey);
    s.allowComments = pm.value("comments", true);

    std::set<std::string> sampleIds;
    for (const json& sj : field<json>(j, "samples", "the study")) {
        StudySample sm;
        sm.id = field<std::string>(sj, "id", "a sample");
        const std::string where = "sample '" + sm.id + "'";
        if (!sampleIds.insert(sm.id).second)
            bad("two samples have the id '" + sm.id + "'");
        const auto* lang = LanguageRegistry::instance().find(field<std::string>(sj, "language", where));
        if (!lang)
            bad(where + ": language '" + sj.value("language", std::string()) + "' is not in this build's registry");
        sm.language = lang->id;
        const std::string code = field<std::string>(sj, "code", where);
        if (findInvalidUtf8(code))
            bad(where + ": the code is not valid UTF-8");
        if (!sj.contains("eval"))
            bad(where + ": missing its stored evaluation (\"eval\")");
        sm.eval = evalFromJson(code, sm.language, s.aggregation, sj.at("eval"), where);
        s.samples.push_back(std::move(sm));
    }
    std::set<std::string> pids;
    for (const json& pj : field<json>(j, "participants", "the study")) {
        StudyParticipant p;
        p.id = field<std::string>(pj, "id", "a participant");
        if (p.id.empty())
            bad("a participant has an empty id");
        if (!pids.insert(p.id).second)
            bad("two participants have the id '" + p.id + "'");
        for (const json& tj : field<json>(pj, "trials", "participant " + p.id)) {
            StudyTrial t;
            t.sample = field<int>(tj, "sample", "a trial of participant " + p.id);
            t.condition = field<std::string>(tj, "condition", "a trial of participant " + p.id);
            if (t.sample < 0 || t.sample >= int(s.samples.size()))
                bad("participant " + p.id + " has a trial of sample " + std::to_string(t.sample) +
                    ", which is missing (" + std::to_string(s.samples.size()) + " samples)");
            if (std::find(s.conditions.begin(), s.conditions.end(), t.condition) == s.conditions.end())
                bad("participant " + p.id + " has a trial under condition '" + t.condition +
                    "', which is not one of the study's");
            p.trials.push_back(std::move(t));
        }
        s.participants.push_back(std::move(p));
    }
    if (s.participants.empty())
        bad("no participants");
    const std::string stored = j.value("fingerprint", std::string());
    if (!stored.empty() && stored != s.fingerprint())
        bad("its content does not match its fingerprint " + stored + " (edited by hand?); recreate the study");
    return s;
}

} // namespace

Study studyFromJson(const json& j)
{
    // A value of the wrong JSON type read with a default (`j.value("title", ...)` of 7, a
    // "participant_mode" that is not an object, ...) throws the JSON library's type_error: bad input like any
    // other, an InputError (found in review while writing the study fuzz target; its replay of
    // tests/fuzz/regressions/study/ aborted on them before this catch).
    try {
        return studyFromJsonUnchecked(j);
    } catch (const json::exception& e) {
        bad(std::string("a value has the wrong type: ") + e.what());
    }
}

json assignmentJson(const Study& s)
{
    json participants = json::array(); // the one place the participants' trials become JSON
    for (const auto& p : s.participants) {
        json trials = json::array();
        for (const auto& t : p.trials)
            trials.push_back({{"sample", t.sample}, {"condition", t.condition}});
        participants.push_back({{"id", p.id}, {"trials", std::move(trials)}});
    }
    return json{{"study", s.id},
                {"conditions", s.conditions},
                {"samples", s.samples.size()},
                {"participants", std::move(participants)}};
}

void writeStudyFile(const fs::path& path, const Study& s, bool overwrite)
{
    const std::string file = path.string();
    std::error_code ec;
    if (!overwrite && fs::exists(path, ec))
        throw InputError("the study file " + file + " exists already; not overwritten (choose another name)");
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw InputError("cannot write the study file " + file);
        out << studyToJson(s).dump(1, ' ', false, json::error_handler_t::replace) << '\n';
        if (!out)
            throw InputError("failed writing the study file " + file);
    }
    fs::rename(tmp, path, ec);
    if (ec)
        throw InputError("cannot write the study file " + file + ": " + ec.message());
}

Study readStudyFile(const fs::path& path)
{
    return studyFromText(readUtf8File(path), path.string());
}

Study studyFromText(std::string_view text, const std::string& file)
{
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) { // parse_error, and out_of_range for a number beyond double (1e4000)
        throw InputError("the study file " + file + " is not valid JSON: " + e.what());
    }
    try {
        return studyFromJson(j);
    } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
    }
}

} // namespace ascviz
