// LanguageModel over the generic decoder: loading, teacher-forced scoring (batched, windowed), generation
// with a KV cache, and the mapping between ids and UTF-8 byte spans of the text.
#include "ascviz/model/model.h"

#include "arch.h"
#include "decoder.h"
#include "weights.h"

#include "ascviz/base/error.h"
#include "ascviz/base/hfcache.h"
#include "ascviz/base/utf8.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace ascviz {
namespace model {
namespace {

struct Pred {
    double ntp = 0.0;
    std::vector<std::pair<int32_t, double>> top; // (id, probability), most likely first
};
using Preds = std::vector<std::optional<Pred>>; // one per position of a sequence; [0] is always empty

struct Step {
    int32_t id = 0;
    Pred pred; // of the chosen id, under the unmodified distribution
};

std::string dtypeName(at::ScalarType t)
{
    switch (t) {
    case at::kFloat: return "float32";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    default: return std::string(c10::toString(t));
    }
}

std::string gib(uint64_t bytes)
{
    std::ostringstream s;
    s.precision(2);
    s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return s.str();
}

uint64_t availableCpuMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    return 0; // unknown: no check
}

// Turns the bytes generated tokens contribute into text the way Hugging Face's decoders do (invalid UTF-8
// becomes U+FFFD, one per maximal invalid subpart), incrementally: bytes that may still become a character
// wait for the next token. Each byte maps to the span of the character it ended up in, so a token that holds
// part of a character gets that whole character's span (as the tokenizer's offsets do for prompt tokens).
class Utf8Assembler {
public:
    void add(const std::string& bytes) { m_raw += bytes; resolve(); }
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
    static bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }
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
            const auto c = static_cast<unsigned char>(m_raw[i]);
            std::size_t need = 0;
            unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
            if (c < 0x80) need = 1;
            else if (c >= 0xC2 && c <= 0xDF) need = 2;
            else if (c >= 0xE0 && c <= 0xEF) { need = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
            else if (c >= 0xF0 && c <= 0xF4) { need = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
            if (need == 0) { emit(i, 1, kReplacement); continue; }
            if (need == 1) { emit(i, 1, m_raw.substr(i, 1)); continue; }
            std::size_t k = 1;
            bool bad = false;
            for (; k < need && i + k < m_raw.size(); ++k) {
                const auto d = static_cast<unsigned char>(m_raw[i + k]);
                if (!cont(d) || (k == 1 && (d < lo || d > hi))) { bad = true; break; }
            }
            if (bad) { emit(i, k, kReplacement); continue; } // lead + valid continuations -> one U+FFFD
            if (k < need) return;                              // unfinished: wait for more bytes
            emit(i, need, m_raw.substr(i, need));
        }
    }

    std::string m_raw, m_text;
    std::vector<std::pair<std::size_t, std::size_t>> m_span; // per resolved raw byte
    std::size_t m_resolved = 0;
};

// Uniform double in [0, 1) from 53 random bits: the same on every standard library.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Hugging Face's warper order: temperature, top-k, top-p; then one multinomial draw.
int32_t sample(const std::vector<float>& logits, const GenerationOptions& o, std::mt19937_64& rng)
{
    const std::size_t V = logits.size();
    std::vector<std::pair<double, int32_t>> cand(V);
    const double t = o.temperature > 0 ? o.temperature : 1.0;
    for (std::size_t i = 0; i < V; ++i)
        cand[i] = {static_cast<double>(logits[i]) / t, static_cast<int32_t>(i)};
    std::sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::size_t keep = V;
    if (o.topK > 0 && static_cast<std::size_t>(o.topK) < V) {
        keep = static_cast<std::size_t>(o.topK);
        while (keep < V && cand[keep].first == cand[keep - 1].first) // ties with the k-th stay, as HF
            ++keep;
    }
    const double mx = cand[0].first;
    std::vector<double> p(keep);
    double sum = 0;
    for (std::size_t i = 0; i < keep; ++i)
        sum += (p[i] = std::exp(cand[i].first - mx));
    for (auto& x : p)
        x /= sum;
    if (o.topP < 1.0) {
        double cum = 0;
        std::size_t k = 0;
        while (k < keep) {
            cum += p[k++];
            if (cum >= o.topP)
                break;
        }
        keep = std::max<std::size_t>(k, 1);
        sum = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep), 0.0);
    } else {
        sum = 1.0;
    }
    const double u = uniform01(rng) * sum;
    double acc = 0;
    for (std::size_t i = 0; i < keep; ++i) {
        acc += p[i];
        if (u < acc)
            return cand[i].second;
    }
    return cand[keep - 1].second;
}

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

    ScoredText score(std::string_view text, const ScoreOptions& opts) const override
    {
        return scoreBatch({std::string(text)}, opts).front();
    }

    std::vector<ScoredText> scoreBatch(const std::vector<std::string>& texts, const ScoreOptions& opts) const override
    {
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
        const auto preds = predict(seqs, std::max(0, opts.topK));
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

    ScoredText generate(std::string_view prompt, const GenerationOptions& opts, const TokenCallback& onToken,
                        const CancelFlag* cancel) const override
    {
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
            t.generated = true;
            t.top = alternatives(genPreds[j]);
            s.tokens.push_back(std::move(t));
        }
        s.text += completion;
        return s;
    }

    std::vector<float> logits(const std::vector<int32_t>& ids) const override
    {
        c10::InferenceMode guard;
        if (ids.empty())
            return {};
        const at::Tensor h = m_dec->hidden(idTensor({ids}, ids.size()), {}, nullptr);
        const at::Tensor l = m_dec->logits(h[0]).to(at::kCPU).contiguous();
        return std::vector<float>(l.data_ptr<float>(), l.data_ptr<float>() + l.numel());
    }

    std::vector<std::vector<std::optional<double>>> scoreIds(const std::vector<std::vector<int32_t>>& seqs) const override
    {
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

    std::vector<int32_t> generateIds(const std::vector<int32_t>& promptIds, const GenerationOptions& opts,
                                     const CancelFlag* cancel) const override
    {
        c10::InferenceMode guard;
        if (promptIds.empty())
            throw InputError("generateIds needs at least one prompt id");
        std::vector<int32_t> out;
        run(promptIds, opts, 0, cancel, nullptr, [&](const Step& st) { out.push_back(st.id); });
        return out;
    }

private:
    std::optional<int32_t> startWithBos() const
    {
        if (m_tok->addsBos())
            return m_tok->bosId();
        return std::nullopt;
    }

    bool isEos(int32_t id) const { return std::find(m_eos.begin(), m_eos.end(), id) != m_eos.end(); }

    std::vector<Alternative> alternatives(const Pred& p) const
    {
        std::vector<Alternative> v;
        for (const auto& [id, prob] : p.top)
            v.push_back({id, m_tok->idToToken(id), prob});
        return v;
    }

    void appendPromptTokens(ScoredText& s, const Encoding& enc, const Preds& preds, std::size_t prefix) const
    {
        for (std::size_t j = 0; j < enc.ids.size(); ++j) {
            ScoredToken t;
            t.id = enc.ids[j];
            t.start = enc.offsets[j].first;
            t.end = enc.offsets[j].second;
            const std::size_t pos = j + prefix;
            if (pos < preds.size() && preds[pos]) {
                t.ntp = preds[pos]->ntp;
                t.top = alternatives(*preds[pos]);
            }
            s.tokens.push_back(std::move(t));
        }
    }

    // Spans of generated tokens from incremental decoding in context (fallback for tokenizers whose
    // per-token text does not concatenate to the decoded text).
    void respanByDecoding(const std::vector<int32_t>& ids, const std::vector<int32_t>& generated,
                          std::vector<std::pair<std::size_t, std::size_t>>& spans, std::string& completion) const
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

    at::Tensor idTensor(const std::vector<std::vector<int32_t>>& rows, std::size_t width) const
    {
        at::Tensor t = at::zeros({static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)}, at::kLong);
        auto a = t.accessor<int64_t, 2>();
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t j = 0; j < rows[i].size(); ++j) {
                const int32_t id = rows[i][j];
                if (id < 0 || id >= m_dec->spec().vocab)
                    throw InputError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                                     std::to_string(m_dec->spec().vocab));
                a[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = id;
            }
        return t.to(m_dec->device());
    }

    // NtP (+ top-k) of `targets` from hidden rows [N, hidden], in row chunks so that [chunk, vocab] stays small.
    std::vector<Pred> predsFromHidden(const at::Tensor& rows, const std::vector<int32_t>& targets, int topK) const
    {
        std::vector<Pred> out(targets.size());
        const int64_t N = rows.size(0);
        const int64_t V = m_dec->spec().vocab;
        const int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 25) / V);
        const int64_t k = std::min<int64_t>(topK, V);
        for (int64_t s = 0; s < N; s += chunk) {
            const int64_t n = std::min(chunk, N - s);
            const at::Tensor lp = at::log_softmax(m_dec->logits(rows.narrow(0, s, n)), -1); // float32
            std::vector<int64_t> t(targets.begin() + s, targets.begin() + s + n);
            const at::Tensor tgt = at::tensor(t, at::kLong).view({n, 1}).to(lp.device());
            const at::Tensor picked = lp.gather(1, tgt).exp().to(at::kCPU).contiguous();
            const float* pp = picked.data_ptr<float>();
            at::Tensor topV, topI;
            if (k > 0) {
                auto [v, idx] = at::topk(lp, k, -1);
                topV = v.exp().to(at::kCPU).contiguous();
                topI = idx.to(at::kCPU).contiguous();
            }
            for (int64_t i = 0; i < n; ++i) {
                Pred& p = out[static_cast<std::size_t>(s + i)];
                p.ntp = pp[i];
                for (int64_t j = 0; j < k; ++j)
                    p.top.emplace_back(static_cast<int32_t>(topI.data_ptr<int64_t>()[i * k + j]),
                                       static_cast<double>(topV.data_ptr<float>()[i * k + j]));
            }
        }
        return out;
    }

    // Teacher-forced predictions of every position of every sequence. Sequences longer than the context are
    // cut into windows of `context` tokens overlapping by half a context; each window predicts only the
    // positions no earlier window predicted, so every such position has at least half a context of history.
    // All windows of all sequences are batched together (right padding, sorted by length).
    std::vector<Preds> predict(const std::vector<std::vector<int32_t>>& seqs, int topK) const
    {
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
            if (n < 2)
                continue;
            int64_t start = 0, done = 1;
            while (done < n) {
                const int64_t end = std::min(start + C, n);
                segs.push_back({i, start, end, done});
                done = end;
                start += std::max<int64_t>(1, C / 2);
            }
        }
        std::sort(segs.begin(), segs.end(), [](const Segment& a, const Segment& b) {
            return (a.end - a.start) > (b.end - b.start);
        });
        const int64_t heads = m_dec->spec().heads;
        std::size_t i = 0;
        while (i < segs.size()) {
            const int64_t T = segs[i].end - segs[i].start;
            std::size_t j = i + 1;
            // Up to 32 rows, 8192 tokens and ~128M attention scores per batch.
            while (j < segs.size() && j - i < 32 && static_cast<int64_t>(j - i + 1) * T <= 8192 &&
                   static_cast<int64_t>(j - i + 1) * T * T * heads <= (int64_t(1) << 27))
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
            const at::Tensor h = m_dec->hidden(idTensor(rows, static_cast<std::size_t>(T)), valid, nullptr);
            const at::Tensor flat = h.reshape({-1, h.size(-1)});
            std::vector<int64_t> rowIndex;
            std::vector<int32_t> targets;
            for (std::size_t k = i; k < j; ++k) {
                const auto& sg = segs[k];
                for (int64_t p = sg.from; p < sg.end; ++p) {
                    rowIndex.push_back(static_cast<int64_t>(k - i) * T + (p - 1 - sg.start));
                    targets.push_back(seqs[sg.seq][static_cast<std::size_t>(p)]);
                }
            }
            const at::Tensor idx = at::tensor(rowIndex, at::kLong).to(m_dec->device());
            auto preds = predsFromHidden(flat.index_select(0, idx), targets, topK);
            std::size_t q = 0;
            for (std::size_t k = i; k < j; ++k) {
                const auto& sg = segs[k];
                for (int64_t p = sg.from; p < sg.end; ++p)
                    out[sg.seq][static_cast<std::size_t>(p)] = std::move(preds[q++]);
            }
            i = j;
        }
        return out;
    }

    // Prefill + token-by-token generation. `onStep` sees every chosen id (EOS included). Prompt predictions
    // (teacher-forced) go to *promptPreds when asked for.
    // Returns why generation stopped.
    StopReason run(const std::vector<int32_t>& prompt, const GenerationOptions& opts, int topAlt,
                   const CancelFlag* cancel, Preds* promptPreds, const std::function<void(const Step&)>& onStep) const
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
            const at::Tensor lp = at::log_softmax(last, -1);
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
            st.pred = predFromLogProbs(lp, id, topAlt);
            onStep(st);
            if (opts.stopAtEos && isEos(id))
                return StopReason::Eos;
            if (i + 1 == maxNew)
                break;
            if (static_cast<int64_t>(seq.size()) + 1 > capacity)
                return StopReason::Context;
            seq.push_back(id);
            if (opts.useCache)
                h = m_dec->hidden(idTensor({{id}}, 1), {}, &cache);
            else
                h = m_dec->hidden(idTensor({seq}, seq.size()), {}, nullptr);
        }
        return StopReason::Length;
    }

    static Pred predFromLogProbs(const at::Tensor& lp, int32_t id, int k)
    {
        Pred p;
        p.ntp = std::exp(static_cast<double>(lp[id].item<float>()));
        if (k > 0) {
            auto [v, idx] = at::topk(lp, std::min<int64_t>(k, lp.size(0)));
            const at::Tensor vc = v.exp().to(at::kCPU).contiguous(), ic = idx.to(at::kCPU).contiguous();
            for (int64_t j = 0; j < vc.numel(); ++j)
                p.top.emplace_back(static_cast<int32_t>(ic.data_ptr<int64_t>()[j]),
                                   static_cast<double>(vc.data_ptr<float>()[j]));
        }
        return p;
    }

    ModelInfo m_info;
    std::shared_ptr<const Tokenizer> m_tok;
    std::unique_ptr<Decoder> m_dec;
    std::vector<int32_t> m_eos;
};

} // namespace
} // namespace model

std::unique_ptr<LanguageModel> LanguageModel::load(const fs::path& dirIn, const LoadOptions& opts)
{
    using namespace model;
    const fs::path dir = dirIn;
    std::error_code ec;
    if (!fs::exists(dir, ec))
        throw ModelError("model folder " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec))
        throw ModelError(dir.string() + " is not a folder (a Hugging Face model folder with config.json is expected)");
    const fs::path configPath = dir / "config.json";
    if (!fs::exists(configPath, ec))
        throw ModelError("no config.json in " + dir.string() + ": not a Hugging Face model folder");
    const ArchSpec spec = readArchSpec(readJsonFile(configPath), configPath.string());

    // Device and dtype.
    const bool haveCuda = torch::cuda::is_available();
    bool useCuda = false;
    if (opts.device == "cuda") {
        if (!haveCuda)
            throw ModelError("--device cuda was asked for but CUDA is not available (libtorch " +
                             std::string(TORCH_VERSION) + "); use --device cpu");
        useCuda = true;
    } else if (opts.device == "auto") {
        useCuda = haveCuda;
    } else if (opts.device != "cpu") {
        throw ModelError("unknown device \"" + opts.device + "\" (auto, cpu or cuda)");
    }
    const at::Device device = useCuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    at::ScalarType dtype;
    if (opts.dtype == "auto") // float32 everywhere (method.md §1); half precision only when asked for
        dtype = at::kFloat;
    else if (opts.dtype == "float32")
        dtype = at::kFloat;
    else if (opts.dtype == "float16")
        dtype = at::kHalf;
    else if (opts.dtype == "bfloat16")
        dtype = at::kBFloat16;
    else
        throw ModelError("unknown dtype \"" + opts.dtype + "\" (auto, float32, float16 or bfloat16)");
    if (!useCuda) {
        at::set_num_threads(opts.threads > 0 ? opts.threads
                                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
        if (dtype != at::kFloat) { // some CPU builds lack half-precision matrix products
            try {
                c10::InferenceMode guard;
                const auto t = at::ones({2, 2}, at::TensorOptions().dtype(dtype));
                (void)at::linear(t, t);
            } catch (const c10::Error&) {
                throw ModelError(dtypeName(dtype) + " is not supported on the CPU by this libtorch (" +
                                 std::string(TORCH_VERSION) + "); use --dtype float32 or bfloat16");
            }
        }
    }

    c10::InferenceMode guard;
    WeightStore store(dir, dtype, device);
    const uint64_t need = store.computeBytes();
    const uint64_t limit = opts.maxWeightBytes ? opts.maxWeightBytes : (useCuda ? 0 : availableCpuMemory());
    if (limit && need > limit)
        throw ModelError("the checkpoint in " + dir.string() + " needs " + gib(need) + " for its weights in " +
                         dtypeName(dtype) + " but only " + gib(limit) + " are available on " +
                         (useCuda ? "the GPU" : "the CPU") +
                         (dtype == at::kFloat ? "; try --dtype bfloat16 or a smaller model" : "; try a smaller model"));
    if (opts.progress) {
        const double total = static_cast<double>(std::max<std::size_t>(1, 4 + 12 * static_cast<std::size_t>(spec.layers)));
        store.onTake = [&](std::size_t n) { opts.progress(std::min(0.99, static_cast<double>(n) / total)); };
    }
    DecoderWeights weights;
    try {
        weights = loadDecoderWeights(store, spec);
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        if (what.find("out of memory") != std::string::npos)
            throw ModelError("out of memory on " + std::string(useCuda ? "the GPU" : "the CPU") + " while loading " +
                             dir.string() + " in " + dtypeName(dtype) + "; try a smaller dtype or model");
        throw ModelError("cannot load the weights of " + dir.string() + ": " + what);
    }
    auto decoder = std::make_unique<Decoder>(spec, std::move(weights), device, dtype);

    ModelInfo info;
    info.dir = fs::absolute(dir).lexically_normal();
    info.name = modelNameFromDir(info.dir);
    info.architecture = spec.modelType;
    info.device = useCuda ? "cuda:0" : "cpu";
    info.dtype = dtypeName(dtype);
    info.parameters = decoder->parameterCount();
    info.contextLength = spec.context;
    info.vocabSize = spec.vocab;
    info.layers = static_cast<int>(spec.layers);
    info.hidden = static_cast<int>(spec.hidden);

    auto tokenizer = Tokenizer::fromModelDir(dir);
    if (opts.progress)
        opts.progress(1.0);
    return std::make_unique<TorchLanguageModel>(std::move(info), std::move(tokenizer), std::move(decoder));
}

} // namespace ascviz
