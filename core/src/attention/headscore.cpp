// The per-layer reduction of attention probabilities to target ranks (method.md §11).
#include "ascviz/attention/headscore.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <map>

namespace ascviz {

HeadMetric parseHeadMetric(std::string_view name)
{
    if (name == "first")
        return HeadMetric::First;
    if (name == "last")
        return HeadMetric::Last;
    if (name == "any")
        return HeadMetric::Any;
    throw InputError("unknown metric '" + std::string(name) + "' (expected first, last or any)");
}

const char* headMetricName(HeadMetric m)
{
    switch (m) {
    case HeadMetric::First:
        return "first";
    case HeadMetric::Last:
        return "last";
    case HeadMetric::Any:
        return "any";
    }
    return "first";
}

std::vector<HeadEdge> headEdges(const std::vector<Relation>& relations, HeadMetric metric)
{
    std::vector<HeadEdge> out;
    for (std::size_t i = 0; i < relations.size(); ++i) {
        const Relation& r = relations[i];
        if (r.head.tokens.empty() || r.dependent.tokens.empty())
            continue;
        const int q = r.dependent.tokens.front();
        if (r.head.tokens.front() >= q)
            continue;
        HeadEdge e(i, q, {});
        e.offset = r.offset;
        if (metric == HeadMetric::First) {
            e.targets.push_back(r.head.tokens.front());
        } else {
            for (int t : r.head.tokens)
                if (t < q)
                    e.targets.push_back(t);
            if (metric == HeadMetric::Last)
                e.targets = {e.targets.back()};
        }
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<HeadEdge> paperEdges(const std::vector<Relation>& relations, const TokenWords& words,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans, HeadMetric metric)
{
    std::vector<HeadEdge> out;
    for (std::size_t i = 0; i < relations.size(); ++i) {
        const Relation& r = relations[i];
        if (r.dependent.end <= r.dependent.start)
            continue;
        const int h = words.wordAtByte(tokenSpans, r.head.start);
        const int a = words.wordAtByte(tokenSpans, r.dependent.start);
        const int b = words.wordAtByte(tokenSpans, r.dependent.end - 1);
        if (h < 0 || a < 0 || b < a || h >= a)
            continue;
        HeadEdge e;
        e.relation = i;
        e.targets = {h};
        e.offset = a - h;
        e.paper = true;
        if (metric == HeadMetric::First)
            e.queries = {a};
        else if (metric == HeadMetric::Last)
            e.queries = {b};
        else
            for (int q = a; q <= b; ++q)
                e.queries.push_back(q);
        e.query = e.queries.front();
        out.push_back(std::move(e));
    }
    return out;
}

uint8_t bestTargetRank(std::span<const float> row, int first, int query, const std::vector<int>& targets)
{
    int best = HeadScorer::kMiss;
    for (int t : targets) {
        if (t < first || t >= query)
            continue;
        const float v = row[static_cast<std::size_t>(t)];
        int above = 0;
        for (int k = first; k < query && above < best; ++k) {
            const float w = row[static_cast<std::size_t>(k)];
            above += (w > v || (w == v && k > t)) ? 1 : 0;
        }
        best = std::min(best, above);
    }
    return static_cast<uint8_t>(std::min(best, static_cast<int>(HeadScorer::kMiss)));
}

HeadScorer::HeadScorer(int layers, int bos, std::vector<HeadEdge> edges)
    : m_layers(layers), m_bos(bos), m_edges(std::move(edges)), m_window(m_edges.size(), kUnseen),
      m_layerSeen(m_edges.size() * static_cast<std::size_t>(std::max(layers, 0)), 0),
      m_delivered(static_cast<std::size_t>(std::max(layers, 0)), 0)
{
    if (layers <= 0)
        throw InputError("attention heads: the model has no layers");
}

void HeadScorer::setWords(TokenWords words)
{
    m_words = std::move(words);
}

void HeadScorer::observeAttention(int layer, int64_t position, std::span<const int64_t> shape,
                                  std::span<const float> data)
{
    if (shape.size() != 3 || shape[1] != shape[2] || shape[0] <= 0 ||
        data.size() != static_cast<std::size_t>(shape[0] * shape[1] * shape[2]))
        throw InputError("attention heads: layer " + std::to_string(layer) +
                         " delivered attention that is not [heads, T, T]");
    if (layer < 0 || layer >= m_layers)
        throw InputError("attention heads: layer " + std::to_string(layer) + " is outside the model's " +
                         std::to_string(m_layers) + " layers");
    const int heads = static_cast<int>(shape[0]);
    if (m_heads == 0) {
        m_heads = heads;
        m_ranks.assign(m_edges.size() * static_cast<std::size_t>(m_layers) * static_cast<std::size_t>(m_heads), kMiss);
    } else if (heads != m_heads) {
        throw InputError("attention heads: layer " + std::to_string(layer) + " has " + std::to_string(heads) +
                         " heads, an earlier one " + std::to_string(m_heads));
    }
    const int64_t T = shape[1];
    m_delivered[static_cast<std::size_t>(layer)] = 1;
    if (m_words) {
        observeWords(layer, position, T, heads, data);
        return;
    }
    // Token index j is scored-id position j + bos; row r of this window is position `position + r`.
    const int64_t firstToken = position - m_bos; // token index of row 0 (negative: row 0 is BOS)
    const int firstCandidateRow = static_cast<int>(std::max<int64_t>(0, -firstToken));
    for (std::size_t e = 0; e < m_edges.size(); ++e) {
        const HeadEdge& edge = m_edges[e];
        const int64_t qRow = edge.query - firstToken;
        if (m_window[e] == kUnseen && qRow >= 0 && qRow < T)
            m_window[e] = edge.targets.back() >= firstToken ? position : kOutside;
        if (m_window[e] != position)
            continue;
        std::vector<int> targets;
        for (int t : edge.targets)
            if (t - firstToken >= firstCandidateRow)
                targets.push_back(static_cast<int>(t - firstToken));
        for (int h = 0; h < heads; ++h) {
            const auto row = data.subspan(static_cast<std::size_t>((h * T + qRow) * T), static_cast<std::size_t>(T));
            m_ranks[(e * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(layer)) *
                        static_cast<std::size_t>(m_heads) +
                    static_cast<std::size_t>(h)] =
                bestTargetRank(row, firstCandidateRow, static_cast<int>(qRow), targets);
        }
        m_layerSeen[e * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(layer)] = 1;
    }
}

void HeadScorer::observeWords(int layer, int64_t position, int64_t T, int heads, std::span<const float> data)
{
    const TokenWords& w = *m_words;
    const int64_t firstToken = position - m_bos; // token index of row 0 (negative: row 0 is BOS)
    const bool bosRow = firstToken < 0;
    auto tokenStart = [&](int word) { return static_cast<int64_t>(w.start[static_cast<std::size_t>(word)]); };
    // The first word wholly inside the window: candidates start there.
    int firstWord = 0;
    while (firstWord < w.words() && tokenStart(firstWord) < std::max<int64_t>(firstToken, 0))
        ++firstWord;
    // Word rows of this layer, per query word: [head][candidate] with candidate 0 = BOS (when in the window),
    // then words firstWord..q.
    std::map<int, std::vector<float>> rows;
    auto rowOf = [&](int q) -> const std::vector<float>& {
        auto it = rows.find(q);
        if (it != rows.end())
            return it->second;
        const std::size_t width = static_cast<std::size_t>(q - firstWord + 2);
        std::vector<float> out(static_cast<std::size_t>(heads) * width, 0.0f);
        const int64_t a0 = tokenStart(q), a1 = tokenStart(q + 1);
        const float inv = 1.0f / static_cast<float>(a1 - a0);
        for (int h = 0; h < heads; ++h) {
            float* dst = out.data() + static_cast<std::size_t>(h) * width;
            for (int64_t a = a0; a < a1; ++a) {
                const float* row = data.data() + (h * T + (a - firstToken)) * T;
                if (bosRow)
                    dst[0] += row[0] * inv;
                for (int v = firstWord; v <= q; ++v) {
                    float sum = 0.0f;
                    for (int64_t b = tokenStart(v); b < tokenStart(v + 1) && b <= a; ++b)
                        sum += row[b - firstToken];
                    dst[static_cast<std::size_t>(v - firstWord + 1)] += sum * inv;
                }
            }
        }
        return rows.emplace(q, std::move(out)).first->second;
    };
    for (std::size_t e = 0; e < m_edges.size(); ++e) {
        const HeadEdge& edge = m_edges[e];
        const int last = edge.queries.empty() ? edge.query : edge.queries.back();
        const int64_t lastRow = tokenStart(last + 1) - 1 - firstToken;
        if (m_window[e] == kUnseen && lastRow >= 0 && lastRow < T)
            m_window[e] = edge.targets.front() >= firstWord ? position : kOutside;
        if (m_window[e] != position)
            continue;
        const int t = edge.targets.front();
        std::vector<int> queries = edge.queries.empty() ? std::vector<int>{edge.query} : edge.queries;
        std::vector<int> best(static_cast<std::size_t>(heads), kMiss);
        for (int q : queries) {
            const std::vector<float>& r = rowOf(q);
            const std::size_t width = static_cast<std::size_t>(q - firstWord + 2);
            for (int h = 0; h < heads; ++h) {
                const float* v = r.data() + static_cast<std::size_t>(h) * width;
                const float tv = v[t - firstWord + 1];
                int above = 0;
                // Candidates: BOS (index 0, the farthest) when in the window, then words firstWord..q; ties go to
                // the nearer key.
                for (std::size_t c = bosRow ? 0 : 1; c < width && above < best[static_cast<std::size_t>(h)]; ++c) {
                    const int word = static_cast<int>(c) - 1 + firstWord;
                    above += (v[c] > tv || (v[c] == tv && c > 0 && word > t)) ? 1 : 0;
                }
                best[static_cast<std::size_t>(h)] = std::min(best[static_cast<std::size_t>(h)], above);
            }
        }
        for (int h = 0; h < heads; ++h)
            m_ranks[(e * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(layer)) *
                        static_cast<std::size_t>(m_heads) +
                    static_cast<std::size_t>(h)] =
                static_cast<uint8_t>(std::min(best[static_cast<std::size_t>(h)], static_cast<int>(kMiss)));
        m_layerSeen[e * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(layer)] = 1;
    }
}

bool HeadScorer::evaluated(std::size_t edge) const
{
    if (m_window[edge] < 0)
        return false;
    bool any = false;
    for (int l = 0; l < m_layers; ++l) {
        if (!m_delivered[static_cast<std::size_t>(l)])
            continue;
        if (!m_layerSeen[edge * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(l)])
            return false;
        any = true;
    }
    return any;
}

uint8_t HeadScorer::rank(std::size_t edge, int layer, int head) const
{
    if (m_heads == 0)
        return kMiss;
    return m_ranks[(edge * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(layer)) *
                       static_cast<std::size_t>(m_heads) +
                   static_cast<std::size_t>(head)];
}

} // namespace ascviz
