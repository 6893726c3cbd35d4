// Attention heads as predictors of relations (method.md §11), one text at a time: the edges a metric asks
// about, and the reduction of each layer's attention probabilities to the rank of each edge's target in its
// query's row, as the model delivers them (never layer × head × T² at once). No torch and no model room: a
// caller adapts the model's intermediates observer (model/observer.h, kAttention) to observeAttention().
#pragma once
#include "ascviz/attention/codesyntax.h"
#include "ascviz/attention/relations.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ascviz {

// Which tokens of the head A count as the target: its first (the paper's default), its last, or any.
enum class HeadMetric { First, Last, Any };
HeadMetric parseHeadMetric(std::string_view name); // first|last|any; InputError otherwise
const char* headMetricName(HeadMetric m);

// One edge of one text for a metric: token indices (ScoredText::tokens). The query is the dependent's first
// token; the targets are the head's tokens the metric names, all before the query.
//
// In the paper mode (codesyntax relations over words, paperEdges) the indices are words (TokenWords) and the
// edge is the paper's metric on the dependent block: `queries` are the dependent block's words the metric names
// (first, last, or all of them: any), `targets` the one head word; the edge's rank is the best over its queries.
struct HeadEdge {
    HeadEdge() = default;
    HeadEdge(std::size_t rel, int q, std::vector<int> t) : relation(rel), query(q), targets(std::move(t)) {}
    std::size_t relation = 0; // index into the relations it was made from
    int query = 0;
    std::vector<int> targets; // ascending, each < query
    std::vector<int> queries; // paper mode: the dependent's words asked (query = the first); empty otherwise
    int offset = 0;           // dependent's first token (word) minus the head's first token (word)
    bool paper = false;       // the paper's baselines (from the head forwards) instead of the mirror's
};

// The edges of relations with tokens attached (attachTokens) whose head starts before the dependent's first
// token; relations whose two ends begin in the same token (offset <= 0) give none.
std::vector<HeadEdge> headEdges(const std::vector<Relation>& relations, HeadMetric metric);

// The paper mode's edges (method.md §11): word indices of `words` over the tokens `tokenSpans`; the head word
// must come before the dependent's first word (relations whose ends share a word give none).
std::vector<HeadEdge> paperEdges(const std::vector<Relation>& relations, const TokenWords& words,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans, HeadMetric metric);

// The ranks of each edge's best target in its query's attention row, per layer and head. Rank 0 is the key the
// head attends to most among the candidates: the text's tokens before the query (the query itself and BOS are
// not candidates); ties go to the nearer key. An edge is hit at top-k when its rank < k.
class HeadScorer {
public:
    static constexpr uint8_t kMiss = 255; // not evaluated, or rank >= 255
    // `layers`: the model's blocks; `bos`: 1 when the scored ids start with a BOS the text does not have.
    HeadScorer(int layers, int bos, std::vector<HeadEdge> edges);
    // Paper mode: the edges' indices are words; attention to a word is summed over its tokens, attention from
    // a word averaged over its tokens (App. B), and every word up to and including the query is a candidate,
    // with a BOS (when the scored ids start with one) as one more. Call before the first observeAttention().
    void setWords(TokenWords words);

    // One layer's attention probabilities [heads, T, T] (row-major; rows are queries) of the forward pass
    // whose row 0 is scored-id position `position` (0, or a later window of a text longer than the context).
    // Each edge is evaluated in the first window holding its query; one whose targets lie before that
    // window's start is left out (outsideWindow). Throws InputError for a shape that is not [H, T, T] or a
    // head count that changes between layers.
    void observeAttention(int layer, int64_t position, std::span<const int64_t> shape, std::span<const float> data);

    int layers() const { return m_layers; }
    int heads() const { return m_heads; } // 0 until the first observeAttention()
    const std::vector<HeadEdge>& edges() const { return m_edges; }
    // Whether the edge was evaluated (its query and a target in one window) in every layer that delivered attention.
    // A hybrid's recurrent and convolutional layers (gated DeltaNet, Mamba-2, short convolution) deliver none: their
    // heads keep kMiss (never a hit) and do not keep the edge from counting.
    bool evaluated(std::size_t edge) const;
    // Whether the layer delivered attention (observeAttention) in this text's forward passes.
    bool delivered(int layer) const { return m_delivered[static_cast<std::size_t>(layer)] != 0; }
    bool outsideWindow(std::size_t edge) const { return m_window[edge] == kOutside; }
    uint8_t rank(std::size_t edge, int layer, int head) const;

private:
    void observeWords(int layer, int64_t position, int64_t T, int heads, std::span<const float> data);
    static constexpr int64_t kUnseen = -1, kOutside = -2;
    std::optional<TokenWords> m_words;
    int m_layers = 0, m_heads = 0, m_bos = 0;
    std::vector<HeadEdge> m_edges;
    std::vector<int64_t> m_window;    // per edge: the window position it is evaluated in, kUnseen or kOutside
    std::vector<uint8_t> m_ranks;     // [edge][layer][head]
    std::vector<uint8_t> m_layerSeen; // [edge][layer]
    std::vector<uint8_t> m_delivered; // [layer]
};

// The ranks of one query row over candidate keys [first, query) of a row `row` (`row[k]` = the probability
// of key k): for each target, the keys ranked above it; the smallest over the targets (kMiss when none is a
// candidate). Exposed for tests.
uint8_t bestTargetRank(std::span<const float> row, int first, int query, const std::vector<int>& targets);

} // namespace ascviz
