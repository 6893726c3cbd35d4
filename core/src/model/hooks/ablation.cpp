// Head ablation (method.md §14.1, ascviz/model/ablation.h): the decoder's hook on the output projection's input
// (Decoder::ablateHeads), the means of mean ablation, and the ablated model over a copy of a loaded decoder.
#include "hooks/probe_common.h"
#include "language_model_impl.h"
#include "windows.h"

#include "ascviz/base/error.h"
#include "ascviz/model/ablation.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <charconv>
#include <map>

namespace ascviz::model {

at::Tensor Decoder::ablateHeads(int layer, const at::Tensor& heads) const
{
    const auto l = static_cast<std::size_t>(layer);
    if (l >= m_ablation.keep.size() || !m_ablation.keep[l].defined())
        return heads;
    return heads * m_ablation.keep[l] + m_ablation.fill[l]; // unablated slices: x · 1 + 0, bit for bit
}

bool Decoder::moeLayer(int layer) const
{
    return layer >= 0 && static_cast<std::size_t>(layer) < m_w.layers.size() &&
           m_w.layers[static_cast<std::size_t>(layer)].moe.defined();
}

namespace {

const TorchLanguageModel& runtimeModel(const LanguageModel& m)
{
    const auto* tm = dynamic_cast<const TorchLanguageModel*>(&m);
    if (!tm)
        throw ModelError("head ablation needs a model run by AsC-Viz's own runtime (LanguageModel::load)");
    return *tm;
}

// Sums each wanted layer's head outputs over the rows [from, end) of every forward pass.
class HeadSumObserver final : public ForwardObserver {
public:
    HeadSumObserver(std::vector<bool> layers, int64_t width) : m_layers(std::move(layers)), m_sums(m_layers.size())
    {
        for (std::size_t l = 0; l < m_layers.size(); ++l)
            if (m_layers[l])
                m_sums[l] = at::zeros({width}, at::TensorOptions().dtype(at::kDouble));
    }
    void setRows(int64_t from, int64_t end)
    {
        m_from = from;
        m_end = end;
    }
    bool wants(std::string_view name, int layer) const override
    {
        return name == kHeadOutputs && layer >= 0 && static_cast<std::size_t>(layer) < m_layers.size() &&
               m_layers[static_cast<std::size_t>(layer)];
    }
    void observe(std::string_view, int layer, const at::Tensor& value) override
    {
        auto& sum = m_sums[static_cast<std::size_t>(layer)];
        sum += value[0].narrow(0, m_from, m_end - m_from).to(at::kCPU, at::kDouble).sum(0);
    }
    const at::Tensor& sum(int layer) const { return m_sums[static_cast<std::size_t>(layer)]; }

private:
    std::vector<bool> m_layers;
    std::vector<at::Tensor> m_sums;
    int64_t m_from = 0, m_end = 0;
};

} // namespace

} // namespace ascviz::model

namespace ascviz {

using model::TorchLanguageModel;

std::string toString(const AttentionHead& h)
{
    return std::to_string(h.layer) + "." + std::to_string(h.head);
}

std::string toString(AblationMode m)
{
    return m == AblationMode::Mean ? "mean" : "zero";
}

AblationMode parseAblationMode(std::string_view s)
{
    if (s == "zero")
        return AblationMode::Zero;
    if (s == "mean")
        return AblationMode::Mean;
    throw InputError("the ablation must be zero or mean, got '" + std::string(s) + "'");
}

namespace {

// "A.B,A.B,…" → pairs in the order given; `what` names an item in errors ("head" / "expert").
std::vector<std::pair<int, int>> parsePairs(std::string_view list, const std::string& what, const std::string& example)
{
    std::vector<std::pair<int, int>> out;
    auto number = [](std::string_view s, int& v) {
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return !s.empty() && ec == std::errc() && p == s.data() + s.size() && v >= 0;
    };
    std::size_t pos = 0;
    while (pos <= list.size()) {
        const std::size_t comma = std::min(list.find(',', pos), list.size());
        const std::string_view item = list.substr(pos, comma - pos);
        pos = comma + 1;
        if (item.empty())
            continue;
        const std::size_t dot = item.find('.');
        std::pair<int, int> h;
        if (dot == std::string_view::npos || !number(item.substr(0, dot), h.first) ||
            !number(item.substr(dot + 1), h.second))
            throw InputError("a" + std::string(what == "expert" ? "n " : " ") + what + " to ablate is LAYER." +
                             (what == "expert" ? "EXPERT" : "HEAD") + " (two integers >= 0, e.g. " + example +
                             "), got '" + std::string(item) + "'");
        out.push_back(h);
    }
    if (out.empty())
        throw InputError("the list of " + what + "s to ablate is empty (expected LAYER." +
                         (what == "expert" ? "EXPERT" : "HEAD") + ",…, e.g. " + example + ",4.0)");
    return out;
}

} // namespace

std::vector<AttentionHead> parseHeadList(std::string_view list)
{
    std::vector<AttentionHead> out;
    for (const auto& [l, h] : parsePairs(list, "head", "3.1"))
        out.push_back({l, h});
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int attentionHeads(const LanguageModel& m)
{
    return static_cast<int>(model::runtimeModel(m).decoder().spec().heads);
}

void checkHeads(const LanguageModel& m, const std::vector<AttentionHead>& heads)
{
    const auto& spec = model::runtimeModel(m).decoder().spec();
    for (const auto& h : heads) {
        if (h.layer >= 0 && h.layer < spec.layers && spec.layerKind(h.layer) != model::LayerKind::Attention)
            throw InputError(
                "head " + toString(h) + " to ablate is in layer " + std::to_string(h.layer) + " of " + m.info().name +
                (spec.layerKind(h.layer) == model::LayerKind::Mamba2 ? ", a Mamba-2 layer (state-space mixer)"
                 : spec.layerKind(h.layer) == model::LayerKind::Mlp  ? ", an MLP block (no token mixer)"
                 : spec.layerKind(h.layer) == model::LayerKind::ShortConv
                     ? ", a short-convolution layer"
                     : ", a gated DeltaNet layer (linear attention)") +
                ": head ablation covers attention layers only");
        if (h.layer >= spec.layers || h.head >= spec.heads)
            throw InputError("head " + toString(h) + " to ablate is outside the model " + m.info().name + ": it has " +
                             std::to_string(spec.layers) + " layers (0 … " + std::to_string(spec.layers - 1) + ") of " +
                             std::to_string(spec.heads) + " attention heads each (0 … " +
                             std::to_string(spec.heads - 1) + ")");
    }
}

std::vector<std::vector<double>> meanHeadOutputsOfIds(const LanguageModel& m, const std::vector<int32_t>& ids,
                                                      const std::vector<AttentionHead>& heads)
{
    checkHeads(m, heads);
    const model::Decoder& dec = model::runtimeModel(m).decoder();
    if (ids.size() < 2)
        throw InputError("mean ablation needs a text of at least two tokens (its heads' mean is taken over the "
                         "positions that predict a token)");
    prepareCpuThread();
    c10::InferenceMode guard;
    const int64_t hd = dec.spec().valueDim();
    std::vector<bool> layers(static_cast<std::size_t>(dec.spec().layers), false);
    for (const auto& h : heads)
        layers[static_cast<std::size_t>(h.layer)] = true;
    model::HeadSumObserver sums(layers, dec.spec().heads * hd);
    const at::Tensor all = model::probeIds(dec, ids);
    for (const model::ContextWindow& w : model::contextWindows(static_cast<int64_t>(ids.size()), dec.spec().context)) {
        sums.setRows(w.from - 1 - w.start, w.end - 1 - w.start); // the positions predicting [from, end)
        dec.hidden(all.narrow(0, w.start, w.end - w.start).view({1, -1}), {}, nullptr, &sums);
    }
    const auto count = static_cast<double>(ids.size() - 1);
    std::vector<std::vector<double>> out;
    for (const auto& h : heads) {
        const at::Tensor mean = (sums.sum(h.layer).narrow(0, h.head * hd, hd) / count).contiguous();
        out.emplace_back(mean.data_ptr<double>(), mean.data_ptr<double>() + hd);
    }
    return out;
}

std::vector<std::vector<double>> meanHeadOutputs(const LanguageModel& m, std::string_view text,
                                                 const std::vector<AttentionHead>& heads)
{
    const TorchLanguageModel& tm = model::runtimeModel(m);
    std::vector<int32_t> ids;
    if (const auto bos = tm.scoringBos())
        ids.push_back(*bos);
    const Encoding enc = m.tokenizer().encode(text, false);
    ids.insert(ids.end(), enc.ids.begin(), enc.ids.end());
    return meanHeadOutputsOfIds(m, ids, heads);
}

std::unique_ptr<LanguageModel> withAblatedHeads(const LanguageModel& m, const std::vector<AttentionHead>& heads,
                                                const std::vector<std::vector<double>>& means)
{
    checkHeads(m, heads);
    const TorchLanguageModel& tm = model::runtimeModel(m);
    const model::Decoder& dec = tm.decoder();
    const int64_t hd = dec.spec().valueDim(), width = dec.spec().heads * hd;
    if (!means.empty()) {
        if (means.size() != heads.size())
            throw InputError("mean ablation has " + std::to_string(means.size()) + " means for " +
                             std::to_string(heads.size()) + " heads");
        for (const auto& v : means)
            if (static_cast<int64_t>(v.size()) != hd)
                throw InputError("a head's mean has " + std::to_string(v.size()) + " values, the model's heads " +
                                 std::to_string(hd));
    }
    std::vector<std::vector<double>> keep(static_cast<std::size_t>(dec.spec().layers)), fill(keep.size());
    for (std::size_t k = 0; k < heads.size(); ++k) {
        const auto l = static_cast<std::size_t>(heads[k].layer);
        if (keep[l].empty()) {
            keep[l].assign(static_cast<std::size_t>(width), 1.0);
            fill[l].assign(static_cast<std::size_t>(width), 0.0);
        }
        for (int64_t j = 0; j < hd; ++j) {
            const auto at = static_cast<std::size_t>(heads[k].head * hd + j);
            keep[l][at] = 0.0;
            fill[l][at] = means.empty() ? 0.0 : means[k][static_cast<std::size_t>(j)];
        }
    }
    model::HeadIntervention h;
    const auto opts = at::TensorOptions().dtype(at::kDouble);
    for (std::size_t l = 0; l < keep.size(); ++l) {
        if (keep[l].empty()) {
            h.keep.emplace_back();
            h.fill.emplace_back();
            continue;
        }
        h.keep.push_back(at::tensor(keep[l], opts).to(dec.device(), dec.dtype()));
        h.fill.push_back(at::tensor(fill[l], opts).to(dec.device(), dec.dtype()));
    }
    auto copy = std::make_unique<model::Decoder>(dec);
    copy->setHeadIntervention(std::move(h));
    return std::make_unique<TorchLanguageModel>(m.info(), tm.sharedTokenizer(), std::move(copy));
}

std::string toString(const ExpertRef& e)
{
    return std::to_string(e.layer) + "." + std::to_string(e.expert);
}

std::vector<ExpertRef> parseExpertList(std::string_view list)
{
    std::vector<ExpertRef> out;
    for (const auto& [l, e] : parsePairs(list, "expert", "1.3"))
        out.push_back({l, e});
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int routedExperts(const LanguageModel& m)
{
    return static_cast<int>(model::runtimeModel(m).decoder().spec().moe.experts);
}

int expertsPerToken(const LanguageModel& m)
{
    return static_cast<int>(model::runtimeModel(m).decoder().spec().moe.topK);
}

void checkExperts(const LanguageModel& m, const std::vector<ExpertRef>& experts)
{
    const model::Decoder& dec = model::runtimeModel(m).decoder();
    const auto& spec = dec.spec();
    const int E = static_cast<int>(spec.moe.experts), K = static_cast<int>(spec.moe.topK);
    if (E == 0)
        throw InputError("the model " + m.info().name + " has no mixture-of-experts block: no expert to ablate");
    std::map<int, int> perLayer;
    for (const auto& e : experts) {
        if (e.layer >= spec.layers || !dec.moeLayer(e.layer) || e.expert >= E)
            throw InputError("expert " + toString(e) + " to ablate is outside the model " + m.info().name +
                             ": it has " + std::to_string(spec.layers) + " layers (0 … " +
                             std::to_string(spec.layers - 1) + ", mixture-of-experts blocks only) of " +
                             std::to_string(E) + " routed experts each (0 … " + std::to_string(E - 1) + ")");
        if (E - ++perLayer[e.layer] < K)
            throw InputError("ablating " + std::to_string(perLayer[e.layer]) + " experts of layer " +
                             std::to_string(e.layer) + " leaves fewer than the " + std::to_string(K) +
                             " experts each token of " + m.info().name + " is routed to");
    }
}

std::unique_ptr<LanguageModel> withAblatedExperts(const LanguageModel& m, const std::vector<ExpertRef>& experts)
{
    checkExperts(m, experts);
    const TorchLanguageModel& tm = model::runtimeModel(m);
    const model::Decoder& dec = tm.decoder();
    const auto E = static_cast<std::size_t>(dec.spec().moe.experts);
    std::vector<std::vector<uint8_t>> blocked(static_cast<std::size_t>(dec.spec().layers));
    for (const auto& e : experts) {
        auto& b = blocked[static_cast<std::size_t>(e.layer)];
        b.resize(E, 0);
        b[static_cast<std::size_t>(e.expert)] = 1;
    }
    model::HeadIntervention h;
    for (const auto& b : blocked)
        h.blockedExperts.push_back(b.empty()
                                       ? at::Tensor()
                                       : at::tensor(at::ArrayRef<uint8_t>(b), at::TensorOptions().dtype(at::kByte))
                                             .to(at::kBool)
                                             .to(dec.device()));
    auto copy = std::make_unique<model::Decoder>(dec);
    copy->setHeadIntervention(std::move(h));
    return std::make_unique<TorchLanguageModel>(m.info(), tm.sharedTokenizer(), std::move(copy));
}

} // namespace ascviz
