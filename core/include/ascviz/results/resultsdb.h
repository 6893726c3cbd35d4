// The results database of a batch run (one SQLite file per run, WAL mode). Schema (version 3):
//
//   run      one row: model_name, model_dir, architecture, device, dtype, parameters, context_length,
//            vocab_size, corpus_path, corpus_format, corpus_fingerprint, corpus_entries, language,
//            aggregation, planned, status (running|complete|cancelled), created, updated, version,
//            shard_index, shard_count (a shard of a run, batch --shard I/N; 0 and 1 for a whole run),
//            run_planned (snippets of the whole run; = planned for a whole run) — added in version 3
//   snippets idx (PRIMARY KEY, position in the corpus), id (UNIQUE), location, code, prompt_bytes, status
//            ('ok'|'error'), message, cross_entropy, asc_eval, tokens, ast_nodes, ast_levels, cyclomatic,
//            windowed (1: longer than the model context, scored in overlapping windows), seconds, created,
//            language (the snippet's registry id; NULL = the run's language; added in version 2)
//   tokens   (snippet, idx) PRIMARY KEY, id, start_byte, end_byte, ntp (NULL: unscored), generated, entropy,
//            topk_entropy, p1, margin, rank (the uncertainty of the forward pass; NULL: unscored, or stored by an
//            AsC-Viz before schema version 5)
//   nodes    (snippet, node) PRIMARY KEY, type, named, category, depth, parent, start_byte, end_byte, error,
//            asc_eval (NULL: no scored token aligned)
//
// Each snippet is written in one transaction with its tokens and nodes, so the file is always consistent
// (also after a crash or kill) and a run can be resumed. A ResultsDb object is used from one thread at a
// time; open another object (connection) for another thread.
#pragma once
#include "ascviz/eval/eval.h"
#include "ascviz/results/sqlite.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

class CategoryMap; // eval.h

// The state of a run (run.status: the text toString gives).
enum class RunStatus { Running, Complete, Cancelled };
std::string toString(RunStatus s);              // "running" | "complete" | "cancelled"
RunStatus parseRunStatus(const std::string& s); // throws InputError for any other text

struct RunInfo {
    std::string modelName;
    std::string modelDir;
    std::string architecture;
    std::string device;
    std::string dtype;
    int64_t parameters = 0;
    int64_t contextLength = 0;
    int64_t vocabSize = 0;
    std::string corpusPath;
    std::string corpusFormat;
    std::string corpusFingerprint;
    int64_t corpusEntries = 0; // usable entries in the corpus
    std::string language;
    Aggregation aggregation = Aggregation::Median; // stored as its name (toString)
    // θ over a node's own tokens or over its children's values (eval.h; stored as "tokens"/"children" since
    // schema 4; a file of an older schema reads as tokens)
    AggregationScope aggregationScope = AggregationScope::Tokens;
    int64_t planned = 0; // snippets the latest invocation meant to evaluate (after --limit)
    RunStatus status = RunStatus::Running;
    std::string created; // ISO 8601 UTC
    std::string updated;
    std::string version; // AsC-Viz version that wrote the run
    int shardIndex = 0;  // this file holds shard shardIndex of shardCount (batch --shard I/N)
    int shardCount = 1;
    int64_t runPlanned = 0; // snippets of the whole run (all shards); 0 when written: = planned
};

struct SnippetMeta {
    int64_t index = 0; // position in the corpus
    std::string id;
    std::string location;
    std::string code;
    std::size_t promptBytes = 0; // code.size() when all tokens are prompt
    bool ok = true;
    std::string message; // error text (status error) or a note (e.g. prompt not a prefix)
    bool windowed = false;
    double seconds = 0;
    std::string language; // the snippet's language ("" = the run's)
};

struct SnippetRow {
    int64_t index = 0;
    std::string id;
    std::string location;
    bool ok = true;
    std::string message;
    std::optional<double> crossEntropy;
    std::optional<double> ascEval;
    int tokens = 0;
    int astNodes = 0;
    int astLevels = 0;
    int cyclomatic = 0;
    bool windowed = false;
    std::size_t promptBytes = 0;
    double seconds = 0;
    std::string language; // the snippet's language (the run's for schema-1 files)
};

// A token of a status-ok snippet (ResultsDb::forEachOkToken).
struct TokenRow {
    int64_t snippet = 0;            // the snippet's index
    int64_t index = 0;              // position in the snippet's token sequence
    int64_t id = 0;                 // vocabulary id
    std::size_t start = 0, end = 0; // UTF-8 byte span in the snippet's code
    std::optional<double> ntp;      // NULL: unscored
    bool generated = false;
    // Entropy, top-K entropy, p1, margin, rank (scored.h); null for an unscored token and for every token of a
    // file an AsC-Viz before schema 5 wrote ("missing").
    std::optional<TokenUncertainty> uncertainty;
};

// A node with an AsC-Eval value of a status-ok snippet (ResultsDb::forEachNodeValue).
struct NodeValueRow {
    int64_t snippet = 0;
    int64_t node = 0;
    std::string type;
    std::optional<std::string> category; // the category the run stored
    std::string language;                // the snippet's language (the run's when it has none)
    double ascEval = 0;
};

// A node of a status-ok snippet with its span and parent (ResultsDb::forEachOkNode).
struct NodeRow {
    int64_t snippet = 0;
    int64_t node = 0;
    int64_t parent = -1; // -1 for the root
    std::optional<std::string> category;
    std::size_t start = 0, end = 0;
    std::string type;              // the concept (the grammar's node type)
    int64_t depth = 0;             // the root is 0
    std::optional<double> ascEval; // its AsC-Eval (null: no token aligned)
};

struct TableCounts {
    int64_t snippets = 0, ok = 0, errors = 0, tokens = 0, nodes = 0, windowed = 0;
};

class ResultsDb {
public:
    enum class Mode { ReadOnly, ReadWrite };

    // Creates a new results file; throws InputError when `path` already exists.
    static ResultsDb create(const std::filesystem::path& path, const RunInfo& info);
    // Opens an existing results file; throws InputError when it is missing or not an AsC-Viz results DB.
    static ResultsDb open(const std::filesystem::path& path, Mode mode = Mode::ReadOnly);

    ResultsDb(ResultsDb&& o) noexcept = default;
    ResultsDb& operator=(ResultsDb&& o) noexcept = default;
    ResultsDb(const ResultsDb&) = delete;
    ResultsDb& operator=(const ResultsDb&) = delete;
    ~ResultsDb() = default;

    const std::filesystem::path& path() const { return m_path; }

    // --- writing
    // One snippet with its tokens and nodes, in one transaction. `result` is null for an error row.
    // Throws Error when the snippet index or id is already stored.
    void writeSnippet(const SnippetMeta& meta, const EvalResult* result);
    void updateRun(const RunInfo& info); // rewrites the run row (status, planned, updated ...)
    // Copies every snippet of another results database with its tokens and nodes, in one transaction
    // (shards.h: merge). Throws Error, copying nothing, when an index or id is already stored here.
    void copySnippetsFrom(const std::filesystem::path& other);
    // Moves the write-ahead log into the file and truncates the log (a file complete on its own, for a copy).
    void checkpoint();

    // --- reading
    RunInfo runInfo() const;
    std::set<int64_t> doneIndices() const;
    TableCounts counts() const;
    std::vector<SnippetRow> snippets() const; // ordered by index
    std::string snippetCode(int64_t index) const;
    // Pooled local node values (status ok, asc_eval not null): concept (node type) -> values, in
    // (snippet, node) order; and node type -> category (for types that have one).
    struct NodeValues {
        std::map<std::string, std::vector<double>> byConcept;
        std::map<std::string, std::vector<double>> byCategory;
        std::map<std::string, std::string> categoryOf;
    };
    // Categories by `table` when given (node type -> category), else the category column the run stored.
    NodeValues nodeValues(const CategoryMap* table = nullptr) const;
    struct NodeValueQuery {
        std::optional<std::string> language; // only snippets in this language
        // The category table for a snippet language (null result: no categories); unset: the stored column.
        std::function<const CategoryMap*(const std::string& language)> table;
        bool qualifyConcepts = false; // concept keys "<language>:<type>" (mixed-language corpora)
    };
    NodeValues nodeValues(const NodeValueQuery& query) const;
    // Snippet languages of the status-ok snippets with their counts.
    std::map<std::string, int64_t> languages() const;
    // The tokens of the status-ok snippets, in (snippet, index) order.
    void forEachOkToken(const std::function<void(const TokenRow&)>& row) const;
    // Every node of the status-ok snippets, in (snippet, node) order.
    void forEachOkNode(const std::function<void(const NodeRow&)>& row) const;
    // The nodes with an AsC-Eval value of the status-ok snippets (only those in `language` when given), in
    // (snippet, node) order.
    void forEachNodeValue(const std::function<void(const NodeValueRow&)>& row,
                          const std::optional<std::string>& language = {}) const;
    // A read transaction: the reads until it ends see one state of the file, also while another connection
    // (a running batch) writes to it.
    [[nodiscard]] sqlite::Transaction readSnapshot() const;
    int schemaVersion() const { return m_schemaVersion; }

private:
    ResultsDb(sqlite::Db db, std::filesystem::path path);
    std::string languageColumn(const std::string& tableAlias) const; // SQL for a snippet's language
    sqlite::Db m_db;
    std::filesystem::path m_path;
    int m_schemaVersion = 0;
};

} // namespace ascviz
