#include "formats/torch_pickle.h"

#include "ascviz/base/error.h"

#include "formats/state_dict_pickle.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <string_view>

namespace ascviz::model {
namespace {

at::ScalarType storageScalarType(const std::string& storageType, const std::string& file)
{
    static const std::pair<const char*, at::ScalarType> table[] = {
        {"torch.FloatStorage", at::kFloat},       {"torch.HalfStorage", at::kHalf},
        {"torch.BFloat16Storage", at::kBFloat16}, {"torch.DoubleStorage", at::kDouble},
        {"torch.LongStorage", at::kLong},         {"torch.IntStorage", at::kInt},
        {"torch.ShortStorage", at::kShort},       {"torch.CharStorage", at::kChar},
        {"torch.ByteStorage", at::kByte},         {"torch.BoolStorage", at::kBool},
    };
    for (const auto& [n, t] : table)
        if (storageType == n)
            return t;
    throw ModelError(file + ": unsupported storage type " + storageType);
}

} // namespace

std::map<std::string, at::Tensor> loadTorchStateDict(const std::filesystem::path& file)
{
    const std::string name = file.string();
    std::map<std::string, at::Tensor> out;
    try {
        caffe2::serialize::PyTorchStreamReader zip(name);
        if (!zip.hasRecord("data.pkl"))
            throw ModelError(name + " has no data.pkl (not written by torch.save)");
        auto [ptr, size] = zip.getRecord("data.pkl");
        const auto pickled = parseStateDictPickle(std::string_view(static_cast<const char*>(ptr.get()), size), name);
        std::map<std::string, at::Tensor> storages; // by key: tied weights share one
        for (const auto& [tensorName, t] : pickled) {
            auto it = storages.find(t.storageKey);
            if (it == storages.end()) {
                const std::string record = "data/" + t.storageKey;
                if (!zip.hasRecord(record))
                    throw ModelError(name + " is not a state dict this reader understands: missing record " + record);
                auto [data, bytes] = zip.getRecord(record);
                const auto dtype = storageScalarType(t.storageType, name);
                const auto elem = static_cast<std::size_t>(at::elementSize(dtype));
                auto storage = at::empty({static_cast<int64_t>(bytes / elem)}, at::TensorOptions().dtype(dtype));
                std::memcpy(storage.data_ptr(), data.get(), bytes / elem * elem);
                it = storages.emplace(t.storageKey, std::move(storage)).first;
            }
            checkTensorInStorage(t, static_cast<uint64_t>(it->second.numel()), tensorName, name);
            out.emplace(tensorName, it->second.as_strided(t.sizes, t.strides, t.storageOffset));
        }
    } catch (const c10::Error& e) {
        throw ModelError("cannot read " + name +
                         " (a zip archive written by torch.save is expected; legacy "
                         "pre-1.6 files are not supported, convert them to safetensors): " +
                         e.what_without_backtrace());
    }
    return out;
}

} // namespace ascviz::model
