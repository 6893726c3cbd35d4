// The global heat map (ASTrust): categories (rows) × result sets (columns, one per model), each cell
// coloured by its bootstrapped median on the AsC-Eval scale of the other views (red 0 → white 0.5 → blue 1,
// grey n/a) with the value printed: its data (the figure room draws it: figure/charts.h).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct HeatmapColumn {
    std::string name;                                    // the model (column header)
    std::map<std::string, std::optional<double>> values; // row name -> value (absent / nullopt: n/a)
    std::map<std::string, long long> counts;             // row name -> pooled values behind it (absent: unknown)
};

} // namespace ascviz
