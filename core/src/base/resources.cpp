#include "ascviz/base/resources.h"

#include "ascviz/base/error.h"
#include "ascviz/base/hfcache.h"

#include <cstdlib>
#include <system_error>

namespace ascviz {
namespace fs = std::filesystem;

namespace {
fs::path executableDir()
{
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}
} // namespace

fs::path resourceDir()
{
    std::error_code ec;
    if (const char* env = std::getenv("ASCVIZ_RESOURCES"); env && *env) {
        if (fs::is_directory(env, ec))
            return env;
        throw InputError(std::string("ASCVIZ_RESOURCES points at a missing folder: ") + env);
    }
    const auto installed = executableDir() / ".." / "share" / "ascviz";
    if (fs::is_directory(installed / "models", ec))
        return fs::weakly_canonical(installed, ec);
    const fs::path source = ASCVIZ_SOURCE_RESOURCES;
    if (fs::is_directory(source, ec))
        return source;
    throw InputError("AsC-Viz resources not found (looked in " + installed.string() + " and " + source.string() +
                     "); set ASCVIZ_RESOURCES");
}

fs::path defaultModelDir()
{
    return resourceDir() / "models" / "ascviz-tiny-code";
}

fs::path resolveModelDir(const std::string& arg)
{
    if (arg.empty() || arg == "default")
        return defaultModelDir();
    std::error_code ec;
    if (fs::is_directory(arg, ec) || !looksLikeRepoId(arg))
        return fs::path(arg);
    const fs::path cache = hfHubCacheDir();
    if (auto snap = findCachedModel(arg, cache))
        return *snap;
    std::string repoFolder = "models--" + arg;
    repoFolder.replace(repoFolder.find('/'), 1, "--");
    throw InputError("model '" + arg + "' not found: no folder ./" + arg +
                     ", and no snapshot in the Hugging Face cache " + (cache / repoFolder / "snapshots").string() +
                     " (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub; nothing is downloaded)");
}

fs::path sampleCorpus()
{
    return resourceDir() / "corpus" / "stdlib-functions.jsonl";
}

} // namespace ascviz
