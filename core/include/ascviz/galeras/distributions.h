// The distribution of each Galeras outcome per treatment (docs/galeras.md; `analyze treatments --svg`): the
// values a box plot per treatment draws (figure room, `distribution` kind).
#pragma once
#include "ascviz/results/galerasdb.h"

#include <string>
#include <vector>

namespace ascviz {

struct OutcomeDistributions {
    std::vector<std::string> treatments;                  // the control first, then first-appearance order
    std::vector<std::string> outcomes;                    // table order (galerasOutcomes) or the one asked for
    std::vector<std::vector<std::vector<double>>> values; // [outcome][treatment] -> one value per usable row
    int leftOut = 0; // (row, outcome) pairs without a value or with an error, over the outcomes drawn
};

// `outcome` "" = every outcome. Throws InputError for an unknown outcome (naming the known ones) or a
// database without rows.
OutcomeDistributions outcomeDistributions(const std::vector<GalerasRow>& rows, const std::string& outcome = {});
OutcomeDistributions outcomeDistributions(const GalerasDb& db, const std::string& outcome = {});

} // namespace ascviz
