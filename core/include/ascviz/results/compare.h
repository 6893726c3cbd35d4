// Runs side by side (the model comparison, the heat map, the LaTeX tables, the charts): which settings
// differ between the compared runs, and a label per run that names it uniquely — the model name plus the
// settings that differ (θ, dtype, category table, corpus). The one place the CLI and the GUI get both.
#pragma once
#include "ascviz/results/stats.h"

#include <string>
#include <vector>

namespace ascviz {

struct ComparedRun {
    const CorpusStats* stats = nullptr;
    std::string source; // where the run came from (its results file's name): names runs nothing else tells apart
};

// A setting that differs between the compared runs, with each run's value (in run order).
struct DifferingSetting {
    std::string name; // "θ" | "dtype" | "categories" | "corpus"
    std::vector<std::string> values;
};

struct RunComparison {
    std::vector<std::string> labels; // one per run, all different: "ascviz-tiny-code (θ=max)"
    std::vector<DifferingSetting> differing;
    bool differentCorpus = false; // values over different corpora are not comparable (front ends refuse)
    // One line naming each differing setting with its distinct values; empty when none differs.
    std::string warning;
};

// Compares the runs' settings. The corpus is told by its fingerprint (by its path where a run has none).
// A label is the model name, then "(setting=value, …)" for every differing setting; runs still alike get
// their source, then their position ("#2"), appended.
RunComparison compareRuns(const std::vector<ComparedRun>& runs);

} // namespace ascviz
