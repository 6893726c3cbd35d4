// The corpus tally of attention heads vs relations and its report (method.md §11).
#include "ascviz/attention/headreport.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace ascviz {

bool BaselineChoice::operator<(const BaselineChoice& o) const
{
    if (isKeyword != o.isKeyword)
        return !isKeyword;
    return isKeyword ? keyword < o.keyword : offset < o.offset;
}

std::string BaselineChoice::label() const
{
    return isKeyword ? keyword : std::to_string(offset);
}

double GreedyResult::score(int k, int count) const
{
    if (count <= 0 || coverage.empty() || k <= 0)
        return 0.0;
    const std::size_t i = std::min(static_cast<std::size_t>(k), coverage.size()) - 1;
    return static_cast<double>(coverage[i]) / count;
}

GreedyResult greedyBaseline(const std::vector<BaselineHits>& edges, int maxK, bool offsets, bool keywords)
{
    GreedyResult out;
    std::vector<char> hit(edges.size(), 0);
    int covered = 0;
    for (int step = 0; step < maxK; ++step) {
        std::map<BaselineChoice, int> gain;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            if (hit[e])
                continue;
            for (const auto& c : edges[e])
                if (c.isKeyword ? keywords : offsets)
                    ++gain[c];
        }
        const BaselineChoice* best = nullptr;
        int bestGain = 0;
        for (const auto& [c, g] : gain) // ascending order: the first of equal gains wins
            if (g > bestGain) {
                best = &c;
                bestGain = g;
            }
        if (!best)
            break;
        const BaselineChoice chosen = *best;
        for (std::size_t e = 0; e < edges.size(); ++e)
            if (!hit[e] && std::find(edges[e].begin(), edges[e].end(), chosen) != edges[e].end()) {
                hit[e] = 1;
                ++covered;
            }
        out.choices.push_back(chosen);
        out.coverage.push_back(covered);
    }
    return out;
}

namespace {

std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

} // namespace

BaselineHits baselineHits(const HeadEdge& edge, const std::vector<std::string>& tokenTexts,
                          const std::vector<std::string>& sortedKeywords)
{
    BaselineHits out;
    if (edge.paper) {
        // The paper's baselines, from the head forwards: offset i predicts the word i after the head, keyword w
        // the first word w after the head; a hit when the prediction is one of the words the metric asks for.
        const int h = edge.targets.front();
        for (int q : edge.queries) {
            BaselineChoice off;
            off.offset = q - h;
            out.push_back(off);
            const std::string w = trimmed(tokenTexts[static_cast<std::size_t>(q)]);
            if (w.empty() || !std::binary_search(sortedKeywords.begin(), sortedKeywords.end(), w))
                continue;
            bool next = true;
            for (int j = h + 1; j < q && next; ++j)
                next = trimmed(tokenTexts[static_cast<std::size_t>(j)]) != w;
            BaselineChoice kw;
            kw.isKeyword = true;
            kw.keyword = w;
            if (next && std::find(out.begin(), out.end(), kw) == out.end())
                out.push_back(std::move(kw));
        }
        return out;
    }
    for (int t : edge.targets) {
        BaselineChoice off;
        off.offset = edge.query - t;
        out.push_back(off);
        const std::string w = trimmed(tokenTexts[static_cast<std::size_t>(t)]);
        if (w.empty() || !std::binary_search(sortedKeywords.begin(), sortedKeywords.end(), w))
            continue;
        bool nearest = true;
        for (int j = t + 1; j < edge.query && nearest; ++j)
            nearest = trimmed(tokenTexts[static_cast<std::size_t>(j)]) != w;
        if (nearest) {
            BaselineChoice kw;
            kw.isKeyword = true;
            kw.keyword = w;
            if (std::find(out.begin(), out.end(), kw) == out.end())
                out.push_back(std::move(kw));
        }
    }
    return out;
}

HeadTally::HeadTally(int layers, int maxK, std::vector<std::string> keywords)
    : m_layers(layers), m_maxK(maxK), m_keywords(std::move(keywords))
{
    if (maxK < 1 || maxK >= HeadScorer::kMiss)
        throw InputError("attention heads: top-k must be between 1 and " + std::to_string(HeadScorer::kMiss - 1));
    if (layers < 1 || static_cast<std::size_t>(layers) > kMaxHeadCells)
        throw InputError("attention heads: " + std::to_string(layers) + " layers is not 1.." +
                         std::to_string(kMaxHeadCells));
    std::sort(m_keywords.begin(), m_keywords.end());
    m_keywords.erase(std::unique(m_keywords.begin(), m_keywords.end()), m_keywords.end());
}

void HeadTally::add(const std::vector<Relation>& relations, const std::vector<std::string>& tokenTexts,
                    const HeadScorer& scored)
{
    add(record({}, relations, tokenTexts, scored));
}

TextRecord HeadTally::record(std::string id, const std::vector<Relation>& relations,
                             const std::vector<std::string>& tokenTexts, const HeadScorer& scored) const
{
    if (scored.layers() != m_layers)
        throw InputError("attention heads: a text scored with " + std::to_string(scored.layers()) +
                         " layers in a tally of " + std::to_string(m_layers));
    TextRecord out;
    out.id = std::move(id);
    const auto& edges = scored.edges();
    for (std::size_t e = 0; e < edges.size(); ++e) {
        const Relation& r = relations[edges[e].relation];
        if (!scored.evaluated(e)) {
            if (scored.outsideWindow(e))
                ++out.outside[r.type];
            continue;
        }
        EdgeRecord x{
            r.type, edges[e].paper ? edges[e].offset : r.offset, {}, baselineHits(edges[e], tokenTexts, m_keywords)};
        x.ranks.reserve(static_cast<std::size_t>(m_layers) * static_cast<std::size_t>(scored.heads()));
        for (int l = 0; l < m_layers; ++l)
            for (int h = 0; h < scored.heads(); ++h)
                x.ranks.push_back(scored.rank(e, l, h));
        out.edges.push_back(std::move(x));
    }
    return out;
}

void HeadTally::add(const TextRecord& text)
{
    // Checked first, so that a record that does not fit leaves the tally as it was: the ranks of every edge
    // (a whole number of heads per layer, the same heads as before, at most kMaxHeadCells), the histogram
    // cells its new types add, and the counts of edges left out (not negative, no overflow).
    const auto layers = static_cast<std::size_t>(m_layers);
    const auto maxK = static_cast<std::size_t>(m_maxK);
    std::size_t heads = static_cast<std::size_t>(m_heads);
    std::size_t cells = m_cells;
    std::set<std::string> newTypes;
    for (const EdgeRecord& x : text.edges) {
        const std::size_t n = x.ranks.size();
        if (n > kMaxHeadCells)
            throw InputError("attention heads: an edge of '" + x.type + "' has " + std::to_string(n) +
                             " ranks, more than the " + std::to_string(kMaxHeadCells) +
                             " (layers x heads) a tally takes");
        if (n == 0 || n % layers != 0 || (heads && n / layers != heads))
            throw InputError("attention heads: " + std::to_string(n) + " ranks of an edge of '" + x.type +
                             "' do not fit " + std::to_string(m_layers) + " layers" +
                             (heads ? " x " + std::to_string(heads) + " heads" : std::string()));
        heads = n / layers;
        const auto it = m_types.find(x.type);
        if ((it == m_types.end() || it->second.histogram.empty()) && newTypes.insert(x.type).second) {
            cells += n * maxK; // n <= kMaxHeadCells and maxK < 255: no overflow
            if (cells > kMaxHistogramCells)
                throw InputError("attention heads: " + std::to_string(m_types.size() + newTypes.size()) +
                                 " relation types x " + std::to_string(n) + " (layers x heads) x " +
                                 std::to_string(m_maxK) + " ranks pass the limit of " +
                                 std::to_string(kMaxHistogramCells) + " histogram cells (" +
                                 std::to_string(kMaxHistogramCells * sizeof(int) >> 20) +
                                 " MiB) a tally takes; a smaller largest top-k needs fewer");
        }
    }
    for (const auto& [type, n] : text.outside) {
        const auto it = m_types.find(type);
        const int before = it == m_types.end() ? 0 : it->second.outside;
        if (n < 0 || n > INT32_MAX - before)
            throw InputError("attention heads: " + std::to_string(n) + " edges of '" + type +
                             "' left out is not a count (negative, or the total passes 32 bits)");
    }
    ++m_texts;
    m_cells = cells;
    m_heads = static_cast<int>(heads);
    for (const auto& [type, n] : text.outside)
        m_types[type].outside += n;
    for (const EdgeRecord& x : text.edges) {
        TypeTally& t = m_types[x.type];
        if (t.histogram.empty())
            t.histogram.assign(x.ranks.size() * maxK, 0);
        ++t.count;
        t.offsetSum += x.offset;
        for (std::size_t lh = 0; lh < x.ranks.size(); ++lh)
            if (x.ranks[lh] < m_maxK)
                ++t.histogram[lh * maxK + x.ranks[lh]];
        t.hits.push_back(x.hits);
    }
}

std::vector<std::pair<std::string, int>> HeadTally::typeCounts() const
{
    std::vector<std::pair<std::string, int>> out;
    for (const auto& [name, t] : m_types)
        out.emplace_back(name, t.count);
    return out;
}

std::vector<double> HeadTally::headScores(const std::string& type, int k) const
{
    const auto it = m_types.find(type);
    if (it == m_types.end() || it->second.count == 0 || k < 1)
        return {};
    const TypeTally& t = it->second;
    std::vector<double> out(static_cast<std::size_t>(m_layers) * static_cast<std::size_t>(m_heads), 0.0);
    const int upTo = std::min(k, m_maxK);
    for (std::size_t lh = 0; lh < out.size(); ++lh) {
        int hits = 0;
        for (int r = 0; r < upTo; ++r)
            hits += t.histogram[lh * static_cast<std::size_t>(m_maxK) + static_cast<std::size_t>(r)];
        out[lh] = static_cast<double>(hits) / t.count;
    }
    return out;
}

HeadReport HeadTally::report(const std::vector<int>& topK, int minCount) const
{
    if (topK.empty())
        throw InputError("attention heads: no top-k given");
    for (int k : topK)
        if (k < 1 || k > m_maxK)
            throw InputError("attention heads: top-k " + std::to_string(k) + " is outside 1.." +
                             std::to_string(m_maxK));
    HeadReport r;
    r.topK = topK;
    r.minCount = minCount;
    r.texts = m_texts;
    r.layers = m_layers;
    r.heads = m_heads;
    const int maxK = *std::max_element(topK.begin(), topK.end());
    for (const auto& [name, t] : m_types) {
        if (t.count == 0)
            continue;
        if (t.count < minCount) {
            r.rare.emplace_back(name, t.count);
            continue;
        }
        RelationHeads rel;
        rel.type = name;
        rel.count = t.count;
        rel.outsideWindow = t.outside;
        rel.meanOffset = t.offsetSum / t.count;
        std::vector<std::vector<double>> perK; // [k index][layer * heads + head]
        for (int k : topK)
            perK.push_back(headScores(name, k));
        // The best head: by the first k, ties by the next k, then the lowest (layer, head).
        std::size_t best = 0;
        for (std::size_t lh = 1; lh < perK.front().size(); ++lh) {
            for (std::size_t ki = 0; ki < perK.size(); ++ki) {
                if (perK[ki][lh] != perK[ki][best]) {
                    if (perK[ki][lh] > perK[ki][best])
                        best = lh;
                    break;
                }
            }
        }
        auto pick = [&](std::size_t lh, double score) {
            return HeadPick{static_cast<int>(lh) / m_heads, static_cast<int>(lh) % m_heads, score};
        };
        rel.best = pick(best, perK.front()[best]);
        for (std::size_t ki = 0; ki < perK.size(); ++ki) {
            rel.bestScores.push_back(perK[ki][best]);
            const auto it = std::max_element(perK[ki].begin(), perK[ki].end()); // the first of equal maxima
            rel.bestPerK.push_back(pick(static_cast<std::size_t>(it - perK[ki].begin()), *it));
        }
        rel.offset = greedyBaseline(t.hits, maxK, true, false);
        rel.keyword = greedyBaseline(t.hits, maxK, false, true);
        rel.combined = greedyBaseline(t.hits, maxK, true, true);
        for (std::size_t ki = 0; ki < topK.size(); ++ki) {
            const int k = topK[ki];
            rel.offsetScores.push_back(rel.offset.score(k, t.count));
            rel.keywordScores.push_back(rel.keyword.score(k, t.count));
            rel.combinedScores.push_back(rel.combined.score(k, t.count));
            const double baseline =
                std::max({rel.offsetScores.back(), rel.keywordScores.back(), rel.combinedScores.back()});
            rel.diff.push_back(rel.bestPerK[ki].score - baseline);
        }
        r.relations.push_back(std::move(rel));
    }
    const std::size_t K = topK.size();
    r.modelScore.assign(K, 0.0);
    r.offsetScore.assign(K, 0.0);
    r.keywordScore.assign(K, 0.0);
    r.combinedScore.assign(K, 0.0);
    r.baselineScore.assign(K, 0.0);
    if (!r.relations.empty()) {
        const double n = static_cast<double>(r.relations.size());
        for (const auto& rel : r.relations)
            for (std::size_t ki = 0; ki < K; ++ki) {
                r.modelScore[ki] += rel.bestPerK[ki].score / n;
                r.offsetScore[ki] += rel.offsetScores[ki] / n;
                r.keywordScore[ki] += rel.keywordScores[ki] / n;
                r.combinedScore[ki] += rel.combinedScores[ki] / n;
                r.baselineScore[ki] +=
                    std::max({rel.offsetScores[ki], rel.keywordScores[ki], rel.combinedScores[ki]}) / n;
            }
    }
    return r;
}

} // namespace ascviz
