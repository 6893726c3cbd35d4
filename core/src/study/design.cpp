// The between-subjects design and the background section (study.h, method.md §9).
#include "ascviz/base/error.h"
#include "ascviz/study/study.h"
#include "study_internal.h"

#include <cstdio>
#include <set>

namespace ascviz {

StudyDesignKind parseStudyDesign(const std::string& s)
{
    if (s == "within")
        return StudyDesignKind::Within;
    if (s == "between")
        return StudyDesignKind::Between;
    throw InputError("unknown study design '" + s + "' (within or between)");
}

std::string toString(StudyDesignKind d)
{
    return d == StudyDesignKind::Between ? "between" : "within";
}

std::vector<StudyParticipant> assignTrialsBetween(int samples, const std::vector<std::string>& conditions,
                                                  int participants, uint64_t seed)
{
    checkConditions(conditions);
    if (samples <= 0)
        throw InputError("a study needs at least one sample");
    if (participants <= 0)
        throw InputError("a study needs at least one participant");
    const int k = int(conditions.size());
    std::vector<StudyParticipant> out;
    const int width = participants >= 100 ? 3 : 2;
    std::vector<std::string> perm;
    for (int p = 0; p < participants; ++p) {
        if (p % k == 0) { // a new block of k participants: every condition once, in a seeded order
            perm = conditions;
            seededShuffle(perm, seed + uint64_t(p / k));
        }
        StudyParticipant sp;
        char id[16];
        std::snprintf(id, sizeof id, "P%0*d", width, p + 1);
        sp.id = id;
        for (int i = 0; i < samples; ++i)
            sp.trials.push_back({i, perm[std::size_t(p % k)]});
        seededShuffle(sp.trials, seed + 1 + uint64_t(p));
        out.push_back(std::move(sp));
    }
    return out;
}

std::vector<BackgroundQuestion> defaultBackgroundQuestions()
{
    const std::vector<std::string> level = {"None", "Beginner", "Intermediate", "Advanced", "Expert"};
    const std::vector<std::string> familiar = {"Not at all familiar", "Slightly familiar", "Moderately familiar",
                                               "Very familiar", "Extremely familiar"};
    return {
        {"python", "How proficient are you in Python?", "choice", level},
        {"llm", "How familiar are you with large language models for code generation (e.g., Copilot)?", "choice",
         familiar},
        {"ast", "How well do you know abstract syntax trees (ASTs)?", "choice", level},
        {"problems", "What problems have you faced when using language models for code?", "text", {}},
    };
}

void checkBackgroundQuestions(const std::vector<BackgroundQuestion>& qs)
{
    std::set<std::string> ids;
    for (const auto& q : qs) {
        if (q.id.empty())
            throw InputError("a background question has an empty id");
        if (!ids.insert(q.id).second)
            throw InputError("two background questions have the id '" + q.id + "'");
        if (q.kind == "choice") {
            const std::set<std::string> distinct(q.options.begin(), q.options.end());
            if (q.options.size() < 2 || distinct.size() != q.options.size())
                throw InputError("background question '" + q.id + "' needs 2 or more distinct options");
        } else if (q.kind != "text") {
            throw InputError("background question '" + q.id + "' has the kind '" + q.kind + "' (choice or text)");
        }
    }
}

nlohmann::json backgroundToJson(const std::vector<BackgroundQuestion>& qs)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& q : qs) {
        nlohmann::json o{{"id", q.id}, {"text", q.text}, {"kind", q.kind}};
        if (q.kind == "choice")
            o["options"] = q.options;
        a.push_back(std::move(o));
    }
    return a;
}

std::vector<BackgroundQuestion> backgroundFromJson(const nlohmann::json& j)
{
    if (!j.is_array())
        throw InputError("the background section must be a JSON array of questions");
    std::vector<BackgroundQuestion> out;
    try {
        for (const auto& qj : j) {
            BackgroundQuestion q;
            q.id = qj.at("id").get<std::string>();
            q.text = qj.value("text", std::string());
            q.kind = qj.value("kind", std::string("choice"));
            if (qj.contains("options"))
                q.options = qj.at("options").get<std::vector<std::string>>();
            out.push_back(std::move(q));
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("a background question is malformed: ") + e.what());
    }
    checkBackgroundQuestions(out);
    return out;
}

} // namespace ascviz
