// Loading a LanguageModel: the model folder and config.json, the device and compute dtype, a memory check,
// the weights (safetensors or pytorch_model.bin, possibly sharded) and the tokenizer.
#include "language_model_impl.h"
#include "settings/settings.h"

#include "families/families.h"
#include "formats/weights.h"
#include "kernels/cpu_linear.h"
#include "kernels/cpu_threads.h"
#include "kernels/dnnl_linear.h"

#include "ascviz/base/error.h"
#include "ascviz/base/hfcache.h"
#include "ascviz/model/dtypes.h"
#include "ascviz/model/fingerprint.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <malloc.h>

#include <optional>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace ascviz {
namespace model {
namespace {

std::string dtypeName(at::ScalarType t)
{
    switch (t) {
    case at::kFloat:
        return "float32";
    case at::kHalf:
        return "float16";
    case at::kBFloat16:
        return "bfloat16";
    default:
        return std::string(c10::toString(t));
    }
}

std::string gib(uint64_t bytes)
{
    std::ostringstream s;
    s.precision(2);
    s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return s.str();
}

// One product of each kind the decoder runs (linear, batched matmul) in `dtype` on the CPU, large enough that LibTorch
// sends it to its oneDNN where it would (LibTorch 1.13 does so for bfloat16 products from 16 × 16 × 16 on; a 2 × 2
// probe never reached it). False when LibTorch refuses or fails them.
bool productsRun(at::ScalarType dtype)
{
    try {
        c10::InferenceMode guard;
        const auto opts = at::TensorOptions().dtype(dtype);
        const auto a = at::ones({64, 64}, opts);
        (void)at::linear(a, a);
        const auto b = at::ones({2, 64, 64}, opts);
        (void)at::bmm(b, b);
        (void)at::matmul(b, b.transpose(1, 2));
        return true;
    } catch (const std::exception&) { // c10::Error, and oneDNN's own dnnl::error (LibTorch 1.13's ideep)
        return false;
    }
}

// Whether the CPU runs matrix products in `dtype` with this LibTorch (some builds lack half-precision products).
// LibTorch decides from the CPU's own flags (AVX512-BF16, AMX) that its oneDNN runs bfloat16 products; a oneDNN held
// to an older instruction set (ONEDNN_MAX_CPU_ISA=AVX2, as on a real AVX2 CPU) cannot create them and fails with
// "could not create a primitive descriptor iterator" (issue 54). Then LibTorch's own kernels take the products
// (its oneDNN switched off for the process, as LibTorch itself does on a CPU without those flags); only when they
// fail too is the dtype refused.
bool cpuRunsProducts(at::ScalarType dtype)
{
    if (dtype == at::kFloat)
        return true;
    if (productsRun(dtype))
        return true;
    auto& ctx = at::globalContext();
    if (ctx.userEnabledMkldnn()) {
        ctx.setUserEnabledMkldnn(false);
        if (productsRun(dtype))
            return true;
        ctx.setUserEnabledMkldnn(true);
    }
    return false;
}

uint64_t availableCpuMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    return 0; // unknown: no check
}

// Whether the checkpoint's 16-bit matrices stay in their dtype (LoadOptions::weights); throws ModelError for a setting
// this load cannot honour.
bool keepCheckpointDtype(Weights mode, std::optional<at::ScalarType> lowp, uint64_t float32Bytes, uint64_t limit,
                         bool useCuda, at::ScalarType dtype, bool bf16Matmul)
{
    if (mode == Weights::Float32)
        return false;
    if (mode == Weights::Auto)
        return lowp && !useCuda && dtype == at::kFloat && !bf16Matmul && limit && float32Bytes > limit;
    if (useCuda)
        throw ModelError("keeping the weights in the checkpoint's dtype is for the CPU; on a GPU use the dtype "
                         "bfloat16 or float16 instead");
    if (dtype != at::kFloat || bf16Matmul)
        throw ModelError("keeping the weights in the checkpoint's dtype computes in float32; it does not combine with "
                         "the dtype " +
                         std::string(bf16Matmul ? "bfloat16-matmul" : dtypeName(dtype)));
    return lowp.has_value(); // a float32 checkpoint: nothing to keep
}

bool prepackAtLoad()
{
    const char* v = setting(Setting::DnnlPrepack);
    return !(v && std::string(v) == "0");
}

} // namespace
} // namespace model

std::unique_ptr<LanguageModel> LanguageModel::load(const fs::path& dirIn, const LoadOptions& opts)
{
    using namespace model;
    const fs::path dir = dirIn;
    std::error_code ec;
    if (!fs::exists(dir, ec))
        throw ModelError("model folder " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec))
        throw ModelError(dir.string() + " is not a folder (a Hugging Face model folder with config.json is expected)");
    const fs::path configPath = dir / "config.json";
    if (!fs::exists(configPath, ec))
        throw ModelError("no config.json in " + dir.string() + ": not a Hugging Face model folder");
    const ArchSpec spec = readArchSpec(readJsonFile(configPath), configPath.string());

    // Device and dtype.
    const bool haveCuda = torch::cuda::is_available();
    bool useCuda = false;
    if (opts.device == Device::Cuda) {
        if (!haveCuda)
            throw ModelError("the device cuda was asked for but CUDA is not available (libtorch " +
                             std::string(TORCH_VERSION) + "); use the device cpu");
        useCuda = true;
    } else if (opts.device == Device::Auto) {
        useCuda = haveCuda;
    }
    const at::Device device = useCuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    at::ScalarType dtype = at::kFloat;
    // bfloat16-matmul: float32 weights and activations, the linear layers' products in bfloat16 through oneDNN
    // (the CPU's opt-in faster mode; docs/performance.md states its NtP difference from float32).
    const bool bf16Matmul = opts.dtype == Dtype::Bfloat16Matmul;
    if (bf16Matmul && useCuda)
        throw ModelError("the dtype bfloat16-matmul is for the CPU; on a GPU use the dtype bfloat16 or float16");
    if (bf16Matmul && !(oneDnnLinearEnabled() && dnnlLinearAvailable() && dnnlBf16Available()))
        throw ModelError(std::string("the dtype bfloat16-matmul needs the system oneDNN on a CPU with AVX512-BF16 (") +
                         (dnnlLinearAvailable() ? "this CPU has none: oneDNN finds " + dnnlCpuIsaName()
                                                : dnnlLinearUnavailableReason()) +
                         "); use the dtype float32");
    switch (opts.dtype) {
    case Dtype::Auto: // float32 everywhere (method.md §1); half precision only when asked for
    case Dtype::Float32:
    case Dtype::Bfloat16Matmul:
        dtype = at::kFloat;
        break;
    case Dtype::Float16:
        dtype = at::kHalf;
        break;
    case Dtype::Bfloat16:
        dtype = at::kBFloat16;
        break;
    }
    if (!useCuda) {
        // libtorch's CPU tensors come from malloc. glibc serves large blocks with mmap and trims the heap's top
        // on free, so every forward pass faulted its activations in afresh (410,000 page faults in a 40-text
        // scoring run of the bundled model, ~5 % of its time). Blocks up to 32 MiB (glibc's maximum) now come
        // from the heap, which keeps up to 1 GiB freed for the next pass; scoring keeps its blocks under that.
        ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
        ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
        applyCpuThreads(opts.threads > 0 ? opts.threads : defaultCpuThreads());
        if (!cpuRunsProducts(dtype))
            throw ModelError("the dtype " + dtypeName(dtype) +
                             " has no matrix products on this CPU with this libtorch (" + std::string(TORCH_VERSION) +
                             "); use the dtype float32" +
                             (dtype == at::kHalf && cpuRunsProducts(at::kBFloat16) ? " or bfloat16" : ""));
    }

    // No autograd while loading, but plain tensors (not inference tensors): gradient x input (masking.cpp, the
    // one path that records autograd) saves weights for backward, which inference tensors refuse.
    at::NoGradGuard guard;
    WeightStore store(dir, dtype, device);
    const uint64_t limit = opts.maxWeightBytes ? opts.maxWeightBytes : (useCuda ? 0 : availableCpuMemory());
    const std::optional<at::ScalarType> lowp = store.lowpDtype();
    const bool keepLowp =
        keepCheckpointDtype(opts.weights, lowp, store.computeBytes(), limit, useCuda, dtype, bf16Matmul);
    store.setKeepCheckpointDtype(keepLowp);
    const uint64_t need = keepLowp ? store.storedBytes() : store.computeBytes();
    const std::string heldIn = keepLowp ? dtypeName(*lowp) : dtypeName(dtype);
    if (limit && need > limit)
        throw ModelError("the checkpoint in " + dir.string() + " needs " + gib(need) + " for its weights in " + heldIn +
                         " but only " + gib(limit) + " are available on " + (useCuda ? "the GPU" : "the CPU") +
                         (keepLowp           ? "; try a smaller model"
                          : lowp && !useCuda ? "; try keeping the weights in the checkpoint's dtype or a smaller model"
                          : dtype == at::kFloat ? "; try the dtype bfloat16 or a smaller model"
                                                : "; try a smaller model"));
    if (opts.progress) {
        const double total =
            static_cast<double>(std::max<std::size_t>(1, 4 + 12 * static_cast<std::size_t>(spec.layers)));
        // By value: the store calls this after this block has ended (ASan: stack-use-after-scope on `total`).
        store.onTake = [progress = opts.progress, total](std::size_t n) {
            progress(std::min(0.99, static_cast<double>(n) / total));
        };
    }
    DecoderWeights weights;
    try {
        weights = loadDecoderWeights(store, spec);
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        if (what.find("out of memory") != std::string::npos)
            throw ModelError("out of memory on " + std::string(useCuda ? "the GPU" : "the CPU") + " while loading " +
                             dir.string() + " in " + dtypeName(dtype) + "; try a smaller dtype or model");
        throw ModelError("cannot load the weights of " + dir.string() + ": " + what);
    }
    if (bf16Matmul) {
        for (const LayerWeights& lw : weights.layers)
            for (const Linear* l : {&lw.qkv, &lw.o, &lw.up, &lw.down})
                dnnlMarkBf16(l->w);
        dnnlMarkBf16(weights.head);
    }
    // The direct oneDNN path's packed copies, made now rather than in the first product (which would be slower), the
    // head first: a weight taken from the mapping leaves the resident set once packed, so the peak is the packed
    // copies plus the one matrix being packed (packing in forward order would end on the largest, the head).
    // ASCVIZ_DNNL_PREPACK=0 leaves the packing to the first products (measured in docs/performance.md, "Loading").
    if (!useCuda && prepackAtLoad()) {
        cpuPrepackLinear(weights.head);
        for (const LayerWeights& lw : weights.layers)
            for (const Linear* l : {&lw.qkv, &lw.o, &lw.up, &lw.down})
                cpuPrepackLinear(l->w);
    }
    // What stays mapped (the weights kept in the checkpoint's dtype) is read again from the page cache when used.
    store.dropMappedPages();
    auto decoder = std::make_unique<Decoder>(spec, std::move(weights), device, dtype);

    ModelInfo info;
    info.dir = fs::absolute(dir).lexically_normal();
    info.name = modelNameFromDir(info.dir);
    info.architecture = spec.modelType;
    info.device = useCuda ? "cuda:0" : "cpu";
    info.dtype = bf16Matmul ? "bfloat16-matmul" : dtypeName(dtype);
    info.weights = heldIn;
    info.parameters = decoder->parameterCount();
    info.contextLength = spec.context;
    info.vocabSize = spec.vocab;
    info.layers = static_cast<int>(spec.layers);
    info.hidden = static_cast<int>(spec.hidden);
    info.experts = static_cast<int>(spec.moe.experts);
    info.expertsPerToken = static_cast<int>(spec.moe.topK);
    for (std::size_t l = 0; l < spec.moe.sparse.size(); ++l)
        if (spec.moe.sparse[l])
            info.expertLayers.push_back(static_cast<int>(l));
    // The CPU threads the model computes with: LibTorch's and the BLAS's (cpu_threads.h splits them).
    info.threads = useCuda ? 0 : (opts.threads > 0 ? opts.threads : defaultCpuThreads());
    info.cpuThreads = useCuda ? std::string() : describeCpuThreads(info.threads);
    info.fingerprint = modelFingerprint(dir); // what session files compare (config, headers, samples)

    auto tokenizer = Tokenizer::fromModelDir(dir);
    if (opts.progress)
        opts.progress(1.0);
    return std::make_unique<TorchLanguageModel>(std::move(info), std::move(tokenizer), std::move(decoder));
}

bool cpuSupportsDtype(Dtype dtype)
{
    switch (dtype) {
    case Dtype::Auto:
    case Dtype::Float32:
        return true;
    case Dtype::Float16: {
        static const bool half = model::cpuRunsProducts(at::kHalf);
        return half;
    }
    case Dtype::Bfloat16: {
        static const bool bf16 = model::cpuRunsProducts(at::kBFloat16);
        return bf16;
    }
    case Dtype::Bfloat16Matmul:
        return model::oneDnnLinearEnabled() && model::dnnlLinearAvailable() && model::dnnlBf16Available();
    }
    return false;
}

} // namespace ascviz
