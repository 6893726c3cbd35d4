// The sampler of generation: temperature, top-k and top-p over one row of logits, then one multinomial draw
// from a seeded generator (reproducible across standard libraries).
#include "language_model_impl.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ascviz::model {
namespace {

// Uniform double in [0, 1) from 53 random bits: the same on every standard library.
double uniform01(std::mt19937_64& rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

} // namespace

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

} // namespace ascviz::model
