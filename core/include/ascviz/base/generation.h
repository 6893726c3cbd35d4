// The generation settings a user chooses (length, decoding, sampling): what a session file records and what
// the model's GenerationOptions (model/model.h) extend with the runtime's own switches. Plain data, no torch.
#pragma once
#include <cstdint>

namespace ascviz {

struct GenerationSettings {
    int maxNewTokens = 64;
    bool greedy = true;
    double temperature = 1.0;
    double topP = 1.0;
    int topK = 0; // 0 = off
    uint64_t seed = 0;
};

} // namespace ascviz
