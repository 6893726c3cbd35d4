// Shards of a batch run (batch --shard I/N) and their merge into one results database.
//
// The slice: of the run's snippets (the corpus entries in file order, the first --limit of them when a
// limit is given), snippet k (0-based) belongs to shard k mod N. Round-robin rather than contiguous blocks,
// so that a corpus sorted by length or by source file spreads its long snippets over every shard. Each
// shard is a results database of its own (resultsdb.h: run.shard_index, shard_count, run_planned) that
// stores its snippets under their corpus positions, so the union of the shards is the single run.
#pragma once
#include "ascviz/results/resultsdb.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ascviz {

struct ShardSpec {
    int index = 0; // 0-based
    int count = 1; // 1: the whole run
    bool whole() const { return count == 1; }
    bool contains(int64_t snippet) const { return snippet % count == index; }
    // Snippets of this shard among the first `runPlanned` of the corpus.
    int64_t planned(int64_t runPlanned) const
    {
        return runPlanned > index ? (runPlanned - index + count - 1) / count : 0;
    }
    std::string toString() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 0 <= I < N; throws InputError otherwise.
ShardSpec parseShard(const std::string& text);

struct MergeReport {
    std::filesystem::path out;
    int shards = 0;
    int64_t snippets = 0;
    int64_t tokens = 0;
    int64_t nodes = 0;
};

// Merges the shard databases of one run into `out`, which must not exist. Checks, before anything is
// written: every input is a results database of the same corpus (fingerprint), model (name, architecture,
// parameters, vocabulary, dtype), language and aggregation; all were cut into the same N shards of the same
// run size; each shard 0..N-1 is given exactly once; each holds exactly its own snippets, all of them. Any
// failure throws InputError naming the files and shards concerned, and nothing is written. The result is
// a whole-run database (shard 0 of 1, status complete) whose snippets, tokens and nodes equal the shards'
// union: what a single-machine batch of the same corpus stores. Written to a temporary file beside `out`
// and renamed at the end, so an interrupted merge leaves no partial `out`.
MergeReport mergeShards(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards,
                        const std::function<void(const std::string&)>& log = {});

} // namespace ascviz
