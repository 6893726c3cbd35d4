// Reads the state dict of a pytorch_model.bin written by torch.save (zip format, pickle protocol 2): the
// pickle (data.pkl) is parsed torch-free by state_dict_pickle.h; this reads the zip and makes the tensors,
// strided views of the storages in data/<key>. Tensors that share a storage (tied weights) share it here too.
#pragma once
#include <ATen/ATen.h>

#include <filesystem>
#include <map>
#include <string>

namespace ascviz::model {

// Throws ModelError naming the file for a malformed or unsupported pickle.
std::map<std::string, at::Tensor> loadTorchStateDict(const std::filesystem::path& file);

} // namespace ascviz::model
