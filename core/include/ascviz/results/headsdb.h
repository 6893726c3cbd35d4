// The database of an `analyze heads` run over a corpus (docs/cli.md), owned by the results room (the one SQL
// owner of core): a SQLite file (results/sqlite.h) with
//   heads_meta(key, value)   schema_version (1), the run's settings (model, language, metric, corpus
//                            fingerprint, layers, max_k, shard, relations) and planned (the texts its shard
//                            set out to analyze)
//   heads_texts(id, record)  one row per analyzed text: its record (the attention room's text record as JSON,
//                            attention/headpartial.h), in the order written
// The run's runner (corpusrun/engine.h) writes every text in its own transaction, so a killed run (or a write
// that fails: a full disk) keeps every finished text and none twice. The records are opaque here: the attention
// room reads and tallies them.
#pragma once
#include "ascviz/results/sqlite.h"

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

inline constexpr int kHeadsSchemaVersion = 1;

class HeadsDb {
public:
    // Create: the file must not exist; it is built under a temporary name in the same folder (the schema and
    // the settings) and then moved into place, so a kill leaves no database or a complete one. Open: an
    // existing heads database (schema version checked); InputError naming the file otherwise.
    static HeadsDb create(const std::filesystem::path& path, const std::map<std::string, std::string>& meta);
    static HeadsDb open(const std::filesystem::path& path, bool writable = false);
    // True when the file is a SQLite database holding the table heads_meta (read-only; never throws).
    static bool isHeadsDb(const std::filesystem::path& path);

    std::map<std::string, std::string> meta() const;
    void setMeta(const std::string& key, const std::string& value) const; // one transaction
    void insert(const std::string& id, const std::string& record) const;  // one transaction
    std::set<std::string> ids() const;
    int count() const;
    // Every text's id and record, in the order written.
    void forEachRecord(const std::function<void(const std::string& id, const std::string& record)>& f) const;
    const std::filesystem::path& path() const { return m_db.path(); }

private:
    friend void mergeHeadsShards(const std::filesystem::path&, const std::vector<std::filesystem::path>&);
    explicit HeadsDb(sqlite::Db db) : m_db(std::move(db)) {}
    static HeadsDb createIn(const std::filesystem::path& file, const std::map<std::string, std::string>& meta);
    void writeText(const std::string& id, const std::string& record) const; // inside the caller's transaction
    sqlite::Db m_db;
};

// Joins the shard databases of one heads run (every I of N once, each complete: as many texts as planned) into
// `out` (which must not exist): the texts of all shards, meta `shard` = "" (the whole run: a merged database
// reads as an unsharded run's) and `planned` their sum. Throws InputError, writing nothing, for a missing,
// duplicate or incomplete shard, a text in two shards, or shards of another run (the setting named).
void mergeHeadsShards(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards);

} // namespace ascviz
