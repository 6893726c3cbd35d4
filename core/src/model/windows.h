// Private to the model room: the windows over a sequence longer than the context, shared by scoring
// (scoring.cpp) and the layer lens (lens.cpp) so that both predict every position from the same window.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ascviz::model {

// Ids [start, end) go through the model; the window predicts positions [from, end).
struct ContextWindow {
    int64_t start, end, from;
};

// Windows of `context` ids overlapping by half a context over a sequence of `n` ids; each predicts only the
// positions no earlier window predicted, so every such position has at least half a context of history. None
// for n < 2 (nothing to predict); one, [0, n) from 1, when the sequence fits.
inline std::vector<ContextWindow> contextWindows(int64_t n, int64_t context)
{
    std::vector<ContextWindow> out;
    int64_t start = 0, done = 1;
    while (done < n) {
        const int64_t end = std::min(start + context, n);
        out.push_back({start, end, done});
        done = end;
        start += std::max<int64_t>(1, context / 2);
    }
    return out;
}

} // namespace ascviz::model
