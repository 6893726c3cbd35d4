// runBatch's plan and its results database (runplan.h).
#include "runplan.h"

#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

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
    if (opts.shard.count < 1 || opts.shard.index < 0 || opts.shard.index >= opts.shard.count)
        throw InputError("shard " + opts.shard.toString() + " is not I/N with 0 <= I < N");
    const int entries = static_cast<int>(corpus.entries.size());
    plan.runTotal = opts.limit > 0 ? std::min<int>(opts.limit, entries) : entries;
    plan.want = requestedRun(model, corpus, opts, plan.runTotal);
    for (int i = 0; i < plan.runTotal; ++i)
        if (opts.shard.contains(i))
            plan.mine.push_back(i);
    for (int i : plan.mine) {
        const std::string lang = languageOf(corpus.entries[static_cast<std::size_t>(i)], opts);
        if (!plan.categories.count(lang))
            plan.categories.emplace(lang, CategoryMap::forLanguage(lang));
    }
    return plan;
}

RunLock::RunLock(const fs::path& db)
{
    m_fd = ::open(db.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        return; // SQLite reports what is wrong with the file
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(m_fd);
        m_fd = -1;
        if (err == EWOULDBLOCK) {
            ErrorContext where(db.string());
            where.remedy = Remedy::Resume | Remedy::NewOutput;
            throw InputError("results database " + db.string() +
                                 " is being written by another batch run; wait for it to end (or stop it)",
                             where);
        }
    }
}

RunLock::~RunLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

RunStore::RunStore(const fs::path& path, RunPlan& plan)
{
    std::error_code ec;
    if (plan.opts.resume && fs::exists(path, ec)) {
        m_lock.emplace(path);
        m_db.emplace(ResultsDb::open(path, ResultsDb::Mode::ReadWrite));
        const RunInfo have = m_db->runInfo();
        checkResumable(have, plan.want, path);
        m_done = m_db->doneIndices();
        plan.want.created = have.created; // corpus_path is updated: the same content may have moved
        m_db->updateRun(plan.want);
    } else {
        m_db.emplace(ResultsDb::create(path, plan.want));
        m_lock.emplace(path);
    }
}

} // namespace ascviz
