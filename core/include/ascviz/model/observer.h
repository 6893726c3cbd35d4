// Named intermediates of the model's forward pass (as llama.cpp's eval callback): the embeddings, the residual
// stream after every block, the attention probabilities, the final norm and the logits, handed to an observer
// while a text is scored (ScoreOptions::observer in model.h). Torch-free, so ui/ may include it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ascviz {

// The names an observer can ask for. Per-layer names come once per block, layer = 0 .. layers - 1; the others
// have layer = -1. T is the number of positions of the forward pass, rows are positions (row t sees the tokens
// at rows 0 .. t only).
namespace intermediate {
// [T, hidden]: the token embeddings (plus learned position embeddings), the input of block 0.
inline constexpr std::string_view kEmbeddings = "embeddings";
// [T, hidden], per layer: the residual stream after the block (the input of the next block).
inline constexpr std::string_view kHidden = "hidden";
// [heads, T, T], per layer: attention probabilities [head, query, key]. Causal: each row sums to 1 and is 0 for
// keys after the query (and, in local-attention layers, for keys outside the window). Computed by the explicit
// (non-fused) attention path in the layers that ask for it.
inline constexpr std::string_view kAttention = "attention";
// [T, 2, k], per mixture-of-experts layer (ArchSpec's sparse layers; never for dense layers or models): the
// router's choice for row t: [t][0][:] the k chosen experts' ids (exact integers as floats), [t][1][:] their
// routing weights as the layer uses them (after renormalisation where the family renormalises), in the router's
// order (descending weight).
inline constexpr std::string_view kExperts = "experts";
// [T, hidden]: the output of the final norm (the input of the language-model head).
inline constexpr std::string_view kFinalNorm = "final_norm";
// [T, vocab]: the logits; row t is the distribution of the token at position t + 1 (softmax gives its NtP).
// Large for big vocabularies and long texts: ask for it only where it is needed.
inline constexpr std::string_view kLogits = "logits";
} // namespace intermediate

// One intermediate of one scored sequence. Values are converted to float32 from the compute dtype.
struct Intermediate {
    std::string_view name;    // one of the intermediate::k* names (static storage)
    int layer = -1;           // block index for per-layer names, -1 for the others
    std::size_t sequence = 0; // index of the text in scoreBatch() (0 for score())
    // Position of row 0 in the scored ids: the text's tokens, preceded by BOS where tokenizer().addsBos() (then
    // ScoredText::tokens[j] is position j + 1). Non-zero only for the later windows of a text longer than the
    // context, which are forward passes of their own (see ScoreOptions).
    int64_t position = 0;
    std::vector<int64_t> shape;  // as listed with the names; no batch dimension
    std::span<const float> data; // row-major; valid only during IntermediateObserver::observe()
};

// Receives the intermediates it wants, on the scoring thread, in forward order within a forward pass
// (embeddings; per layer: attention, experts, hidden; final_norm; logits). Sequences scored together in one batch come
// one after the other under each name. An exception thrown by observe() ends the scoring call.
class IntermediateObserver {
public:
    virtual ~IntermediateObserver() = default;
    // Asked once per name and layer at the start of each scoring call; nothing is computed or copied for a
    // name and layer it does not want, and scoring costs nothing extra when it wants nothing.
    virtual bool wants(std::string_view /*name*/, int /*layer*/) const { return true; }
    virtual void observe(const Intermediate& value) = 0;
};

} // namespace ascviz
