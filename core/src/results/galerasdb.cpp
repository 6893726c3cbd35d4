// The Galeras runs database (galerasdb.h).
#include "ascviz/results/galerasdb.h"

#include "dbfile.h"

#include "ascviz/base/error.h"
#include "ascviz/results/shards.h"

#include <set>

namespace ascviz {
namespace {

sqlite::OpenOptions options(sqlite::OpenMode mode)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.label = "Galeras runs database";
    o.advice.otherWriter = "another galeras run on the same file";
    o.advice.kept = "every row stored so far is kept";
    o.advice.remedy = Remedy::Resume;
    return o;
}

std::vector<std::string> valueColumns()
{
    auto v = galerasOutcomes();
    const auto& c = galerasConfounders();
    v.insert(v.end(), c.begin(), c.end());
    return v;
}

const char* kTextColumns = "record_id, treatment, is_control, prompt, partial, ground_truth, completion, stop, "
                           "generated_tokens, error";

using dbfile::publish;
using dbfile::removeDbFiles;
using dbfile::tempBeside;

} // namespace

const std::vector<std::string>& galerasOutcomes()
{
    static const std::vector<std::string> v = {"levenshtein", "bleu4",    "exact_match",
                                               "ast_match",   "codebleu", "asc_eval"};
    return v;
}

const std::vector<std::string>& galerasConfounders()
{
    static const std::vector<std::string> v = {"prompt_size", "n_whitespaces", "token_count", "nloc",
                                               "ast_nodes",   "ast_levels",    "cyclomatic"};
    return v;
}

const std::vector<std::string>& galerasPaperConfounders()
{
    static const std::vector<std::string> v = {"prompt_size", "n_whitespaces", "token_count", "nloc"};
    return v;
}

GalerasDb GalerasDb::createIn(const std::filesystem::path& file, const std::map<std::string, std::string>& meta,
                              const std::vector<std::pair<std::string, std::string>>& skipped)
{
    GalerasDb g(sqlite::Db::open(file, options(sqlite::OpenMode::Create)));
    std::string cols;
    for (const auto& c : valueColumns())
        cols += ", " + c + " REAL";
    g.m_db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", "setting up the runs database");
    // the tables, the settings and the skipped records in one transaction
    sqlite::Transaction tx(g.m_db);
    g.m_db.exec("CREATE TABLE galeras_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE galeras_runs(record_id TEXT NOT NULL, treatment TEXT NOT NULL, is_control INTEGER "
                "NOT NULL, prompt TEXT NOT NULL, partial TEXT NOT NULL, ground_truth TEXT NOT NULL, completion TEXT "
                "NOT NULL, stop TEXT NOT NULL, generated_tokens INTEGER NOT NULL, error TEXT NOT NULL" +
                    cols +
                    ", PRIMARY KEY(record_id, treatment));"
                    "CREATE TABLE galeras_skipped(record_id TEXT PRIMARY KEY, reason TEXT NOT NULL);"
                    "CREATE TABLE galeras_record_confounders(record_id TEXT NOT NULL, name TEXT NOT NULL, value REAL "
                    "NOT NULL, PRIMARY KEY(record_id, name));",
                "creating the Galeras tables");
    sqlite::Stmt st(g.m_db, "INSERT INTO galeras_meta(key, value) VALUES(?, ?)", "writing the run's settings");
    st.bindAll(std::string("schema_version"), std::to_string(kGalerasSchemaVersion)).run();
    for (const auto& [k, v] : meta)
        st.bindAll(k, v).run();
    g.writeSkipped(skipped);
    tx.commit();
    return g;
}

GalerasDb GalerasDb::create(const std::filesystem::path& path, const std::map<std::string, std::string>& meta,
                            const std::vector<std::pair<std::string, std::string>>& skipped)
{
    if (std::filesystem::exists(path)) {
        ErrorContext where(path.string());
        where.remedy = Remedy::Resume | Remedy::NewOutput;
        throw InputError("Galeras runs database " + path.string() + " exists", where);
    }
    // Built beside its place and moved there whole: a kill at any moment leaves either no database or a
    // complete one (schema, settings, skipped records), never a file without its settings.
    const std::filesystem::path tmp = tempBeside(path, "creating");
    try {
        createIn(tmp, meta, skipped); // closed here: the write-ahead log is checkpointed into the file
        publish(tmp, path);
    } catch (...) {
        removeDbFiles(tmp);
        throw;
    }
    return open(path, true);
}

GalerasDb GalerasDb::open(const std::filesystem::path& path, bool writable)
{
    if (!std::filesystem::exists(path))
        throw InputError("Galeras runs database " + path.string() + " does not exist", ErrorContext(path.string()));
    GalerasDb g(sqlite::Db::open(path, options(writable ? sqlite::OpenMode::ReadWrite : sqlite::OpenMode::ReadOnly)));
    std::map<std::string, std::string> m;
    try {
        m = g.meta();
    } catch (const SqliteError&) {
        throw InputError(path.string() + " is not a Galeras runs database (no galeras_meta table; made by "
                                         "`ascviz-cli galeras run`)",
                         ErrorContext(path.string()));
    }
    if (m["schema_version"] != std::to_string(kGalerasSchemaVersion))
        throw InputError(path.string() + " has Galeras schema version '" + m["schema_version"] +
                             "'; this build reads " + std::to_string(kGalerasSchemaVersion),
                         ErrorContext(path.string()));
    // a database made before an outcome existed (codebleu): the column is added when the file is opened for
    // writing (a resumed run fills it for its new rows) and read as null otherwise
    if (writable) {
        const auto have = g.runsColumns();
        for (const auto& c : valueColumns())
            if (!have.count(c))
                g.m_db.exec("ALTER TABLE galeras_runs ADD COLUMN " + c + " REAL", "adding the column " + c);
    }
    return g;
}

std::set<std::string> GalerasDb::runsColumns() const
{
    std::set<std::string> out;
    sqlite::Stmt st(m_db, "SELECT name FROM pragma_table_info('galeras_runs')", "reading the runs' columns");
    while (st.step())
        out.insert(st.text(0));
    return out;
}

std::map<std::string, std::string> GalerasDb::meta() const
{
    return dbfile::readMeta(m_db, "galeras_meta");
}

void GalerasDb::setMeta(const std::string& key, const std::string& value) const
{
    dbfile::writeMeta(m_db, "galeras_meta", key, value);
}

void GalerasDb::insert(const GalerasRow& r) const
{
    sqlite::Transaction tx(m_db);
    writeRow(r);
    tx.commit();
}

void GalerasDb::writeRow(const GalerasRow& r) const
{
    std::string names = kTextColumns, qs = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
    for (const auto& c : valueColumns()) {
        names += ", " + c;
        qs += ", ?";
    }
    sqlite::Stmt st(m_db, "INSERT INTO galeras_runs(" + names + ") VALUES(" + qs + ")",
                    "writing record " + r.recordId + " under treatment " + r.treatment);
    st.bindAll(r.recordId, r.treatment, int64_t(r.isControl ? 1 : 0), r.prompt, r.partial, r.groundTruth, r.completion,
               r.stop, int64_t(r.generatedTokens), r.error);
    int i = 10;
    for (const auto& c : valueColumns()) {
        const auto it = r.values.find(c);
        st.bind(++i, it == r.values.end() ? std::optional<double>() : it->second);
    }
    st.run();
    if (!r.recordConfounders.empty()) {
        sqlite::Stmt rc(m_db,
                        "INSERT OR IGNORE INTO galeras_record_confounders(record_id, name, value) VALUES(?, ?, ?)",
                        "writing record " + r.recordId + "'s confounders");
        for (const auto& [name, v] : r.recordConfounders)
            rc.bindAll(r.recordId, name, v).run();
    }
}

std::map<std::string, std::map<std::string, double>> GalerasDb::recordConfounders() const
{
    std::map<std::string, std::map<std::string, double>> out;
    sqlite::Stmt has(m_db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'galeras_record_confounders'",
                     "reading the records' confounders");
    if (!has.step())
        return out;
    sqlite::Stmt st(m_db, "SELECT record_id, name, value FROM galeras_record_confounders",
                    "reading the records' confounders");
    while (st.step())
        out[st.text(0)][st.text(1)] = st.real(2);
    return out;
}

void GalerasDb::insertSkipped(const std::vector<std::pair<std::string, std::string>>& skipped) const
{
    sqlite::Transaction tx(m_db);
    writeSkipped(skipped);
    tx.commit();
}

void GalerasDb::writeSkipped(const std::vector<std::pair<std::string, std::string>>& skipped) const
{
    sqlite::Stmt st(m_db, "INSERT OR REPLACE INTO galeras_skipped(record_id, reason) VALUES(?, ?)",
                    "writing the skipped records");
    for (const auto& [id, why] : skipped)
        st.bindAll(id, why).run();
}

std::vector<std::pair<std::string, std::string>> GalerasDb::doneKeys() const
{
    std::vector<std::pair<std::string, std::string>> v;
    sqlite::Stmt st(m_db, "SELECT record_id, treatment FROM galeras_runs", "reading the finished rows");
    while (st.step())
        v.emplace_back(st.text(0), st.text(1));
    return v;
}

std::vector<GalerasRow> GalerasDb::rows() const
{
    std::string names = kTextColumns;
    const auto have = runsColumns();
    for (const auto& c : valueColumns())
        names += ", " + (have.count(c) ? c : "NULL");
    std::vector<GalerasRow> out;
    sqlite::Stmt st(m_db, "SELECT " + names + " FROM galeras_runs ORDER BY rowid", "reading the runs");
    const auto cols = valueColumns();
    while (st.step()) {
        GalerasRow r;
        r.recordId = st.text(0);
        r.treatment = st.text(1);
        r.isControl = st.int64(2) != 0;
        r.prompt = st.text(3);
        r.partial = st.text(4);
        r.groundTruth = st.text(5);
        r.completion = st.text(6);
        r.stop = st.text(7);
        r.generatedTokens = static_cast<int>(st.int64(8));
        r.error = st.text(9);
        for (std::size_t k = 0; k < cols.size(); ++k)
            r.values[cols[k]] = st.optionalReal(10 + static_cast<int>(k));
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> GalerasDb::skipped() const
{
    std::vector<std::pair<std::string, std::string>> v;
    sqlite::Stmt st(m_db, "SELECT record_id, reason FROM galeras_skipped ORDER BY record_id",
                    "reading the skipped records");
    while (st.step())
        v.emplace_back(st.text(0), st.text(1));
    return v;
}

void mergeGalerasShards(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards)
{
    if (shards.empty())
        throw InputError("galeras merge needs the shard databases");
    if (std::filesystem::exists(out))
        throw InputError(out.string() + " exists: merge writes a new file", ErrorContext(out.string()));
    std::vector<GalerasDb> dbs;
    std::vector<dbfile::ShardFile> files;
    for (const auto& p : shards) {
        GalerasDb db = GalerasDb::open(p);
        files.push_back({p, db.meta(), db.doneKeys().size()});
        dbs.push_back(std::move(db));
    }
    const std::map<std::string, std::string> first = dbfile::checkShardSet(files, "rows");
    // Every row once: a shard labelled with another shard's index (a copy, a renamed file) would make the
    // merge fail midway, so the keys are checked before anything is written.
    std::map<std::pair<std::string, std::string>, std::size_t> owner;
    std::size_t planned = 0;
    for (std::size_t s = 0; s < dbs.size(); ++s)
        for (const auto& key : dbs[s].doneKeys()) {
            const auto [it, fresh] = owner.emplace(key, s);
            if (!fresh)
                throw InputError("record " + key.first + " under treatment " + key.second + " is in both " +
                                     shards[it->second].string() + " and " + shards[s].string() +
                                     ": their shard labels do not fit their rows (shards of one run hold "
                                     "disjoint items); nothing written",
                                 ErrorContext(shards[s].string()));
            ++planned;
        }
    auto meta = first;
    meta.erase("schema_version");
    meta["shard"] = "merged/" + std::to_string(files.size());
    meta["planned"] = std::to_string(planned);
    // Written under a temporary name and moved into place at the end: a killed or failed merge leaves no
    // output, never a partial one.
    if (std::filesystem::exists(out))
        throw InputError(out.string() + " exists: merge writes a new file", ErrorContext(out.string()));
    const std::filesystem::path tmp = tempBeside(out, "merging");
    try {
        {
            const GalerasDb merged = GalerasDb::createIn(tmp, meta, {});
            sqlite::Transaction tx(merged.m_db);
            for (const auto& db : dbs) {
                const auto rc = db.recordConfounders();
                for (auto row : db.rows()) {
                    if (const auto it = rc.find(row.recordId); it != rc.end())
                        row.recordConfounders = it->second;
                    merged.writeRow(row);
                }
                merged.writeSkipped(db.skipped());
            }
            tx.commit();
            if (merged.doneKeys().size() != planned)
                throw Error("merge: " + std::to_string(merged.doneKeys().size()) + " rows written, " +
                            std::to_string(planned) + " expected");
        }
        publish(tmp, out);
    } catch (...) {
        removeDbFiles(tmp);
        throw;
    }
}

} // namespace ascviz
