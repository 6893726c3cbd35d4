// Private to the model room: the torch implementation of LanguageModel. Its definitions are spread by
// concern: load.cpp (LanguageModel::load), scoring.cpp (teacher-forced scoring), generation.cpp (the generate
// loop and the spans of generated text), sampling.cpp (the temperature / top-k / top-p sampler).
#pragma once
#include "ascviz/model/model.h"

#include "decoder/decoder.h"
#include "formats/safetensors.h"
#include "kernels/cpu_threads.h"
#include "kernels/fused_head.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ascviz::model {

// NtP of a target and the top-k: (id, probability), most likely first (fused_head.h).
using Pred = HeadPred;
using Preds = std::vector<std::optional<Pred>>; // one per position of a sequence; [0] is always empty

struct Step {
    int32_t id = 0;
    Pred pred; // of the chosen id, under the unmodified distribution
};

// Hugging Face's warper order: temperature, top-k, top-p; then one multinomial draw (sampling.cpp).
int32_t sample(const std::vector<float>& logits, const GenerationOptions& o, std::mt19937_64& rng);

class TorchLanguageModel final : public LanguageModel {
public:
    TorchLanguageModel(ModelInfo info, std::shared_ptr<const Tokenizer> tokenizer, std::unique_ptr<Decoder> decoder)
        : m_info(std::move(info)), m_tok(std::move(tokenizer)), m_dec(std::move(decoder))
    {
        for (auto id : m_dec->spec().eosIds)
            m_eos.push_back(id);
        if (auto e = m_tok->eosId())
            m_eos.push_back(*e);
    }

    const ModelInfo& info() const override { return m_info; }
    const Tokenizer& tokenizer() const override { return *m_tok; }
    // For the lens and attribution probes (lens.cpp, masking.cpp): the decoder, BOS when scoring starts from it.
    const Decoder& decoder() const { return *m_dec; }
    // For head ablation (ablation.cpp): a model over another decoder shares this tokenizer.
    std::shared_ptr<const Tokenizer> sharedTokenizer() const { return m_tok; }
    std::optional<int32_t> scoringBos() const { return startWithBos(); }

    // scoring.cpp
    ScoredText score(std::string_view text, const ScoreOptions& opts) const override;
    std::vector<ScoredText> scoreBatch(const std::vector<std::string>& texts, const ScoreOptions& opts) const override;
    std::vector<float> logits(const std::vector<int32_t>& ids) const override;
    std::vector<std::vector<std::optional<double>>>
    scoreIds(const std::vector<std::vector<int32_t>>& seqs) const override;
    void observeIds(const std::vector<int32_t>& ids, IntermediateObserver& observer) const override;

    // generation.cpp
    ScoredText generate(std::string_view prompt, const GenerationOptions& opts, const TokenCallback& onToken,
                        const CancelFlag* cancel) const override;
    std::vector<int32_t> generateIds(const std::vector<int32_t>& promptIds, const GenerationOptions& opts,
                                     const CancelFlag* cancel) const override;

private:
    std::optional<int32_t> startWithBos() const
    {
        if (m_tok->addsBos())
            return m_tok->bosId();
        return std::nullopt;
    }

    bool isEos(int32_t id) const { return std::find(m_eos.begin(), m_eos.end(), id) != m_eos.end(); }

    // Every public entry point starts with this: OpenMP keeps the thread count per calling thread, so a thread
    // other than the loading one (the batch's scoring thread, the GUI's workers) would compute with every core
    // instead of LoadOptions::threads. prepareCpuThread (cpu_threads.h) gives the calling thread the process's
    // setting, once per thread.
    // Each call into the model: the CPU thread setup, and the mapped checkpoint files still whole (a file truncated
    // on disk is a ModelError naming it, not a SIGBUS in a product).
    static void prepareThread()
    {
        prepareCpuThread();
        checkMappedFilesIntact();
    }

    // scoring.cpp
    std::vector<Alternative> alternatives(const Pred& p) const;
    void appendPromptTokens(ScoredText& s, const Encoding& enc, const Preds& preds, std::size_t prefix) const;
    // `id`, or InputError when it is outside the vocabulary.
    int32_t checkedId(int32_t id) const;
    at::Tensor idTensor(const std::vector<std::vector<int32_t>>& rows, std::size_t width) const;
    // NtP (+ top-k) of `targets` from hidden rows [N, hidden], in row chunks so that [chunk, vocab] stays small.
    std::vector<Pred> predsFromHidden(const at::Tensor& rows, const std::vector<int32_t>& targets, int topK) const;
    // Teacher-forced predictions of every position of every sequence. Sequences longer than the context are
    // cut into windows of `context` tokens overlapping by half a context; each window predicts only the
    // positions no earlier window predicted, so every such position has at least half a context of history.
    // All windows of all sequences are batched together (right padding, sorted by length). `observer` (may be
    // null) receives the intermediates of every forward pass (ScoreOptions::observer); `hooks` (may be null):
    // ScoreOptions::progress and ::cancel, between forward passes.
    std::vector<Preds> predict(const std::vector<std::vector<int32_t>>& seqs, int topK,
                               IntermediateObserver* observer = nullptr, const ScoreOptions* hooks = nullptr) const;

    // generation.cpp
    // Spans of generated tokens from incremental decoding in context (fallback for tokenizers whose
    // per-token text does not concatenate to the decoded text).
    void respanByDecoding(const std::vector<int32_t>& ids, const std::vector<int32_t>& generated,
                          std::vector<std::pair<std::size_t, std::size_t>>& spans, std::string& completion) const;
    // Prefill + token-by-token generation. `onStep` sees every chosen id (EOS included). Prompt predictions
    // (teacher-forced) go to *promptPreds when asked for.
    // Returns why generation stopped.
    StopReason run(const std::vector<int32_t>& prompt, const GenerationOptions& opts, int topAlt,
                   const CancelFlag* cancel, Preds* promptPreds, const std::function<void(const Step&)>& onStep) const;

    ModelInfo m_info;
    std::shared_ptr<const Tokenizer> m_tok;
    std::unique_ptr<Decoder> m_dec;
    std::vector<int32_t> m_eos;
};

} // namespace ascviz::model
