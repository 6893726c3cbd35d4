#include "ascviz/calibration/calibration.h"

#include "ascviz/base/latex.h"

#include "ascviz/base/error.h"
#include "ascviz/results/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace ascviz::calibration {

namespace {

const std::pair<Confidence, const char*> kConfidenceNames[] = {
    {Confidence::P1, "p1"},           {Confidence::Ntp, "ntp"},
    {Confidence::Entropy, "entropy"}, {Confidence::TopkEntropy, "topk_entropy"},
    {Confidence::Margin, "margin"},   {Confidence::AscEval, "asc_eval"}};
const std::pair<By, const char*> kByNames[] = {
    {By::Global, "global"}, {By::Category, "category"}, {By::Concept, "concept"}};

nlohmann::json optionalJson(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json intervalJson(const std::optional<std::pair<double, double>>& ci)
{
    return ci ? nlohmann::json::array({ci->first, ci->second}) : nlohmann::json(nullptr);
}

std::optional<double> confidenceOf(Confidence c, const TokenRow& t)
{
    if (!t.ntp || !t.uncertainty)
        return std::nullopt;
    const TokenUncertainty& u = *t.uncertainty;
    switch (c) {
    case Confidence::P1:
        return u.p1;
    case Confidence::Ntp:
        return *t.ntp;
    case Confidence::Entropy:
        return u.entropy;
    case Confidence::TopkEntropy:
        return u.topkEntropy;
    case Confidence::Margin:
        return u.margin;
    case Confidence::AscEval: // from the nodes (analyze)
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

const char* toString(Confidence c)
{
    for (const auto& [k, name] : kConfidenceNames)
        if (k == c)
            return name;
    return "p1";
}

Confidence parseConfidence(const std::string& s)
{
    for (const auto& [k, name] : kConfidenceNames)
        if (s == name)
            return k;
    if (s == "topk-entropy")
        return Confidence::TopkEntropy;
    if (s == "asc-eval")
        return Confidence::AscEval;
    throw InputError("unknown confidence '" + s + "' (p1, ntp, entropy, topk-entropy, margin or asc-eval)");
}

const char* toString(By b)
{
    for (const auto& [k, name] : kByNames)
        if (k == b)
            return name;
    return "global";
}

By parseBy(const std::string& s)
{
    for (const auto& [k, name] : kByNames)
        if (s == name)
            return k;
    throw InputError("unknown grouping '" + s + "' (global, category or concept)");
}

bool isProbabilityOfBeingRight(Confidence c)
{
    return c == Confidence::P1;
}

double errorScore(Confidence c, double value)
{
    return c == Confidence::Entropy || c == Confidence::TopkEntropy ? value : -value;
}

Group analyzeGroup(const std::string& name, const std::vector<double>& confidence, const std::vector<bool>& correct,
                   const std::vector<int64_t>& snippetOf, const Options& opts)
{
    Group g;
    g.group = name;
    const std::size_t N = confidence.size();
    g.n = static_cast<int64_t>(N);
    const bool probability = isProbabilityOfBeingRight(opts.confidence);
    // The measures of a set of token indices: ECE (p1 only) and AUROC.
    const auto measure = [&](const std::vector<std::size_t>& idx, Group* full) {
        std::vector<Labelled> labelled;
        std::vector<double> score;
        std::vector<bool> error;
        for (const std::size_t i : idx) {
            labelled.push_back({confidence[i], correct[i]});
            score.push_back(errorScore(opts.confidence, confidence[i]));
            error.push_back(!correct[i]);
        }
        std::optional<double> ece;
        if (probability) {
            const auto bins = equalWidthBins(labelled, opts.bins);
            ece = expectedCalibrationError(bins);
            if (full) {
                full->bins = bins;
                full->ece = ece;
                full->mce = maximumCalibrationError(bins);
                full->eceMass = expectedCalibrationError(equalMassBins(labelled, opts.bins));
                full->brier = brierScore(labelled);
            }
        }
        const auto au = auroc(score, error);
        if (full) {
            full->auroc = au;
            full->auprc = averagePrecision(score, error);
        }
        return std::make_pair(ece, au);
    };
    std::vector<std::size_t> all(N);
    for (std::size_t i = 0; i < N; ++i) {
        all[i] = i;
        g.errors += correct[i] ? 0 : 1;
        g.meanConfidence += confidence[i];
    }
    if (N == 0)
        return g;
    g.meanConfidence /= static_cast<double>(N);
    g.accuracy = static_cast<double>(g.n - g.errors) / static_cast<double>(N);
    measure(all, &g);
    // The bootstrap: units (snippets, or tokens) drawn with replacement, as many as there are, their tokens pooled.
    std::vector<std::vector<std::size_t>> units;
    if (opts.resampleTokens) {
        for (std::size_t i = 0; i < N; ++i)
            units.push_back({i});
    } else {
        std::map<int64_t, std::size_t> unitOf;
        for (std::size_t i = 0; i < N; ++i) {
            const auto [it, added] = unitOf.emplace(snippetOf[i], units.size());
            if (added)
                units.emplace_back();
            units[it->second].push_back(i);
        }
    }
    g.snippets = opts.resampleTokens
                     ? static_cast<int64_t>(std::set<int64_t>(snippetOf.begin(), snippetOf.end()).size())
                     : static_cast<int64_t>(units.size());
    std::mt19937_64 rng(groupSeed(opts.seed, name));
    std::uniform_int_distribution<std::size_t> pick(0, units.size() - 1);
    std::vector<double> eces, aurocs;
    std::vector<std::size_t> sample;
    for (int r = 0; r < opts.resamples; ++r) {
        sample.clear();
        for (std::size_t u = 0; u < units.size(); ++u) {
            const auto& unit = units[pick(rng)];
            sample.insert(sample.end(), unit.begin(), unit.end());
        }
        const auto [ece, au] = measure(sample, nullptr);
        if (ece) // a resample where a statistic is undefined (AUROC without a wrong token) leaves it out
            eces.push_back(*ece);
        if (au)
            aurocs.push_back(*au);
    }
    if (probability)
        g.eceCi = percentileInterval(eces);
    g.aurocCi = percentileInterval(aurocs);
    return g;
}

Report analyze(const ResultsDb& db, const Options& opts)
{
    Report r;
    r.confidence = opts.confidence;
    r.by = opts.by;
    r.bins = std::max(1, opts.bins);
    Options o = opts;
    o.bins = r.bins;
    struct Tok {
        int64_t snippet;
        std::size_t start, end;
        double confidence;
        bool correct;
    };
    std::vector<Tok> toks;
    int64_t missing = 0;
    const auto snapshot = db.readSnapshot();
    const bool fromNodes = opts.confidence == Confidence::AscEval;
    db.forEachOkToken([&](const TokenRow& t) {
        if (!t.ntp) {
            ++r.tokensWithoutPrediction;
            return;
        }
        if (!t.uncertainty) {
            ++missing;
            return;
        }
        const auto c = fromNodes ? std::optional<double>(0.0) : confidenceOf(opts.confidence, t);
        if (c && std::isfinite(*c))
            toks.push_back({t.snippet, t.start, t.end, *c, t.uncertainty->rank == 1});
    });
    if (toks.empty() && missing > 0)
        throw InputError(db.path().string() + ": its tokens hold no entropy, top-K entropy, p1, margin or rank (the "
                                              "fields are missing: an AsC-Viz before results schema 5 wrote them); "
                                              "score the corpus again to analyse calibration",
                         ErrorContext(db.path().string()));
    // §3: a token is aligned to every node it overlaps (ts < ne && te > ns); a zero-width node to none.
    struct Node {
        std::size_t start, end;
        int64_t depth;
        std::optional<double> ascEval;
        std::string group; // its category or concept ("" when not grouped)
    };
    std::map<int64_t, std::vector<Node>> nodesOf; // per snippet, in the database's (pre-)order
    if (fromNodes || opts.by != By::Global) {
        db.forEachOkNode([&](const NodeRow& n) {
            if (n.end <= n.start)
                return;
            std::string group = opts.by == By::Category  ? n.category.value_or("")
                                : opts.by == By::Concept ? n.type
                                                         : std::string();
            nodesOf[n.snippet].push_back({n.start, n.end, n.depth, n.ascEval, std::move(group)});
        });
    }
    static const std::vector<Node> kNone;
    const auto alignedNodes = [&](const Tok& t) -> const std::vector<Node>& {
        const auto it = nodesOf.find(t.snippet);
        return it == nodesOf.end() ? kNone : it->second;
    };
    if (fromNodes) {
        // asc_eval: the AsC-Eval of the deepest aligned node that has one (on equal depth the first in pre-order).
        std::vector<Tok> kept;
        for (Tok t : toks) {
            const Node* best = nullptr;
            for (const Node& n : alignedNodes(t))
                if (t.start < n.end && t.end > n.start && n.ascEval && std::isfinite(*n.ascEval) &&
                    (!best || n.depth > best->depth))
                    best = &n;
            if (!best) {
                ++r.tokensWithoutConfidence;
                continue;
            }
            t.confidence = *best->ascEval;
            kept.push_back(t);
        }
        toks = std::move(kept);
    }
    const auto group = [&](const std::string& name, const std::vector<std::size_t>& idx) {
        std::vector<double> conf;
        std::vector<bool> correct;
        std::vector<int64_t> snippet;
        for (const std::size_t i : idx) {
            conf.push_back(toks[i].confidence);
            correct.push_back(toks[i].correct);
            snippet.push_back(toks[i].snippet);
        }
        r.groups.push_back(analyzeGroup(name, conf, correct, snippet, o));
    };
    std::vector<std::size_t> all(toks.size());
    for (std::size_t i = 0; i < toks.size(); ++i)
        all[i] = i;
    group("global", all);
    if (opts.by != By::Global) {
        // Each token counts once per category or concept.
        std::map<std::string, std::vector<std::size_t>> byGroup;
        for (std::size_t i = 0; i < toks.size(); ++i) {
            std::set<std::string> names;
            for (const Node& n : alignedNodes(toks[i]))
                if (!n.group.empty() && toks[i].start < n.end && toks[i].end > n.start)
                    names.insert(n.group);
            for (const auto& name : names)
                byGroup[name].push_back(i);
        }
        for (const auto& [name, idx] : byGroup)
            group(name, idx);
    }
    // Temperature scaling needs z_max, z_w and the grid's lse per token (temperature.h); no database stores them.
    r.temperature = std::nullopt;
    return r;
}

nlohmann::json reportJson(const Report& r)
{
    nlohmann::json groups = nlohmann::json::array();
    for (const Group& g : r.groups)
        groups.push_back({{"group", g.group},
                          {"n", g.n},
                          {"errors", g.errors},
                          {"ece", optionalJson(g.ece)},
                          {"ece_ci", intervalJson(g.eceCi)},
                          {"ece_mass", optionalJson(g.eceMass)},
                          {"mce", optionalJson(g.mce)},
                          {"brier", optionalJson(g.brier)},
                          {"auroc", optionalJson(g.auroc)},
                          {"auroc_ci", intervalJson(g.aurocCi)},
                          {"auprc", optionalJson(g.auprc)}});
    const auto& t = r.temperature;
    return {{"confidence", toString(r.confidence)},
            {"label", r.label},
            {"by", toString(r.by)},
            {"bins", r.bins},
            {"groups", std::move(groups)},
            {"temperature",
             {{"t", t ? nlohmann::json(t->t) : nlohmann::json(nullptr)},
              {"ece_before", t ? nlohmann::json(t->eceBefore) : nlohmann::json(nullptr)},
              {"ece_after", t ? nlohmann::json(t->eceAfter) : nlohmann::json(nullptr)}}}};
}

namespace {

// A measure with `format`, or `none` where it does not apply.
std::string measure(const std::optional<double>& v, const char* format, const char* none)
{
    if (!v)
        return none;
    char b[32];
    std::snprintf(b, sizeof b, format, *v);
    return b;
}

} // namespace

std::string reportText(const Report& r)
{
    const auto num = [](const std::optional<double>& v) { return measure(v, "%.4f", "-"); };
    const auto ci = [&](const std::optional<std::pair<double, double>>& c) {
        return c ? "[" + num(c->first) + ", " + num(c->second) + "]" : std::string("-");
    };
    // ASTxplainer's Table I thresholds (seed 001, §VII-A), as §6's flags.
    const auto flag = [](double v) { return v >= 0.6 ? "confident" : v < 0.5 ? "erroneous" : "neutral"; };
    std::ostringstream os;
    os << "calibration: confidence " << toString(r.confidence) << ", label " << r.label << ", " << r.bins
       << " bins of equal width, by " << toString(r.by) << "\n";
    if (r.tokensWithoutConfidence > 0)
        os << r.tokensWithoutConfidence << " tokens left out: aligned to no node with an AsC-Eval\n";
    for (const Group& g : r.groups) {
        os << g.group << ": n " << g.n << ", errors " << g.errors << ", snippets " << g.snippets << "\n"
           << "  mean confidence " << num(g.meanConfidence) << " (" << flag(g.meanConfidence) << "), accuracy "
           << num(g.accuracy) << " (" << flag(g.accuracy) << ")\n"
           << "  ECE " << num(g.ece) << " " << ci(g.eceCi) << ", ECE (equal mass) " << num(g.eceMass) << ", MCE "
           << num(g.mce) << ", Brier " << num(g.brier) << "\n"
           << "  AUROC " << num(g.auroc) << " " << ci(g.aurocCi) << ", AUPRC " << num(g.auprc) << "\n";
    }
    if (r.temperature)
        os << "temperature: T " << num(r.temperature->t) << ", ECE before " << num(r.temperature->eceBefore)
           << ", after " << num(r.temperature->eceAfter) << "\n";
    else
        os << "temperature: not available (the database stores no per-token log-sum-exp over the temperature "
              "grid)\n";
    return os.str();
}

std::string reportLatex(const Report& r)
{
    const auto num = [](const std::optional<double>& v) { return measure(v, "%.3f", "--"); };
    const auto ci = [&](const std::optional<std::pair<double, double>>& c) {
        return c ? " {\\footnotesize [" + num(c->first) + ", " + num(c->second) + "]}" : std::string();
    };
    std::ostringstream os;
    os << "\\begin{table}[t]\n\\centering\n\\caption{Calibration of " << latexEscape(toString(r.confidence))
       << (r.by == By::Concept ? " by concept (" : " by syntax category (") << latexEscape(r.label) << " labels, "
       << r.bins << " equal-width bins; 95\\,\\% bootstrap intervals over snippets).}\n"
       << "\\begin{tabular}{lrrllrll}\n\\toprule\n"
       << "Group & $n$ & Errors & ECE & MCE & Brier & AUROC & AUPRC \\\\\n\\midrule\n";
    for (const Group& g : r.groups)
        os << latexEscape(g.group) << " & " << g.n << " & " << g.errors << " & " << num(g.ece) << ci(g.eceCi) << " & "
           << num(g.mce) << " & " << num(g.brier) << " & " << num(g.auroc) << ci(g.aurocCi) << " & " << num(g.auprc)
           << " \\\\\n";
    os << "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
    return os.str();
}

} // namespace ascviz::calibration
