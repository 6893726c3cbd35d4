// The pickle of a state dict written by torch.save (data.pkl inside its zip, protocol 2), parsed without
// torch: which names hold which strided views of which storages. torch_pickle.cpp reads the zip and turns
// this into tensors; the fuzz target (tests/fuzz/fuzz_pickle.cpp) feeds it arbitrary bytes.
//
// torch's own C++ unpickler turns collections.OrderedDict (what a state dict is) into None, so this is a
// small unpickler for exactly what torch.save writes for a state dict: nested OrderedDicts/dicts of tensors
// rebuilt with torch._utils._rebuild_tensor_v2 from persistent storages ('storage', torch.XStorage, key,
// location, numel). Tensors that share a storage key (tied weights) share the storage.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz::model {

struct PickledTensor {
    std::string storageKey;  // the zip record data/<storageKey>
    std::string storageType; // "torch.FloatStorage", ... (storageElementSize() knows it)
    int64_t storageOffset = 0;
    std::vector<int64_t> sizes, strides; // as many strides as sizes, none negative
};

// Parses a state-dict pickle; `file` names the source in errors. Throws ModelError naming the file for a
// malformed or unsupported pickle (never crashes, whatever the bytes).
std::map<std::string, PickledTensor> parseStateDictPickle(std::string_view pickle, const std::string& file);

// Bytes per element of a storage type ("torch.FloatStorage" → 4); 0 when unsupported.
std::size_t storageElementSize(const std::string& storageType);

// Throws ModelError unless every element of `t` lies inside a storage of `storageElements` elements.
void checkTensorInStorage(const PickledTensor& t, uint64_t storageElements, const std::string& name,
                          const std::string& file);

} // namespace ascviz::model
