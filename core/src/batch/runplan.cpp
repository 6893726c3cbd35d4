// runBatch's plan and its results database (runplan.h).
#include "runplan.h"

#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"

#include <algorithm>

namespace ascviz {
namespace fs = std::filesystem;

namespace {

std::string languageOf(const BatchOptions& opts)
{
    return opts.language.empty() ? LanguageRegistry::instance().defaultLanguage().id : opts.language;
}

} // namespace

std::string languageOf(const CorpusEntry& e, const BatchOptions& opts)
{
    return e.language.empty() ? languageOf(opts) : e.language;
}

RunPlan planRun(const LanguageModel& model, const Corpus& corpus, const BatchOptions& request)
{
    RunPlan plan;
    plan.opts = request;
    BatchOptions& opts = plan.opts;
    opts.language = languageOf(request);
    if (corpus.entries.empty())
        throw InputError("empty corpus: nothing to evaluate");
    const RunSlice slice = planSlice(static_cast<int>(corpus.entries.size()), opts.limit, opts.shard);
    plan.runTotal = slice.runTotal;
    plan.want = requestedRun(model, corpus, opts, plan.runTotal);
    plan.mine = slice.mine;
    for (int i : plan.mine) {
        const std::string lang = languageOf(corpus.entries[static_cast<std::size_t>(i)], opts);
        if (!plan.categories.count(lang))
            plan.categories.emplace(lang, CategoryMap::forLanguage(lang));
    }
    return plan;
}

RunStore::RunStore(const fs::path& path, RunPlan& plan)
{
    std::error_code ec;
    if (plan.opts.resume && fs::exists(path, ec)) {
        m_lock.emplace(path, "batch run");
        m_db.emplace(ResultsDb::open(path, ResultsDb::Mode::ReadWrite));
        const RunInfo have = m_db->runInfo();
        checkResumable(have, plan.want, path);
        m_done = m_db->doneIndices();
        plan.want.created = have.created; // corpus_path is updated: the same content may have moved
        m_db->updateRun(plan.want);
    } else {
        m_db.emplace(ResultsDb::create(path, plan.want));
        m_lock.emplace(path, "batch run");
    }
}

} // namespace ascviz
