// The answers of a user study (method.md §9): from a responses file (SQLite) or its CSV export.
#pragma once
#include "ascviz/study/report.h"
#include "ascviz/study/study.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ascviz::cli {

struct Answers {
    std::vector<std::string> conditions;
    std::vector<StudyQuestion> questions;
    std::vector<ResponseRow> rows;
    std::vector<BackgroundQuestion> background;                                  // from the study file
    std::map<std::string, std::map<std::string, std::string>> backgroundAnswers; // responses file only
};

// The answers of a responses file (SQLite) or its CSV export; a CSV needs the study file for the scales.
// Throws InputError for a missing file or a responses file of another study, UsageError for a CSV without
// a study file.
Answers readAnswers(const std::filesystem::path& responses, const std::optional<std::string>& studyFile);

} // namespace ascviz::cli
