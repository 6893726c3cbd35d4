// The run row of a batch run (runplan.h): what the request records, the resume check against a stored run,
// the status a call leaves. The one place in the batch room that reads or writes RunInfo's aggregation and
// status.
#include "runplan.h"

#include "ascviz/base/error.h"
#include "ascviz/base/version.h"

namespace ascviz {
namespace fs = std::filesystem;

RunInfo requestedRun(const LanguageModel& model, const Corpus& corpus, const BatchOptions& opts, int runTotal)
{
    const auto& mi = model.info();
    RunInfo r;
    r.modelName = mi.name;
    std::error_code ec;
    const fs::path dir = opts.modelDir.empty() ? mi.dir : fs::path(opts.modelDir);
    const fs::path canon = fs::weakly_canonical(dir, ec);
    r.modelDir = (ec ? dir : canon).string();
    r.architecture = mi.architecture;
    r.device = mi.device;
    r.dtype = mi.dtype;
    r.parameters = mi.parameters;
    r.contextLength = mi.contextLength;
    r.vocabSize = mi.vocabSize;
    r.corpusPath = corpus.source.string();
    r.corpusFormat = toString(corpus.format);
    r.corpusFingerprint = corpus.fingerprint();
    r.corpusEntries = static_cast<int64_t>(corpus.entries.size());
    r.language = opts.language;
    r.aggregation = opts.aggregation;
    r.aggregationScope = opts.aggregationScope;
    r.planned = opts.shard.planned(runTotal);
    r.runPlanned = runTotal;
    r.shardIndex = opts.shard.index;
    r.shardCount = opts.shard.count;
    setRunStatus(r, false, false);
    r.version = ascvizVersion();
    return r;
}

void checkResumable(const RunInfo& have, const RunInfo& want, const fs::path& db)
{
    std::string diff;
    auto cmp = [&diff](const char* what, const std::string& a, const std::string& b) {
        if (a != b)
            diff += std::string(diff.empty() ? "" : "; ") + what + " is '" + a + "' in the DB but '" + b + "' now";
    };
    cmp("model", have.modelName, want.modelName);
    cmp("architecture", have.architecture, want.architecture);
    cmp("model parameters", std::to_string(have.parameters), std::to_string(want.parameters));
    cmp("vocabulary size", std::to_string(have.vocabSize), std::to_string(want.vocabSize));
    cmp("corpus content (fingerprint)", have.corpusFingerprint, want.corpusFingerprint);
    cmp("aggregation", toString(have.aggregation), toString(want.aggregation));
    cmp("aggregation scope", toString(have.aggregationScope), toString(want.aggregationScope));
    cmp("language", have.language, want.language);
    cmp("shard", ShardSpec{have.shardIndex, have.shardCount}.toString(),
        ShardSpec{want.shardIndex, want.shardCount}.toString());
    // A whole run may be resumed with another limit; a shard's slice depends on the run's size.
    if (have.shardCount > 1 || want.shardCount > 1)
        cmp("run size (snippets planned)", std::to_string(have.runPlanned), std::to_string(want.runPlanned));
    if (diff.empty())
        return;
    ErrorContext where(db.string());
    where.remedy = Remedy::NewOutput;
    throw InputError("cannot resume " + db.string() + ": " + diff +
                         " (it continues only with the same model, corpus and options)",
                     where);
}

void setRunStatus(RunInfo& run, bool complete, bool cancelled)
{
    run.status = complete ? RunStatus::Complete : (cancelled ? RunStatus::Cancelled : RunStatus::Running);
}

} // namespace ascviz
