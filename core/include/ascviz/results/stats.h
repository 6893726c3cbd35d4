// Corpus statistics (method.md §6): bootstrapped medians per concept and per category, the Global
// AsC-Eval, threshold flags, and per-snippet distributions for charts.
#pragma once
#include "ascviz/eval/eval.h"
#include "ascviz/results/resultsdb.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

constexpr double kConfidentThreshold = 0.6; // paper's acceptance threshold
constexpr double kErroneousThreshold = 0.5; // below: "erroneous"

// Below this many pooled values a concept's or category's median is no evidence either way: its flag is
// "too few" (report --min-n; the GUI's tables and charts).
constexpr int64_t kDefaultMinN = 10;

// >= 0.6, [0.5, 0.6), < 0.5; TooFew: fewer values than the minimum count, whatever the value.
enum class ThresholdFlag { Confident, Neutral, Erroneous, TooFew };
ThresholdFlag thresholdFlag(double value); // by the value alone (never TooFew)
std::string toString(ThresholdFlag f);     // "confident" | "neutral" | "erroneous" | "too_few"

struct BootstrapOptions {
    int resamples = 500;
    uint64_t seed = 20230807; // default seed: reports are reproducible
};

struct BootstrapResult {
    double median = 0; // median of the resample medians
    double se = 0;     // standard deviation of the resample medians (population form, ddof = 0)
    double lo = 0;     // 2.5th percentile of the resample medians (linear interpolation)
    double hi = 0;     // 97.5th percentile
    int64_t n = 0;     // number of pooled values
};

// The flag of a bootstrapped median over r.n values: TooFew when r.n < minN, else by the median.
ThresholdFlag thresholdFlag(const BootstrapResult& r, int64_t minN);

// The plain median (mean of the two middle values for an even count). Throws std::invalid_argument when empty.
double median(std::vector<double> values);
// Percentile p in [0, 100] of sorted values, linear interpolation between closest ranks (numpy's default).
double percentileSorted(const std::vector<double>& sorted, double p);

// Bootstrapped median of `values`: `resamples` resamples of size n drawn with replacement by
// std::mt19937_64(seed) (index = uniform_int_distribution<size_t>(0, n-1)); the median of each resample.
// Throws std::invalid_argument when values is empty.
BootstrapResult bootstrapMedian(const std::vector<double>& values, const BootstrapOptions& opts = {});
// The resample medians themselves, in resample order (bootstrapMedian summarises them).
std::vector<double> bootstrapMedians(const std::vector<double>& values, const BootstrapOptions& opts = {});
// median / se / 2.5–97.5 percentiles of resample statistics (any order), with n pooled values.
BootstrapResult summarizeResamples(std::vector<double> resamples, int64_t n);

// The seed used for one named group (concept or category): opts.seed mixed with FNV-1a of the name, so a
// group's result does not depend on which other groups exist.
uint64_t groupSeed(uint64_t seed, const std::string& name);

// Table I (method.md §5–6, as the paper's public notebooks compute it):
// - concept: a node type; its value is the bootstrapped median of its pooled node values;
// - category: the MEAN OF ITS CONCEPTS' bootstrapped medians (its se and ci95 come from the same resamples:
//   resample r of a category is the mean of its concepts' r-th resample medians);
// - Global AsC-Eval: the mean of the bootstrapped medians of the CATEGORIZED concepts only (concepts absent
//   from the corpus are left out).
// Beside them, named as such: each category's pooled-nodes bootstrap, and the mean over every concept.
// Table I restricted to the snippets of one language, under that language's category table.
struct LanguageStats {
    std::string language;
    int64_t snippets = 0; // status ok
    std::map<std::string, BootstrapResult> concepts;
    std::map<std::string, BootstrapResult> categories;
    std::map<std::string, int> categoryConcepts;
    std::map<std::string, std::string> categoryOf;
    std::optional<double> globalAscEval;
    std::string categoryTable;
};

struct CorpusStats {
    RunInfo run;
    TableCounts counts;
    int resamples = 0;
    uint64_t seed = 0;
    std::map<std::string, BootstrapResult> concepts;         // node type -> statistic
    std::map<std::string, BootstrapResult> categories;       // category -> Table I value (mean of concept medians)
    std::map<std::string, int> categoryConcepts;             // category -> concepts present in the corpus
    std::map<std::string, BootstrapResult> categoriesPooled; // category -> bootstrap over all its nodes pooled
    std::map<std::string, std::string> categoryOf;           // node type -> category (present concepts)
    std::optional<double> globalAscEval;                     // Table I: mean over categorized concepts
    std::optional<double> globalAllConcepts;                 // mean of every concept's median (not Table I)
    std::string categoryTable;                               // the category table(s) the values used
    // Mixed-language results: concepts are keyed "<language>:<node type>" (a Java `if_statement` and a
    // Python one are different concepts), each categorized by its own language's table; categories and the
    // global value pool those concepts as Table I does.
    bool mixedLanguages = false;
    std::vector<LanguageStats> languages; // one per snippet language (also for a one-language run), by id
    // Per-snippet data (status ok), parallel vectors in index order: for distribution charts.
    std::vector<std::string> snippetIds;
    std::vector<std::optional<double>> snippetAscEval;
    std::vector<std::optional<double>> snippetCrossEntropy;
    std::vector<std::string> snippetLanguages;
    // Flags below this many pooled values are "too few" (thresholdFlag(r, minN)); 0 = no minimum.
    // computeStats(db) sets kDefaultMinN; a front end may set another (report --min-n).
    int64_t minN = 0;
};

// Statistics of a results database (status ok snippets only). Categories come from `table` (by node type),
// not from the category column stored by the run, so a database made under an older table is reported
// under the current one without a re-run; null = each snippet language's bundled table. With snippets of
// several languages the concepts are qualified by language (CorpusStats::mixedLanguages).
CorpusStats computeStats(const ResultsDb& db, const BootstrapOptions& opts = {}, const CategoryMap* table = nullptr);
CorpusStats computeStats(const ResultsDb::NodeValues& values, const BootstrapOptions& opts = {});

// The report JSON (docs/cli.md): {"model", "snippets", "global_asc_eval", "concepts": {type: {"median", "se",
// "ci95": [lo, hi], "n", "flag", "category"}}, "categories": {name: {same + "concepts"}}} plus run details,
// "dtype", "category_rule", "category_table", "global_asc_eval_all_concepts", "categories_pooled", "min_n"
// (also in "thresholds"; a "flag" is "too_few" below it), "mixed_languages" and "languages": {id: {"snippets",
// "global_asc_eval", "category_table", "categories", "concepts"}}.
nlohmann::json statsToJson(const CorpusStats& s);

// RFC 4180 field quoting (quotes when the field holds ',', '"', CR or LF).
std::string csvField(const std::string& s);
// Writes concepts.csv, categories.csv, languages.csv and snippets.csv into `dir` (created when missing);
// returns the files.
std::vector<std::filesystem::path> writeCsvReport(const CorpusStats& s, const ResultsDb& db,
                                                  const std::filesystem::path& dir);

} // namespace ascviz
