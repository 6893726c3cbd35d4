// The state-dict pickle of pytorch_model.bin (data.pkl), parsed torch-free
// (core/src/model/formats/state_dict_pickle.h).
#include "formats/state_dict_pickle.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    using namespace ascviz::model;
    return fuzz::expectingErrors([&] {
        const auto tensors = parseStateDictPickle(fuzz::bytes(data, size), "fuzz.pkl");
        for (const auto& [name, t] : tensors) {
            FUZZ_CHECK(t.sizes.size() == t.strides.size());
            FUZZ_CHECK(t.storageOffset >= 0);
            FUZZ_CHECK(storageElementSize(t.storageType) > 0);
            // The storage check must accept exactly the views that fit (computed here in 128 bits).
            constexpr uint64_t storage = 1u << 16;
            fuzz::uint128 last = static_cast<uint64_t>(t.storageOffset);
            bool empty = false;
            for (std::size_t d = 0; d < t.sizes.size(); ++d) {
                FUZZ_CHECK(t.sizes[d] >= 0 && t.strides[d] >= 0);
                empty |= t.sizes[d] == 0;
                last += static_cast<fuzz::uint128>(t.sizes[d] > 0 ? t.sizes[d] - 1 : 0) *
                        static_cast<uint64_t>(t.strides[d]);
            }
            bool accepted = true;
            try {
                checkTensorInStorage(t, storage, name, "fuzz.pkl");
            } catch (const ascviz::ModelError&) {
                accepted = false;
            }
            FUZZ_CHECK(accepted == (empty || last < storage));
        }
    });
}
