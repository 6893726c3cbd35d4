// The model's attention (observer.h, kAttention) handed to the attention room's HeadScorer layer by layer: shared
// by analyze heads and ablate --relation R --top N.
#pragma once
#include "ascviz/attention/headscore.h"
#include "ascviz/model/observer.h"

namespace ascviz::cli {

class AttentionToScorer : public IntermediateObserver {
public:
    explicit AttentionToScorer(HeadScorer& s) : m_scorer(s) {}
    bool wants(std::string_view name, int) const override { return name == intermediate::kAttention; }
    void observe(const Intermediate& v) override
    {
        ++layersSeen;
        m_scorer.observeAttention(v.layer, v.position, v.shape, v.data);
    }
    int layersSeen = 0;

private:
    HeadScorer& m_scorer;
};

} // namespace ascviz::cli
