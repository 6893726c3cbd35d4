#include "formats/weights.h"
#include "settings/settings.h"

#include "ascviz/base/error.h"

#include "formats/torch_pickle.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

namespace fs = std::filesystem;

namespace ascviz::model {
namespace {

std::optional<at::ScalarType> scalarTypeOf(const std::string& code)
{
    if (code == "F32")
        return at::kFloat;
    if (code == "F16")
        return at::kHalf;
    if (code == "BF16")
        return at::kBFloat16;
    if (code == "F64")
        return at::kDouble;
    if (code == "I64")
        return at::kLong;
    if (code == "I32")
        return at::kInt;
    if (code == "I16")
        return at::kShort;
    if (code == "I8")
        return at::kChar;
    if (code == "U8")
        return at::kByte;
    if (code == "BOOL")
        return at::kBool;
    return std::nullopt;
}

std::vector<int64_t> sizesOf(const at::Tensor& t)
{
    return t.sizes().vec();
}

// ASCVIZ_WEIGHTS_COPY=1: copy every tensor out of the mappings as before zero-copy loading (benchmarks, tests).
bool copyForced()
{
    const char* v = setting(Setting::WeightsCopy);
    return v && std::string(v) == "1";
}

// A weight is a floating-point tensor; U8 holds gpt_oss's MXFP4 blocks and scales. An integer dtype elsewhere is a
// mislabelled or quantised tensor the decoder cannot read (issue 54: an F32 tensor relabelled I32 was converted).
void checkWeightDtype(const std::string& name, at::ScalarType st, const std::string& code)
{
    if (at::isFloatingType(st) || st == at::kByte)
        return;
    throw ModelError("tensor " + name + " has dtype " + code +
                     "; the decoder's weights are floating-point tensors (F32, F16, BF16 or F64)");
}

std::map<std::string, at::Tensor> loadPickle(const fs::path& p)
{
    return loadTorchStateDict(p);
}

} // namespace

nlohmann::json readJsonFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw ModelError("cannot read " + p.string());
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw ModelError(p.string() + " is not valid JSON: " + e.what());
    }
}

WeightStore::WeightStore(const fs::path& dir, at::ScalarType dtype, at::Device device)
    : m_dtype(dtype), m_device(device), m_mapSameDtype(!copyForced())
{
    auto addSafetensors = [&](const fs::path& p) {
        if (!fs::exists(p))
            throw ModelError("weights file " + p.string() + " is missing");
        m_files.push_back(std::make_shared<const SafetensorsFile>(p));
        for (const auto& [name, entry] : m_files.back()->tensors())
            m_entries[name] = Mapped{&entry, m_files.back()};
    };
    auto shardsOf = [&](const fs::path& index) {
        std::ifstream in(index, std::ios::binary);
        if (!in)
            throw ModelError("cannot read " + index.string());
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        return parseShardIndex(text, index.string());
    };

    if (fs::exists(dir / "model.safetensors")) {
        addSafetensors(dir / "model.safetensors");
        m_description = (dir / "model.safetensors").string();
    } else if (fs::exists(dir / "model.safetensors.index.json")) {
        const auto index = shardsOf(dir / "model.safetensors.index.json");
        const auto& files = index.files;
        for (const auto& f : files)
            addSafetensors(dir / f);
        for (const auto& [tensor, file] : index.weightMap)
            if (!m_entries.count(tensor))
                throw ModelError("model.safetensors.index.json lists " + tensor + " in " + file +
                                 " but that file does not hold it");
        m_description = std::to_string(files.size()) + " safetensors shards in " + dir.string();
    } else if (fs::exists(dir / "pytorch_model.bin")) {
        m_pickled = loadPickle(dir / "pytorch_model.bin");
        m_description = (dir / "pytorch_model.bin").string();
    } else if (fs::exists(dir / "pytorch_model.bin.index.json")) {
        const auto files = shardsOf(dir / "pytorch_model.bin.index.json").files;
        for (const auto& f : files) {
            if (!fs::exists(dir / f))
                throw ModelError("weights file " + (dir / f).string() + " is missing");
            for (auto& [k, t] : loadPickle(dir / f))
                m_pickled[k] = t;
        }
        m_description = std::to_string(files.size()) + " pytorch_model.bin shards in " + dir.string();
    } else {
        throw ModelError("no weights in " + dir.string() +
                         ": expected model.safetensors, model.safetensors.index.json (sharded) or pytorch_model.bin");
    }
    for (const auto& [k, e] : m_entries)
        m_names.push_back(k);
    for (const auto& [k, t] : m_pickled)
        m_names.push_back(k);
}

const std::string* WeightStore::resolve(const std::string& name) const
{
    auto find = [&](const std::string& n) -> const std::string* {
        if (auto it = m_entries.find(n); it != m_entries.end())
            return &it->first;
        if (auto it = m_pickled.find(n); it != m_pickled.end())
            return &it->first;
        return nullptr;
    };
    if (auto p = find(name))
        return p;
    if (auto dot = name.find('.'); dot != std::string::npos)
        return find(name.substr(dot + 1));
    return nullptr;
}

bool WeightStore::has(const std::string& name) const
{
    return resolve(name) != nullptr;
}

std::optional<at::Tensor> WeightStore::getOptional(const std::string& name, const std::vector<int64_t>& shape)
{
    const std::string* key = resolve(name);
    if (!key)
        return std::nullopt;
    dropPrevious();
    at::Tensor src;
    std::vector<int64_t> have;
    if (auto it = m_entries.find(*key); it != m_entries.end()) {
        const TensorEntry& e = *it->second.entry;
        have = e.shape;
        if (have != shape)
            throw ModelError("tensor " + name + " has shape " + shapeString(have) + " but the config implies " +
                             shapeString(shape) + " (" + m_description + ")");
        const auto st = scalarTypeOf(e.dtype);
        if (!st)
            throw ModelError("tensor " + name + " has unsupported dtype " + e.dtype);
        checkWeightDtype(name, *st, e.dtype);
        m_previous = it->second;
        const bool keepLowp = m_keepLowp && (*st == at::kBFloat16 || *st == at::kHalf) && e.shape.size() >= 2;
        const bool sameDtype = m_mapSameDtype && *st == m_dtype && at::isFloatingType(*st);
        const bool aligned = reinterpret_cast<uintptr_t>(e.data) % at::elementSize(*st) == 0;
        if (m_device.is_cpu() && (keepLowp || sameDtype) && aligned && it->second.file->mapping().writable()) {
            // The mapping itself (no copy); private, so an in-place write copies the page it writes (never the
            // file). The deleter's copy of the file's pointer keeps it mapped.
            at::Tensor out = at::from_blob(
                const_cast<void*>(e.data), e.shape, [file = it->second.file](void*) {}, at::TensorOptions().dtype(*st));
            ++m_taken;
            if (onTake)
                onTake(m_taken);
            return out;
        }
        src = at::from_blob(const_cast<void*>(e.data), e.shape, at::TensorOptions().dtype(*st));
    } else {
        src = m_pickled.at(*key);
        checkWeightDtype(name, src.scalar_type(), std::string(c10::toString(src.scalar_type())));
        have = sizesOf(src);
        if (have != shape)
            throw ModelError("tensor " + name + " has shape " + shapeString(have) + " but the config implies " +
                             shapeString(shape) + " (" + m_description + ")");
    }
    const auto target = at::isFloatingType(src.scalar_type()) ? m_dtype : src.scalar_type();
    // Always an owning, contiguous copy: the mappings are released after loading.
    at::Tensor out = src.to(m_device, target, /*non_blocking=*/false, /*copy=*/true).contiguous();
    ++m_taken;
    if (onTake)
        onTake(m_taken);
    return out;
}

at::Tensor WeightStore::get(const std::string& name, const std::vector<int64_t>& shape)
{
    if (auto t = getOptional(name, shape))
        return *t;
    throw ModelError("tensor " + name + " (shape " + shapeString(shape) + ") is missing from " + m_description);
}

bool WeightStore::isMapped(const at::Tensor& t) const
{
    if (!t.defined() || !t.device().is_cpu())
        return false;
    const auto n = static_cast<std::size_t>(t.storage().nbytes());
    for (const auto& f : m_files)
        if (f->mapping().contains(t.storage().data(), n))
            return true;
    return false;
}

std::optional<at::Tensor> WeightStore::joinMapped(const std::vector<at::Tensor>& parts) const
{
    if (parts.empty() || !parts[0].defined() || !parts[0].device().is_cpu() || parts[0].dim() < 1)
        return std::nullopt;
    const at::Tensor& first = parts[0];
    std::shared_ptr<const SafetensorsFile> file;
    for (const auto& f : m_files)
        if (f->mapping().contains(first.data_ptr(), first.nbytes()))
            file = f;
    if (!file)
        return std::nullopt;
    auto next = static_cast<const char*>(first.data_ptr());
    int64_t rows = 0;
    for (const at::Tensor& t : parts) {
        if (!t.defined() || !t.is_contiguous() || t.scalar_type() != first.scalar_type() || t.dim() != first.dim() ||
            t.sizes().slice(1) != first.sizes().slice(1) || t.data_ptr() != next || !isMapped(t))
            return std::nullopt;
        next += t.nbytes();
        rows += t.size(0);
    }
    if (!file->mapping().contains(first.data_ptr(),
                                  static_cast<std::size_t>(next - static_cast<const char*>(first.data_ptr()))))
        return std::nullopt;
    std::vector<int64_t> shape = first.sizes().vec();
    shape[0] = rows;
    return at::from_blob(
        first.data_ptr(), shape, [file](void*) {}, first.options());
}

void WeightStore::dropPrevious()
{
    if (m_previous.file)
        m_previous.file->mapping().dropPages(m_previous.entry->data, m_previous.entry->bytes);
    m_previous = {};
}

void WeightStore::dropMappedPages()
{
    m_previous = {};
    for (const auto& f : m_files)
        f->mapping().dropAllPages();
}

std::optional<at::ScalarType> WeightStore::lowpDtype() const
{
    std::optional<at::ScalarType> found;
    for (const auto& [k, m] : m_entries) {
        const auto st = scalarTypeOf(m.entry->dtype);
        if (!st || !at::isFloatingType(*st) || m.entry->shape.size() < 2)
            continue;
        if ((*st != at::kBFloat16 && *st != at::kHalf) || (found && *found != *st))
            return std::nullopt;
        found = *st;
    }
    return found;
}

uint64_t WeightStore::storedBytes() const
{
    uint64_t total = 0;
    for (const auto& [k, m] : m_entries) {
        const auto st = scalarTypeOf(m.entry->dtype);
        if (st && at::isFloatingType(*st))
            total += m.entry->bytes;
    }
    for (const auto& [k, t] : m_pickled)
        if (at::isFloatingType(t.scalar_type()))
            total += static_cast<uint64_t>(t.numel()) * t.element_size();
    return total;
}

uint64_t WeightStore::computeBytes() const
{
    const uint64_t elem = at::elementSize(m_dtype);
    uint64_t total = 0;
    for (const auto& [k, m] : m_entries) {
        const TensorEntry* e = m.entry;
        const auto st = scalarTypeOf(e->dtype);
        if (st && at::isFloatingType(*st))
            total += e->bytes / safetensorsElementSize(e->dtype) * elem;
        else if (e->dtype == "U8" && k.size() > 7 && k.compare(k.size() - 7, 7, "_blocks") == 0)
            total += e->bytes * 2 * elem; // MXFP4 blocks (gpt_oss): two values a byte, dequantised at load
    }
    for (const auto& [k, t] : m_pickled)
        if (at::isFloatingType(t.scalar_type()))
            total += static_cast<uint64_t>(t.numel()) * elem;
    return total;
}

} // namespace ascviz::model
