#include "ascviz/base/hfcache.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace ascviz {
namespace fs = std::filesystem;

namespace {
const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

bool validPart(const std::string& s)
{
    if (s.empty() || s == "." || s == "..")
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.';
    });
}

// "models--ORG--NAME" <-> "ORG/NAME" (the hub's folder naming).
std::string folderName(const std::string& repoId)
{
    std::string s = "models--" + repoId;
    const auto slash = s.find('/');
    return s.replace(slash, 1, "--");
}
} // namespace

fs::path hfHubCacheDir()
{
    if (const char* v = env("HF_HUB_CACHE"))
        return v;
    if (const char* v = env("HF_HOME"))
        return fs::path(v) / "hub";
    if (const char* v = env("XDG_CACHE_HOME"))
        return fs::path(v) / "huggingface" / "hub";
    const char* home = env("HOME");
    return fs::path(home ? home : "/") / ".cache" / "huggingface" / "hub";
}

bool looksLikeRepoId(const std::string& arg)
{
    const auto slash = arg.find('/');
    if (slash == std::string::npos || arg.find('/', slash + 1) != std::string::npos)
        return false;
    return validPart(arg.substr(0, slash)) && validPart(arg.substr(slash + 1));
}

std::optional<fs::path> findCachedModel(const std::string& repoId, const fs::path& cacheDir)
{
    if (!looksLikeRepoId(repoId))
        return std::nullopt;
    std::error_code ec;
    const fs::path repo = cacheDir / folderName(repoId);
    const fs::path snapshots = repo / "snapshots";
    if (!fs::is_directory(snapshots, ec))
        return std::nullopt;
    std::ifstream ref(repo / "refs" / "main");
    std::string commit;
    if (ref && std::getline(ref, commit)) {
        commit.erase(std::remove_if(commit.begin(), commit.end(),
                                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                     commit.end());
        if (!commit.empty() && commit.find('/') == std::string::npos && fs::is_directory(snapshots / commit, ec))
            return snapshots / commit;
    }
    std::optional<fs::path> newest;
    fs::file_time_type newestTime{};
    for (const auto& e : fs::directory_iterator(snapshots, ec)) {
        if (!e.is_directory(ec))
            continue;
        const auto t = fs::last_write_time(e.path(), ec);
        if (ec)
            continue;
        if (!newest || t > newestTime) {
            newest = e.path();
            newestTime = t;
        }
    }
    return newest;
}

std::string modelNameFromDir(const fs::path& dirIn)
{
    const fs::path dir = dirIn.filename().empty() ? dirIn.parent_path() : dirIn;
    const fs::path snapshots = dir.parent_path();
    const std::string repo = snapshots.parent_path().filename().string();
    if (snapshots.filename() == "snapshots" && repo.rfind("models--", 0) == 0) {
        std::string id = repo.substr(8);
        if (const auto sep = id.find("--"); sep != std::string::npos && sep > 0)
            return id.replace(sep, 2, "/");
    }
    return dir.filename().string();
}

std::vector<CachedModel> listCachedModels(const fs::path& cacheDir)
{
    std::vector<CachedModel> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cacheDir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("models--", 0) != 0 || !e.is_directory(ec))
            continue;
        std::string id = name.substr(8);
        const auto sep = id.find("--");
        if (sep == std::string::npos)
            continue;
        id.replace(sep, 2, "/");
        if (auto snap = findCachedModel(id, cacheDir); snap && fs::exists(*snap / "config.json", ec))
            out.push_back({id, *snap});
    }
    std::sort(out.begin(), out.end(), [](const CachedModel& a, const CachedModel& b) { return a.repoId < b.repoId; });
    return out;
}

} // namespace ascviz
