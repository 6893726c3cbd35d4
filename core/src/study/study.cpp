// The study design and its counterbalanced assignment (docs/study.md); the file is in studyfile.cpp.
#include "ascviz/study/study.h"
#include "ascviz/eval/evaluate.h"
#include "study_internal.h"

#include "ascviz/base/clock.h"
#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>

namespace ascviz {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Fnv {
    uint64_t h = 1469598103934665603ull;
    void add(const std::string& s)
    {
        for (unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ull;
        }
        h ^= 0xff; // a separator, so that "ab","c" differs from "a","bc"
        h *= 1099511628211ull;
    }
    std::string hex() const
    {
        char buf[17];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
        return buf;
    }
};

} // namespace

void checkQuestions(const std::vector<StudyQuestion>& qs)
{
    if (qs.empty())
        throw InputError("a study needs at least one question");
    std::set<std::string> ids;
    for (const auto& q : qs) {
        if (q.id.empty())
            throw InputError("a question has no id");
        if (!ids.insert(q.id).second)
            throw InputError("two questions have the id '" + q.id + "'");
        if (q.points() != 4 && q.points() != 5)
            throw InputError("question '" + q.id + "' has a " + std::to_string(q.points()) +
                             "-point scale; use 4 or 5 labels");
    }
}

void checkConditions(const std::vector<std::string>& cs)
{
    if (cs.empty())
        throw InputError("a study needs at least one condition");
    std::set<std::string> seen;
    for (const auto& c : cs) {
        if (!isStudyCondition(c))
            throw InputError("unknown condition '" + c + "' (known: C, S1, S2, S3)");
        if (!seen.insert(c).second)
            throw InputError("condition '" + c + "' is named twice");
    }
}

const std::vector<std::string>& studyConditionNames()
{
    static const std::vector<std::string> names = {"C", "S1", "S2", "S3"};
    return names;
}

bool isStudyCondition(const std::string& name)
{
    const auto& n = studyConditionNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

std::string conditionDescription(const std::string& name)
{
    static const std::map<std::string, std::string> d = {
        {"C", "code only"}, {"S1", "sequence view with NtP"}, {"S2", "AST partial"}, {"S3", "AST complete"}};
    const auto it = d.find(name);
    return it == d.end() ? name : it->second;
}

std::vector<std::string> defaultLikertLabels(int points)
{
    if (points == 4)
        return {"Strongly disagree", "Disagree", "Agree", "Strongly agree"};
    return {"Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"};
}

std::vector<StudyQuestion> defaultStudyQuestions(int points)
{
    const auto labels = defaultLikertLabels(points);
    return {{"useful", "The visualization is useful to understand the model's prediction.", labels},
            {"readable", "The visualization is readable.", labels},
            {"complex", "The visualization is complex.", labels}};
}

std::string questionTextFor(const StudyQuestion& q, const std::string& condition, bool hasCompletion)
{
    static const std::string kVis = "The visualization";
    if (condition != "C" || q.text.rfind(kVis, 0) != 0)
        return q.text;
    return std::string(hasCompletion ? "The code (prompt and predicted tokens)" : "The code") +
           q.text.substr(kVis.size());
}

std::optional<std::pair<std::size_t, std::size_t>> generatedSpan(const StudySample& sample)
{
    if (!sample.eval)
        return std::nullopt;
    const ScoredText& s = sample.eval->scored;
    std::optional<std::pair<std::size_t, std::size_t>> span;
    for (const auto& t : s.tokens) {
        if (!t.generated)
            continue;
        if (!span)
            span.emplace(t.start, t.end);
        span->first = std::min(span->first, t.start);
        span->second = std::max(span->second, t.end);
    }
    if (!span)
        return std::nullopt; // nothing recorded as generated: human-written code, whatever the prompt's length
    // a generated token may begin with text of the prompt (a BPE piece across the boundary): the completion
    // starts at the prompt's end then
    span->first = std::max(span->first, std::min(s.promptBytes, span->second));
    span->second = std::min(span->second, s.text.size());
    if (span->first >= span->second)
        return std::nullopt;
    return span;
}

std::string Study::fingerprint() const
{
    Fnv f;
    f.add(id);
    for (const auto& c : conditions)
        f.add(c);
    for (const auto& q : questions) {
        f.add(q.id);
        f.add(q.text);
        for (const auto& l : q.labels)
            f.add(l);
    }
    for (const auto& s : samples) {
        f.add(s.id);
        f.add(s.language);
        f.add(s.eval->scored.text);
        for (const auto& t : s.eval->scored.tokens) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%d:%zu:%zu:%.17g", t.id, t.start, t.end, t.ntp.value_or(-1.0));
            f.add(buf);
        }
    }
    for (const auto& p : participants) {
        f.add(p.id);
        for (const auto& t : p.trials)
            f.add(std::to_string(t.sample) + t.condition);
    }
    return f.hex();
}

const StudyParticipant* Study::participant(const std::string& pid) const
{
    for (const auto& p : participants)
        if (p.id == pid)
            return &p;
    return nullptr;
}

const StudyQuestion* Study::question(const std::string& qid) const
{
    for (const auto& q : questions)
        if (q.id == qid)
            return &q;
    return nullptr;
}

std::vector<StudyParticipant> assignTrials(int samples, const std::vector<std::string>& conditions, int participants,
                                           uint64_t seed)
{
    checkConditions(conditions);
    const int k = int(conditions.size());
    if (samples <= 0 || samples % k != 0)
        throw InputError("the number of samples (" + std::to_string(samples) + ") must be a positive multiple of the " +
                         std::to_string(k) +
                         " conditions, so that each participant sees every condition equally often");
    if (participants <= 0)
        throw InputError("a study needs at least one participant");
    std::vector<int> order(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i)
        order[std::size_t(i)] = i;
    seededShuffle(order, seed);

    std::vector<StudyParticipant> out;
    const int width = participants >= 100 ? 3 : 2;
    for (int p = 0; p < participants; ++p) {
        StudyParticipant sp;
        char id[16];
        std::snprintf(id, sizeof id, "P%0*d", width, p + 1);
        sp.id = id;
        for (int i = 0; i < samples; ++i)
            sp.trials.push_back({order[std::size_t(i)], conditions[std::size_t((i + p) % k)]});
        seededShuffle(sp.trials, seed + 1 + uint64_t(p));
        out.push_back(std::move(sp));
    }
    return out;
}

std::vector<std::size_t> drawSamples(std::size_t available, int n, uint64_t seed)
{
    if (n <= 0 || std::size_t(n) > available)
        throw InputError("cannot draw " + std::to_string(n) + " samples from " + std::to_string(available) +
                         " entries");
    std::vector<std::size_t> idx(available);
    for (std::size_t i = 0; i < available; ++i)
        idx[i] = i;
    seededShuffle(idx, seed);
    idx.resize(std::size_t(n));
    std::sort(idx.begin(), idx.end());
    return idx;
}

StudySample makeStudySample(const std::string& id, const std::string& language, ScoredText scored, Aggregation a,
                            std::optional<std::size_t> promptBytes)
{
    StudySample s;
    s.id = id;
    s.language = LanguageRegistry::instance().get(language).id;
    EvalRequest req;
    req.language = s.language;
    req.aggregation = a;
    req.promptBytes = promptBytes;
    s.eval = std::make_shared<const EvalResult>(evaluateScores(std::move(scored), req));
    return s;
}

std::string studyBalanceNote(const StudyDesign& d)
{
    const int p = d.participants, k = static_cast<int>(d.conditions.size());
    if (k <= 1 || p < 1 || p % k == 0)
        return {};
    const std::string head =
        std::to_string(p) + " participant" + (p == 1 ? "" : "s") + " over " + std::to_string(k) + " conditions";
    const std::string remedy = "; a multiple of " + std::to_string(k) + " participants balances it";
    if (d.design == StudyDesignKind::Between)
        return p < k ? head + " cannot balance: " + std::to_string(k - p) + " of the conditions have no participant" +
                           remedy
                     : head + " give groups of unequal size" + remedy;
    return p < k ? head + " cannot balance: each sample is seen under only " + std::to_string(p) + " of the " +
                       std::to_string(k) + " conditions" + remedy
                 : head +
                       ": each participant is balanced, but the last group does not show every sample under every "
                       "condition" +
                       remedy;
}

Study makeStudy(const StudyDesign& d, std::vector<StudySample> samples)
{
    checkConditions(d.conditions);
    checkQuestions(d.questions);
    std::set<std::string> ids;
    for (const auto& s : samples)
        if (!s.eval)
            throw InputError("sample '" + s.id + "' has no evaluation");
        else if (!ids.insert(s.id).second)
            throw InputError("two samples have the id '" + s.id + "'");
    Study st;
    st.title = d.title;
    st.model = d.model;
    st.source = d.source;
    st.seed = d.seed;
    st.aggregation = d.aggregation;
    st.conditions = d.conditions;
    st.questions = d.questions;
    st.created = isoTimestampUtc();
    checkBackgroundQuestions(d.background);
    st.design = d.design;
    st.background = d.background;
    st.participants = d.design == StudyDesignKind::Between
                          ? assignTrialsBetween(int(samples.size()), d.conditions, d.participants, d.seed)
                          : assignTrials(int(samples.size()), d.conditions, d.participants, d.seed);
    st.samples = std::move(samples);
    st.id = d.id.empty() ? "study-" + st.fingerprint().substr(0, 8) : d.id;
    return st;
}

} // namespace ascviz
