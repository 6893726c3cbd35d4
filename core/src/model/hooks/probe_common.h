// Private to the model room: what the layer lens (lens.cpp) and the attribution primitives (masking.cpp) check
// and build before a forward pass of their own.
#pragma once
#include "language_model_impl.h"

#include "ascviz/base/error.h"

#include <string>
#include <vector>

namespace ascviz::model {

// The runtime model behind `m`, or ModelError when the probe cannot run on it: another implementation of
// LanguageModel, or a checkpoint without a final norm and head to apply to every layer.
inline const TorchLanguageModel& probeModel(const LanguageModel& m, const std::string& what)
{
    const auto* tm = dynamic_cast<const TorchLanguageModel*>(&m);
    if (!tm)
        throw ModelError(what + " needs a model run by AsC-Viz's own runtime (LanguageModel::load)");
    if (!tm->decoder().hasLensHead())
        throw ModelError(what + " cannot run on " + m.info().name + " (" + tm->decoder().spec().modelType +
                         "): it has no final norm and LM head that apply to the residual stream of every layer");
    return *tm;
}

inline void checkContext(const Decoder& dec, std::size_t ids, const std::string& what)
{
    if (static_cast<int64_t>(ids) > dec.spec().context)
        throw InputError(what + " needs the text within the model's context: " + std::to_string(ids) +
                         " tokens, the context holds " + std::to_string(dec.spec().context) +
                         " (shorten the text; scoring windows longer texts, the probes do not)");
}

// `ids` as an int64 tensor [N] on the decoder's device; InputError for an id outside the vocabulary.
inline at::Tensor probeIds(const Decoder& dec, const std::vector<int32_t>& ids)
{
    std::vector<int64_t> v;
    v.reserve(ids.size());
    for (const int32_t id : ids) {
        if (id < 0 || id >= dec.spec().vocab)
            throw InputError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                             std::to_string(dec.spec().vocab));
        v.push_back(id);
    }
    return at::tensor(v, at::kLong).to(dec.device());
}

} // namespace ascviz::model
