// The results database's readers (resultsdb.h).
#include "ascviz/results/resultsdb.h"
#include "resultsdb_internal.h"

#include "ascviz/base/error.h"

#include <limits>

namespace ascviz {

RunInfo ResultsDb::runInfo() const
{
    const std::string sql = std::string("SELECT model_name, model_dir, architecture, device, dtype, parameters, "
                                        "context_length, vocab_size, corpus_path, corpus_format, corpus_fingerprint, "
                                        "corpus_entries, language, aggregation, planned, status, created, updated, "
                                        "version") +
                            (m_schemaVersion >= 3 ? ", shard_index, shard_count, run_planned" : "") +
                            (m_schemaVersion >= 4 ? ", aggregation_scope" : "") + " FROM run WHERE one = 1";
    sqlite::Stmt st(m_db, sql, "reading the run row");
    if (!st.step())
        throw InputError(m_path.string() + ": the run row is missing", ErrorContext(m_path.string()));
    RunInfo r;
    r.modelName = st.text(0);
    r.modelDir = st.text(1);
    r.architecture = st.text(2);
    r.device = st.text(3);
    r.dtype = st.text(4);
    r.parameters = st.int64(5);
    r.contextLength = st.int64(6);
    r.vocabSize = st.int64(7);
    r.corpusPath = st.text(8);
    r.corpusFormat = st.text(9);
    r.corpusFingerprint = st.text(10);
    r.corpusEntries = st.int64(11);
    r.language = st.text(12);
    try {
        r.aggregation = parseAggregation(st.text(13));
        r.status = parseRunStatus(st.text(15));
    } catch (const InputError& e) {
        throw InputError(m_path.string() + ": the run row: " + e.what(), ErrorContext(m_path.string()));
    }
    r.planned = st.int64(14);
    r.created = st.text(16);
    r.updated = st.text(17);
    r.version = st.text(18);
    if (m_schemaVersion >= 3) {
        r.shardIndex = static_cast<int>(st.int64(19));
        r.shardCount = static_cast<int>(st.int64(20));
        r.runPlanned = st.optionalInt64(21).value_or(r.planned);
    } else {
        r.runPlanned = r.planned;
    }
    if (m_schemaVersion >= 4) {
        try {
            r.aggregationScope = parseAggregationScope(st.text(22));
        } catch (const InputError& e) {
            throw InputError(m_path.string() + ": the run row: " + e.what(), ErrorContext(m_path.string()));
        }
    }
    return r;
}

std::set<int64_t> ResultsDb::doneIndices() const
{
    std::set<int64_t> out;
    sqlite::Stmt st(m_db, "SELECT idx FROM snippets", "reading the stored snippet indices");
    while (st.step())
        out.insert(st.int64(0));
    return out;
}

TableCounts ResultsDb::counts() const
{
    TableCounts c;
    sqlite::Stmt st(m_db,
                    "SELECT COUNT(*), COALESCE(SUM(status = 'ok'), 0), COALESCE(SUM(status = 'error'), 0), "
                    "COALESCE(SUM(windowed), 0), (SELECT COUNT(*) FROM tokens), (SELECT COUNT(*) FROM nodes) "
                    "FROM snippets",
                    "counting rows");
    st.step();
    c.snippets = st.int64(0);
    c.ok = st.int64(1);
    c.errors = st.int64(2);
    c.windowed = st.int64(3);
    c.tokens = st.int64(4);
    c.nodes = st.int64(5);
    return c;
}

std::vector<SnippetRow> ResultsDb::snippets() const
{
    std::vector<SnippetRow> out;
    const std::string sql = "SELECT idx, id, location, status, message, cross_entropy, asc_eval, tokens, ast_nodes, "
                            "ast_levels, cyclomatic, windowed, prompt_bytes, seconds, " +
                            languageColumn("") + " FROM snippets ORDER BY idx";
    sqlite::Stmt st(m_db, sql, "reading the snippets");
    while (st.step()) {
        SnippetRow r;
        r.index = st.int64(0);
        r.id = st.text(1);
        r.location = st.text(2);
        r.ok = st.text(3) == "ok";
        r.message = st.text(4);
        r.crossEntropy = st.optionalReal(5);
        r.ascEval = st.optionalReal(6);
        r.tokens = static_cast<int>(st.int64(7));
        r.astNodes = static_cast<int>(st.int64(8));
        r.astLevels = static_cast<int>(st.int64(9));
        r.cyclomatic = static_cast<int>(st.int64(10));
        r.windowed = st.int64(11) != 0;
        r.promptBytes = static_cast<std::size_t>(st.int64(12));
        r.seconds = st.real(13);
        r.language = st.text(14);
        out.push_back(std::move(r));
    }
    return out;
}

std::string ResultsDb::snippetCode(int64_t index) const
{
    sqlite::Stmt st(m_db, "SELECT code FROM snippets WHERE idx = ?1", "reading the code of a snippet");
    st.bind(1, index);
    if (!st.step())
        throw InputError(m_path.string() + ": no snippet with index " + std::to_string(index),
                         ErrorContext(m_path.string()));
    return st.text(0);
}

std::string ResultsDb::languageColumn(const std::string& alias) const
{
    // A snippet without a language of its own (schema 1, or written without one) is in the run's language.
    const std::string col = alias.empty() ? "language" : alias + ".language";
    return m_schemaVersion >= 2 ? "COALESCE(" + col + ", (SELECT language FROM run WHERE one = 1))"
                                : std::string("(SELECT language FROM run WHERE one = 1)");
}

std::map<std::string, int64_t> ResultsDb::languages() const
{
    std::map<std::string, int64_t> out;
    const std::string sql = "SELECT " + languageColumn("") +
                            " AS lang, COUNT(*) FROM snippets WHERE status = 'ok' "
                            "GROUP BY lang";
    sqlite::Stmt st(m_db, sql, "reading the snippet languages");
    while (st.step())
        out[st.text(0)] = st.int64(1);
    return out;
}

void ResultsDb::forEachOkToken(const std::function<void(const TokenRow&)>& row) const
{
    // Files of schema < 5 hold no uncertainty: read as missing.
    const std::string uncertainty =
        m_schemaVersion >= 5 ? "t.entropy, t.topk_entropy, t.p1, t.margin, t.rank" : "NULL, NULL, NULL, NULL, NULL";
    sqlite::Stmt st(m_db,
                    "SELECT t.snippet, t.idx, t.id, t.start_byte, t.end_byte, t.ntp, t.generated, " + uncertainty +
                        " FROM tokens t JOIN snippets s ON s.idx = t.snippet WHERE s.status = 'ok' ORDER BY "
                        "t.snippet, t.idx",
                    "reading the tokens");
    TokenRow t;
    while (st.step()) {
        t.snippet = st.int64(0);
        t.index = st.int64(1);
        t.id = st.int64(2);
        t.start = static_cast<std::size_t>(st.int64(3));
        t.end = static_cast<std::size_t>(st.int64(4));
        t.ntp = st.optionalReal(5);
        t.generated = st.int64(6) != 0;
        t.uncertainty.reset();
        const auto p1 = st.optionalReal(9), rank = st.optionalReal(11);
        if (p1 && rank) {
            TokenUncertainty u;
            u.entropy = st.optionalReal(7).value_or(std::numeric_limits<double>::quiet_NaN());
            u.topkEntropy = st.optionalReal(8).value_or(std::numeric_limits<double>::quiet_NaN());
            u.p1 = *p1;
            u.margin = st.optionalReal(10).value_or(std::numeric_limits<double>::quiet_NaN());
            u.rank = static_cast<int64_t>(*rank);
            t.uncertainty = u;
        }
        row(t);
    }
}

void ResultsDb::forEachOkNode(const std::function<void(const NodeRow&)>& row) const
{
    sqlite::Stmt st(m_db,
                    "SELECT n.snippet, n.node, n.parent, n.category, n.start_byte, n.end_byte, n.type, n.depth, "
                    "n.asc_eval FROM nodes n "
                    "JOIN snippets s ON s.idx = n.snippet WHERE s.status = 'ok' ORDER BY n.snippet, n.node",
                    "reading the nodes");
    NodeRow n;
    while (st.step()) {
        n.snippet = st.int64(0);
        n.node = st.int64(1);
        n.parent = st.optionalInt64(2).value_or(-1);
        n.category = st.optionalText(3);
        n.start = static_cast<std::size_t>(st.int64(4));
        n.end = static_cast<std::size_t>(st.int64(5));
        n.type = st.text(6);
        n.depth = st.int64(7);
        n.ascEval = st.optionalReal(8);
        row(n);
    }
}

void ResultsDb::forEachNodeValue(const std::function<void(const NodeValueRow&)>& row,
                                 const std::optional<std::string>& language) const
{
    std::string sql = "SELECT n.snippet, n.node, n.type, n.category, n.asc_eval, " + languageColumn("s") +
                      " AS lang FROM nodes n JOIN snippets s ON s.idx = n.snippet "
                      "WHERE s.status = 'ok' AND n.asc_eval IS NOT NULL";
    if (language)
        sql += " AND " + languageColumn("s") + " = ?1";
    sql += " ORDER BY n.snippet, n.node";
    sqlite::Stmt st(m_db, sql, "reading the node values");
    if (language)
        st.bind(1, *language);
    NodeValueRow n;
    while (st.step()) {
        n.snippet = st.int64(0);
        n.node = st.int64(1);
        n.type = st.text(2);
        n.category = st.optionalText(3);
        n.ascEval = st.real(4);
        n.language = st.text(5);
        row(n);
    }
}

ResultsDb::NodeValues ResultsDb::nodeValues(const CategoryMap* table) const
{
    NodeValueQuery q;
    if (table)
        q.table = [table](const std::string&) { return table; };
    return nodeValues(q);
}

ResultsDb::NodeValues ResultsDb::nodeValues(const NodeValueQuery& q) const
{
    NodeValues v;
    std::string lastLang;
    const CategoryMap* table = nullptr;
    forEachNodeValue(
        [&](const NodeValueRow& n) {
            if (q.table && (table == nullptr || n.language != lastLang)) {
                table = q.table(n.language);
                lastLang = n.language;
            }
            std::optional<std::string> category;
            if (table)
                category = table->categoryOf(n.type);
            else if (!q.table)
                category = n.category;
            std::string type = q.qualifyConcepts ? n.language + ":" + n.type : n.type;
            if (category) {
                std::string cat = std::move(*category);
                v.byCategory[cat].push_back(n.ascEval);
                v.categoryOf.emplace(type, std::move(cat));
            }
            v.byConcept[std::move(type)].push_back(n.ascEval);
        },
        q.language);
    return v;
}

sqlite::Transaction ResultsDb::readSnapshot() const
{
    return sqlite::Transaction(m_db, sqlite::Transaction::Kind::Deferred);
}

} // namespace ascviz
