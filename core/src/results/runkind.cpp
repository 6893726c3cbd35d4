// The kind of a run's file and the merge of every kind (runkind.h).
#include "ascviz/results/runkind.h"

#include "ascviz/base/error.h"
#include "ascviz/results/galerasdb.h"
#include "ascviz/results/headsdb.h"
#include "ascviz/results/sqlite.h"

namespace ascviz {

std::string toString(RunKind kind)
{
    switch (kind) {
    case RunKind::Batch:
        return "batch";
    case RunKind::Galeras:
        return "galeras";
    case RunKind::Heads:
        return "heads";
    case RunKind::Unknown:
        break;
    }
    return "unknown";
}

RunKind runKindOf(const std::filesystem::path& file)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return RunKind::Unknown;
    try {
        sqlite::OpenOptions o;
        o.mode = sqlite::OpenMode::ReadOnly;
        o.label = "run file";
        const sqlite::Db db = sqlite::Db::open(file, o);
        sqlite::Stmt st(db,
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('run', 'galeras_meta', "
                        "'heads_meta')",
                        "reading the kind of run");
        RunKind kind = RunKind::Unknown;
        while (st.step()) {
            const std::string table = st.text(0);
            kind = table == "galeras_meta" ? RunKind::Galeras : table == "heads_meta" ? RunKind::Heads : RunKind::Batch;
        }
        return kind;
    } catch (const Error&) {
        return RunKind::Unknown; // not SQLite, unreadable: the kind's own open says what is wrong
    }
}

RunMergeReport mergeRuns(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards,
                         const std::function<void(const std::string&)>& log)
{
    RunMergeReport r;
    if (shards.empty())
        return {RunKind::Batch, mergeShards(out, shards, log)}; // its message: no shards
    const RunKind first = runKindOf(shards.front());
    for (const auto& s : shards) {
        const RunKind k = runKindOf(s);
        if (first != RunKind::Unknown && k != RunKind::Unknown && k != first)
            throw InputError(s.string() + " is a " + toString(k) + " run, " + shards.front().string() + " a " +
                                 toString(first) + " run: a merge joins the shards of one run; nothing written",
                             ErrorContext(s.string()));
    }
    if (first == RunKind::Galeras) {
        mergeGalerasShards(out, shards);
        r.kind = RunKind::Galeras;
        r.merged.out = out;
        r.merged.shards = static_cast<int>(shards.size());
        r.merged.snippets = static_cast<int64_t>(GalerasDb::open(out).doneKeys().size());
        return r;
    }
    if (first == RunKind::Heads) {
        mergeHeadsShards(out, shards);
        r.kind = RunKind::Heads;
        r.merged.out = out;
        r.merged.shards = static_cast<int>(shards.size());
        r.merged.snippets = HeadsDb::open(out).count();
        return r;
    }
    r.kind = RunKind::Batch;
    r.merged = mergeShards(out, shards, log);
    return r;
}

} // namespace ascviz
