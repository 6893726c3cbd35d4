// The kind of a run's file, and one merge for the shards of every kind (`ascviz-cli merge`): the results
// database of a batch run (resultsdb.h, merged by mergeShards), the Galeras runs database (galerasdb.h,
// merged by mergeGalerasShards) and the heads run database (headsdb.h, merged by mergeHeadsShards). All are
// written by the corpus-run engine's runners (corpusrun/engine.h).
#pragma once
#include "ascviz/results/shards.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ascviz {

enum class RunKind {
    Batch,   // a results database (table run)
    Galeras, // a Galeras runs database (table galeras_meta)
    Heads,   // an analyze heads run database (table heads_meta)
    Unknown, // missing, not SQLite, or neither
};
std::string toString(RunKind kind); // "batch", "galeras", "heads", "unknown"

// Reads the file's tables (read-only); never throws for a file that is not a run's.
RunKind runKindOf(const std::filesystem::path& file);

struct RunMergeReport {
    RunKind kind = RunKind::Batch;
    MergeReport merged; // for Galeras: `snippets` counts the rows (record x treatment), for heads the texts;
                        // tokens and nodes 0
};

// Merges the shards of one run into `out` by the kind of the first shard (a file of unknown kind is handed to
// mergeShards, whose message says what it is not). Throws InputError, writing nothing, when the shards are of
// different kinds (both files named), and what the kind's merge throws.
RunMergeReport mergeRuns(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards,
                         const std::function<void(const std::string&)>& log = {});

} // namespace ascviz
