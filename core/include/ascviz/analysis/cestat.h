// Mean and standard deviation of per-token cross-entropies (PERPLEXED, method.md §10).
#pragma once
#include <cstdint>
#include <vector>

namespace ascviz {

struct CeStat {
    double mean = 0;
    double std = 0;    // sample standard deviation (n − 1); 0 for one value
    int64_t count = 0; // tokens
};

// Mean and sample std of values (count 0: zeros).
CeStat ceStat(const std::vector<double>& values);

} // namespace ascviz
