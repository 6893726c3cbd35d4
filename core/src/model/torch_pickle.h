// Reads the state dict of a pytorch_model.bin written by torch.save (zip format, pickle protocol 2).
// torch's own C++ unpickler turns collections.OrderedDict (what a state dict is) into None, so this is a
// small unpickler for exactly what torch.save writes for a state dict: nested OrderedDicts/dicts of tensors
// rebuilt with torch._utils._rebuild_tensor_v2 from persistent storages in data/<key>. Tensors that share a
// storage (tied weights) share it here too.
#pragma once
#include <ATen/ATen.h>

#include <filesystem>
#include <map>
#include <string>

namespace ascviz::model {

// Throws ModelError naming the file for a malformed or unsupported pickle.
std::map<std::string, at::Tensor> loadTorchStateDict(const std::filesystem::path& file);

} // namespace ascviz::model
