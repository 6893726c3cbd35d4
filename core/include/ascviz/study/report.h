// The answers of a user study and their report (method.md §9; docs/study.md): per condition and question
// the number of answers n, the distribution over the Likert scale and the % agreement (answers above the
// scale's midpoint / n * 100). Answers come from a responses file (responses.h) or from its CSV export,
// one row per answer: participant,trial,sample,condition,question,answer,seconds.
#pragma once
#include "ascviz/study/study.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ascviz {

struct ResponseRow {
    std::string participant;
    int trial = 0;      // 0-based position in the participant's trial order
    std::string sample; // the sample's id
    std::string condition;
    std::string question;
    int answer = 0;     // 1..points (1 = the scale's first label)
    double seconds = 0; // time on the trial when the answer was given (the whole trial once it was completed)
};

struct QuestionReport {
    int n = 0;
    std::vector<int> distribution; // answers per scale point, lowest first (size = points)
    double agreePct = 0;           // answers above the midpoint (points + 1) / 2, / n * 100; 0 when n = 0
};

struct StudyReport {
    std::vector<std::string> conditions;
    std::vector<StudyQuestion> questions;
    std::map<std::string, std::map<std::string, QuestionReport>> byCondition; // condition -> question -> report
    const QuestionReport& at(const std::string& condition, const std::string& question) const;
};

// Whether an answer agrees: above the midpoint of a `points`-point scale (4 points: 3 and 4; 5 points: 4 and 5).
bool isAgreement(int answer, int points);

// Every condition x question of the design appears (n = 0 when unanswered). Throws InputError for a row
// naming a condition or question the design does not have, or an answer outside 1..points.
StudyReport computeStudyReport(const std::vector<std::string>& conditions, const std::vector<StudyQuestion>& questions,
                               const std::vector<ResponseRow>& rows);

// {"conditions":{name:{"questions":{q:{"n", "distribution", "agree_pct"}}}}} plus "questions" (the scales).
nlohmann::json studyReportJson(const StudyReport& r);

// The report by background (method.md §9): for each choice question of the background section, the
// participants grouped by their answer (in the question's option order; "(no answer)" last), each group's
// report over its participants' answers.
struct BackgroundGroup {
    std::string answer;
    int participants = 0;
    StudyReport report;
};
struct BackgroundBreakdown {
    std::string question; // the background question's id
    std::vector<BackgroundGroup> groups;
};
std::vector<BackgroundBreakdown>
backgroundBreakdown(const std::vector<std::string>& conditions, const std::vector<StudyQuestion>& questions,
                    const std::vector<BackgroundQuestion>& background, const std::vector<ResponseRow>& rows,
                    const std::map<std::string, std::map<std::string, std::string>>& answers);
// [{"question", "groups": [{"answer", "participants", "conditions": {...studyReportJson's}}]}]
nlohmann::json backgroundBreakdownJson(const std::vector<BackgroundBreakdown>& b);

// The CSV of the answers (header participant,trial,sample,condition,question,answer,seconds; RFC 4180).
std::string responsesCsv(const std::vector<ResponseRow>& rows);
void writeResponsesCsv(const std::filesystem::path& file, const std::vector<ResponseRow>& rows);
// Throws InputError naming the line for a missing column or a malformed number.
std::vector<ResponseRow> parseResponsesCsv(const std::string& text, const std::string& name);
std::vector<ResponseRow> readResponsesCsv(const std::filesystem::path& file);

// The report as CSV (`study report --csv DIR`): DIR/study_report.csv with
// condition,question,n,agree_pct,p1..pK (answers per scale point). Returns the file written.
std::filesystem::path writeStudyReportCsv(const StudyReport& r, const std::filesystem::path& dir);

} // namespace ascviz
