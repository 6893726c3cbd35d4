#include "ascviz/results/straddles.h"

#include <algorithm>
#include <map>
#include <set>

namespace ascviz {

namespace {

std::optional<double> medianOrNone(std::vector<double> v)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Pool {
    int64_t tokens = 0, straddling = 0, scored = 0;
    std::vector<double> straddlingNtp, restNtp;
};

// One snippet's tokens and nodes into the pools.
void addSnippet(const std::vector<TokenRow>& tokens, const std::vector<NodeRow>& nodes,
                std::map<std::string, Pool>& pools)
{
    std::set<int64_t> parents;
    for (const auto& n : nodes)
        if (n.parent >= 0)
            parents.insert(n.parent);
    std::vector<const NodeRow*> leaves;
    for (const auto& n : nodes)
        if (!parents.count(n.node) && n.end > n.start)
            leaves.push_back(&n);
    for (const auto& t : tokens) {
        if (t.end <= t.start)
            continue;
        int overlapping = 0;
        bool split = false;
        for (const NodeRow* l : leaves)
            if (t.start < l->end && t.end > l->start) {
                ++overlapping;
                split = split || l->start < t.start || l->end > t.end;
            }
        const bool straddles = overlapping >= 2 || split;
        std::set<std::string> categories;
        for (const auto& n : nodes)
            if (n.category && t.start < n.end && t.end > n.start)
                categories.insert(*n.category);
        for (const auto& c : categories) {
            Pool& p = pools[c];
            ++p.tokens;
            p.straddling += straddles ? 1 : 0;
            if (t.ntp) {
                ++p.scored;
                (straddles ? p.straddlingNtp : p.restNtp).push_back(*t.ntp);
            }
        }
    }
}

} // namespace

std::vector<StraddleRow> straddlesByCategory(const ResultsDb& db)
{
    std::map<int64_t, std::vector<TokenRow>> tokens;
    db.forEachOkToken([&](const TokenRow& t) { tokens[t.snippet].push_back(t); });
    std::map<int64_t, std::vector<NodeRow>> nodes;
    db.forEachOkNode([&](const NodeRow& n) { nodes[n.snippet].push_back(n); });
    std::map<std::string, Pool> pools;
    for (const auto& [snippet, ts] : tokens)
        if (const auto it = nodes.find(snippet); it != nodes.end())
            addSnippet(ts, it->second, pools);
    std::vector<StraddleRow> rows;
    for (auto& [c, p] : pools)
        rows.push_back({c, p.tokens, p.straddling, p.scored, medianOrNone(std::move(p.straddlingNtp)),
                        medianOrNone(std::move(p.restNtp))});
    return rows;
}

nlohmann::json straddlesJson(const std::vector<StraddleRow>& rows)
{
    using nlohmann::json;
    json out = json::object();
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    for (const auto& r : rows)
        out[r.category] = {
            {"tokens", r.tokens},
            {"straddling", r.straddling},
            {"share", r.tokens ? static_cast<double>(r.straddling) / static_cast<double>(r.tokens) : 0.0},
            {"asc_straddling", opt(r.ascStraddling)},
            {"asc_rest", opt(r.ascRest)}};
    return out;
}

nlohmann::json reportJson(const ResultsDb& db, const CorpusStats& s)
{
    nlohmann::json j = statsToJson(s);
    j["straddles"] = straddlesJson(straddlesByCategory(db));
    return j;
}

} // namespace ascviz
