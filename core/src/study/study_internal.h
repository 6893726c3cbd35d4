// Checks shared by the study room's translation units (not public API).
#pragma once
#include "ascviz/study/study.h"

#include <string>
#include <vector>

namespace ascviz {

// Throw InputError naming what is wrong: no question, duplicate ids, a scale that is not 4 or 5 points.
void checkQuestions(const std::vector<StudyQuestion>& qs);
// Throw InputError for no condition, an unknown or a repeated one.
void checkConditions(const std::vector<std::string>& cs);

} // namespace ascviz
