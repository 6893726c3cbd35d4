// The answers of a user study as `study report` and `figure likert` read them (answers.h). Torch-free.
#include "answers.h"

#include "args.h"

#include "ascviz/base/error.h"
#include "ascviz/study/responses.h"

#include <algorithm>

namespace ascviz::cli {
namespace fs = std::filesystem;

Answers readAnswers(const fs::path& responses, const std::optional<std::string>& studyFile)
{
    Answers a;
    std::optional<Study> study;
    if (studyFile)
        study = readStudyFile(*studyFile);
    std::error_code ec;
    if (!fs::exists(responses, ec))
        throw InputError("the responses file " + responses.string() + " does not exist");
    if (isSqliteFile(responses)) {
        const auto db = ResponsesDb::openExisting(responses);
        if (study && (study->id != db.studyId() || study->fingerprint() != db.fingerprint()))
            throw InputError("the responses file " + responses.string() + " belongs to study '" + db.studyId() +
                             "' (fingerprint " + db.fingerprint() + "), not to study '" + study->id +
                             "' (fingerprint " + study->fingerprint() + ")");
        a.conditions = db.conditions();
        a.questions = db.questions();
        a.rows = db.rows();
        a.backgroundAnswers = db.backgroundAnswers();
        if (study)
            a.background = study->background;
        else // no study file: each answered question, its answers in sorted order
            for (const auto& [p, qs] : a.backgroundAnswers)
                for (const auto& [q, v] : qs)
                    if (std::none_of(a.background.begin(), a.background.end(),
                                     [&](const BackgroundQuestion& b) { return b.id == q; }))
                        a.background.push_back({q, "", "choice", {}});
        return a;
    }
    if (!study)
        throw UsageError("a CSV of answers needs --study STUDY.json (for the questions' scales)");
    a.conditions = study->conditions;
    a.questions = study->questions;
    a.rows = readResponsesCsv(responses);
    return a;
}

} // namespace ascviz::cli
