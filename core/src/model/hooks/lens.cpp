// The layer lens (method.md §13): the residual stream after every block through the model's own final norm and
// LM head, reduced to the target token's probability (and top-k) as each layer is computed, in the one forward
// pass that also scores the text (lens.h).
#include "hooks/probe_common.h"
#include "language_model_impl.h"
#include "windows.h"

#include "ascviz/base/error.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/observer.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>

namespace ascviz::model {

at::Tensor Decoder::lensLogits(const at::Tensor& residual) const
{
    return logits(norm(m_w.finalNorm, residual));
}

bool Decoder::hasLensHead() const
{
    return m_w.finalNorm.w.defined() && m_w.head.defined() && m_w.head.size(-1) == m_spec.hidden;
}

namespace {

// What the lens keeps per layer: the target probabilities [N], the most likely ids [N] (method.md §14.3) and the
// top-k (probabilities, ids) [N, k].
struct LayerValues {
    at::Tensor ntp, top1, topP, topI;
};

// Rows of [chunk, vocab] float32 stay ~16 MiB, as in scoring.
int64_t rowChunk(int64_t vocab)
{
    return std::max<int64_t>(1, (int64_t(1) << 22) / vocab);
}

// log p(target) of `logits` rows [n, vocab] (float32) with `lse` their log-sum-exp, the argmax (the first maximum)
// and top-k.
void reduceRows(const at::Tensor& logits, const at::Tensor& targets, int64_t k, std::vector<at::Tensor>& ntp,
                std::vector<at::Tensor>& top1, std::vector<at::Tensor>& topP, std::vector<at::Tensor>& topI)
{
    const at::Tensor lse = at::logsumexp(logits, {-1}, /*keepdim=*/true);
    ntp.push_back((logits.gather(1, targets.view({-1, 1})) - lse).exp().view({-1}));
    top1.push_back(logits.argmax(-1));
    if (k > 0) {
        auto [v, i] = at::topk(logits, k, -1);
        topP.push_back((v - lse).exp());
        topI.push_back(i);
    }
}

// Reduces the embeddings and the residual after every block but the last to lens values as they come: rows
// first - 1 … first - 1 + n - 1 predict the n targets (the ids at positions first …).
class LensObserver final : public ForwardObserver {
public:
    LensObserver(const Decoder& decoder, at::Tensor targets, int64_t first, int64_t topK)
        : m_dec(decoder), m_targets(std::move(targets)), m_first(first), m_k(topK),
          m_layers(static_cast<int>(decoder.spec().layers)), m_values(static_cast<std::size_t>(m_layers) + 1)
    {
    }

    bool wants(std::string_view name, int layer) const override
    {
        if (name == intermediate::kEmbeddings)
            return layer == -1;
        return name == intermediate::kHidden && layer >= 0 && layer < m_layers - 1;
    }

    void observe(std::string_view name, int layer, const at::Tensor& value) override
    {
        const int ell = name == intermediate::kEmbeddings ? 0 : layer + 1;
        const int64_t n = m_targets.size(0);
        const at::Tensor rows = value[0].narrow(0, m_first - 1, n); // position p predicts the id at p + 1
        std::vector<at::Tensor> ntp, top1, topP, topI;
        const int64_t chunk = rowChunk(m_dec.spec().vocab);
        for (int64_t s = 0; s < n; s += chunk) {
            const int64_t c = std::min(chunk, n - s);
            reduceRows(m_dec.lensLogits(rows.narrow(0, s, c)), m_targets.narrow(0, s, c), m_k, ntp, top1, topP, topI);
        }
        LayerValues& out = m_values[static_cast<std::size_t>(ell)];
        out.ntp = at::cat(ntp).to(at::kCPU, at::kDouble).contiguous();
        out.top1 = at::cat(top1).to(at::kCPU).contiguous();
        if (m_k > 0) {
            out.topP = at::cat(topP).to(at::kCPU, at::kDouble).contiguous();
            out.topI = at::cat(topI).to(at::kCPU).contiguous();
        }
    }

    // The last layer, from the final normed hidden states [n, hidden] the forward pass returned: log_softmax as
    // scoring computes NtP, plus the top `finalK` for the scored text.
    void observeFinal(const at::Tensor& normed, int64_t finalK, LayerValues& final)
    {
        const int64_t n = m_targets.size(0);
        const int64_t chunk = rowChunk(m_dec.spec().vocab);
        const int64_t k = std::max(m_k, finalK);
        std::vector<at::Tensor> ntp, top1, topP, topI;
        for (int64_t s = 0; s < n; s += chunk) {
            const int64_t c = std::min(chunk, n - s);
            const at::Tensor lp = at::log_softmax(m_dec.logits(normed.narrow(0, s, c)), -1);
            ntp.push_back(lp.gather(1, m_targets.narrow(0, s, c).view({-1, 1})).exp().view({-1}));
            top1.push_back(lp.argmax(-1));
            if (k > 0) {
                auto [v, i] = at::topk(lp, k, -1);
                topP.push_back(v.exp());
                topI.push_back(i);
            }
        }
        final.ntp = at::cat(ntp).to(at::kCPU, at::kDouble).contiguous();
        final.top1 = at::cat(top1).to(at::kCPU).contiguous();
        if (k > 0) {
            final.topP = at::cat(topP).to(at::kCPU, at::kDouble).contiguous();
            final.topI = at::cat(topI).to(at::kCPU).contiguous();
        }
        m_values.back() = final;
    }

    const std::vector<LayerValues>& values() const { return m_values; }

private:
    const Decoder& m_dec;
    at::Tensor m_targets; // [n] int64 on the device
    int64_t m_first;
    int64_t m_k;
    int m_layers;
    std::vector<LayerValues> m_values; // per ℓ = 0 .. L
};

struct LensRun {
    std::vector<std::vector<double>> ntp;                                  // [position][ℓ]
    std::vector<std::vector<int32_t>> top1;                                // [position][ℓ]
    std::vector<std::vector<std::vector<std::pair<int32_t, double>>>> top; // [position][ℓ][k]
    std::vector<std::vector<std::pair<int32_t, double>>> finalTop;         // [position][k]
};

std::vector<std::pair<int32_t, double>> topRow(const LayerValues& v, int64_t row, int64_t k)
{
    std::vector<std::pair<int32_t, double>> out;
    if (!v.topP.defined())
        return out;
    k = std::min(k, v.topP.size(1));
    for (int64_t j = 0; j < k; ++j)
        out.emplace_back(static_cast<int32_t>(v.topI.data_ptr<int64_t>()[row * v.topI.size(1) + j]),
                         v.topP.data_ptr<double>()[row * v.topP.size(1) + j]);
    return out;
}

// The lens of positions first … of `ids` (1 <= first; the positions before it stay empty: a window's history).
LensRun runLens(const Decoder& dec, const std::vector<int32_t>& ids, int topK, int finalTopK, int64_t first = 1)
{
    LensRun run;
    run.ntp.resize(ids.size());
    run.top1.resize(ids.size());
    run.top.resize(ids.size());
    run.finalTop.resize(ids.size());
    if (static_cast<int64_t>(ids.size()) <= first)
        return run;
    const at::Tensor idTensor = probeIds(dec, ids);
    const auto n = static_cast<int64_t>(ids.size()) - first;
    const at::Tensor targets = idTensor.narrow(0, first, n);
    LensObserver lens(dec, targets, first, std::max(0, topK));
    const at::Tensor h = dec.hidden(idTensor.view({1, -1}), {}, nullptr, &lens);
    LayerValues final;
    lens.observeFinal(h[0].narrow(0, first - 1, n), std::max(0, finalTopK), final);
    const auto& values = lens.values();
    for (int64_t p = 0; p < n; ++p) {
        const auto at = static_cast<std::size_t>(p + first);
        auto& row = run.ntp[at];
        for (const auto& v : values) {
            row.push_back(v.ntp.data_ptr<double>()[p]);
            run.top1[at].push_back(static_cast<int32_t>(v.top1.data_ptr<int64_t>()[p]));
            if (topK > 0)
                run.top[at].push_back(topRow(v, p, topK));
        }
        run.finalTop[at] = topRow(final, p, finalTopK);
    }
    return run;
}

// The lens of a sequence longer than the context: windowed as scoring windows it (windows.h), each position
// taken from the window that scoring predicts it from, one window's forward pass at a time.
LensRun runLensWindowed(const Decoder& dec, const std::vector<int32_t>& ids, int topK, int finalTopK)
{
    const auto n = static_cast<int64_t>(ids.size());
    const auto windows = contextWindows(n, dec.spec().context);
    if (windows.size() <= 1)
        return runLens(dec, ids, topK, finalTopK);
    LensRun run;
    run.ntp.resize(ids.size());
    run.top1.resize(ids.size());
    run.top.resize(ids.size());
    run.finalTop.resize(ids.size());
    for (const ContextWindow& w : windows) {
        LensRun part = runLens(dec, std::vector<int32_t>(ids.begin() + w.start, ids.begin() + w.end), topK, finalTopK,
                               w.from - w.start); // the head only on the positions this window predicts
        for (int64_t p = w.from; p < w.end; ++p) {
            const auto at = static_cast<std::size_t>(p), in = static_cast<std::size_t>(p - w.start);
            run.ntp[at] = std::move(part.ntp[in]);
            run.top1[at] = std::move(part.top1[in]);
            run.top[at] = std::move(part.top[in]);
            run.finalTop[at] = std::move(part.finalTop[in]);
        }
    }
    return run;
}

} // namespace

} // namespace ascviz::model

namespace ascviz {

using model::TorchLanguageModel;

LayerLens scoreLayers(const LanguageModel& m, std::string_view text, const LayerLensOptions& opts)
{
    const TorchLanguageModel& tm = model::probeModel(m, "the layer lens");
    prepareCpuThread();
    c10::InferenceMode guard;
    const Encoding enc = m.tokenizer().encode(text, false);
    std::vector<int32_t> ids;
    const auto bos = tm.scoringBos();
    if (bos)
        ids.push_back(*bos);
    ids.insert(ids.end(), enc.ids.begin(), enc.ids.end());
    const model::LensRun run = model::runLensWindowed(tm.decoder(), ids, opts.topK, opts.finalTopK);

    auto alternatives = [&](const std::vector<std::pair<int32_t, double>>& top) {
        std::vector<Alternative> v;
        for (const auto& [id, p] : top)
            v.push_back({id, m.tokenizer().idToToken(id), p});
        return v;
    };
    LayerLens out;
    out.layers = static_cast<int>(tm.decoder().spec().layers);
    out.scored.model = m.info().name;
    out.scored.text = std::string(text);
    const std::size_t prefix = bos ? 1 : 0;
    for (std::size_t j = 0; j < enc.ids.size(); ++j) {
        ScoredToken t;
        t.id = enc.ids[j];
        t.start = enc.offsets[j].first;
        t.end = enc.offsets[j].second;
        const auto& layers = run.ntp[j + prefix];
        if (!layers.empty()) {
            t.ntp = layers.back();
            t.top = alternatives(run.finalTop[j + prefix]);
        }
        out.scored.tokens.push_back(std::move(t));
        out.ntp.push_back(layers);
        out.top1.push_back(run.top1[j + prefix]);
        out.commit.push_back(commitLayer(run.top1[j + prefix]));
        if (opts.topK > 0) {
            std::vector<std::vector<Alternative>> perLayer;
            for (const auto& top : run.top[j + prefix])
                perLayer.push_back(alternatives(top));
            out.top.push_back(std::move(perLayer));
        }
    }
    out.scored.promptBytes = out.scored.text.size();
    out.scored.promptTokens = out.scored.tokens.size();
    return out;
}

std::vector<std::vector<double>> layerNtpOfIds(const LanguageModel& m, const std::vector<int32_t>& ids)
{
    return layerLensOfIds(m, ids).ntp;
}

IdLayerLens layerLensOfIds(const LanguageModel& m, const std::vector<int32_t>& ids)
{
    const TorchLanguageModel& tm = model::probeModel(m, "the layer lens");
    prepareCpuThread();
    c10::InferenceMode guard;
    model::LensRun run = model::runLensWindowed(tm.decoder(), ids, 0, 0);
    return {std::move(run.ntp), std::move(run.top1)};
}

std::optional<int> commitLayer(const std::vector<int32_t>& top1)
{
    if (top1.empty())
        return std::nullopt;
    std::size_t l = top1.size() - 1;
    while (l > 0 && top1[l - 1] == top1.back())
        --l;
    return static_cast<int>(l);
}

} // namespace ascviz
