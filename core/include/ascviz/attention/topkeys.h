// One text's attention kept small for the views (method.md §11): per layer, head and query the few keys it
// attends to most, reduced as each layer arrives (layers × heads × T × keep, never × T). The heads view's pictures are
// drawn by the figure room (figure/heads.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
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
    int keep() const { return m_keep; }
    // The keys of a token's row, heaviest first (empty for a query never seen).
    std::vector<Key> keys(int layer, int head, int query) const;

private:
    int m_layers = 0, m_bos = 0, m_keep = 0, m_heads = 0, m_queries = 0;
    std::vector<std::vector<std::vector<std::vector<Key>>>> m_keys; // [layer][head][query]
};

// The arcs of every head for a shared page and `eval --heads` (docs/share.md "attention"): {"layers", "heads",
// "keep", "min_weight", "digits", "rows"}, rows[layer][head][query] a flat list [key, weight, key, weight, …] of
// the query token's kept keys (heaviest first) whose weight is at least `minWeight`, weights rounded to `digits`
// decimals; a key is a token index, -1 for BOS. One row per token 0 … tokens − 1 (empty when none is kept).
nlohmann::json attentionArcsJson(const AttentionTopKeys& top, int tokens, double minWeight = 0.05, int digits = 3);

} // namespace ascviz
