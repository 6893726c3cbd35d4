// A run database's file handling shared by the results room's databases (galerasdb.cpp, headsdb.cpp): built
// under a temporary name beside its place and published whole, so that a kill leaves no database or a complete
// one. Internal to the results room.
#pragma once

#include "ascviz/results/sqlite.h"

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ascviz::dbfile {

// Removes the database file and its -wal, -shm and -journal files (errors ignored).
void removeDbFiles(const std::filesystem::path& p);
// A file name beside `path` (same folder, so a rename or link stays on one file system) for this process;
// what was left there by an earlier process of the same id, or by one that has died (a killed merge), is removed.
std::filesystem::path tempBeside(const std::filesystem::path& path, const std::string& what);
// Moves the finished database `tmp` to `path`: link(2) never replaces, so a file that appeared at `path`
// meanwhile is kept and this throws InputError; then the temporary name is removed.
void publish(const std::filesystem::path& tmp, const std::filesystem::path& path);

// A run's settings table (key TEXT PRIMARY KEY, value TEXT): all of it, and one key written in a transaction.
std::map<std::string, std::string> readMeta(const sqlite::Db& db, const std::string& table);
void writeMeta(const sqlite::Db& db, const std::string& table, const std::string& key, const std::string& value);

// One shard database as a merge sees it: its file, its settings table and how many items it stores.
struct ShardFile {
    std::filesystem::path path;
    std::map<std::string, std::string> meta;
    std::size_t stored = 0;
};
// Checks that `shards` are the complete shards of one run: each labelled "I/N" (meta `shard`) with one N, each I
// once and none missing, each holding its `planned` items (`unit`: "texts", "rows"), all with the same other
// settings. Returns those settings (without `shard` and `planned`). Throws InputError naming the file otherwise.
std::map<std::string, std::string> checkShardSet(const std::vector<ShardFile>& shards, const std::string& unit);

} // namespace ascviz::dbfile
