// Shared helpers of the model tests: fixture paths, JSON and reference.safetensors reading.
#pragma once
#include "ascviz/model/model.h"

#include "formats/safetensors.h" // core/src/model, torch-free
#include "testdata.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace modeltest {

using ascviz::testdata::dataDir;
using ascviz::testdata::fixtureModel;
using ascviz::testdata::resourcesDir;

inline nlohmann::json readJson(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + p.string());
    return nlohmann::json::parse(in);
}

inline ascviz::LoadOptions cpuFloat32()
{
    ascviz::LoadOptions o;
    o.device = ascviz::Device::Cpu;
    o.dtype = ascviz::Dtype::Float32;
    o.threads = 2;
    return o;
}

// The live tier's load options: float32 on the CPU, or on ASCVIZ_LIVE_DEVICE (e.g. "cuda", to run the same
// comparison on a GPU; docs/robustness.md).
inline ascviz::LoadOptions liveFloat32()
{
    ascviz::LoadOptions o = cpuFloat32();
    if (const char* d = std::getenv("ASCVIZ_LIVE_DEVICE"); d && *d)
        o.device = ascviz::requireLoadOption<ascviz::Device>(d);
    return o;
}

// The live tier's variants (manifest.json's "variants"), or every ASCVIZ_LIVE_STRIDE-th of them (the first, then
// each stride-th after it): the test command's reruns at older instruction sets compare a sample, since what they
// check (oneDNN's and LibTorch's kernels at that ISA) depends on the dtype and the products, not on the family.
inline std::size_t liveStride()
{
    const char* s = std::getenv("ASCVIZ_LIVE_STRIDE");
    if (!s || !*s)
        return 1;
    const long n = std::strtol(s, nullptr, 10);
    if (n < 1)
        throw std::runtime_error(std::string("ASCVIZ_LIVE_STRIDE = \"") + s + "\" must be a positive integer");
    return static_cast<std::size_t>(n);
}

inline std::vector<nlohmann::json> liveVariants(const nlohmann::json& manifest)
{
    std::vector<nlohmann::json> out;
    const auto& all = manifest.at("variants");
    for (std::size_t i = 0; i < all.size(); i += liveStride())
        out.push_back(all[i]);
    return out;
}

// A float32 / int64 tensor of reference.safetensors as a flat vector.
inline std::vector<double> refTensor(const ascviz::model::SafetensorsFile& f, const std::string& name,
                                     std::vector<int64_t>* shape = nullptr)
{
    const auto& e = f.tensors().at(name);
    if (shape)
        *shape = e.shape;
    std::vector<double> out;
    if (e.dtype == "F32") {
        const auto* p = static_cast<const float*>(e.data);
        out.assign(p, p + e.bytes / 4);
    } else if (e.dtype == "I64") {
        const auto* p = static_cast<const int64_t*>(e.data);
        for (std::size_t i = 0; i < e.bytes / 8; ++i)
            out.push_back(static_cast<double>(p[i]));
    } else {
        throw std::runtime_error("unexpected dtype " + e.dtype + " of " + name);
    }
    return out;
}

inline std::vector<int32_t> ids(const nlohmann::json& a)
{
    return a.get<std::vector<int32_t>>();
}

} // namespace modeltest
