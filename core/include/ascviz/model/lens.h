// Inside the model (method.md §13), the torch-free API of the model room's two probes:
// - the layer lens: NtP_ℓ of every token for every layer ℓ = 0 (the embeddings) … L (after the last block),
//   the residual stream passed through the model's own final norm and LM head, reduced to the target token's
//   probability (and top-k when asked) as each layer is computed;
// - the primitives of attribution (the attribution room aggregates them per AST node): the log-probability of
//   a run of target tokens with chosen positions hidden as attention keys, and gradient × input per position.
#pragma once
#include "ascviz/model/model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace ascviz {

struct LayerLensOptions {
    int topK = 0;      // alternatives recorded per token and layer (0 = none)
    int finalTopK = 5; // alternatives of the final layer in LayerLens::scored (as ScoreOptions::topK)
};

struct LayerLens {
    // The text scored by the same forward pass: every token's ntp is layers' last value, bit for bit.
    ScoredText scored;
    int layers = 0; // L; each row of `ntp` has L + 1 values
    // [token][ℓ], ℓ = 0 (embeddings) … L (after block L, = scored.tokens[i].ntp); empty for a token without a
    // prediction (the first token when there is no BOS).
    std::vector<std::vector<double>> ntp;
    // [token][ℓ][k] when LayerLensOptions::topK > 0 (else empty).
    std::vector<std::vector<std::vector<Alternative>>> top;
    // [token][ℓ]: the lens's most likely id at each layer (the first maximum); empty where `ntp` is.
    std::vector<std::vector<int32_t>> top1;
    // [token]: commitLayer of its top1 row (method.md §14.3); nullopt for a token without a prediction.
    std::vector<std::optional<int>> commit;
};

// The commitment layer (method.md §14.3) of one token's per-layer top-1 ids [ℓ = 0 … L]: the smallest ℓ from
// which every layer's top-1 equals the last one (L when only the last layer has it); nullopt for an empty row.
std::optional<int> commitLayer(const std::vector<int32_t>& top1);

// The layer lens of a text in one forward pass (a text longer than the model's context: one per window, the
// windows and the window each position is predicted from as in scoring). Throws ModelError for a model whose
// final norm and head cannot be applied to the residual stream of every layer.
LayerLens scoreLayers(const LanguageModel& model, std::string_view text, const LayerLensOptions& opts = {});
// Id level (conformance tests): [position][ℓ] of `ids` as given (no BOS added, windowed as scoreLayers);
// position 0 is empty.
std::vector<std::vector<double>> layerNtpOfIds(const LanguageModel& model, const std::vector<int32_t>& ids);
// Id level with the top-1 ids: ntp as layerNtpOfIds, top1 [position][ℓ] (position 0 empty).
struct IdLayerLens {
    std::vector<std::vector<double>> ntp;
    std::vector<std::vector<int32_t>> top1;
};
IdLayerLens layerLensOfIds(const LanguageModel& model, const std::vector<int32_t>& ids);

// The target of an attribution: the ids at positions [begin, end) of a sequence (begin >= 1); its
// log-probability is the sum of their log NtP.
struct TargetTokens {
    std::size_t begin = 1, end = 1;
};

struct MaskedRunOptions {
    int batch = 16;                     // masked copies per forward pass
    const CancelFlag* cancel = nullptr; // polled between forward passes (Cancelled)
    std::function<void(std::size_t done, std::size_t total)> progress;
};

// log P(target | ids) with, for each mask, the mask's positions hidden as attention keys from every query of
// every layer (a query still sees its own key, so no attention row is empty), positions unchanged. Returns one
// value per mask (an empty mask gives the unmasked value). Throws InputError for a target outside the ids, a
// masked position outside the ids or inside the target, or ids longer than the context.
std::vector<double> maskedTargetLogProbs(const LanguageModel& model, const std::vector<int32_t>& ids,
                                         TargetTokens target, const std::vector<std::vector<std::size_t>>& masks,
                                         const MaskedRunOptions& opts = {});
// Gradient × input per position p: Σ_h ∂ log P(target)/∂x[p, h] · x[p, h], x = the input of block 0 (token
// embedding plus learned position embedding). Autograd runs only here.
std::vector<double> gradientTimesInput(const LanguageModel& model, const std::vector<int32_t>& ids,
                                       TargetTokens target);
// log P(target) with the input x[p] of position `position` multiplied by `scale` (finite-difference checks of
// gradientTimesInput: d/ds at s = 1 is its value at p).
double scaledInputTargetLogProb(const LanguageModel& model, const std::vector<int32_t>& ids, TargetTokens target,
                                std::size_t position, double scale);

} // namespace ascviz
