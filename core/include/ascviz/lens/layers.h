// AsC-Eval per layer (method.md §13): the layer lens's NtP_ℓ (model/lens.h) through the same alignment δ and
// aggregation θ as AsC-Eval (§3–4), node by node, and the fields `ascviz-cli eval --layers` adds to the eval JSON.
#pragma once
#include "ascviz/eval/eval.h"
#include "ascviz/model/lens.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ascviz {

struct LayerEval {
    int layers = 0; // L: each node row has L + 1 values (ℓ = 0 the embeddings … L = AsC-Eval)
    // [node][ℓ], parallel to EvalResult::nodes; nullopt = n/a (no aligned token with a prediction)
    std::vector<std::vector<std::optional<double>>> nodes;
    // The commitment layer (method.md §14.3), when evaluateLayers was given the tokens' (else both empty): per token
    // (parallel to r.scored.tokens) and per node asc_commit, the median over its aligned tokens that have one.
    std::vector<std::optional<int>> tokenCommit;
    std::vector<std::optional<double>> commit;
};

// θ (r.aggregation) over the NtP_ℓ of each node's aligned tokens, for every layer. `tokenLayers` is
// LayerLens::ntp of r.scored's tokens ([token][ℓ], empty for a token without a prediction); InputError when its
// size differs from r.scored.tokens or a row has another length than layers + 1. `tokenCommit` (LayerLens::commit,
// may be empty) gives LayerEval's commitment fields; InputError when its size differs or a value is outside 0 … L.
LayerEval evaluateLayers(const EvalResult& r, const std::vector<std::vector<double>>& tokenLayers, int layers,
                         const std::vector<std::optional<int>>& tokenCommit = {});

// Adds "layers": L, per token "ntp_layers": [p0, …, pL] (null for a token without a prediction) and per node
// "asc_eval_layers": [v0, …, vL] (null entries n/a) to an eval JSON (evalResultJson of the same result); with the
// commitment layer, per token "commit_layer" (0 … L, null) and per node "asc_commit" (null when n/a).
void addLayerFields(nlohmann::json& evalJson, const std::vector<std::vector<double>>& tokenLayers,
                    const LayerEval& layers);

} // namespace ascviz
