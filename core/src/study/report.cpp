// The report of a study's answers and the CSV forms of answers and report (docs/study.md).
#include "ascviz/study/report.h"
#include "ascviz/base/csv.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace ascviz {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* kColumns[] = {"participant", "trial", "sample", "condition", "question", "answer", "seconds"};

// RFC 4180 records with the line each starts on.
std::vector<std::pair<std::size_t, std::vector<std::string>>> csvRecords(const std::string& text)
{
    std::vector<std::pair<std::size_t, std::vector<std::string>>> out;
    std::vector<std::string> rec;
    std::string cur;
    bool quoted = false, any = false;
    std::size_t line = 1, recLine = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                if (c == '\n')
                    ++line;
                cur += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = any = true;
        } else if (c == ',') {
            rec.push_back(std::move(cur));
            cur.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            if (any || !cur.empty()) {
                rec.push_back(std::move(cur));
                out.emplace_back(recLine, std::move(rec));
            }
            rec.clear();
            cur.clear();
            any = false;
            recLine = ++line;
        } else {
            cur += c;
            any = true;
        }
    }
    if (any || !cur.empty()) {
        rec.push_back(std::move(cur));
        out.emplace_back(recLine, std::move(rec));
    }
    return out;
}

std::string fmtNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

} // namespace

const QuestionReport& StudyReport::at(const std::string& condition, const std::string& question) const
{
    return byCondition.at(condition).at(question);
}

bool isAgreement(int answer, int points)
{
    return 2 * answer > points + 1;
}

StudyReport computeStudyReport(const std::vector<std::string>& conditions, const std::vector<StudyQuestion>& questions,
                               const std::vector<ResponseRow>& rows)
{
    StudyReport r;
    r.conditions = conditions;
    r.questions = questions;
    std::map<std::string, int> points;
    for (const auto& q : questions)
        points[q.id] = q.points();
    for (const auto& c : conditions)
        for (const auto& q : questions)
            r.byCondition[c][q.id].distribution.assign(std::size_t(q.points()), 0);
    for (const auto& row : rows) {
        const auto c = r.byCondition.find(row.condition);
        if (c == r.byCondition.end())
            throw InputError("an answer of " + row.participant + " names condition '" + row.condition +
                             "', which the study does not have");
        const auto q = c->second.find(row.question);
        if (q == c->second.end())
            throw InputError("an answer of " + row.participant + " names question '" + row.question +
                             "', which the study does not have");
        const int p = points[row.question];
        if (row.answer < 1 || row.answer > p)
            throw InputError("an answer of " + row.participant + " to '" + row.question + "' is " +
                             std::to_string(row.answer) + ", outside the " + std::to_string(p) + "-point scale");
        QuestionReport& qr = q->second;
        ++qr.n;
        ++qr.distribution[std::size_t(row.answer - 1)];
    }
    for (auto& [c, qs] : r.byCondition)
        for (auto& [qid, qr] : qs) {
            int agree = 0;
            for (int a = 1; a <= int(qr.distribution.size()); ++a)
                if (isAgreement(a, int(qr.distribution.size())))
                    agree += qr.distribution[std::size_t(a - 1)];
            qr.agreePct = qr.n ? 100.0 * agree / qr.n : 0.0;
        }
    return r;
}

json studyReportJson(const StudyReport& r)
{
    json conds = json::object();
    for (const auto& c : r.conditions) {
        json qs = json::object();
        for (const auto& q : r.questions) {
            const QuestionReport& qr = r.at(c, q.id);
            qs[q.id] = {{"n", qr.n}, {"distribution", qr.distribution}, {"agree_pct", qr.agreePct}};
        }
        conds[c] = {{"description", conditionDescription(c)}, {"questions", std::move(qs)}};
    }
    json questions = json::array();
    for (const auto& q : r.questions)
        questions.push_back({{"id", q.id}, {"text", q.text}, {"points", q.points()}, {"labels", q.labels}});
    return {{"conditions", std::move(conds)}, {"questions", std::move(questions)}};
}

std::string responsesCsv(const std::vector<ResponseRow>& rows)
{
    std::string out = "participant,trial,sample,condition,question,answer,seconds\n";
    for (const auto& r : rows)
        out += csvField(r.participant) + ',' + std::to_string(r.trial) + ',' + csvField(r.sample) + ',' +
               csvField(r.condition) + ',' + csvField(r.question) + ',' + std::to_string(r.answer) + ',' +
               fmtNumber(r.seconds) + '\n';
    return out;
}

void writeResponsesCsv(const fs::path& file, const std::vector<ResponseRow>& rows)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!(out << responsesCsv(rows)) || !(out.flush()))
        throw InputError("cannot write " + file.string());
}

std::vector<ResponseRow> parseResponsesCsv(const std::string& text, const std::string& name)
{
    const auto recs = csvRecords(text);
    if (recs.empty())
        throw InputError(name +
                         ": empty; expected the header participant,trial,sample,condition,question,answer,seconds");
    std::map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < recs[0].second.size(); ++i)
        col[recs[0].second[i]] = i;
    for (const char* c : kColumns)
        if (!col.count(c))
            throw InputError(name + ": no column '" + c +
                             "' (expected participant,trial,sample,condition,question,answer,seconds)");
    std::vector<ResponseRow> rows;
    for (std::size_t i = 1; i < recs.size(); ++i) {
        // Not a structured binding: clang 14 (the fuzz build's compiler) cannot capture one in the lambda below.
        const auto& line = std::get<0>(recs[i]);
        const auto& f = std::get<1>(recs[i]);
        const std::string where = name + ":" + std::to_string(line);
        auto get = [&](const char* c) -> const std::string& {
            const std::size_t k = col.at(c);
            if (k >= f.size())
                throw InputError(where + ": too few fields");
            return f[k];
        };
        ResponseRow r;
        r.participant = get("participant");
        r.sample = get("sample");
        r.condition = get("condition");
        r.question = get("question");
        try {
            std::size_t used = 0;
            r.trial = std::stoi(get("trial"), &used);
            r.answer = std::stoi(get("answer"), &used);
            if (used != get("answer").size())
                throw std::invalid_argument("answer");
            r.seconds = std::stod(get("seconds"));
        } catch (const std::logic_error&) {
            throw InputError(where + ": trial, answer and seconds must be numbers");
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<ResponseRow> readResponsesCsv(const fs::path& file)
{
    return parseResponsesCsv(readUtf8File(file), file.string());
}

fs::path writeStudyReportCsv(const StudyReport& r, const fs::path& dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::size_t maxPoints = 0;
    for (const auto& q : r.questions)
        maxPoints = std::max<std::size_t>(maxPoints, std::size_t(q.points()));
    std::string out = "condition,question,n,agree_pct";
    for (std::size_t p = 1; p <= maxPoints; ++p)
        out += ",p" + std::to_string(p);
    out += '\n';
    for (const auto& c : r.conditions)
        for (const auto& q : r.questions) {
            const QuestionReport& qr = r.at(c, q.id);
            out += csvField(c) + ',' + csvField(q.id) + ',' + std::to_string(qr.n) + ',' + fmtNumber(qr.agreePct);
            for (std::size_t p = 0; p < maxPoints; ++p)
                out += ',' + (p < qr.distribution.size() ? std::to_string(qr.distribution[p]) : std::string());
            out += '\n';
        }
    const fs::path file = dir / "study_report.csv";
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    if (!(f << out) || !f.flush())
        throw InputError("cannot write " + file.string());
    return file;
}

} // namespace ascviz
