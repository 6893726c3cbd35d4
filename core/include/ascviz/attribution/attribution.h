// Attribution by AST node (method.md §13): how much the prediction of a target — a node of the completion, one
// of its tokens, or the whole completion — relies on each node of the prompt.
// - occlusion: attribution(n) = log P(target | prompt) − log P(target | prompt with n's tokens hidden from
//   attention as keys, positions unchanged); batched forward passes over a budget of prompt nodes, deepest first
//   or by level, each distinct token set computed once;
// - gradient × input: Σ over n's tokens of ∂ log P(target)/∂x · x (one backward pass; the fast approximation);
// - surrogate (method.md §14.2, ContextCite-style): the coefficients of a Lasso fit of log P(target) on random
//   node-ablation masks (≤ 64 masked copies, batched), with the fit's held-out R².
// With `faithfulness`, the deletion and insertion curves of the method's order and their AUCs beside random orders'
// (§14.2), over the nodes the budget keeps (the same set for every method, so the AUCs compare).
// Node ids are the pre-order ids of `ascviz-cli parse` / `eval`.
#pragma once
#include "ascviz/attribution/faithfulness.h"
#include "ascviz/base/limits.h"
#include "ascviz/eval/eval.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

enum class AttributionMethod { Occlusion, GradientTimesInput, Surrogate };
// occlusion | gradxinput | surrogate; InputError otherwise
AttributionMethod parseAttributionMethod(const std::string& s);
std::string toString(AttributionMethod m);

// Which prompt nodes the occlusion budget keeps: the deepest first (leaves and small expressions), or by level
// from the root (the largest constructs first). Gradient × input is cheap and covers every prompt node.
enum class NodeOrder { Deepest, Level };
NodeOrder parseNodeOrder(const std::string& s); // deepest | level

// What the prediction is: the whole completion, one node of the completion (its completion tokens), or one
// completion token (its index among the text's tokens).
struct AttributionTargetSpec {
    enum class Kind { Completion, Node, Token } kind = Kind::Completion;
    int index = 0; // node id or token index
};
// "all", a node id ("12"), or "token:K"; InputError otherwise.
AttributionTargetSpec parseAttributionTarget(const std::string& s);

struct AttributionOptions {
    AttributionMethod method = AttributionMethod::Occlusion;
    std::size_t budget = 256; // prompt nodes occluded (0 = every prompt node)
    NodeOrder order = NodeOrder::Deepest;
    int batch = 16;                  // masked copies per forward pass
    std::size_t surrogateMasks = 63; // the surrogate's random masks (one more copy gives the clean log P)
    uint64_t seed = 20260126;        // the surrogate's masks and the random orders of the faithfulness curves
    bool faithfulness = false;       // compute the deletion / insertion curves and AUCs (§14.2)
    int randomOrders = 10;           // random orders averaged for random_deletion_auc / random_insertion_auc
    // The syntax tree's bounds (base/limits.h, 0 = no limit): a deeper or larger tree is refused (InputError).
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
    const CancelFlag* cancel = nullptr;
    std::function<void(std::size_t done, std::size_t total)> progress;
};

struct NodeAttribution {
    int id = 0;
    std::string type;
    std::size_t start = 0, end = 0;
    int depth = 0;
    std::optional<std::string> category;
    double attribution = 0;
};

struct AttributionResult {
    AttributionMethod method = AttributionMethod::Occlusion;
    NodeOrder order = NodeOrder::Deepest;
    std::size_t promptBytes = 0;
    // the target
    AttributionTargetSpec::Kind targetKind = AttributionTargetSpec::Kind::Completion;
    std::optional<int> targetNode; // node id (Kind::Node)
    std::string targetType;        // the node's type, "token" or "completion"
    std::optional<std::string> targetCategory;
    std::size_t targetStart = 0, targetEnd = 0; // bytes
    std::size_t tokenBegin = 0, tokenEnd = 0;   // the target's token indices [begin, end)
    double targetLogProb = 0;                   // log P(target | prompt), nothing masked
    std::size_t promptNodes = 0;                // nodes inside the prompt with at least one token
    std::size_t forwardPasses = 0;              // masked copies computed (occlusion, surrogate; distinct sets)
    std::optional<Surrogate> surrogate;         // the surrogate's fit (its attribution is in nodes)
    std::optional<Faithfulness> faithfulness;   // with AttributionOptions::faithfulness
    std::size_t faithfulnessNodes = 0;          // m: the nodes the curves run over
    std::vector<NodeAttribution> nodes;         // the attributed prompt nodes, by id
};

// The whole probe over `text` split at `promptBytes` (the prompt/completion rule of base/scored.h), parsed in
// `language`. InputError for an empty prompt, an empty completion, a prompt without a node, a target outside the
// completion or past the context; ModelError for a model the probes cannot run on.
AttributionResult attribute(const LanguageModel& model, const std::string& text, std::size_t promptBytes,
                            const std::string& language, const AttributionTargetSpec& target,
                            const AttributionOptions& opts = {}, const CategoryMap* categories = nullptr);

// {"target": {"kind", "id", "type", "category", "start", "end", "tokens": [b, e], "log_prob"}, "method",
//  "order", "budget", "prompt_bytes", "prompt_nodes", "forward_passes",
//  "nodes": [{"id", "type", "start", "end", "depth", "category", "attribution"}],
//  "surrogate": {"held_out_r2", "lambda", "masks", "train_masks"} (surrogate only),
//  "faithfulness": {"deletion_auc", "insertion_auc", "random_deletion_auc", "random_insertion_auc", "nodes",
//                   "random_orders", "forward_passes", "deletion": [...], "insertion": [...]} (when computed)}
nlohmann::json attributionJson(const AttributionResult& r);

} // namespace ascviz
