// A run database's file handling shared by the results room's databases (galerasdb.cpp, headsdb.cpp): built
// under a temporary name beside its place and published whole, so that a kill leaves no database or a complete
// one. Internal to the results room.
#pragma once

#include <filesystem>
#include <string>

namespace ascviz::dbfile {

// Removes the database file and its -wal, -shm and -journal files (errors ignored).
void removeDbFiles(const std::filesystem::path& p);
// A file name beside `path` (same folder, so a rename or link stays on one file system) for this process;
// what was left there by an earlier process of the same id is removed.
std::filesystem::path tempBeside(const std::filesystem::path& path, const std::string& what);
// Moves the finished database `tmp` to `path`: link(2) never replaces, so a file that appeared at `path`
// meanwhile is kept and this throws InputError; then the temporary name is removed.
void publish(const std::filesystem::path& tmp, const std::filesystem::path& path);

} // namespace ascviz::dbfile
