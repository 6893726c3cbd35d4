// Teacher-forced scoring: score/scoreBatch/scoreIds/logits, batched (right padding) and windowed over texts
// longer than the context, and the NtP (+ top-k alternatives) of every position.
#include "language_model_impl.h"
#include "windows.h"

#include "ascviz/base/error.h"
#include "ascviz/model/observer.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <span>

namespace ascviz::model {
namespace {

// Ids per packed forward pass on the CPU (scoring). On 40 corpus functions with the bundled model, packs of
// 256 to 8192 ids took the same time within the noise of the measurement (5.4-6.0 s of CPU); 2048 keeps a
// pack's activations small (the MLP's [2048, 4 hidden] is 12 MiB for the bundled model) while its matrix
// products stay large.
constexpr int64_t kPackTokens = 2048;

// An IntermediateObserver behind the decoder's ForwardObserver for one scoring call: wants() is asked once per
// name and layer up front; each forward pass's batch tensors are cut into the rows of their sequences (real
// positions only, no padding) and copied to the CPU in float32.
class SequenceObserver final : public ForwardObserver {
public:
    struct Row {
        std::size_t sequence;
        int64_t position, length; // ids [position, position + length) of the sequence
    };

    SequenceObserver(IntermediateObserver& target, int layers) : m_target(target)
    {
        m_embeddings = target.wants(intermediate::kEmbeddings, -1);
        for (int l = 0; l < layers; ++l) {
            m_attention.push_back(target.wants(intermediate::kAttention, l));
            m_hidden.push_back(target.wants(intermediate::kHidden, l));
            m_experts.push_back(target.wants(intermediate::kExperts, l));
        }
        m_finalNorm = target.wants(intermediate::kFinalNorm, -1);
        m_logits = target.wants(intermediate::kLogits, -1);
    }

    bool wantsAnything() const
    {
        const auto any = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); };
        return m_embeddings || m_finalNorm || m_logits || any(m_attention) || any(m_hidden) || any(m_experts);
    }

    // The rows of the next forward pass, in batch order.
    void setRows(std::vector<Row> rows) { m_rows = std::move(rows); }

    bool wants(std::string_view name, int layer) const override
    {
        const auto perLayer = [&](const std::vector<bool>& v) {
            return layer >= 0 && static_cast<std::size_t>(layer) < v.size() && v[static_cast<std::size_t>(layer)];
        };
        if (name == intermediate::kEmbeddings)
            return layer == -1 && m_embeddings;
        if (name == intermediate::kAttention)
            return perLayer(m_attention);
        if (name == intermediate::kHidden)
            return perLayer(m_hidden);
        if (name == intermediate::kExperts)
            return perLayer(m_experts);
        if (name == intermediate::kFinalNorm)
            return layer == -1 && m_finalNorm;
        return false;
    }

    // value [B, T, ...], or [B, heads, T, T] for attention (two position dimensions).
    void observe(std::string_view name, int layer, const at::Tensor& value) override
    {
        const bool attention = name == intermediate::kAttention;
        for (std::size_t k = 0; k < m_rows.size(); ++k) {
            const int64_t n = m_rows[k].length;
            const at::Tensor row = value[static_cast<int64_t>(k)];
            deliver(name, layer, m_rows[k], attention ? row.narrow(1, 0, n).narrow(2, 0, n) : row.narrow(0, 0, n));
        }
    }

    // The logits of each row from the final hidden states [B, T, hidden], one row at a time.
    void observeLogits(const Decoder& decoder, const at::Tensor& hidden)
    {
        if (!m_logits)
            return;
        for (std::size_t k = 0; k < m_rows.size(); ++k)
            deliver(intermediate::kLogits, -1, m_rows[k],
                    decoder.logits(hidden[static_cast<int64_t>(k)].narrow(0, 0, m_rows[k].length)));
    }

private:
    void deliver(std::string_view name, int layer, const Row& row, const at::Tensor& value)
    {
        const at::Tensor c = value.to(at::kCPU, at::kFloat).contiguous();
        Intermediate out;
        out.name = name;
        out.layer = layer;
        out.sequence = row.sequence;
        out.position = row.position;
        out.shape = c.sizes().vec();
        out.data = std::span<const float>(c.data_ptr<float>(), static_cast<std::size_t>(c.numel()));
        m_target.observe(out);
    }

    IntermediateObserver& m_target;
    bool m_embeddings = false, m_finalNorm = false, m_logits = false;
    std::vector<bool> m_attention, m_hidden, m_experts; // per layer
    std::vector<Row> m_rows;
};

} // namespace

ScoredText TorchLanguageModel::score(std::string_view text, const ScoreOptions& opts) const
{
    return scoreBatch({std::string(text)}, opts).front();
}

std::vector<ScoredText> TorchLanguageModel::scoreBatch(const std::vector<std::string>& texts,
                                                       const ScoreOptions& opts) const
{
    prepareThread();
    c10::InferenceMode guard;
    std::vector<Encoding> encs;
    std::vector<std::vector<int32_t>> seqs;
    const auto bos = startWithBos();
    for (const auto& t : texts) {
        encs.push_back(m_tok->encode(t, false));
        std::vector<int32_t> ids;
        if (bos)
            ids.push_back(*bos);
        ids.insert(ids.end(), encs.back().ids.begin(), encs.back().ids.end());
        seqs.push_back(std::move(ids));
    }
    const auto preds = predict(seqs, std::max(0, opts.topK), opts.observer, &opts);
    std::vector<ScoredText> out;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        ScoredText s;
        s.model = m_info.name;
        s.text = texts[i];
        appendPromptTokens(s, encs[i], preds[i], bos ? 1 : 0);
        s.promptBytes = s.text.size();
        s.promptTokens = s.tokens.size();
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<float> TorchLanguageModel::logits(const std::vector<int32_t>& ids) const
{
    prepareThread();
    c10::InferenceMode guard;
    if (ids.empty())
        return {};
    const at::Tensor h = m_dec->hidden(idTensor({ids}, ids.size()), {}, nullptr);
    const at::Tensor l = m_dec->logits(h[0]).to(at::kCPU).contiguous();
    return std::vector<float>(l.data_ptr<float>(), l.data_ptr<float>() + l.numel());
}

std::vector<std::vector<std::optional<double>>>
TorchLanguageModel::scoreIds(const std::vector<std::vector<int32_t>>& seqs) const
{
    prepareThread();
    c10::InferenceMode guard;
    const auto preds = predict(seqs, 0);
    std::vector<std::vector<std::optional<double>>> out;
    for (const auto& p : preds) {
        std::vector<std::optional<double>> v;
        for (const auto& x : p)
            v.push_back(x ? std::optional<double>(x->ntp) : std::nullopt);
        out.push_back(std::move(v));
    }
    return out;
}

void TorchLanguageModel::observeIds(const std::vector<int32_t>& ids, IntermediateObserver& observer) const
{
    prepareThread();
    c10::InferenceMode guard;
    predict({ids}, 0, &observer);
}

std::vector<Alternative> TorchLanguageModel::alternatives(const Pred& p) const
{
    std::vector<Alternative> v;
    for (const auto& [id, prob] : p.top)
        v.push_back({id, m_tok->idToToken(id), prob});
    return v;
}

void TorchLanguageModel::appendPromptTokens(ScoredText& s, const Encoding& enc, const Preds& preds,
                                            std::size_t prefix) const
{
    for (std::size_t j = 0; j < enc.ids.size(); ++j) {
        ScoredToken t;
        t.id = enc.ids[j];
        t.start = enc.offsets[j].first;
        t.end = enc.offsets[j].second;
        const std::size_t pos = j + prefix;
        if (pos < preds.size() && preds[pos]) {
            t.ntp = preds[pos]->ntp;
            t.uncertainty = preds[pos]->uncertainty;
            t.top = alternatives(*preds[pos]);
        }
        s.tokens.push_back(std::move(t));
    }
}

int32_t TorchLanguageModel::checkedId(int32_t id) const
{
    if (id < 0 || id >= m_dec->spec().vocab)
        throw InputError("token id " + std::to_string(id) + " is outside the model's vocabulary of " +
                             std::to_string(m_dec->spec().vocab) + " (vocab_size in " +
                             (m_info.dir / "config.json").string() + "); an id from the tokenizer (" +
                             (m_info.dir / "tokenizer.json").string() + ") beyond it means the two do not match",
                         ErrorContext((m_info.dir / "tokenizer.json").string()));
    return id;
}

at::Tensor TorchLanguageModel::idTensor(const std::vector<std::vector<int32_t>>& rows, std::size_t width) const
{
    at::Tensor t = at::zeros({static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)}, at::kLong);
    auto a = t.accessor<int64_t, 2>();
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j) {
            a[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = checkedId(rows[i][j]);
        }
    return t.to(m_dec->device());
}

// NtP (+ top-k) of `targets` from hidden rows [N, hidden]: on the CPU through the fused head (no [N, vocab] tensor),
// elsewhere (and with ASCVIZ_CPU_FUSE=0) log_softmax in row chunks so that [chunk, vocab] stays small.
std::vector<Pred> TorchLanguageModel::predsFromHidden(const at::Tensor& rows, const std::vector<int32_t>& targets,
                                                      int topK) const
{
    const int64_t V = m_dec->spec().vocab;
    if (rows.device().is_cpu() && cpuFusedHeadEnabled())
        return fusedHeadPreds(rows, targets, V, topK, [this](const at::Tensor& x, int64_t col, int64_t cols) {
            return m_dec->logitsColumns(x, col, cols);
        });
    return chunkedHeadPreds(rows, targets, V, topK, [this](const at::Tensor& x) { return m_dec->logits(x); });
}

// Teacher-forced predictions of every position of every sequence. Sequences longer than the context are
// cut into windows of `context` tokens overlapping by half a context; each window predicts only the
// positions no earlier window predicted, so every such position has at least half a context of history.
// All windows of all sequences are batched together (right padding, sorted by length).
std::vector<Preds> TorchLanguageModel::predict(const std::vector<std::vector<int32_t>>& seqs, int topK,
                                               IntermediateObserver* observer, const ScoreOptions* hooks) const
{
    checkMappedFilesIntact(); // the observers' and probes' calls come here without prepareThread
    std::optional<SequenceObserver> watch;
    if (observer) {
        watch.emplace(*observer, static_cast<int>(m_dec->spec().layers));
        if (!watch->wantsAnything())
            watch.reset();
    }
    struct Segment {
        std::size_t seq;
        int64_t start, end, from; // ids [start, end); predict positions [from, end)
    };
    const int64_t C = m_dec->spec().context;
    std::vector<Segment> segs;
    std::vector<Preds> out(seqs.size());
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        const auto n = static_cast<int64_t>(seqs[i].size());
        out[i].resize(seqs[i].size());
        for (const ContextWindow& w : contextWindows(n, C))
            segs.push_back({i, w.start, w.end, w.from});
    }
    // Before a forward pass over segs[i, ...): stop when asked; after one that ended at segs[j]: report.
    const auto checkCancel = [&] {
        if (hooks && hooks->cancel && hooks->cancel->load())
            throw Cancelled();
    };
    const auto report = [&](std::size_t j) {
        if (hooks && hooks->progress)
            hooks->progress(j, segs.size());
    };
    // Predictions of segs[i, j) from hidden rows `flat` [rows, hidden]; segment k's id at position p is in row
    // rowOf(k) + (p - start).
    auto predictSegments = [&](std::size_t i, std::size_t j, const at::Tensor& flat, auto rowOf) {
        std::vector<int64_t> rowIndex;
        std::vector<int32_t> targets;
        for (std::size_t k = i; k < j; ++k) {
            const auto& sg = segs[k];
            for (int64_t p = sg.from; p < sg.end; ++p) {
                rowIndex.push_back(rowOf(k) + (p - 1 - sg.start));
                targets.push_back(seqs[sg.seq][static_cast<std::size_t>(p)]);
            }
        }
        const at::Tensor idx = at::tensor(rowIndex, at::kLong).to(m_dec->device());
        auto preds = predsFromHidden(flat.index_select(0, idx), targets, topK);
        // A forward pass that diverged (NaN or Inf weights, a config the checks above let through) is an error for
        // this text, never NtP null reported as success (issue 54).
        for (std::size_t q = 0; q < preds.size(); ++q)
            if (!std::isfinite(preds[q].ntp))
                throw ModelError("the forward pass gave a non-finite probability (" + std::to_string(preds[q].ntp) +
                                 ") for token " + std::to_string(targets[q]) +
                                 ": the model diverges on this text; check its weights (NaN or Inf values) and "
                                 "config.json");
        std::size_t q = 0;
        for (std::size_t k = i; k < j; ++k) {
            const auto& sg = segs[k];
            for (int64_t p = sg.from; p < sg.end; ++p)
                out[sg.seq][static_cast<std::size_t>(p)] = std::move(preds[q++]);
        }
    };
    if (!watch && !m_dec->device().is_cuda()) {
        // CPU: packed forward passes, no padding. The windows go in order into packs of up to kPackTokens ids
        // (a longer window alone); projections and MLP run on a pack's rows at once, attention per window.
        std::size_t i = 0;
        while (i < segs.size()) {
            std::size_t j = i;
            int64_t tokens = 0;
            std::vector<int64_t> lengths;
            std::vector<int64_t> packed;
            while (j < segs.size() && (j == i || tokens + (segs[j].end - segs[j].start) <= kPackTokens)) {
                const auto& sg = segs[j];
                lengths.push_back(sg.end - sg.start);
                for (int64_t p = sg.start; p < sg.end; ++p) {
                    packed.push_back(checkedId(seqs[sg.seq][static_cast<std::size_t>(p)]));
                }
                tokens += sg.end - sg.start;
                ++j;
            }
            checkCancel();
            const at::Tensor h = m_dec->hiddenPacked(at::tensor(packed, at::kLong).to(m_dec->device()), lengths);
            std::vector<int64_t> offsets; // of each window's first row in the pack
            int64_t offset = 0;
            for (const int64_t len : lengths) {
                offsets.push_back(offset);
                offset += len;
            }
            predictSegments(i, j, h, [&](std::size_t k) { return offsets[k - i]; });
            report(j);
            i = j;
        }
        return out;
    }
    // CUDA, or intermediates observed: padded batches [rows, T] (right padding, sorted by length).
    std::sort(segs.begin(), segs.end(),
              [](const Segment& a, const Segment& b) { return (a.end - a.start) > (b.end - b.start); });
    const int64_t heads = m_dec->spec().heads;
    std::size_t i = 0;
    while (i < segs.size()) {
        const int64_t T = segs[i].end - segs[i].start;
        std::size_t j = i + 1;
        // Up to 32 rows, 8192 tokens and ~128M attention scores per batch.
        while (j < segs.size() && j - i < 32 && static_cast<int64_t>(j - i + 1) * T <= 8192 &&
               static_cast<int64_t>(j - i + 1) * T * T * heads <= (int64_t(1) << 27) &&
               m_dec->ropeVariant(segs[j].end - segs[j].start) == m_dec->ropeVariant(T))
            ++j;
        std::vector<std::vector<int32_t>> rows;
        bool ragged = false;
        for (std::size_t k = i; k < j; ++k) {
            const auto& sg = segs[k];
            rows.emplace_back(seqs[sg.seq].begin() + sg.start, seqs[sg.seq].begin() + sg.end);
            ragged |= (sg.end - sg.start) != T;
        }
        at::Tensor valid;
        if (ragged) {
            valid = at::zeros({static_cast<int64_t>(rows.size()), T}, at::kBool);
            for (std::size_t k = 0; k < rows.size(); ++k)
                valid[static_cast<int64_t>(k)].narrow(0, 0, static_cast<int64_t>(rows[k].size())).fill_(true);
            valid = valid.to(m_dec->device());
        }
        if (watch) {
            std::vector<SequenceObserver::Row> rowInfo;
            for (std::size_t k = i; k < j; ++k)
                rowInfo.push_back({segs[k].seq, segs[k].start, segs[k].end - segs[k].start});
            watch->setRows(std::move(rowInfo));
        }
        ForwardObserver* forward = watch ? &*watch : nullptr;
        checkCancel();
        const at::Tensor h = m_dec->hidden(idTensor(rows, static_cast<std::size_t>(T)), valid, nullptr, forward);
        if (watch)
            watch->observeLogits(*m_dec, h);
        predictSegments(i, j, h.reshape({-1, h.size(-1)}),
                        [&](std::size_t k) { return static_cast<int64_t>(k - i) * T; });
        report(j);
        i = j;
    }
    return out;
}

} // namespace ascviz::model
