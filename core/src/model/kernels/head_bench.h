// The vocabulary head's microbenchmark (fused_head.h), torch-free for ascviz-bench-model --work head.
#pragma once
#include <cstdint>

namespace ascviz::model {

// Median seconds of the vocabulary head's predictions (NtP + top-k) of `rows` random hidden rows through a random
// [vocab, hidden] head on the CPU, `repeats` times after one untimed call (packing): the fused head or the
// log_softmax reference (chunkedHeadPreds).
double headPredsSeconds(int64_t rows, int64_t hidden, int64_t vocab, int topK, bool fused, int repeats);

} // namespace ascviz::model
