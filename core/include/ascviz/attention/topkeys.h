// One text's attention kept small for the views (method.md §11): per layer, head and query the few keys it
// attends to most, reduced as each layer arrives (layers × heads × T × keep, never × T). And the two pictures
// of the heads view as plain SVG: the layer × head heat map and the attention arcs over the code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

class AttentionTopKeys {
public:
    struct Key {
        int token = 0; // index into the text's tokens; -1 = BOS
        float weight = 0;
    };
    // `bos`: 1 when the scored ids start with a BOS the text does not have; `keep`: keys kept per query.
    AttentionTopKeys(int layers, int bos, int keep = 5);
    // As HeadScorer::observeAttention: each query is kept from the first window holding it.
    void observeAttention(int layer, int64_t position, std::span<const int64_t> shape, std::span<const float> data);
    int layers() const { return m_layers; }
    int heads() const { return m_heads; }
    int queries() const { return m_queries; }
    // The keys of a token's row, heaviest first (empty for a query never seen).
    std::vector<Key> keys(int layer, int head, int query) const;

private:
    int m_layers = 0, m_bos = 0, m_keep = 0, m_heads = 0, m_queries = 0;
    std::vector<std::vector<std::vector<std::vector<Key>>>> m_keys; // [layer][head][query]
};

// The layer × head heat map of scores in [0, 1] (`scores[layer * heads + head]`), one row per layer, with a
// title; `pick` (layer, head) is outlined (-1: none).
std::string headHeatmapSvg(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                           std::pair<int, int> pick = {-1, -1});

// The code with its tokens boxed, one line per text line, and arcs: from `query` to each of `keys` (width by
// weight) and, dashed, each relation edge (head token → dependent token) given in `edges`.
std::string attentionArcsSvg(const std::string& text, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                             int query, const std::vector<AttentionTopKeys::Key>& keys,
                             const std::vector<std::pair<int, int>>& edges, const std::string& title);

} // namespace ascviz
