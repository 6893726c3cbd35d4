// The per-layer reduction of attention probabilities to target ranks (method.md §11).
#include "ascviz/attention/headscore.h"

#include "ascviz/base/error.h"

#include <algorithm>

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
        HeadEdge e{i, q, {}};
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
      m_layerSeen(m_edges.size() * static_cast<std::size_t>(std::max(layers, 0)), 0)
{
    if (layers <= 0)
        throw InputError("attention heads: the model has no layers");
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

bool HeadScorer::evaluated(std::size_t edge) const
{
    if (m_window[edge] < 0)
        return false;
    for (int l = 0; l < m_layers; ++l)
        if (!m_layerSeen[edge * static_cast<std::size_t>(m_layers) + static_cast<std::size_t>(l)])
            return false;
    return true;
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
