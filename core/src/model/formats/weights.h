// The tensors of a Hugging Face checkpoint folder, by name: model.safetensors, sharded safetensors with
// model.safetensors.index.json, or pytorch_model.bin (torch's zip pickle). Safetensors files are memory
// mapped (privately: copy on write). On the CPU a floating tensor stored in the compute dtype (a float32 checkpoint
// computed in float32) is not copied: the tensor is the mapping itself and keeps its file mapped while it lives; an
// in-place write copies the pages it writes, never the file. With keepCheckpointDtype, the 16-bit floating matrices
// (bfloat16, float16; two or more dimensions) are taken the same way. Other tensors are copied out (converted to the
// compute dtype and device) when asked for. ASCVIZ_WEIGHTS_COPY=1 copies every tensor (benchmarks, tests).
#pragma once
#include "formats/safetensors.h"

#include <ATen/ATen.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ascviz::model {

// Parses a JSON file of a checkpoint folder (config.json, the shard index); ModelError when unreadable.
nlohmann::json readJsonFile(const std::filesystem::path& p);

class WeightStore {
public:
    // Throws ModelError when the folder holds no weights file or a file is corrupt.
    WeightStore(const std::filesystem::path& dir, at::ScalarType dtype, at::Device device);

    // Checkpoints saved from a bare base model have no "transformer."/"model." prefix: `name` is looked up
    // as given and then without its first component.
    bool has(const std::string& name) const;
    // The tensor, converted to the compute dtype and device. Throws ModelError naming the tensor when it is
    // missing or its shape differs from `shape`.
    at::Tensor get(const std::string& name, const std::vector<int64_t>& shape);
    std::optional<at::Tensor> getOptional(const std::string& name, const std::vector<int64_t>& shape);

    // Keep bfloat16 / float16 matrices of safetensors files in their dtype, mapped (CPU only; set before taking
    // tensors). Vectors (norms, biases) and other dtypes are still converted to the compute dtype.
    void setKeepCheckpointDtype(bool keep) { m_keepLowp = keep; }
    // The 16-bit dtype of the checkpoint's floating-point matrices when all of them are bfloat16 or all float16.
    std::optional<at::ScalarType> lowpDtype() const;
    // Bytes of the checkpoint's floating-point tensors as stored (the memory the kept-dtype mode needs).
    uint64_t storedBytes() const;
    // Drops every mapped page from the resident set (after loading: the tensors kept mapped are read again from
    // the page cache when used, so only what a computation touches is resident).
    void dropMappedPages();

    // Bytes the checkpoint's floating-point tensors take in the compute dtype (for the memory check), MXFP4
    // blocks (*_blocks, uint8) counted as the two values a byte they dequantise to.
    uint64_t computeBytes() const;
    // Which file(s) the weights came from, for messages.
    std::string description() const { return m_description; }

    // Whether t's storage is one of this store's file mappings (taken without a copy).
    bool isMapped(const at::Tensor& t) const;

    // The tensors `parts` (each [rows_i, ...], all of one dtype and trailing shape) as one [Σ rows_i, ...] tensor
    // without a copy when they were taken from one mapping and lie there one after another; nullopt otherwise.
    std::optional<at::Tensor> joinMapped(const std::vector<at::Tensor>& parts) const;

    // Called after every tensor taken, with the number taken so far.
    std::function<void(std::size_t)> onTake;

private:
    const std::string* resolve(const std::string& name) const;

    at::ScalarType m_dtype;
    at::Device m_device;
    std::string m_description;
    struct Mapped {
        const TensorEntry* entry = nullptr;
        std::shared_ptr<const SafetensorsFile> file;
    };
    // Drops the pages of the tensor taken before this one (they were copied or stay mapped, read again on use), so
    // that loading keeps about one tensor of the files resident beside what it has copied.
    void dropPrevious();

    bool m_keepLowp = false;
    bool m_mapSameDtype = true;
    std::vector<std::shared_ptr<const SafetensorsFile>> m_files;
    std::map<std::string, Mapped> m_entries; // safetensors
    Mapped m_previous;
    std::map<std::string, at::Tensor> m_pickled; // pytorch_model.bin
    std::vector<std::string> m_names;
    std::size_t m_taken = 0;
};

} // namespace ascviz::model
