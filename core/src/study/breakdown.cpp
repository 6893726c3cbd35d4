// The study report by background answers (report.h, method.md §9).
#include "ascviz/study/report.h"

#include <algorithm>
#include <set>

namespace ascviz {

std::vector<BackgroundBreakdown>
backgroundBreakdown(const std::vector<std::string>& conditions, const std::vector<StudyQuestion>& questions,
                    const std::vector<BackgroundQuestion>& background, const std::vector<ResponseRow>& rows,
                    const std::map<std::string, std::map<std::string, std::string>>& answers)
{
    std::set<std::string> participants;
    for (const auto& r : rows)
        participants.insert(r.participant);
    std::vector<BackgroundBreakdown> out;
    for (const auto& bq : background) {
        if (bq.kind != "choice")
            continue;
        BackgroundBreakdown b{bq.id, {}};
        std::map<std::string, std::string> answerOf; // participant -> answer
        for (const auto& p : participants) {
            const auto a = answers.find(p);
            std::string value = "(no answer)";
            if (a != answers.end())
                if (const auto q = a->second.find(bq.id); q != a->second.end() && !q->second.empty())
                    value = q->second;
            answerOf[p] = value;
        }
        std::vector<std::string> order = bq.options;
        for (const auto& [p, v] : answerOf) // answers outside the options (edited questions), then none
            if (std::find(order.begin(), order.end(), v) == order.end() && v != "(no answer)")
                order.push_back(v);
        order.push_back("(no answer)");
        for (const auto& v : order) {
            BackgroundGroup g;
            g.answer = v;
            std::vector<ResponseRow> mine;
            for (const auto& [p, a] : answerOf)
                if (a == v)
                    ++g.participants;
            if (g.participants == 0 && v == "(no answer)")
                continue;
            for (const auto& r : rows)
                if (answerOf[r.participant] == v)
                    mine.push_back(r);
            g.report = computeStudyReport(conditions, questions, mine);
            b.groups.push_back(std::move(g));
        }
        out.push_back(std::move(b));
    }
    return out;
}

nlohmann::json backgroundBreakdownJson(const std::vector<BackgroundBreakdown>& b)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& q : b) {
        nlohmann::json groups = nlohmann::json::array();
        for (const auto& g : q.groups)
            groups.push_back({{"answer", g.answer},
                              {"participants", g.participants},
                              {"conditions", studyReportJson(g.report).at("conditions")}});
        a.push_back({{"question", q.question}, {"groups", std::move(groups)}});
    }
    return a;
}

} // namespace ascviz
