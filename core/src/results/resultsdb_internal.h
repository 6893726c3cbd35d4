// Shared by the results database's files (resultsdb_schema.cpp, resultsdb_write.cpp, resultsdb_read.cpp).
#pragma once
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/sqlite.h"

namespace ascviz::resultsdb {

// 2: snippets.language (the snippet's language; mixed-language corpora). Version-1 files are read as
// written (every snippet in the run's language) and upgraded in place when opened for writing.
// 3: run.shard_index, run.shard_count, run.run_planned (a shard of a run: batch --shard I/N). Older files
// read as whole runs (shard 0 of 1) and are upgraded in place when opened for writing.
// 4: run.aggregation_scope.
// 5: tokens.entropy, topk_entropy, p1, margin, rank (the uncertainty of the forward pass, issue 59). Older files
// read with these missing (TokenRow::uncertainty null) and gain the columns, NULL, when opened for writing.
constexpr int kSchemaVersion = 5;

// How a results database is opened: its label in messages and, for a writer, what a failed write keeps.
sqlite::OpenOptions openOptions(sqlite::OpenMode mode);

// Writes the run row: INSERT (a new file) or UPDATE.
void writeRunRow(const sqlite::Db& db, const RunInfo& r, bool insert);

} // namespace ascviz::resultsdb
