// PERPLEXED over a results database (perplexed.h).
#include "ascviz/analysis/perplexed.h"

#include "ascviz/analysis/rank.h"
#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ascviz {

CeStat ceStat(const std::vector<double>& v)
{
    CeStat s;
    s.count = static_cast<int64_t>(v.size());
    if (v.empty())
        return s;
    double sum = 0;
    for (double x : v)
        sum += x;
    s.mean = sum / static_cast<double>(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v)
            ss += (x - s.mean) * (x - s.mean);
        s.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
    }
    return s;
}

namespace {

bool listed(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

// The deepest node whose span holds byte `pos` (pre-order: a later containing node is deeper).
int deepestAt(const SyntaxTree& t, std::size_t pos)
{
    int best = 0;
    for (const auto& n : t.nodes()) {
        if (n.start > pos)
            break; // pre-order starts never decrease
        if (n.start <= pos && pos < n.end)
            best = n.id;
    }
    return best;
}

std::vector<std::pair<std::string, CeStat>> ranked(const std::map<std::string, std::vector<double>>& groups,
                                                   int minCount, int top, bool worst)
{
    std::vector<std::pair<std::string, CeStat>> all;
    for (const auto& [k, v] : groups)
        if (static_cast<int>(v.size()) >= minCount)
            all.emplace_back(k, ceStat(v));
    std::sort(all.begin(), all.end(), [worst](const auto& a, const auto& b) {
        if (a.second.mean != b.second.mean)
            return worst ? a.second.mean > b.second.mean : a.second.mean < b.second.mean;
        return a.first < b.first;
    });
    if (static_cast<int>(all.size()) > top)
        all.resize(static_cast<std::size_t>(top));
    return all;
}

} // namespace

PerplexedReport analyzePerplexed(const ResultsDb& db, const PerplexedOptions& opts)
{
    PerplexedReport r;
    r.minCount = opts.minCount;
    const auto& reg = LanguageRegistry::instance();
    // Tokens per snippet.
    std::map<int64_t, std::vector<CeToken>> tokens;
    db.forEachOkToken([&](const TokenRow& t) {
        if (!t.ntp || !(*t.ntp > 0)) {
            ++r.skipped;
            return;
        }
        tokens[t.snippet].push_back({t.start, t.end, -std::log(*t.ntp)});
    });
    std::map<std::string, std::vector<double>> byText, byLabel, errorLabels;
    std::vector<double> all, internal, external, errorParented;
    std::optional<CallTableBuilder> builder;
    if (opts.repository)
        builder.emplace(*opts.repository);
    for (const auto& row : db.snippets()) {
        if (!row.ok)
            continue;
        const auto it = tokens.find(row.index);
        if (it == tokens.end())
            continue;
        ++r.snippets;
        const std::string code = db.snippetCode(row.index);
        const LanguageInfo* lang = reg.find(row.language);
        if (!lang)
            throw InputError("snippet " + row.id + " is in language '" + row.language + "', which this build lacks");
        const SyntaxTree tree = SyntaxTree::parse(lang->id, code);
        const auto& nodes = tree.nodes();
        for (const CeToken& t : it->second) {
            if (t.end > code.size() || t.start >= t.end)
                continue;
            all.push_back(t.ce);
            byText[code.substr(t.start, t.end - t.start)].push_back(t.ce);
            std::size_t pos = t.start;
            while (pos < t.end && std::isspace(static_cast<unsigned char>(code[pos])))
                ++pos;
            if (pos == t.end) { // an all-whitespace token: not the statement it indents (method.md §10)
                byLabel["whitespace"].push_back(t.ce);
                continue;
            }
            const AstNode& n = nodes[static_cast<std::size_t>(deepestAt(tree, pos))];
            const std::string label =
                n.parent < 0 ? n.type : nodes[static_cast<std::size_t>(n.parent)].type + " -> " + n.type;
            byLabel[label].push_back(t.ce);
            if (n.parent >= 0 && nodes[static_cast<std::size_t>(n.parent)].isError) {
                errorParented.push_back(t.ce);
                errorLabels[label].push_back(t.ce);
            }
        }
        if (builder)
            builder->addSnippet(row.id, *lang, tree, it->second);
        // Calls: internal when the snippet defines the callee.
        std::set<std::string> defined;
        for (const auto& n : nodes)
            if (n.named && listed(lang->calls.definitions, n.type))
                defined.insert(definitionName(tree, n));
        for (const auto& c : nodes) {
            if (!c.named || !listed(lang->calls.types, c.type))
                continue;
            const int calleeId = calleeNode(tree, *lang, c);
            const std::string callee =
                calleeId < 0 ? std::string() : std::string(tree.nodeText(nodes[static_cast<std::size_t>(calleeId)]));
            // A qualified name (C++ a::b) is matched by its last part too.
            const std::string last =
                callee.substr(callee.rfind("::") == std::string::npos ? 0 : callee.rfind("::") + 2);
            if (callee.empty())
                continue;
            if (listed(lang->calls.builtins, callee)) {
                ++r.builtinCalls;
                continue;
            }
            bool isInternal = defined.count(callee) > 0 || defined.count(last) > 0;
            if (!isInternal)
                for (const auto& d : defined) // a definition A::f defines f
                    if (d.size() >= last.size() + 2 && d.compare(d.size() - last.size(), last.size(), last) == 0 &&
                        d.compare(d.size() - last.size() - 2, 2, "::") == 0)
                        isInternal = true;
            auto& sink = isInternal ? internal : external;
            (isInternal ? r.internalCalls : r.externalCalls).calls++;
            for (const CeToken& t : it->second)
                if (t.start < c.end && t.end > c.start)
                    sink.push_back(t.ce);
        }
    }
    r.tokens = static_cast<int64_t>(all.size());
    r.all = ceStat(all);
    r.worstTokens = ranked(byText, opts.minCount, opts.top, true);
    r.bestTokens = ranked(byText, opts.minCount, opts.top, false);
    r.worstLabels = ranked(byLabel, opts.minCount, opts.top, true);
    r.bestLabels = ranked(byLabel, opts.minCount, opts.top, false);
    r.internalCalls.ce = ceStat(internal);
    r.externalCalls.ce = ceStat(external);
    r.errorParented = ceStat(errorParented);
    r.worstTokensAll = ranked(byText, 1, 10, true);
    r.bestTokensAll = ranked(byText, 1, 10, false);
    r.worstLabelsAll = ranked(byLabel, 1, 10, true);
    r.bestLabelsAll = ranked(byLabel, 1, 10, false);
    auto rho = [](const std::map<std::string, std::vector<double>>& groups) {
        std::vector<double> freq, mean;
        for (const auto& [k, v] : groups) {
            freq.push_back(static_cast<double>(v.size()));
            mean.push_back(ceStat(v).mean);
        }
        return spearman(freq, mean);
    };
    r.spearmanTokens = rho(byText);
    r.spearmanLabels = rho(byLabel);
    r.tokenGroups = static_cast<int64_t>(byText.size());
    r.labelGroups = static_cast<int64_t>(byLabel.size());
    if (builder)
        r.callTable = builder->finish();
    r.errorLabels = ranked(errorLabels, 1, opts.top, true);
    if (r.tokens == 0)
        throw InputError(db.path().string() + " holds no scored token of an evaluated snippet: nothing to analyse");
    return r;
}

namespace {
nlohmann::json statJson(const CeStat& s)
{
    return {{"mean_ce", s.mean}, {"std_ce", s.std}, {"count", s.count}};
}

nlohmann::json listJson(const std::vector<std::pair<std::string, CeStat>>& v, const char* key)
{
    auto a = nlohmann::json::array();
    for (const auto& [name, s] : v) {
        auto o = statJson(s);
        o[key] = name;
        a.push_back(std::move(o));
    }
    return a;
}
} // namespace

nlohmann::json perplexedToJson(const PerplexedReport& r)
{
    nlohmann::json j;
    j["snippets"] = r.snippets;
    j["token_count"] = r.tokens;
    j["skipped_tokens"] = r.skipped;
    j["min_count"] = r.minCount;
    j["all"] = statJson(r.all);
    j["tokens"] = {{"worst", listJson(r.worstTokens, "text")}, {"best", listJson(r.bestTokens, "text")}};
    j["labels"] = {{"worst", listJson(r.worstLabels, "label")}, {"best", listJson(r.bestLabels, "label")}};
    auto call = [](const CallStat& c) {
        auto o = statJson(c.ce);
        o["calls"] = c.calls;
        return o;
    };
    j["calls"] = {{"internal", call(r.internalCalls)},
                  {"external", call(r.externalCalls)},
                  {"builtin_calls_left_out", r.builtinCalls}};
    j["tokens"]["worst_unfiltered"] = listJson(r.worstTokensAll, "text");
    j["tokens"]["best_unfiltered"] = listJson(r.bestTokensAll, "text");
    j["labels"]["worst_unfiltered"] = listJson(r.worstLabelsAll, "label");
    j["labels"]["best_unfiltered"] = listJson(r.bestLabelsAll, "label");
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    j["spearman_frequency_ce"] = {{"tokens", opt(r.spearmanTokens)},
                                  {"labels", opt(r.spearmanLabels)},
                                  {"token_groups", r.tokenGroups},
                                  {"label_groups", r.labelGroups}};
    j["call_table"] = r.callTable ? callTableToJson(*r.callTable) : nlohmann::json();
    j["calls"]["rule"] = "internal: defined in the same snippet (call_table: the paper's repository rule)";
    j["error_parented"] = statJson(r.errorParented);
    j["error_parented"]["labels"] = listJson(r.errorLabels, "label");
    j["method"] = "CE = -ln NtP per token; label = 'parent -> type' of the deepest node holding the token's first "
                  "non-whitespace byte; std is the sample standard deviation; calls: tokens overlapping the call node";
    return j;
}

} // namespace ascviz
