// Helpers shared by the ascviz-cli commands.
#pragma once
#include "args.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/shards.h"

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ascviz::cli {

// A core error's remedy (base/error.h: Remedy) in the CLI's words, to append to its message: empty for
// none, else e.g. "; continue it with --resume, or choose another --db" (`command`: the CLI command, whose
// output flag is named); a figure's settings as render's flags ("; --max-depth N the depth").
std::string remedyForCli(Remedy remedy, const std::string& command);

// --aggregation median|mean|max|min (θ; default median); a UsageError for any other value.
Aggregation aggregationOption(Args& args);

// Reads --model (default: bundled), --device, --dtype, --threads and loads the model (progress on stderr).
std::unique_ptr<LanguageModel> loadModel(Args& args);
// The common model options without loading (for commands that load later or several times).
LoadOptions loadOptions(Args& args);

// Reads --corpus as batch does: a file or folder, or "default" (the bundled sample of `language`, else of
// the default language); `language` "" = each entry's own; `exts` a comma list for folders ("" = the
// registry's). Skipped entries and per-language counts are reported on stderr.
Corpus readCorpusOption(const std::string& corpusArg, const std::string& language, const std::string& exts);

// Bounded work (base/limits.h): --max-text-bytes N (bytes a model scores; 0 = no limit), --max-ast-depth N
// (syntax tree levels for AsC-Eval; 0 = no limit) and --max-ast-nodes N (syntax tree nodes; 0 = no limit),
// with the defaults of limits.h.
std::size_t maxTextBytesOption(Args& args);
int maxAstDepthOption(Args& args);
std::size_t maxAstNodesOption(Args& args);

// --shard I/N (absent: the whole run); a UsageError naming the option for a malformed value.
ShardSpec shardOption(const std::optional<std::string>& value);
// The decoding options: --greedy | --temperature T --top-p P --top-k K `seedFlag` S (greedy unless a sampling
// option is given), read into g and checked; UsageError naming the option (a number expected, --greedy with a
// sampling option, T <= 0, P outside (0, 1], K < 0).
void samplingOptions(Args& args, GenerationSettings& g, const std::string& seedFlag);

// Ctrl-C (SIGINT) or SIGTERM during a long command (every corpus loop: batch, galeras run, analyze heads/layers/
// experts, ablate, probe, attribute): while an InterruptScope lives, the signal sets cancelFlag() (the engine's
// RunControls::cancel: the loop stops after the current item) instead of ending the process; a second one ends it
// at once. The scope restores the default on exit. The CLI's one signal handler (issue 55).
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;
    static const std::atomic<bool>* cancelFlag();
    static bool interrupted() { return cancelFlag()->load(); }
};

} // namespace ascviz::cli
