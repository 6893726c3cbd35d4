// A Hugging Face decoder-only checkpoint run through libtorch. This header has no torch in it (pimpl),
// so ui/ may include it.
#pragma once
#include "ascviz/base/generation.h"
#include "ascviz/base/scored.h"
#include "ascviz/model/loadoptions.h"
#include "ascviz/model/observer.h"
#include "ascviz/tokenizer/tokenizer.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

struct LoadOptions {
    Device device = Device::Auto; // names and parsing: loadoptions.h
    Dtype dtype = Dtype::Auto;
    int threads = 0; // CPU intra-op threads; 0 = all cores
    Weights weights = Weights::Auto;
    // Refuse a checkpoint whose weights need more than this many bytes in the compute dtype; 0 = the memory
    // available on the device (MemAvailable on the CPU). A refusal is a ModelError saying what would help.
    uint64_t maxWeightBytes = 0;
    // Called with a fraction in [0, 1] while weights load (from the loading thread).
    std::function<void(double)> progress;
};

struct ModelInfo {
    std::string name; // folder name, or ORG/NAME for a Hugging Face cache snapshot
    std::filesystem::path dir;
    std::string architecture; // config.json model_type
    std::string device;       // "cpu" or "cuda:0"
    std::string dtype;        // compute dtype
    std::string weights;      // the dtype the weight matrices are held in ("bfloat16" when kept as the checkpoint's)
    int64_t parameters = 0;
    int64_t contextLength = 0;
    int64_t vocabSize = 0;
    int layers = 0;
    int hidden = 0;
    // Mixture of experts (0 for a dense model): experts per sparse layer, experts chosen per token, and the
    // sparse layers (those whose routing intermediate::kExperts delivers).
    int experts = 0;
    int expertsPerToken = 0;
    std::vector<int> expertLayers;
    int threads = 0;         // CPU intra-op threads the model computes with (0 on a GPU)
    std::string cpuThreads;  // the CPU thread setup, LibTorch's and the BLAS's ("" on a GPU; cpuThreadSetup)
    std::string fingerprint; // modelFingerprint(dir) when loaded (model/fingerprint.h); "" = unknown
};

struct ScoreOptions {
    int topK = 5; // alternatives recorded per token (0 = none)
    // Texts longer than the context are scored in windows of contextLength tokens that overlap by half a
    // context; every token after the first window is predicted with at least half a context of history.

    // Receives the named intermediates (hidden states, attention, logits, ...) of the forward passes that score
    // the texts (observer.h): one Intermediate per name, layer, text and window (a text of fewer than two ids,
    // BOS included, needs no forward pass and has none). nullptr: none, at no cost.
    IntermediateObserver* observer = nullptr;
    // Long texts: `progress` is called after each forward pass with the windows scored so far and the windows
    // in all (one window per context-sized piece of every text); `cancel` is polled before each forward pass
    // and, once set, scoring throws Cancelled. Neither changes a number.
    std::function<void(std::size_t done, std::size_t total)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// The user's settings (base/generation.h) and the runtime's own switches.
struct GenerationOptions : GenerationSettings {
    bool stopAtEos = true;
    int topAlternatives = 5; // alternatives recorded per generated token
    // false: recompute the whole sequence for every new token (no KV cache); for tests and benchmarks.
    bool useCache = true;
};

// One streamed generated token; ntp is under the unmodified (temperature 1) distribution.
struct StreamedToken {
    int32_t id = 0;
    std::string piece; // decoded text added to the completion by this token (may be empty for a
                       // partial UTF-8 sequence; it is completed by a later token)
    double ntp = 0.0;
    int index = 0; // 0-based index among generated tokens
};

using TokenCallback = std::function<void(const StreamedToken&)>;
using CancelFlag = std::atomic<bool>;

class LanguageModel {
public:
    // Throws ModelError with an actionable message (missing/corrupt file, unknown model_type, ...).
    static std::unique_ptr<LanguageModel> load(const std::filesystem::path& dir, const LoadOptions& opts = {});
    virtual ~LanguageModel() = default;

    virtual const ModelInfo& info() const = 0;
    virtual const Tokenizer& tokenizer() const = 0;

    // Teacher-forced NtP of every token of `text` (prompt = whole text, generated = false).
    virtual ScoredText score(std::string_view text, const ScoreOptions& opts = {}) const = 0;
    // Batch scoring, equal to one-by-one scoring.
    virtual std::vector<ScoredText> scoreBatch(const std::vector<std::string>& texts,
                                               const ScoreOptions& opts = {}) const = 0;

    // Generates a completion of `prompt` with a KV cache; returns prompt + completion scored (prompt
    // tokens teacher-forced, generated tokens flagged). `onToken` is called for each new token; `cancel`
    // is polled between tokens (a cancelled generation returns what was generated so far).
    virtual ScoredText generate(std::string_view prompt, const GenerationOptions& opts,
                                const TokenCallback& onToken = {}, const CancelFlag* cancel = nullptr) const = 0;

    // Raw logits [seq, vocab] (float32, row-major) of a token sequence; for conformance tests.
    virtual std::vector<float> logits(const std::vector<int32_t>& ids) const = 0;

    // Id-level API (no tokenizer involved): for tests, benchmarks and callers that tokenize themselves.
    // NtP of every id of every sequence given the ids before it in that sequence (the first is nullopt);
    // sequences are batched (right padding) and long ones windowed as in ScoreOptions.
    virtual std::vector<std::vector<std::optional<double>>>
    scoreIds(const std::vector<std::vector<int32_t>>& sequences) const = 0;
    // The forward passes that score `ids` (scoreIds' one sequence, BOS included where the tokenizer adds one), their
    // intermediates given to `observer` as ScoreOptions::observer gives a text's: for a result whose tokens are not
    // its text's encoding (a generated text keeps the tokens it was generated with).
    virtual void observeIds(const std::vector<int32_t>& ids, IntermediateObserver& observer) const = 0;
    // The ids generated after `promptIds` (which must not be empty). When generation stops at EOS
    // (opts.stopAtEos), that EOS id is the last element (generate() leaves it out of the text).
    virtual std::vector<int32_t> generateIds(const std::vector<int32_t>& promptIds, const GenerationOptions& opts,
                                             const CancelFlag* cancel = nullptr) const = 0;
};

// libtorch version, where that LibTorch came from ("Debian libtorch-dev", "PyTorch wheel", … with its
// CUDA support compiled in or not) and whether CUDA is available at run time, for --version.
std::string torchVersion();
std::string torchBuild();
bool cudaAvailable();
// The CPU threads a model load uses by default (LoadOptions::threads 0): one per core.
int defaultCpuThreads();
// The CPU thread setup a default load gives: LibTorch's intra-op threads and the BLAS's (which BLAS, its own
// threading, its thread count), e.g. "1 LibTorch intra-op thread; BLAS: OpenBLAS ... (pthreads), 2 threads".
std::string cpuThreadSetup();

// The model families the one decoder runs (config.json's model_type), each with the config options and
// computations it honours (docs/architectures.md): `ascviz-cli models`. Anything else is refused at load.
struct ModelFamily {
    std::string modelType;
    std::string honours;
};
std::vector<ModelFamily> modelFamilies();

} // namespace ascviz
