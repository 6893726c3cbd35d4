// Checks shared by the study room's translation units (not public API).
#pragma once
#include "ascviz/study/study.h"

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

// Throw InputError naming what is wrong: no question, duplicate ids, a scale that is not 4 or 5 points.
void checkQuestions(const std::vector<StudyQuestion>& qs);
// Throw InputError for no condition, an unknown or a repeated one.
void checkConditions(const std::vector<std::string>& cs);

// Fisher-Yates with an explicit draw, so that the order is the same with every standard library.
template <class T> void seededShuffle(std::vector<T>& v, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[rng() % i]);
}

} // namespace ascviz
