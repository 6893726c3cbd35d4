// The results database's writer: the run row, one transaction per snippet, the copy of a shard (resultsdb.h).
#include "ascviz/results/resultsdb.h"
#include "resultsdb_internal.h"

#include "ascviz/base/clock.h"
#include "ascviz/base/error.h"
#include "ascviz/base/version.h"

#include <cmath>
#include <optional>

namespace ascviz {
namespace fs = std::filesystem;

void resultsdb::writeRunRow(const sqlite::Db& db, const RunInfo& r, bool insert)
{
    const char* sql =
        insert
            ? "INSERT INTO run (one, schema_version, model_name, model_dir, architecture, device, dtype, parameters, "
              "context_length, vocab_size, corpus_path, corpus_format, corpus_fingerprint, corpus_entries, language, "
              "aggregation, planned, status, created, updated, version, shard_index, shard_count, run_planned, "
              "aggregation_scope) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
              "?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)"
            : "UPDATE run SET schema_version = ?1, model_name = ?2, model_dir = ?3, architecture = ?4, device = ?5, "
              "dtype = ?6, parameters = ?7, context_length = ?8, vocab_size = ?9, corpus_path = ?10, "
              "corpus_format = ?11, corpus_fingerprint = ?12, corpus_entries = ?13, language = ?14, "
              "aggregation = ?15, planned = ?16, status = ?17, created = ?18, updated = ?19, version = ?20, "
              "shard_index = ?21, shard_count = ?22, run_planned = ?23, aggregation_scope = ?24 WHERE one = 1";
    sqlite::Stmt st(db, sql, "writing the run row");
    st.bindAll(kSchemaVersion, r.modelName, r.modelDir, r.architecture, r.device, r.dtype, r.parameters,
               r.contextLength, r.vocabSize, r.corpusPath, r.corpusFormat, r.corpusFingerprint, r.corpusEntries,
               r.language, toString(r.aggregation), r.planned, toString(r.status),
               r.created.empty() ? isoTimestampUtc() : r.created, r.updated.empty() ? isoTimestampUtc() : r.updated,
               r.version.empty() ? ascvizVersion() : r.version, r.shardIndex, r.shardCount,
               r.runPlanned > 0 ? r.runPlanned : r.planned, toString(r.aggregationScope));
    st.run();
}

namespace {

std::optional<std::string> nonEmpty(const std::string& s)
{
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

void writeTokens(const sqlite::Db& db, int64_t snippet, const EvalResult& r)
{
    sqlite::Stmt tk(db,
                    "INSERT INTO tokens (snippet, idx, id, start_byte, end_byte, ntp, generated, entropy, "
                    "topk_entropy, p1, margin, rank) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                    "writing the tokens of snippet " + std::to_string(snippet));
    const auto& toks = r.scored.tokens;
    for (std::size_t i = 0; i < toks.size(); ++i) {
        const auto& t = toks[i];
        const auto& u = t.uncertainty;
        const auto real = [&](double TokenUncertainty::*f) {
            return u && std::isfinite((*u).*f) ? std::optional<double>((*u).*f) : std::nullopt;
        };
        tk.bindAll(snippet, static_cast<int64_t>(i), int64_t{t.id}, static_cast<int64_t>(t.start),
                   static_cast<int64_t>(t.end), t.ntp, t.generated, real(&TokenUncertainty::entropy),
                   real(&TokenUncertainty::topkEntropy), real(&TokenUncertainty::p1), real(&TokenUncertainty::margin),
                   u ? std::optional<int64_t>(u->rank) : std::nullopt);
        tk.run();
    }
}

void writeNodes(const sqlite::Db& db, int64_t snippet, const EvalResult& r)
{
    sqlite::Stmt nd(db,
                    "INSERT INTO nodes (snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
                    "error, asc_eval) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                    "writing the nodes of snippet " + std::to_string(snippet));
    const auto& nodes = r.tree.nodes();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const auto& n = nodes[k];
        const NodeEval* ev = k < r.nodes.size() ? &r.nodes[k] : nullptr;
        nd.bindAll(snippet, int64_t{n.id}, n.type, n.named, ev ? ev->category : std::nullopt, int64_t{n.depth},
                   n.parent >= 0 ? std::optional<int64_t>(n.parent) : std::nullopt, static_cast<int64_t>(n.start),
                   static_cast<int64_t>(n.end), n.error(), ev ? ev->value : std::nullopt);
        nd.run();
    }
}

} // namespace

void ResultsDb::writeSnippet(const SnippetMeta& m, const EvalResult* r)
{
    sqlite::Transaction tx(m_db);
    if (m_schemaVersion < resultsdb::kSchemaVersion)
        throw Error("results database " + m_path.string() + ": opened read-only as schema version " +
                    std::to_string(m_schemaVersion));
    {
        sqlite::Stmt st(m_db,
                        "INSERT INTO snippets (idx, id, location, code, prompt_bytes, status, message, cross_entropy, "
                        "asc_eval, tokens, ast_nodes, ast_levels, cyclomatic, windowed, seconds, created, language) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                        "writing snippet " + m.id);
        std::optional<double> ce, ascEval;
        int64_t tokens = 0, astNodes = 0, astLevels = 0, cyclomatic = 0;
        if (r) {
            const double c = r->scored.crossEntropy();
            ce = c == c ? std::optional<double>(c) : std::nullopt;
            ascEval = r->features.ascEval;
            tokens = r->features.tokens;
            astNodes = r->features.astNodes;
            astLevels = r->features.astLevels;
            cyclomatic = r->features.cyclomatic;
        }
        st.bindAll(m.index, m.id, m.location, m.code, static_cast<int64_t>(m.promptBytes),
                   std::string(m.ok && r ? "ok" : "error"), nonEmpty(m.message), ce, ascEval, tokens, astNodes,
                   astLevels, cyclomatic, m.windowed, m.seconds, isoTimestampUtc(), nonEmpty(m.language));
        try {
            st.step();
        } catch (const SqliteError& e) {
            if (e.failure() == SqliteFailure::Constraint)
                throw Error("results database " + m_path.string() + ": snippet " + std::to_string(m.index) + " ('" +
                                m.id + "') is already stored",
                            ErrorContext(m_path.string()));
            throw;
        }
    }
    if (r) {
        writeTokens(m_db, m.index, *r);
        writeNodes(m_db, m.index, *r);
    }
    {
        sqlite::Stmt up(m_db, "UPDATE run SET updated = ?1 WHERE one = 1", "writing the run's update time");
        up.bind(1, isoTimestampUtc());
        up.run();
    }
    tx.commit();
}

void ResultsDb::updateRun(const RunInfo& info)
{
    RunInfo r = info;
    r.updated = isoTimestampUtc();
    resultsdb::writeRunRow(m_db, r, false);
}

void ResultsDb::copySnippetsFrom(const fs::path& other)
{
    const ResultsDb src = open(other); // validates the file and tells its schema
    const bool hasLanguage = src.schemaVersion() >= 2;
    {
        sqlite::Stmt at(m_db, "ATTACH DATABASE ?1 AS src", "attaching " + other.string());
        at.bind(1, other.string());
        at.run();
    }
    try {
        sqlite::Transaction tx(m_db);
        const std::string what = "copying from " + other.string();
        const std::string cols = "idx, id, location, code, prompt_bytes, status, message, cross_entropy, asc_eval, "
                                 "tokens, ast_nodes, ast_levels, cyclomatic, windowed, seconds, created";
        m_db.exec("INSERT INTO main.snippets (" + cols + ", language) SELECT " + cols + ", " +
                      (hasLanguage ? "language" : "NULL") + " FROM src.snippets ORDER BY idx",
                  "snippets: " + what);
        const std::string uncertainty =
            src.schemaVersion() >= 5 ? "entropy, topk_entropy, p1, margin, rank" : "NULL, NULL, NULL, NULL, NULL";
        m_db.exec("INSERT INTO main.tokens (snippet, idx, id, start_byte, end_byte, ntp, generated, entropy, "
                  "topk_entropy, p1, margin, rank) SELECT snippet, idx, id, start_byte, end_byte, ntp, generated, " +
                      uncertainty + " FROM src.tokens ORDER BY snippet, idx",
                  "tokens: " + what);
        m_db.exec("INSERT INTO main.nodes (snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
                  "error, asc_eval) SELECT snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
                  "error, asc_eval FROM src.nodes ORDER BY snippet, node",
                  "nodes: " + what);
        tx.commit();
    } catch (...) {
        try {
            m_db.exec("DETACH DATABASE src", "detaching " + other.string());
        } catch (const SqliteError&) {
        }
        throw;
    }
    m_db.exec("DETACH DATABASE src", "detaching " + other.string());
}

void ResultsDb::checkpoint()
{
    m_db.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing the write-ahead log");
}

} // namespace ascviz
