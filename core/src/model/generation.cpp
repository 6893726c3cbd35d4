// Generation: the prefill + token-by-token loop with a KV cache (greedy or sampled), generate()'s mapping of
// generated ids to UTF-8 byte spans of the completion, and generateIds().
#include "language_model_impl.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>

namespace ascviz::model {
namespace {

// Turns the bytes generated tokens contribute into text the way Hugging Face's decoders do (invalid UTF-8
// becomes U+FFFD, one per maximal invalid subpart), incrementally: bytes that may still become a character
// wait for the next token. Each byte maps to the span of the character it ended up in, so a token that holds
// part of a character gets that whole character's span (as the tokenizer's offsets do for prompt tokens).
class Utf8Assembler {
public:
    void add(const std::string& bytes)
    {
        m_raw += bytes;
        resolve();
    }
    std::size_t rawSize() const { return m_raw.size(); }
    const std::string& text() const { return m_text; }
    bool pending() const { return m_resolved < m_raw.size(); }
    // The text span of raw bytes [b, e); bytes not resolved (an unfinished character at the end) map to the end.
    std::pair<std::size_t, std::size_t> span(std::size_t b, std::size_t e) const
    {
        const std::size_t endText = m_text.size();
        if (b >= e) {
            const std::size_t p = b < m_span.size() ? m_span[b].first : endText;
            return {p, p};
        }
        const std::size_t s = b < m_span.size() ? m_span[b].first : endText;
        const std::size_t t = e - 1 < m_span.size() ? m_span[e - 1].second : endText;
        return {s, std::max(s, t)};
    }

private:
    void emit(std::size_t from, std::size_t n, std::string_view chars)
    {
        const std::size_t s = m_text.size();
        m_text += chars;
        for (std::size_t k = 0; k < n; ++k)
            m_span.emplace_back(s, m_text.size());
        m_resolved = from + n;
    }
    void resolve()
    {
        static const std::string_view kReplacement = "\xEF\xBF\xBD";
        while (m_resolved < m_raw.size()) {
            const std::size_t i = m_resolved;
            const Utf8Step st = decodeUtf8(m_raw, i); // base/utf8.h: maximal subpart -> one U+FFFD
            if (st.status == Utf8Status::Truncated)
                return; // unfinished: wait for more bytes
            if (st.status == Utf8Status::Invalid)
                emit(i, st.length, kReplacement);
            else
                emit(i, st.length, std::string_view(m_raw).substr(i, st.length));
        }
    }

    std::string m_raw, m_text;
    std::vector<std::pair<std::size_t, std::size_t>> m_span; // per resolved raw byte
    std::size_t m_resolved = 0;
};

} // namespace

ScoredText TorchLanguageModel::generate(std::string_view prompt, const GenerationOptions& opts,
                                        const TokenCallback& onToken, const CancelFlag* cancel) const
{
    prepareThread();
    c10::InferenceMode guard;
    const Encoding enc = m_tok->encode(prompt, false);
    std::vector<int32_t> ids;
    std::size_t prefix = 0;
    if (auto bos = startWithBos()) {
        ids.push_back(*bos);
        prefix = 1;
    } else if (enc.ids.empty()) {
        // Nothing to condition on: start from BOS or EOS (GPT-2's <|endoftext|> separates documents).
        if (auto b = m_tok->bosId())
            ids.push_back(*b);
        else if (!m_eos.empty())
            ids.push_back(m_eos.front());
        else
            throw InputError("the prompt is empty and the tokenizer has no BOS/EOS token to start from");
        prefix = 1;
    }
    ids.insert(ids.end(), enc.ids.begin(), enc.ids.end());

    ScoredText s;
    s.model = m_info.name;
    s.text = std::string(prompt);
    const std::size_t base = s.text.size();
    Utf8Assembler out;
    std::size_t streamed = 0; // bytes of out.text() already streamed
    std::vector<int32_t> generated;
    std::vector<std::pair<std::size_t, std::size_t>> rawSpans; // bytes each generated token contributes
    std::vector<Pred> genPreds;
    Preds promptPreds;
    s.stop = run(ids, opts, std::max(0, opts.topAlternatives), cancel, &promptPreds, [&](const Step& st) {
        if (opts.stopAtEos && isEos(st.id))
            return;
        generated.push_back(st.id);
        const std::size_t b = out.rawSize();
        out.add(m_tok->idToToken(st.id));
        rawSpans.emplace_back(b, out.rawSize());
        genPreds.push_back(st.pred);
        if (onToken) {
            StreamedToken tok;
            tok.id = st.id;
            tok.piece = out.text().substr(streamed);
            streamed = out.text().size();
            tok.ntp = st.pred.ntp;
            tok.index = static_cast<int>(generated.size()) - 1;
            onToken(tok);
        }
    });
    appendPromptTokens(s, enc, promptPreds, prefix);
    s.promptBytes = base;
    s.promptTokens = s.tokens.size();

    // Bytes of a character left unfinished when generation stopped are dropped (no token completes them).
    std::string completion = out.text();
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (const auto& [b, e] : rawSpans)
        spans.push_back(out.span(b, e));
    // Cross-check with the tokenizer's decoder in context (e.g. SentencePiece's leading-space rule); where
    // they differ, the decoded text wins and spans come from decoding token by token.
    const std::string decodedPrompt = m_tok->decode(ids);
    std::vector<int32_t> all = ids;
    all.insert(all.end(), generated.begin(), generated.end());
    const std::string decodedAll = m_tok->decode(all);
    if (decodedAll.compare(0, decodedPrompt.size(), decodedPrompt) == 0) {
        const std::string viaDecode = decodedAll.substr(decodedPrompt.size());
        if (viaDecode != completion && viaDecode != completion + "\xEF\xBF\xBD" && !findInvalidUtf8(viaDecode))
            respanByDecoding(ids, generated, spans, completion);
    }
    for (std::size_t j = 0; j < generated.size(); ++j) {
        ScoredToken t;
        t.id = generated[j];
        t.start = base + std::min(spans[j].first, completion.size());
        t.end = base + std::min(spans[j].second, completion.size());
        t.ntp = genPreds[j].ntp;
        t.uncertainty = genPreds[j].uncertainty;
        t.generated = true;
        t.top = alternatives(genPreds[j]);
        s.tokens.push_back(std::move(t));
    }
    s.text += completion;
    return s;
}

std::vector<int32_t> TorchLanguageModel::generateIds(const std::vector<int32_t>& promptIds,
                                                     const GenerationOptions& opts, const CancelFlag* cancel) const
{
    prepareThread();
    c10::InferenceMode guard;
    if (promptIds.empty())
        throw InputError("generateIds needs at least one prompt id");
    std::vector<int32_t> out;
    run(promptIds, opts, 0, cancel, nullptr, [&](const Step& st) { out.push_back(st.id); });
    return out;
}

// Spans of generated tokens from incremental decoding in context (fallback for tokenizers whose
// per-token text does not concatenate to the decoded text).
void TorchLanguageModel::respanByDecoding(const std::vector<int32_t>& ids, const std::vector<int32_t>& generated,
                                          std::vector<std::pair<std::size_t, std::size_t>>& spans,
                                          std::string& completion) const
{
    const std::string decodedPrompt = m_tok->decode(ids);
    std::vector<int32_t> all = ids;
    std::size_t prev = 0;
    std::string text;
    for (std::size_t j = 0; j < generated.size(); ++j) {
        all.push_back(generated[j]);
        std::string d = m_tok->decode(all);
        d = d.size() >= decodedPrompt.size() ? d.substr(decodedPrompt.size()) : std::string();
        // A trailing U+FFFD may stand for an unfinished character: not stable yet.
        while (d.size() >= 3 && d.compare(d.size() - 3, 3, "\xEF\xBF\xBD") == 0)
            d.resize(d.size() - 3);
        const std::size_t cur = std::max(prev, d.size());
        spans[j] = {prev, cur};
        prev = cur;
        text = d;
    }
    completion = text.substr(0, std::min(prev, text.size()));
}

// Prefill + token-by-token generation. `onStep` sees every chosen id (EOS included). Prompt predictions
// (teacher-forced) go to *promptPreds when asked for.
// Returns why generation stopped.
StopReason TorchLanguageModel::run(const std::vector<int32_t>& prompt, const GenerationOptions& opts, int topAlt,
                                   const CancelFlag* cancel, Preds* promptPreds,
                                   const std::function<void(const Step&)>& onStep) const
{
    const int64_t C = m_dec->spec().context;
    const auto L = static_cast<int64_t>(prompt.size());
    // A prompt that fills the context: condition on its last half context (its own NtPs come from windows).
    const int64_t condStart = L > C - 1 ? L - C / 2 : 0;
    const int64_t Lc = L - condStart;
    const int64_t maxNew = std::max(0, opts.maxNewTokens);
    const int64_t capacity = std::min(C, Lc + std::max<int64_t>(maxNew, 1));
    std::vector<int32_t> seq(prompt.begin() + condStart, prompt.end());

    KvCache cache;
    if (opts.useCache)
        cache = m_dec->makeCache(1, capacity);
    at::Tensor h = m_dec->hidden(idTensor({seq}, seq.size()), {}, opts.useCache ? &cache : nullptr);
    if (promptPreds) {
        if (condStart == 0) {
            *promptPreds = Preds(prompt.size());
            if (L > 1) {
                std::vector<int32_t> targets(prompt.begin() + 1, prompt.end());
                auto p = predsFromHidden(h[0].narrow(0, 0, L - 1), targets, topAlt);
                for (int64_t i = 1; i < L; ++i)
                    (*promptPreds)[static_cast<std::size_t>(i)] = std::move(p[static_cast<std::size_t>(i - 1)]);
            }
        } else {
            *promptPreds = predict({prompt}, topAlt).front();
        }
    }
    std::mt19937_64 rng(opts.seed);
    for (int64_t i = 0; i < maxNew; ++i) {
        if (cancel && cancel->load())
            return StopReason::Cancelled;
        const at::Tensor last = m_dec->logits(h[0][h.size(1) - 1]); // [V] float32
        const at::Tensor lc = last.to(at::kCPU).contiguous();
        const float* lg = lc.data_ptr<float>();
        const std::size_t V = static_cast<std::size_t>(lc.numel());
        int32_t id = 0;
        if (opts.greedy || opts.temperature <= 0) {
            id = static_cast<int32_t>(std::max_element(lg, lg + V) - lg); // first maximum, as torch.argmax
        } else {
            id = sample(std::vector<float>(lg, lg + V), opts, rng);
        }
        Step st;
        st.id = id;
        // NtP, top-k and uncertainty of the chosen id from this step's logits (the head's plain path, one row).
        st.pred = chunkedHeadPreds(last.view({1, -1}), {id}, last.size(0), topAlt, [](const at::Tensor& r) {
                      return r;
                  }).front();
        onStep(st);
        if (opts.stopAtEos && isEos(id))
            return StopReason::Eos;
        if (i + 1 == maxNew)
            break;
        if (static_cast<int64_t>(seq.size()) + 1 > capacity)
            return StopReason::Context;
        seq.push_back(id);
        if (opts.useCache && m_dec->ropeChangesAt(static_cast<int64_t>(seq.size()))) {
            cache.length = 0; // longrope switches to its long factors: every position rotates anew
            h = m_dec->hidden(idTensor({seq}, seq.size()), {}, &cache);
        } else if (opts.useCache)
            h = m_dec->hidden(idTensor({{id}}, 1), {}, &cache);
        else
            h = m_dec->hidden(idTensor({seq}, seq.size()), {}, nullptr);
    }
    return StopReason::Length;
}

} // namespace ascviz::model
