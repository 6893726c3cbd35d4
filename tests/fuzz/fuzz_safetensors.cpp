// The safetensors header (8-byte length, JSON, data) and the shard index (model.safetensors.index.json),
// core/src/model/formats/safetensors.h: the same bytes go to both parsers.
#include "formats/safetensors.h"
#include "fuzz_check.h"

#include <algorithm>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    using namespace ascviz::model;
    fuzz::expectingErrors([&] {
        const auto tensors = parseSafetensors(data, size, "fuzz.safetensors");
        // The tensors tile the data section, as the safetensors library requires: no overlap, no gap.
        std::vector<std::pair<const uint8_t*, std::size_t>> spans;
        for (const auto& [name, e] : tensors)
            spans.emplace_back(static_cast<const uint8_t*>(e.data), e.bytes);
        std::sort(spans.begin(), spans.end());
        for (std::size_t i = 1; i < spans.size(); ++i)
            FUZZ_CHECK(spans[i].first == spans[i - 1].first + spans[i - 1].second);
        if (!spans.empty())
            FUZZ_CHECK(spans.back().first + spans.back().second == data + size);
        for (const auto& [name, e] : tensors) {
            // Every tensor lies inside the buffer and its bytes are exactly numel · element size.
            const auto* p = static_cast<const uint8_t*>(e.data);
            FUZZ_CHECK(p >= data + 8 && p + e.bytes <= data + size);
            fuzz::uint128 needed = safetensorsElementSize(e.dtype); // saturates at 2^64 (beyond any buffer)
            bool zero = false;
            for (auto d : e.shape) {
                FUZZ_CHECK(d >= 0);
                zero |= d == 0;
                needed = std::min<fuzz::uint128>(needed * static_cast<uint64_t>(d), ~uint64_t(0));
            }
            FUZZ_CHECK((zero ? 0 : needed) == e.bytes);
        }
    });
    fuzz::expectingErrors([&] {
        const auto index = parseShardIndex(fuzz::bytes(data, size), "fuzz.index.json");
        for (const auto& [tensor, file] : index.weightMap)
            FUZZ_CHECK(index.files.count(file) == 1 && !file.empty() && file.front() != '/');
    });
    return 0;
}
