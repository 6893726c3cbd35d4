// The database of an `analyze heads` run (headsdb.h).
#include "ascviz/results/headsdb.h"

#include "dbfile.h"

#include "ascviz/base/error.h"
#include "ascviz/results/shards.h"

#include <fstream>

namespace ascviz {
namespace {

sqlite::OpenOptions options(sqlite::OpenMode mode)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.label = "heads run database";
    o.advice.otherWriter = "another analyze heads run on the same file";
    o.advice.kept = "every text stored so far is kept";
    o.advice.remedy = Remedy::Resume;
    return o;
}

} // namespace

HeadsDb HeadsDb::createIn(const std::filesystem::path& file, const std::map<std::string, std::string>& meta)
{
    HeadsDb h(sqlite::Db::open(file, options(sqlite::OpenMode::Create)));
    h.m_db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", "setting up the heads run database");
    sqlite::Transaction tx(h.m_db);
    h.m_db.exec("CREATE TABLE heads_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE heads_texts(id TEXT PRIMARY KEY, record TEXT NOT NULL);",
                "creating the heads tables");
    sqlite::Stmt st(h.m_db, "INSERT INTO heads_meta(key, value) VALUES(?, ?)", "writing the run's settings");
    st.bindAll(std::string("schema_version"), std::to_string(kHeadsSchemaVersion)).run();
    for (const auto& [k, v] : meta)
        if (k != "schema_version")
            st.bindAll(k, v).run();
    tx.commit();
    return h;
}

HeadsDb HeadsDb::create(const std::filesystem::path& path, const std::map<std::string, std::string>& meta)
{
    if (std::filesystem::exists(path)) {
        ErrorContext where(path.string());
        where.remedy = Remedy::Resume | Remedy::NewOutput;
        throw InputError("heads run database " + path.string() + " exists", where);
    }
    const std::filesystem::path tmp = dbfile::tempBeside(path, "creating");
    try {
        createIn(tmp, meta); // closed here: the write-ahead log is checkpointed into the file
        dbfile::publish(tmp, path);
    } catch (...) {
        dbfile::removeDbFiles(tmp);
        throw;
    }
    return open(path, true);
}

bool HeadsDb::isHeadsDb(const std::filesystem::path& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    {
        // SQLite's file header: a file that is not a database is not opened (SQLite would refuse it anyway).
        std::ifstream in(path, std::ios::binary);
        char magic[16] = {};
        if (!in.read(magic, sizeof magic) || std::string(magic, sizeof magic) != std::string("SQLite format 3", 16))
            return false;
    }
    try {
        const sqlite::Db db = sqlite::Db::open(path, options(sqlite::OpenMode::ReadOnly));
        sqlite::Stmt st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'heads_meta'",
                        "reading the kind of run");
        return st.step();
    } catch (const Error&) {
        return false;
    }
}

HeadsDb HeadsDb::open(const std::filesystem::path& path, bool writable)
{
    if (!std::filesystem::exists(path))
        throw InputError("heads run database " + path.string() + " does not exist", ErrorContext(path.string()));
    HeadsDb h(sqlite::Db::open(path, options(writable ? sqlite::OpenMode::ReadWrite : sqlite::OpenMode::ReadOnly)));
    std::map<std::string, std::string> m;
    try {
        m = h.meta();
    } catch (const SqliteError&) {
        throw InputError(path.string() + " is not a heads run database (no heads_meta table)",
                         ErrorContext(path.string()));
    }
    if (m["schema_version"] != std::to_string(kHeadsSchemaVersion))
        throw InputError(path.string() + " has heads schema version '" + m["schema_version"] + "'; this build reads " +
                             std::to_string(kHeadsSchemaVersion),
                         ErrorContext(path.string()));
    return h;
}

std::map<std::string, std::string> HeadsDb::meta() const
{
    return dbfile::readMeta(m_db, "heads_meta");
}

void HeadsDb::setMeta(const std::string& key, const std::string& value) const
{
    dbfile::writeMeta(m_db, "heads_meta", key, value);
}

void HeadsDb::insert(const std::string& id, const std::string& record) const
{
    sqlite::Transaction tx(m_db);
    writeText(id, record);
    tx.commit();
}

void HeadsDb::writeText(const std::string& id, const std::string& record) const
{
    sqlite::Stmt(m_db, "INSERT INTO heads_texts(id, record) VALUES(?, ?)", "writing text " + id)
        .bindAll(id, record)
        .run();
}

std::set<std::string> HeadsDb::ids() const
{
    std::set<std::string> out;
    sqlite::Stmt st(m_db, "SELECT id FROM heads_texts", "reading the analyzed texts");
    while (st.step())
        out.insert(st.text(0));
    return out;
}

int HeadsDb::count() const
{
    sqlite::Stmt st(m_db, "SELECT count(*) FROM heads_texts", "counting the analyzed texts");
    st.step();
    return static_cast<int>(st.int64(0));
}

void HeadsDb::forEachRecord(const std::function<void(const std::string&, const std::string&)>& f) const
{
    sqlite::Stmt st(m_db, "SELECT id, record FROM heads_texts ORDER BY rowid", "reading the analyzed texts");
    while (st.step())
        f(st.text(0), st.text(1));
}

void mergeHeadsShards(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards)
{
    if (shards.empty())
        throw InputError("a merge of heads runs needs the shard databases");
    if (std::filesystem::exists(out))
        throw InputError(out.string() + " exists: merge writes a new file", ErrorContext(out.string()));
    std::vector<HeadsDb> dbs;
    std::vector<dbfile::ShardFile> files;
    for (const auto& p : shards) {
        HeadsDb db = HeadsDb::open(p);
        files.push_back({p, db.meta(), static_cast<std::size_t>(db.count())});
        dbs.push_back(std::move(db));
    }
    const std::map<std::string, std::string> first = dbfile::checkShardSet(files, "texts");
    // Every text once, checked before anything is written.
    std::map<std::string, std::size_t> owner;
    for (std::size_t s = 0; s < dbs.size(); ++s)
        for (const auto& id : dbs[s].ids()) {
            const auto [it, fresh] = owner.emplace(id, s);
            if (!fresh)
                throw InputError("text " + id + " is in both " + shards[it->second].string() + " and " +
                                     shards[s].string() +
                                     ": their shard labels do not fit their texts (shards of one run hold "
                                     "disjoint items); nothing written",
                                 ErrorContext(shards[s].string()));
        }
    auto meta = first;
    meta["shard"] = "";
    meta["planned"] = std::to_string(owner.size());
    const std::filesystem::path tmp = dbfile::tempBeside(out, "merging");
    try {
        {
            const HeadsDb merged = HeadsDb::createIn(tmp, meta);
            sqlite::Transaction tx(merged.m_db);
            for (const auto& db : dbs)
                db.forEachRecord([&](const std::string& id, const std::string& rec) { merged.writeText(id, rec); });
            tx.commit();
            if (static_cast<std::size_t>(merged.count()) != owner.size())
                throw Error("merge: " + std::to_string(merged.count()) + " texts written, " +
                            std::to_string(owner.size()) + " expected");
        }
        dbfile::publish(tmp, out);
    } catch (...) {
        dbfile::removeDbFiles(tmp);
        throw;
    }
}

} // namespace ascviz
