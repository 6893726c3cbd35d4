// The effect of each Galeras treatment against the control (method.md §12, docs/galeras.md): on the rows of
// the control and one treatment, OLS Y ~ 1 + D + Z (D = 1 for the treatment's rows) — D's coefficient is the
// ATE, with its classical se and the Student-t 95 % interval — and the refutations of analysis/refute.h.
// Rows with an error or without a value of Y or a confounder are left out (counted).
#pragma once
#include "ascviz/analysis/refute.h"
#include "ascviz/results/galerasdb.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct TreatmentEffect {
    std::string name;
    int n = 0; // rows in the regression (control + treatment)
    int nTreated = 0;
    bool hasEffect = false;
    double ate = 0, se = 0, lo = 0, hi = 0;
    std::vector<Refutation> refutations;
    std::string note; // why there is no effect, confounders left out
};

struct OutcomeSummary { // one outcome under one treatment
    int n = 0;
    double mean = 0, sd = 0, median = 0, min = 0, max = 0;
};

struct TreatmentReport {
    std::string control, outcome, testbed, model;
    std::vector<std::string> confounders;
    std::vector<TreatmentEffect> treatments;
    int leftOut = 0;     // rows without a usable value
    int simulations = 0; // per refuter; 0: the refuters were skipped (said in the text, "simulations" in JSON)
    // treatment -> column (every outcome and confounder) -> summary: the descriptive table
    std::vector<std::pair<std::string, std::map<std::string, OutcomeSummary>>> descriptive;
    std::map<std::string, int> stops; // "treatment/stop" -> count
};

struct TreatmentAnalysisOptions {
    std::string outcome = "levenshtein";
    std::vector<std::string> confounders; // empty: the paper's four (galerasPaperConfounders)
    RefuteOptions refute;
};

// Throws InputError for an unknown outcome or confounder (naming the known ones) or a database without a
// control row.
TreatmentReport analyzeTreatments(const GalerasDb& db, const TreatmentAnalysisOptions& opts = {});
// The effect of D on the rows given (tests): d[i] in {0, 1}, z[k][i].
TreatmentEffect estimateTreatment(const std::vector<double>& d, const std::vector<double>& y,
                                  const std::vector<std::vector<double>>& z,
                                  const std::vector<std::string>& confounderNames, const RefuteOptions& opts);

nlohmann::json treatmentsToJson(const TreatmentReport& r); // the contract of docs/cli.md (analyze treatments)
std::string treatmentsText(const TreatmentReport& r);
std::string treatmentsLatex(const TreatmentReport& r);

} // namespace ascviz
