// Bootstrapped medians and corpus statistics (method.md §6).
#include "ascviz/results/stats.h"
#include "ascviz/base/csv.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>

namespace ascviz {

ThresholdFlag thresholdFlag(double v)
{
    if (v >= kConfidentThreshold)
        return ThresholdFlag::Confident;
    if (v < kErroneousThreshold)
        return ThresholdFlag::Erroneous;
    return ThresholdFlag::Neutral;
}

ThresholdFlag thresholdFlag(const BootstrapResult& r, int64_t minN)
{
    return r.n < minN ? ThresholdFlag::TooFew : thresholdFlag(r.median);
}

std::string toString(ThresholdFlag f)
{
    switch (f) {
    case ThresholdFlag::Confident:
        return "confident";
    case ThresholdFlag::Neutral:
        return "neutral";
    case ThresholdFlag::Erroneous:
        return "erroneous";
    case ThresholdFlag::TooFew:
        return "too_few";
    }
    return "?";
}

double median(std::vector<double> values)
{
    if (values.empty())
        throw std::invalid_argument("median of an empty set");
    return medianInPlace(values);
}

double percentileSorted(const std::vector<double>& s, double p)
{
    if (s.empty())
        throw std::invalid_argument("percentile of an empty set");
    const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(s.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, s.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return s[lo] + (s[hi] - s[lo]) * frac;
}

std::vector<double> bootstrapMedians(const std::vector<double>& values, const BootstrapOptions& opts)
{
    if (values.empty())
        throw std::invalid_argument("bootstrap of an empty set");
    const int b = std::max(1, opts.resamples);
    const std::size_t n = values.size();
    std::mt19937_64 rng(opts.seed);
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    std::vector<double> sample(n), medians(static_cast<std::size_t>(b));
    for (int r = 0; r < b; ++r) {
        for (std::size_t i = 0; i < n; ++i)
            sample[i] = values[pick(rng)];
        medians[static_cast<std::size_t>(r)] = medianInPlace(sample);
    }
    return medians;
}

BootstrapResult summarizeResamples(std::vector<double> medians, int64_t n)
{
    if (medians.empty())
        throw std::invalid_argument("no resamples");
    std::sort(medians.begin(), medians.end());
    const auto b = static_cast<double>(medians.size());
    BootstrapResult out;
    out.n = n;
    out.median = percentileSorted(medians, 50.0);
    // Population variance of the medians, shifted by the first one (exactly 0 when all are equal).
    const double shift = medians.front();
    double mean = 0;
    for (double m : medians)
        mean += m - shift;
    mean /= b;
    double var = 0;
    for (double m : medians)
        var += (m - shift - mean) * (m - shift - mean);
    out.se = std::sqrt(var / b);
    out.lo = percentileSorted(medians, 2.5);
    out.hi = percentileSorted(medians, 97.5);
    return out;
}

BootstrapResult bootstrapMedian(const std::vector<double>& values, const BootstrapOptions& opts)
{
    return summarizeResamples(bootstrapMedians(values, opts), static_cast<int64_t>(values.size()));
}

uint64_t groupSeed(uint64_t seed, const std::string& name)
{
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return seed ^ h;
}

CorpusStats computeStats(const ResultsDb::NodeValues& values, const BootstrapOptions& opts)
{
    CorpusStats s;
    s.resamples = opts.resamples;
    s.seed = opts.seed;
    s.categoryOf = values.categoryOf;
    auto seeded = [&](const std::string& name) {
        BootstrapOptions o = opts;
        o.seed = groupSeed(opts.seed, name);
        return o;
    };
    std::map<std::string, std::vector<double>> conceptResamples;
    for (const auto& [name, vals] : values.byConcept) {
        if (vals.empty())
            continue;
        auto medians = bootstrapMedians(vals, seeded(name));
        s.concepts.emplace(name, summarizeResamples(medians, static_cast<int64_t>(vals.size())));
        conceptResamples.emplace(name, std::move(medians));
    }
    for (const auto& [name, vals] : values.byCategory)
        if (!vals.empty())
            s.categoriesPooled.emplace(name, bootstrapMedian(vals, seeded(name)));

    // Table I: per category, the mean of its concepts' bootstrapped medians; resample r of the category is
    // the mean of its concepts' r-th resample medians (for se and ci95).
    std::map<std::string, std::vector<std::string>> members;
    for (const auto& [type, cat] : values.categoryOf)
        if (s.concepts.count(type))
            members[cat].push_back(type);
    double categorizedSum = 0;
    int categorized = 0;
    for (const auto& [cat, types] : members) {
        const std::size_t b = conceptResamples.at(types.front()).size();
        std::vector<double> resamples(b, 0.0);
        double valueSum = 0;
        int64_t n = 0;
        for (const auto& t : types) {
            const auto& r = conceptResamples.at(t);
            for (std::size_t k = 0; k < b; ++k)
                resamples[k] += r[k] / static_cast<double>(types.size());
            valueSum += s.concepts.at(t).median;
            n += s.concepts.at(t).n;
            categorizedSum += s.concepts.at(t).median;
            ++categorized;
        }
        BootstrapResult c = summarizeResamples(std::move(resamples), n);
        c.median = valueSum / static_cast<double>(types.size()); // exactly the mean of the concept medians
        s.categories.emplace(cat, c);
        s.categoryConcepts.emplace(cat, static_cast<int>(types.size()));
    }
    if (categorized > 0)
        s.globalAscEval = categorizedSum / categorized;
    if (!s.concepts.empty()) {
        double sum = 0;
        for (const auto& [name, r] : s.concepts)
            sum += r.median;
        s.globalAllConcepts = sum / static_cast<double>(s.concepts.size());
    }
    return s;
}

CorpusStats computeStats(const ResultsDb& db, const BootstrapOptions& opts, const CategoryMap* table)
{
    // One read transaction: a run still writing to the database (WAL) cannot change the data between the
    // queries below, so node values, counts and snippets describe the same set of snippets.
    const auto snapshot = db.readSnapshot();
    const RunInfo run = db.runInfo();
    const std::map<std::string, int64_t> langs = db.languages();
    std::map<std::string, CategoryMap> bundled;
    auto tableFor = [&](const std::string& lang) -> const CategoryMap* {
        if (table)
            return table;
        auto it = bundled.find(lang);
        if (it == bundled.end())
            it = bundled.emplace(lang, CategoryMap::forLanguage(lang)).first; // InputError: unknown language
        return &it->second;
    };
    auto tableName = [&](const std::string& lang) {
        return table ? std::string("given table")
                     : "resources/languages/" + lang + "/" +
                           LanguageRegistry::instance().get(lang).categoryFile.filename().string();
    };
    ResultsDb::NodeValueQuery all;
    all.table = tableFor;
    all.qualifyConcepts = langs.size() > 1;
    CorpusStats s = computeStats(db.nodeValues(all), opts);
    s.mixedLanguages = all.qualifyConcepts;
    if (table) {
        s.categoryTable = tableName({});
    } else {
        for (const auto& [lang, n] : langs)
            s.categoryTable += (s.categoryTable.empty() ? "" : ", ") + tableName(lang);
        if (langs.empty())
            s.categoryTable = tableName(run.language);
    }
    for (const auto& [lang, n] : langs) {
        ResultsDb::NodeValueQuery one;
        one.language = lang;
        one.table = tableFor;
        const CorpusStats sub = computeStats(db.nodeValues(one), opts);
        LanguageStats ls;
        ls.language = lang;
        ls.snippets = n;
        ls.concepts = sub.concepts;
        ls.categories = sub.categories;
        ls.categoryConcepts = sub.categoryConcepts;
        ls.categoryOf = sub.categoryOf;
        ls.globalAscEval = sub.globalAscEval;
        ls.categoryTable = tableName(lang);
        s.languages.push_back(std::move(ls));
    }
    s.run = run;
    s.minN = kDefaultMinN;
    s.counts = db.counts();
    for (const auto& row : db.snippets()) {
        if (!row.ok)
            continue;
        s.snippetIds.push_back(row.id);
        s.snippetAscEval.push_back(row.ascEval);
        s.snippetCrossEntropy.push_back(row.crossEntropy);
        s.snippetLanguages.push_back(row.language);
    }
    return s;
}

} // namespace ascviz

// ---------------------------------------------------------------- report output
namespace ascviz {
namespace {

nlohmann::json statJson(const BootstrapResult& r, int64_t minN)
{
    return {{"median", r.median},
            {"se", r.se},
            {"ci95", {r.lo, r.hi}},
            {"n", r.n},
            {"flag", toString(thresholdFlag(r, minN))}};
}

// Concepts by node type, each with its category (null when the table has none); the report's and each language's.
nlohmann::json conceptsJson(const std::map<std::string, BootstrapResult>& concepts,
                            const std::map<std::string, std::string>& categoryOf, int64_t minN)
{
    auto out = nlohmann::json::object();
    for (const auto& [name, r] : concepts) {
        auto o = statJson(r, minN);
        const auto c = categoryOf.find(name);
        o["category"] = c == categoryOf.end() ? nlohmann::json(nullptr) : nlohmann::json(c->second);
        out[name] = std::move(o);
    }
    return out;
}

// Categories, each with how many of its concepts the corpus has.
nlohmann::json categoriesJson(const std::map<std::string, BootstrapResult>& categories,
                              const std::map<std::string, int>& categoryConcepts, int64_t minN)
{
    auto out = nlohmann::json::object();
    for (const auto& [name, r] : categories) {
        auto o = statJson(r, minN);
        const auto c = categoryConcepts.find(name);
        o["concepts"] = c == categoryConcepts.end() ? 0 : c->second;
        out[name] = std::move(o);
    }
    return out;
}

std::string num(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string optNum(const std::optional<double>& v)
{
    return v ? num(*v) : std::string();
}

} // namespace

nlohmann::json statsToJson(const CorpusStats& s)
{
    nlohmann::json j;
    j["model"] = s.run.modelName;
    j["model_dir"] = s.run.modelDir;
    j["corpus"] = s.run.corpusPath;
    j["aggregation"] = toString(s.run.aggregation);
    j["aggregation_scope"] = toString(s.run.aggregationScope);
    j["run_status"] = toString(s.run.status);
    j["snippets"] = s.counts.ok;
    j["errors"] = s.counts.errors;
    j["tokens"] = s.counts.tokens;
    j["nodes"] = s.counts.nodes;
    j["windowed"] = s.counts.windowed;
    j["dtype"] = s.run.dtype;
    j["global_asc_eval"] = s.globalAscEval ? nlohmann::json(*s.globalAscEval) : nlohmann::json(nullptr);
    j["global_asc_eval_all_concepts"] =
        s.globalAllConcepts ? nlohmann::json(*s.globalAllConcepts) : nlohmann::json(nullptr);
    j["category_rule"] = "Table I (method.md 5-6): category = mean of its concepts' bootstrapped medians; global = "
                         "mean over the categorized concepts; Decision/Exceptions by keyword leaves";
    j["category_table"] = s.categoryTable;
    j["bootstrap"] = {{"resamples", s.resamples}, {"seed", s.seed}};
    j["thresholds"] = {{"confident", kConfidentThreshold}, {"erroneous", kErroneousThreshold}, {"min_n", s.minN}};
    j["min_n"] = s.minN;
    j["concepts"] = conceptsJson(s.concepts, s.categoryOf, s.minN);
    j["categories"] = categoriesJson(s.categories, s.categoryConcepts, s.minN);
    auto pooled = nlohmann::json::object();
    for (const auto& [name, r] : s.categoriesPooled)
        pooled[name] = statJson(r, s.minN);
    j["categories_pooled"] = std::move(pooled);
    j["mixed_languages"] = s.mixedLanguages;
    auto languages = nlohmann::json::object();
    for (const auto& l : s.languages) {
        nlohmann::json o;
        o["snippets"] = l.snippets;
        o["global_asc_eval"] = l.globalAscEval ? nlohmann::json(*l.globalAscEval) : nlohmann::json(nullptr);
        o["category_table"] = l.categoryTable;
        o["categories"] = categoriesJson(l.categories, l.categoryConcepts, s.minN);
        o["concepts"] = conceptsJson(l.concepts, l.categoryOf, s.minN);
        languages[l.language] = std::move(o);
    }
    j["languages"] = std::move(languages);
    return j;
}

std::vector<std::filesystem::path> writeCsvReport(const CorpusStats& s, const ResultsDb& db,
                                                  const std::filesystem::path& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec))
        throw InputError("cannot create CSV folder " + dir.string());
    std::vector<fs::path> files;
    auto open = [&](const char* name) {
        files.push_back(dir / name);
        std::ofstream out(files.back(), std::ios::binary);
        if (!out)
            throw InputError("cannot write " + files.back().string());
        return out;
    };
    auto statRow = [&s](const BootstrapResult& r) {
        return num(r.median) + "," + num(r.se) + "," + num(r.lo) + "," + num(r.hi) + "," + std::to_string(r.n) + "," +
               toString(thresholdFlag(r, s.minN));
    };
    {
        auto out = open("concepts.csv");
        out << "concept,category,median,se,ci95_lo,ci95_hi,n,flag\r\n";
        for (const auto& [name, r] : s.concepts) {
            const auto c = s.categoryOf.find(name);
            out << csvField(name) << ',' << (c == s.categoryOf.end() ? "" : csvField(c->second)) << ',' << statRow(r)
                << "\r\n";
        }
        if (!out)
            throw InputError("failed writing " + files.back().string());
    }
    {
        auto out = open("categories.csv");
        out << "category,median,se,ci95_lo,ci95_hi,n,flag,concepts,pooled_median\r\n";
        for (const auto& [name, r] : s.categories) {
            const auto p = s.categoriesPooled.find(name);
            out << csvField(name) << ',' << statRow(r) << ','
                << (s.categoryConcepts.count(name) ? s.categoryConcepts.at(name) : 0) << ','
                << (p == s.categoriesPooled.end() ? std::string() : num(p->second.median)) << "\r\n";
        }
        if (!out)
            throw InputError("failed writing " + files.back().string());
    }
    {
        auto out = open("languages.csv");
        out << "language,kind,name,category,median,se,ci95_lo,ci95_hi,n,flag,snippets\r\n";
        for (const auto& l : s.languages) {
            const std::string lang = csvField(l.language);
            out << lang << ",global,," << ',' << (l.globalAscEval ? num(*l.globalAscEval) : std::string()) << ",,,,,"
                << (l.globalAscEval ? toString(thresholdFlag(*l.globalAscEval)) : std::string()) << ',' << l.snippets
                << "\r\n";
            for (const auto& [name, r] : l.categories)
                out << lang << ",category," << csvField(name) << ",," << statRow(r) << ',' << l.snippets << "\r\n";
            for (const auto& [name, r] : l.concepts) {
                const auto c = l.categoryOf.find(name);
                out << lang << ",concept," << csvField(name) << ','
                    << (c == l.categoryOf.end() ? "" : csvField(c->second)) << ',' << statRow(r) << ',' << l.snippets
                    << "\r\n";
            }
        }
        if (!out)
            throw InputError("failed writing " + files.back().string());
    }
    {
        auto out = open("snippets.csv");
        out << "index,id,status,message,cross_entropy,asc_eval,tokens,ast_nodes,ast_levels,cyclomatic,windowed,"
               "language\r\n";
        for (const auto& r : db.snippets()) {
            out << r.index << ',' << csvField(r.id) << ',' << (r.ok ? "ok" : "error") << ',' << csvField(r.message)
                << ',' << optNum(r.crossEntropy) << ',' << optNum(r.ascEval) << ',' << r.tokens << ',' << r.astNodes
                << ',' << r.astLevels << ',' << r.cyclomatic << ',' << (r.windowed ? 1 : 0) << ','
                << csvField(r.language) << "\r\n";
        }
        if (!out)
            throw InputError("failed writing " + files.back().string());
    }
    return files;
}

} // namespace ascviz
