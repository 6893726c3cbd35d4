// Shards of a batch run and their merge (shards.h).
#include "ascviz/results/shards.h"

#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "dbfile.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace ascviz {
namespace fs = std::filesystem;

ShardSpec parseShard(const std::string& text)
{
    const auto slash = text.find('/');
    auto number = [&](std::string_view s) -> std::optional<int> {
        int v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty())
            return std::nullopt;
        return v;
    };
    if (slash != std::string::npos) {
        const std::string_view all(text);
        const auto i = number(all.substr(0, slash));
        const auto n = number(all.substr(slash + 1));
        if (i && n && *n >= 1 && *i >= 0 && *i < *n)
            return ShardSpec{*i, *n};
    }
    throw InputError("shard '" + text + "' is not I/N with 0 <= I < N (shard I of N, 0-based; e.g. 0/4)");
}

namespace {

struct Input {
    fs::path path;
    RunInfo run;
    std::set<int64_t> done;
};

std::string names(const std::vector<std::string>& items)
{
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + items[i];
    return s;
}

// The fields every shard of one run shares, as "what = value" pairs in a fixed order.
std::vector<std::pair<std::string, std::string>> identity(const RunInfo& r)
{
    return {{"corpus fingerprint", r.corpusFingerprint},
            {"model", r.modelName},
            {"architecture", r.architecture},
            {"model parameters", std::to_string(r.parameters)},
            {"vocabulary size", std::to_string(r.vocabSize)},
            {"dtype", r.dtype},
            {"language", r.language},
            {"aggregation", toString(r.aggregation)},
            {"aggregation scope", toString(r.aggregationScope)},
            {"shard count", std::to_string(r.shardCount)},
            {"run size (snippets)", std::to_string(r.runPlanned)}};
}

void checkSameRun(const std::vector<Input>& in)
{
    const auto ref = identity(in.front().run);
    std::string diff;
    for (std::size_t k = 1; k < in.size(); ++k) {
        const auto id = identity(in[k].run);
        for (std::size_t f = 0; f < ref.size(); ++f)
            if (id[f].second != ref[f].second)
                diff += std::string(diff.empty() ? "" : "; ") + ref[f].first + " is '" + id[f].second + "' in " +
                        in[k].path.string() + " but '" + ref[f].second + "' in " + in.front().path.string();
    }
    if (!diff.empty())
        throw InputError("not shards of one run: " + diff + " (nothing written)");
}

void checkShardSet(const std::vector<Input>& in)
{
    const int n = in.front().run.shardCount;
    std::map<int, std::vector<std::string>> byShard;
    for (const auto& i : in)
        byShard[i.run.shardIndex].push_back(i.path.string());
    std::vector<std::string> problems;
    std::vector<std::string> missing;
    for (int s = 0; s < n; ++s)
        if (!byShard.count(s))
            missing.push_back(ShardSpec{s, n}.toString());
    if (!missing.empty())
        problems.push_back("missing shard" + std::string(missing.size() > 1 ? "s " : " ") + names(missing));
    for (const auto& [s, files] : byShard)
        if (files.size() > 1)
            problems.push_back("shard " + ShardSpec{s, n}.toString() + " given " + std::to_string(files.size()) +
                               " times (" + names(files) + ")");
    if (!problems.empty())
        throw InputError("cannot merge: " + names(problems) + " (nothing written)");
}

void checkShardContent(const std::vector<Input>& in)
{
    std::vector<std::string> problems;
    bool incomplete = false;              // a shard's batch stopped before its end: resuming it completes the shard
    std::map<int64_t, std::string> owner; // snippet -> file (duplicates across files)
    for (const auto& i : in) {
        const ShardSpec spec{i.run.shardIndex, i.run.shardCount};
        int64_t expected = 0, have = 0;
        std::vector<int64_t> foreign;
        for (int64_t s = 0; s < i.run.runPlanned; ++s)
            if (spec.contains(s)) {
                ++expected;
                have += i.done.count(s) ? 1 : 0;
            }
        for (int64_t s : i.done) {
            if (s >= i.run.runPlanned || !spec.contains(s))
                foreign.push_back(s);
            const auto [it, fresh] = owner.emplace(s, i.path.string());
            if (!fresh)
                problems.push_back("snippet " + std::to_string(s) + " is in both " + it->second + " and " +
                                   i.path.string());
        }
        if (have < expected) {
            problems.push_back("shard " + spec.toString() + " (" + i.path.string() + ") is incomplete: " +
                               std::to_string(have) + " of " + std::to_string(expected) + " snippets");
            incomplete = true;
        }
        if (!foreign.empty())
            problems.push_back(i.path.string() + " holds " + std::to_string(foreign.size()) +
                               " snippet(s) outside shard " + spec.toString() +
                               " (first: " + std::to_string(foreign.front()) + ")");
    }
    if (!problems.empty()) {
        const std::size_t shown = std::min<std::size_t>(problems.size(), 8);
        std::vector<std::string> head(problems.begin(), problems.begin() + static_cast<std::ptrdiff_t>(shown));
        ErrorContext ctx;
        ctx.remedy = incomplete ? Remedy::Resume : Remedy::None;
        throw InputError(
            "cannot merge: " + names(head) +
                (problems.size() > shown ? " and " + std::to_string(problems.size() - shown) + " more" : "") +
                " (nothing written)",
            std::move(ctx));
    }
}

void removeDbFiles(const fs::path& p)
{
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(p.string() + suffix, ec);
}

} // namespace

MergeReport mergeShards(const fs::path& out, const std::vector<fs::path>& shardPaths,
                        const std::function<void(const std::string&)>& log)
{
    if (shardPaths.empty())
        throw InputError("merge: no shard databases given");
    std::error_code ec;
    if (fs::exists(out, ec)) {
        ErrorContext ctx(out.string());
        ctx.remedy = Remedy::NewOutput;
        throw InputError("merge: " + out.string() + " already exists (nothing written)", std::move(ctx));
    }
    {
        std::set<fs::path> seen;
        for (const auto& p : shardPaths) {
            const fs::path c = fs::weakly_canonical(p, ec);
            if (!seen.insert(ec ? p : c).second)
                throw InputError("merge: " + p.string() + " is given twice (nothing written)");
        }
    }
    std::vector<Input> in;
    for (const auto& p : shardPaths) {
        const ResultsDb db = ResultsDb::open(p);
        in.push_back({p, db.runInfo(), db.doneIndices()});
    }
    checkSameRun(in);
    checkShardSet(in);
    checkShardContent(in);

    RunInfo run = in.front().run;
    run.shardIndex = 0;
    run.shardCount = 1;
    run.planned = run.runPlanned;
    run.status = RunStatus::Complete;
    run.version = ascvizVersion();
    run.updated.clear();
    for (const auto& i : in)
        run.created = std::min(run.created, i.run.created); // the run began with its first shard

    const fs::path tmp = dbfile::tempBeside(out, "partial"); // and the files of a killed merge go

    MergeReport rep;
    rep.out = out;
    rep.shards = static_cast<int>(in.size());
    try {
        {
            ResultsDb db = ResultsDb::create(tmp, run);
            std::sort(in.begin(), in.end(),
                      [](const Input& a, const Input& b) { return a.run.shardIndex < b.run.shardIndex; });
            for (const auto& i : in) {
                db.copySnippetsFrom(i.path);
                if (log)
                    log("merged shard " + ShardSpec{i.run.shardIndex, i.run.shardCount}.toString() + " (" +
                        std::to_string(i.done.size()) + " snippets) from " + i.path.string());
            }
            const TableCounts c = db.counts();
            rep.snippets = c.snippets;
            rep.tokens = c.tokens;
            rep.nodes = c.nodes;
            if (c.snippets != run.runPlanned)
                throw Error("merge: " + std::to_string(c.snippets) + " snippets copied, " +
                            std::to_string(run.runPlanned) + " expected");
            db.checkpoint();
        }
        // link(2) never replaces: a file that appeared at `out` meanwhile is kept, and the merge fails.
        if (::link(tmp.c_str(), out.c_str()) != 0)
            throw InputError("merge: cannot create " + out.string() + ": " + std::strerror(errno) +
                             " (nothing written)");
        removeDbFiles(tmp);
    } catch (...) {
        removeDbFiles(tmp);
        throw;
    }
    return rep;
}

} // namespace ascviz
