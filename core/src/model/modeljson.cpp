#include "ascviz/model/modeljson.h"

#include <cmath>
#include <utility>

namespace ascviz {

nlohmann::json scoredTokensJson(const ScoredText& s, bool withGenerated)
{
    auto arr = nlohmann::json::array();
    for (const auto& t : s.tokens) {
        nlohmann::json o = {{"id", t.id}, {"start", t.start}, {"end", t.end}};
        o["ntp"] = t.ntp ? nlohmann::json(*t.ntp) : nlohmann::json(nullptr);
        if (withGenerated)
            o["generated"] = t.generated;
        // The uncertainty of the same forward pass (issue 59, method.md §17; null where nothing predicts the token):
        // eval --scores reads it back, so that a scored or generated text's eval holds it too.
        const auto& u = t.uncertainty;
        o["entropy"] = u ? nlohmann::json(u->entropy) : nlohmann::json(nullptr);
        o["topk_entropy"] = u ? nlohmann::json(u->topkEntropy) : nlohmann::json(nullptr);
        o["p1"] = u ? nlohmann::json(u->p1) : nlohmann::json(nullptr);
        o["margin"] = u ? nlohmann::json(u->margin) : nlohmann::json(nullptr);
        o["rank"] = u ? nlohmann::json(u->rank) : nlohmann::json(nullptr);
        arr.push_back(std::move(o));
    }
    return arr;
}

nlohmann::json scoreJson(const ScoredText& s, const ModelInfo& info)
{
    const double ce = s.crossEntropy();
    nlohmann::json j;
    j["model"] = s.model;
    j["dtype"] = info.dtype;
    j["weights"] = info.weights;
    j["device"] = info.device;
    j["tokens"] = scoredTokensJson(s, false);
    j["cross_entropy"] = std::isfinite(ce) ? nlohmann::json(ce) : nlohmann::json(nullptr);
    return j;
}

nlohmann::json generationJson(const ScoredText& s, const ModelInfo& info)
{
    nlohmann::json j = scoreJson(s, info);
    j["text"] = s.text;
    j["prompt_tokens"] = s.promptTokens;
    j["prompt_bytes"] = s.promptBytes;
    j["tokens"] = scoredTokensJson(s, true);
    j["stop"] = stopReasonName(s.stop);
    return j;
}

nlohmann::json modelInfoJson(const ModelInfo& i)
{
    return nlohmann::json{{"name", i.name},
                          {"dir", i.dir.string()},
                          {"architecture", i.architecture},
                          {"device", i.device},
                          {"dtype", i.dtype},
                          {"weights", i.weights},
                          {"parameters", i.parameters},
                          {"context_length", i.contextLength},
                          {"vocab_size", i.vocabSize},
                          {"layers", i.layers},
                          {"hidden", i.hidden},
                          {"threads", i.threads},
                          {"fingerprint", i.fingerprint}};
}

} // namespace ascviz
