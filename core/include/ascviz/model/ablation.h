// Head ablation (method.md §14.1), torch-free: a model that shares a loaded model's weights and replaces chosen
// attention heads' outputs (the slices of the output projection's input) by zero or by their mean in every forward
// pass, for scoring, the layer lens, attribution and generation alike.
#pragma once
#include "ascviz/model/model.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

// Block `layer` (0 … L − 1) and query head `head` (0 … H − 1), written "layer.head": the numbering of the heads
// analysis (method.md §11).
struct AttentionHead {
    int layer = 0;
    int head = 0;
    friend bool operator==(const AttentionHead&, const AttentionHead&) = default;
    friend auto operator<=>(const AttentionHead&, const AttentionHead&) = default;
};
std::string toString(const AttentionHead& h);

enum class AblationMode { Zero, Mean };
std::string toString(AblationMode m);
// "zero" | "mean"; InputError otherwise.
AblationMode parseAblationMode(std::string_view s);

// "L.H,L.H,…" → heads, sorted, duplicates dropped; InputError naming the item that is not two integers >= 0
// joined by a dot, or for an empty list.
std::vector<AttentionHead> parseHeadList(std::string_view list);

// The query heads per layer of a model run by AsC-Viz's own runtime (ModelError otherwise).
int attentionHeads(const LanguageModel& model);

// InputError when a head is outside `model` (naming the head, the model, its layers and its heads per layer), or
// ModelError for a model not run by AsC-Viz's own runtime.
void checkHeads(const LanguageModel& model, const std::vector<AttentionHead>& heads);

// Mean ablation's value of each head (parallel to `heads`, headDim values each): the mean of the clean model's head
// output over the positions that predict a token, 0 … n − 2, of `ids` (as given: no BOS added; a sequence longer
// than the context takes each position from the window scoring predicts from). InputError for fewer than two ids.
std::vector<std::vector<double>> meanHeadOutputsOfIds(const LanguageModel& model, const std::vector<int32_t>& ids,
                                                      const std::vector<AttentionHead>& heads);
// The same over the ids scoring gives `text` (BOS first where the tokenizer adds one).
std::vector<std::vector<double>> meanHeadOutputs(const LanguageModel& model, std::string_view text,
                                                 const std::vector<AttentionHead>& heads);

// A model that shares `model`'s weights and tokenizer (it stays valid after `model` is gone) and ablates `heads` in
// every forward pass: zero ablation when `means` is empty, else mean ablation with means[k] (headDim values) the
// value of heads[k]. checkHeads' errors; InputError when `means` does not fit the heads.
std::unique_ptr<LanguageModel> withAblatedHeads(const LanguageModel& model, const std::vector<AttentionHead>& heads,
                                                const std::vector<std::vector<double>>& means = {});

// Expert ablation (method.md §14.1): block `layer` (0 … L − 1, a mixture-of-experts block) and routed expert
// `expert` (0 … E − 1), written "layer.expert" as `analyze experts` numbers them.
struct ExpertRef {
    int layer = 0;
    int expert = 0;
    friend bool operator==(const ExpertRef&, const ExpertRef&) = default;
    friend auto operator<=>(const ExpertRef&, const ExpertRef&) = default;
};
std::string toString(const ExpertRef& e);
// "L.E,L.E,…" → experts, sorted, duplicates dropped; InputError as parseHeadList.
std::vector<ExpertRef> parseExpertList(std::string_view list);
// The routed experts per mixture-of-experts block (0 for a dense model) and how many each token is routed to.
int routedExperts(const LanguageModel& model);
int expertsPerToken(const LanguageModel& model);
// InputError for a dense model, a block that is not a mixture of experts, an expert out of range, or a block left
// with fewer unblocked experts than a token is routed to (naming the model, its layers and experts).
void checkExperts(const LanguageModel& model, const std::vector<ExpertRef>& experts);
// A model that shares `model`'s weights and never routes a token to `experts`: their router logits are −∞ before
// the softmax, so the router's top k comes from the other experts (with their weights renormalised as the family
// does). checkExperts' errors.
std::unique_ptr<LanguageModel> withAblatedExperts(const LanguageModel& model, const std::vector<ExpertRef>& experts);

} // namespace ascviz
