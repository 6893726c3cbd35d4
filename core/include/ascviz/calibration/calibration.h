// Calibration by syntax category over a results database (docs/method.md §17, issue 59): per token a confidence
// from the forward pass and a teacher-forced label (an error = rank > 1); per group (every token with a prediction,
// and each §5 category: the tokens aligned to at least one of its nodes, §3) ECE over equal-width and equal-mass
// bins, MCE, Brier, AUROC and AUPRC of the confidence as a predictor of an error, with bootstrap intervals
// (resampling snippets); temperature scaling where the data for it is stored. `analyze calibration` prints this.
#pragma once
#include "ascviz/calibration/metrics.h"
#include "ascviz/calibration/temperature.h"
#include "ascviz/results/resultsdb.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ascviz::calibration {

// p1 (the default), ntp (the actual token's probability), entropy, top-K entropy, margin, asc_eval (the AsC-Eval of
// the deepest valued node the token is aligned to: the syntax-level confidence ASTxplainer reads; method.md §17). The
// calibration measures (ECE, MCE, Brier) need a probability of being right: only p1 has them; the others are scored
// by AUROC and AUPRC.
enum class Confidence { P1, Ntp, Entropy, TopkEntropy, Margin, AscEval };
// "p1", "ntp", "entropy", "topk_entropy", "margin", "asc_eval".
const char* toString(Confidence c);
// The names above; "topk-entropy" and "asc-eval" also read as topk_entropy and asc_eval. Throws InputError naming
// the choices.
Confidence parseConfidence(const std::string& s);
// Whether ECE, MCE and Brier apply (p1).
bool isProbabilityOfBeingRight(Confidence c);
// The score that ranks towards an error: −c for p1, ntp, margin and asc_eval; +c for the entropies.
double errorScore(Confidence c, double value);

// The groups besides "global": none, each §5 category, or each concept (node type, pooled across languages as §6's
// concepts): the tokens aligned to at least one of its nodes, each counted once per group.
enum class By { Global, Category, Concept };
// "global", "category", "concept"; parseBy throws InputError naming the choices.
const char* toString(By b);
By parseBy(const std::string& s);

struct Options {
    Confidence confidence = Confidence::P1;
    By by = By::Global;
    int bins = 15;
    int resamples = 500;
    uint64_t seed = 20230807;    // the reports' default seed (results/stats.h)
    bool resampleTokens = false; // resample tokens instead of snippets (for comparison)
};

struct Group {
    std::string group; // "global", a category or a concept
    int64_t n = 0, errors = 0, snippets = 0;
    double meanConfidence = 0.0, accuracy = 0.0;
    std::optional<double> ece, eceMass, mce, brier, auroc, auprc;
    std::optional<std::pair<double, double>> eceCi, aurocCi;
    std::vector<ReliabilityBin> bins; // equal width (empty unless the confidence is p1)
};

struct Report {
    Confidence confidence = Confidence::P1;
    std::string label = "teacher-forced";
    int bins = 15;
    By by = By::Global;
    std::vector<Group> groups;                 // "global" first, then the categories or concepts by name
    std::optional<TemperatureFit> temperature; // null: the database holds no temperature data (temperature.h)
    int64_t tokensWithoutPrediction = 0;       // first tokens: nothing predicts them
    int64_t tokensWithoutConfidence = 0;       // asc_eval: tokens aligned to no node with an AsC-Eval
};

// One group from its tokens' confidences and labels (the tokens of each snippet together; `snippetOf` per token).
Group analyzeGroup(const std::string& name, const std::vector<double>& confidence, const std::vector<bool>& correct,
                   const std::vector<int64_t>& snippetOf, const Options& opts);

// Reads the status-ok snippets' tokens (and, by category or concept or for asc_eval, their nodes) and analyses each
// group. Throws InputError when the database's tokens hold no uncertainty (an AsC-Viz before schema 5 wrote them: the
// fields are missing).
Report analyze(const ResultsDb& db, const Options& opts);

// The JSON of `analyze calibration --json` (method.md §17; the field names are a contract).
nlohmann::json reportJson(const Report& r);

// The text table: one row per group, its mean confidence and accuracy flagged with ASTxplainer's Table I
// thresholds (confident ≥ 0.6, erroneous < 0.5).
std::string reportText(const Report& r);

// `analyze calibration --latex F`: a booktabs table, one row per group: n, errors, ECE [95 % CI], MCE, Brier, AUROC
// [95 % CI], AUPRC ("--" where a measure does not apply), with the confidence, label and bins in the caption.
std::string reportLatex(const Report& r);

} // namespace ascviz::calibration
