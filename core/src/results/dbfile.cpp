// A run database's file handling (dbfile.h).
#include "dbfile.h"

#include "ascviz/base/error.h"
#include "ascviz/results/shards.h"

#include <cerrno>
#include <cstring>
#include <signal.h>
#include <unistd.h>

namespace ascviz::dbfile {

void removeDbFiles(const std::filesystem::path& p)
{
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(p.string() + suffix, ec);
}

namespace {
// The temporary files beside `path` of earlier writers of it that have died (killed mid-merge: issue 54 found
// OUT.merging-PID and its -wal/-shm left behind): "<name>.<what>-<pid>[-wal|-shm]" whose process is gone.
void removeOrphans(const std::filesystem::path& path, const std::string& what)
{
    std::error_code ec;
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    const std::string prefix = path.filename().string() + "." + what + "-";
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) != 0)
            continue;
        std::string pid = name.substr(prefix.size());
        for (const char* suffix : {"-wal", "-shm", "-journal"})
            if (pid.size() > std::strlen(suffix) &&
                pid.compare(pid.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
                pid.resize(pid.size() - std::strlen(suffix));
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9)
            continue;
        const auto n = static_cast<pid_t>(std::stol(pid));
        if (n > 0 && ::kill(n, 0) != 0 && errno == ESRCH)
            std::filesystem::remove(e.path(), ec);
    }
}
} // namespace

std::filesystem::path tempBeside(const std::filesystem::path& path, const std::string& what)
{
    removeOrphans(path, what);
    std::filesystem::path tmp = path;
    tmp += "." + what + "-" + std::to_string(::getpid());
    removeDbFiles(tmp);
    return tmp;
}

void publish(const std::filesystem::path& tmp, const std::filesystem::path& path)
{
    if (::link(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        throw InputError("cannot create " + path.string() + ": " + std::strerror(err) +
                             (err == EEXIST ? " (another process made it meanwhile)" : "") + "; nothing written",
                         ErrorContext(path.string()));
    }
    removeDbFiles(tmp);
}

std::map<std::string, std::string> readMeta(const sqlite::Db& db, const std::string& table)
{
    std::map<std::string, std::string> m;
    sqlite::Stmt st(db, "SELECT key, value FROM " + table, "reading the run's settings");
    while (st.step())
        m[st.text(0)] = st.text(1);
    return m;
}

void writeMeta(const sqlite::Db& db, const std::string& table, const std::string& key, const std::string& value)
{
    sqlite::Transaction tx(db);
    sqlite::Stmt(db, "INSERT OR REPLACE INTO " + table + "(key, value) VALUES(?, ?)", "writing the run's settings")
        .bindAll(key, value)
        .run();
    tx.commit();
}

std::map<std::string, std::string> checkShardSet(const std::vector<ShardFile>& shards, const std::string& unit)
{
    std::map<std::string, std::string> first;
    std::vector<bool> seen;
    for (const ShardFile& f : shards) {
        const std::string& p = f.path.string();
        auto m = f.meta;
        const std::string shard = m["shard"];
        ShardSpec spec;
        try {
            spec = parseShard(shard); // stored as "I/N" (the file format); a struct from here on
        } catch (const InputError&) {
            throw InputError(p + " is no shard of a run (shard '" + shard + "')", ErrorContext(p));
        }
        if (seen.empty())
            seen.assign(static_cast<std::size_t>(spec.count), false);
        if (static_cast<int>(seen.size()) != spec.count)
            throw InputError(p + " is shard " + shard + ", the others are of " + std::to_string(seen.size()),
                             ErrorContext(p));
        if (seen[static_cast<std::size_t>(spec.index)])
            throw InputError(p + ": shard " + shard + " is given twice", ErrorContext(p));
        seen[static_cast<std::size_t>(spec.index)] = true;
        if (!m.count("planned") || std::to_string(f.stored) != m["planned"]) {
            ErrorContext where(p);
            where.remedy = Remedy::Resume;
            throw InputError(p + ": shard " + shard + " is incomplete (" + std::to_string(f.stored) + " of " +
                                 (m.count("planned") ? m["planned"] : std::string("?")) + " " + unit +
                                 "): finish it first",
                             where);
        }
        m.erase("shard");
        m.erase("planned");
        if (first.empty())
            first = m;
        for (const auto& [k, v] : first)
            if (m[k] != v)
                throw InputError(p + " is of another run: its " + k + " is '" + m[k] + "', the first shard's '" + v +
                                     "'",
                                 ErrorContext(p));
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (!seen[i])
            throw InputError("shard " + std::to_string(i) + "/" + std::to_string(seen.size()) + " is missing");
    return first;
}

} // namespace ascviz::dbfile
