// The vocabulary head's predictions (NtP of a target and the top-k) from final hidden rows, without writing a
// [tokens × vocab] tensor (docs/performance.md, "The vocabulary head"): for a block of rows the vocabulary is walked
// in column blocks; each block's logits (one small tile that stays in cache) update per row a running maximum and
// sum of exponentials (online log-sum-exp), the target's logit and a running top-k. The old path (log_softmax over
// [chunk, vocab], gather, topk) stays the default, the GPU's, and the tests' reference. The vocabulary is split
// into one contiguous part per thread; `columns` is called inside that parallel region (it must be thread-safe).
#pragma once
#include "ascviz/base/scored.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ascviz::model {

struct HeadPred {
    double ntp = 0.0;
    std::vector<std::pair<int32_t, double>> top; // (id, probability), most likely first; equal ones by id
    TokenUncertainty uncertainty;                // entropy, top-K entropy, p1, margin, rank (scored.h)
};

// The top-K entropy (renormalised), p1 and margin of a row from its K most likely log-probabilities, most likely
// first (K ≤ kUncertaintyTopK; fewer when the vocabulary is smaller). The one formula of both head paths.
void setTopUncertainty(TokenUncertainty& u, const std::vector<double>& topLogProbs);

// Float32 logits [rows, cols] of hidden rows x [rows, hidden] for the vocabulary columns [col, col + cols). The one
// function the fused head multiplies through (Decoder::logitsColumns), so that another weight format can replace it.
using HeadColumnLogits = std::function<at::Tensor(const at::Tensor& x, int64_t col, int64_t cols)>;

struct HeadBlocks {
    int64_t rows = 512;  // hidden rows per pass over the head's weights
    int64_t cols = 4096; // vocabulary columns per tile (the best of those measured; docs/performance.md)
};

// The fused head: x [N, hidden] (any device-independent CPU tensor), targets [N] in [0, vocab), topK ≥ 0.
std::vector<HeadPred> fusedHeadPreds(const at::Tensor& x, const std::vector<int32_t>& targets, int64_t vocab, int topK,
                                     const HeadColumnLogits& columns, HeadBlocks blocks = {});

// Today's reference path: log_softmax of `full` logits ([n, vocab] float32 of n rows) in row chunks of ~16 MiB,
// then gather and at::topk (whose order among equal values is LibTorch's).
std::vector<HeadPred> chunkedHeadPreds(const at::Tensor& x, const std::vector<int32_t>& targets, int64_t vocab,
                                       int topK, const std::function<at::Tensor(const at::Tensor&)>& full);

// Whether scoring on the CPU takes the fused head: opt-in, ASCVIZ_CPU_HEAD=fused (and ASCVIZ_CPU_FUSE not 0). Not the
// default: on the 2-core AVX2 test machine its column-block products measured slower than the log_softmax path's
// one product over the whole vocabulary (docs/performance.md, "The vocabulary head").
bool cpuFusedHeadEnabled();

} // namespace ascviz::model
