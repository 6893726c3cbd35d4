// Studies made without a model for the tests: Python snippets scored by hand (tokens = words, the space
// before a word belongs to it; NtP a fixed pattern by token index).
#pragma once
#include "ascviz/study/study.h"

#include <string>
#include <vector>

namespace studytest {

inline ascviz::ScoredText handScored(const std::string& text)
{
    ascviz::ScoredText s;
    s.model = "hand-scored";
    s.text = text;
    std::size_t i = 0, k = 0;
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\n'))
            ++j;
        while (j < text.size() && text[j] != ' ' && text[j] != '\n')
            ++j;
        ascviz::ScoredToken t;
        t.id = int32_t(k);
        t.start = i;
        t.end = j;
        if (k > 0)
            t.ntp = 0.05 + 0.9 * double((k * 37) % 101) / 100.0;
        s.tokens.push_back(t);
        i = j;
        ++k;
    }
    s.promptBytes = text.size();
    s.promptTokens = s.tokens.size();
    return s;
}

inline std::vector<ascviz::StudySample> handSamples(int n)
{
    std::vector<ascviz::StudySample> out;
    for (int i = 0; i < n; ++i) {
        const std::string code = "def f" + std::to_string(i) + "(x):\n    if x > " + std::to_string(i) +
                                 ":\n        return x * 2\n    return x\n";
        out.push_back(
            ascviz::makeStudySample("s" + std::to_string(i), "python", handScored(code), ascviz::Aggregation::Median));
    }
    return out;
}

inline ascviz::Study handStudy(int samples, int participants, uint64_t seed = 7,
                               std::vector<std::string> conditions = {"C", "S1", "S2", "S3"}, int points = 5)
{
    ascviz::StudyDesign d;
    d.id = "pilot";
    d.title = "a pilot";
    d.model = "hand-scored";
    d.source = "tests";
    d.seed = seed;
    d.conditions = std::move(conditions);
    d.questions = ascviz::defaultStudyQuestions(points);
    d.participants = participants;
    return ascviz::makeStudy(d, handSamples(samples));
}

} // namespace studytest
