// The primitives of attribution by AST node (method.md §13, lens.h): the target's log-probability with chosen
// positions hidden as attention keys (occlusion, batched), and gradient × input, the only path of the runtime
// that records autograd.
#include "hooks/probe_common.h"
#include "language_model_impl.h"

#include "ascviz/base/error.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/observer.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>

namespace ascviz::model {
namespace {

void checkTarget(const std::vector<int32_t>& ids, TargetTokens t)
{
    if (t.begin < 1 || t.end <= t.begin || t.end > ids.size())
        throw InputError("the attribution target, tokens [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                         "), is not inside the " + std::to_string(ids.size()) +
                         " tokens after the first (a target needs at least one token with a prediction)");
}

// Sum over the target of log p(id) from the final normed hidden states [B, T', hidden] of the positions
// [from, from + T'): [B] float32.
at::Tensor targetLogProb(const Decoder& dec, const at::Tensor& normed, const at::Tensor& idRow, TargetTokens t,
                         int64_t from = 0)
{
    const auto b = static_cast<int64_t>(t.begin), n = static_cast<int64_t>(t.end - t.begin);
    const at::Tensor rows = normed.narrow(1, b - 1 - from, n);   // position p predicts the id at p + 1
    const at::Tensor lp = at::log_softmax(dec.logits(rows), -1); // [B, n, vocab]
    const at::Tensor tgt = idRow.narrow(0, b, n).view({1, n, 1}).expand({normed.size(0), n, 1});
    return lp.gather(2, tgt).squeeze(-1).sum(-1);
}

// Hands the input of block 0 to a callback (gradient × input, the scaled input of the finite differences).
class EmbeddingHook final : public ForwardObserver {
public:
    explicit EmbeddingHook(std::function<void(const at::Tensor&)> f) : m_f(std::move(f)) {}
    bool wants(std::string_view name, int layer) const override
    {
        return name == intermediate::kEmbeddings && layer == -1;
    }
    void observe(std::string_view, int, const at::Tensor& value) override { m_f(value); }

private:
    std::function<void(const at::Tensor&)> m_f;
};

} // namespace
} // namespace ascviz::model

namespace ascviz {

using model::TorchLanguageModel;

std::vector<double> maskedTargetLogProbs(const LanguageModel& m, const std::vector<int32_t>& ids, TargetTokens target,
                                         const std::vector<std::vector<std::size_t>>& masks,
                                         const MaskedRunOptions& opts)
{
    const TorchLanguageModel& tm = model::probeModel(m, "occlusion attribution");
    model::checkTarget(ids, target);
    for (const auto& mask : masks)
        for (const std::size_t p : mask)
            if (p >= target.begin)
                throw InputError("a masked position (" + std::to_string(p) +
                                 ") is not before the attribution target (from token " + std::to_string(target.begin) +
                                 "): only context before the target can be occluded");
    const model::Decoder& dec = tm.decoder();
    prepareCpuThread();
    c10::InferenceMode guard;
    // Positions after the target's last predicting position change nothing: the forward pass stops there.
    const std::vector<int32_t> used(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(target.end));
    model::checkContext(dec, used.size(), "occlusion attribution");
    const at::Tensor idRow = model::probeIds(dec, used);
    const auto T = static_cast<int64_t>(used.size());
    const int batch = std::max(1, opts.batch);
    // The unmasked pass keeps its keys and values: positions before a mask's first hidden position are the same
    // with and without the mask (causal), so each masked copy recomputes only from there on.
    model::KvCache full = dec.makeCache(1, T);
    const at::Tensor h0 = dec.hidden(idRow.view({1, T}), {}, &full);
    const double unmasked = model::targetLogProb(dec, h0, idRow, target).to(at::kCPU, at::kDouble).item<double>();
    // Masks in order of their first position, so that a batch's copies share most of their prefix.
    std::vector<double> out(masks.size(), unmasked);
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < masks.size(); ++k)
        if (!masks[k].empty())
            order.push_back(k);
    auto first = [&](std::size_t k) { return *std::min_element(masks[k].begin(), masks[k].end()); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return first(a) < first(b); });
    model::KvCache copies;
    int64_t copiesBatch = 0;
    std::size_t done = masks.size() - order.size();
    for (std::size_t i = 0; i < order.size(); i += static_cast<std::size_t>(batch)) {
        if (opts.cancel && opts.cancel->load())
            throw Cancelled();
        const std::size_t j = std::min(order.size(), i + static_cast<std::size_t>(batch));
        const auto B = static_cast<int64_t>(j - i);
        // The batch's earliest hidden position; from 0 where recurrent layers (gated DeltaNet) keep no per-position
        // state to start from.
        const auto from = dec.spec().hasRecurrentLayers() ? int64_t(0) : static_cast<int64_t>(first(order[i]));
        if (copies.capacity == 0 || copiesBatch != B) {
            copies = dec.makeCache(B, T);
            copiesBatch = B;
        }
        for (std::size_t l = 0; from > 0 && l < full.k.size(); ++l) {
            copies.k[l].narrow(2, 0, from).copy_(full.k[l].narrow(2, 0, from).expand({B, -1, -1, -1}));
            copies.v[l].narrow(2, 0, from).copy_(full.v[l].narrow(2, 0, from).expand({B, -1, -1, -1}));
        }
        copies.length = from;
        at::Tensor valid = at::ones({B, T}, at::kBool);
        auto a = valid.accessor<bool, 2>();
        for (std::size_t k = i; k < j; ++k)
            for (const std::size_t p : masks[order[k]])
                a[static_cast<int64_t>(k - i)][static_cast<int64_t>(p)] = false;
        const at::Tensor rest = idRow.narrow(0, from, T - from).view({1, T - from}).expand({B, T - from}).contiguous();
        const at::Tensor h = dec.hidden(rest, valid.to(dec.device()), &copies);
        const at::Tensor lp = model::targetLogProb(dec, h, idRow, target, from).to(at::kCPU, at::kDouble).contiguous();
        for (int64_t k = 0; k < B; ++k)
            out[order[i + static_cast<std::size_t>(k)]] = lp.data_ptr<double>()[k];
        done += static_cast<std::size_t>(B);
        if (opts.progress)
            opts.progress(done, masks.size());
    }
    return out;
}

std::vector<double> gradientTimesInput(const LanguageModel& m, const std::vector<int32_t>& ids, TargetTokens target)
{
    const TorchLanguageModel& tm = model::probeModel(m, "gradient x input");
    model::checkTarget(ids, target);
    const model::Decoder& dec = tm.decoder();
    prepareCpuThread();
    // Autograd here only: the weights are plain (not inference) tensors, so they may be saved for backward
    // (load.cpp); the input of block 0 is the one leaf that requires a gradient.
    at::AutoGradMode grad(true);
    const std::vector<int32_t> used(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(target.end));
    model::checkContext(dec, used.size(), "gradient x input");
    const at::Tensor idRow = model::probeIds(dec, used);
    at::Tensor input;
    model::EmbeddingHook hook([&](const at::Tensor& x) {
        x.requires_grad_(true);
        input = x;
    });
    const at::Tensor h = dec.hidden(idRow.view({1, -1}), {}, nullptr, &hook);
    const at::Tensor lp = model::targetLogProb(dec, h, idRow, target).sum();
    lp.backward();
    const at::Tensor gx = (input.grad().to(at::kFloat) * input.detach().to(at::kFloat)).sum(-1)[0];
    const at::Tensor c = gx.to(at::kCPU, at::kDouble).contiguous();
    std::vector<double> out(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    out.resize(ids.size(), 0.0); // positions after the target do not reach it
    return out;
}

double scaledInputTargetLogProb(const LanguageModel& m, const std::vector<int32_t>& ids, TargetTokens target,
                                std::size_t position, double scale)
{
    const TorchLanguageModel& tm = model::probeModel(m, "gradient x input");
    model::checkTarget(ids, target);
    if (position >= ids.size())
        throw InputError("position " + std::to_string(position) + " is outside the " + std::to_string(ids.size()) +
                         " tokens");
    const model::Decoder& dec = tm.decoder();
    prepareCpuThread();
    c10::InferenceMode guard;
    const std::vector<int32_t> used(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(target.end));
    const at::Tensor idRow = model::probeIds(dec, used);
    model::EmbeddingHook hook([&](const at::Tensor& x) {
        if (static_cast<int64_t>(position) < x.size(1))
            x.narrow(1, static_cast<int64_t>(position), 1).mul_(scale);
    });
    const at::Tensor h = dec.hidden(idRow.view({1, -1}), {}, nullptr, &hook);
    return model::targetLogProb(dec, h, idRow, target).to(at::kCPU, at::kDouble).item<double>();
}

} // namespace ascviz
