// The Galeras runs database (docs/galeras.md), owned by the results room (the one SQL owner of core): a SQLite
// file (results/sqlite.h) with
//   galeras_meta(key, value)            schema_version (1), the run's settings (model, testbed, seed, ...)
//   galeras_runs(one row per record × treatment: record_id, treatment, is_control, prompt, partial,
//                ground_truth, completion, stop, generated_tokens, the outcomes, the confounders, error)
//   galeras_skipped(record_id, reason)  records the testbed left out
//   galeras_record_confounders(record_id, name, value)  the records' own numeric fields (precomputed
//                                       confounders), written with the record's first row
// Every row is written in its own transaction, so a killed run keeps every finished row and none twice.
#pragma once
#include "ascviz/results/sqlite.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

inline constexpr int kGalerasSchemaVersion = 1;

// The outcome and confounder columns, in table order.
const std::vector<std::string>& galerasOutcomes();    // levenshtein, bleu4, exact_match, ast_match, codebleu,
                                                      // asc_eval
const std::vector<std::string>& galerasConfounders(); // prompt_size, n_whitespaces, token_count, nloc,
                                                      // ast_nodes, ast_levels, cyclomatic
// The paper's confounders (seed 003: "We assumed that our cofounders are: prompt_size, n_whitespaces,
// token_count, nloc"): the default of analyze treatments.
const std::vector<std::string>& galerasPaperConfounders();

struct GalerasRow {
    std::string recordId, treatment;
    bool isControl = false;
    std::string prompt, partial, groundTruth, completion;
    std::string stop; // eos | length | function_end | context | cancelled | error
    int generatedTokens = 0;
    std::map<std::string, std::optional<double>> values; // outcome and confounder columns by name
    std::string error;                                   // "" = generated
    std::map<std::string, double> recordConfounders;     // the record's precomputed confounders
};

class GalerasDb {
public:
    // Create: the file must not exist; it is built under a temporary name in the same folder (the schema, the
    // settings and the skipped records) and then moved into place, so a kill leaves no database or a complete
    // one. Open: an existing runs database (schema checked).
    static GalerasDb create(const std::filesystem::path& path, const std::map<std::string, std::string>& meta,
                            const std::vector<std::pair<std::string, std::string>>& skipped = {});
    static GalerasDb open(const std::filesystem::path& path, bool writable = false);

    std::map<std::string, std::string> meta() const;
    void setMeta(const std::string& key, const std::string& value) const; // one transaction
    void insert(const GalerasRow& row) const;                             // one transaction
    void insertSkipped(const std::vector<std::pair<std::string, std::string>>& skipped) const;
    std::vector<std::pair<std::string, std::string>> doneKeys() const; // record_id, treatment
    std::vector<GalerasRow> rows() const;
    std::vector<std::pair<std::string, std::string>> skipped() const;
    // record id -> name -> value (empty for a database made before the table existed)
    std::map<std::string, std::map<std::string, double>> recordConfounders() const;
    const std::filesystem::path& path() const { return m_db.path(); }

private:
    friend void mergeGalerasShards(const std::filesystem::path&, const std::vector<std::filesystem::path>&);
    explicit GalerasDb(sqlite::Db db) : m_db(std::move(db)) {}
    std::set<std::string> runsColumns() const;
    // The schema, settings and skipped records in `file` (which must not exist), in place.
    static GalerasDb createIn(const std::filesystem::path& file, const std::map<std::string, std::string>& meta,
                              const std::vector<std::pair<std::string, std::string>>& skipped);
    void writeRow(const GalerasRow& row) const; // inside the caller's transaction
    void writeSkipped(const std::vector<std::pair<std::string, std::string>>& skipped) const;
    sqlite::Db m_db;
};

// Joins the shard databases of one run (galeras run --shard I/N, every I of N once, each complete) into `out`
// (which must not exist): the same rows and skipped records, meta `shard` = "merged/N". Throws InputError,
// writing nothing, for a missing, duplicate or incomplete shard or shards of another run (the setting named).
void mergeGalerasShards(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards);

} // namespace ascviz
