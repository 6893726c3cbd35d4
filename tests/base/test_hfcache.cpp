// The Hugging Face hub cache lookup (--model ORG/NAME) on hand-made cache folders.
#include "ascviz/base/error.h"
#include "ascviz/base/hfcache.h"
#include "ascviz/base/resources.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ascviz;

namespace {

fs::path freshDir(const std::string& name)
{
    return ascviz::testdata::freshTempDir(name);
} // removed at exit

void makeSnapshot(const fs::path& cache, const std::string& folder, const std::string& commit)
{
    const fs::path snap = cache / folder / "snapshots" / commit;
    fs::create_directories(snap);
    std::ofstream(snap / "config.json") << "{}";
}

class EnvGuard {
public:
    explicit EnvGuard(const char* name) : m_name(name)
    {
        if (const char* v = std::getenv(name))
            m_old = v;
    }
    ~EnvGuard()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

} // namespace

TEST(HfCache, RepoIdShape)
{
    EXPECT_TRUE(looksLikeRepoId("Salesforce/codegen-350M-mono"));
    EXPECT_TRUE(looksLikeRepoId("bigcode/starcoder2_3b.v1"));
    EXPECT_FALSE(looksLikeRepoId("default"));
    EXPECT_FALSE(looksLikeRepoId("/abs/path"));
    EXPECT_FALSE(looksLikeRepoId("a/b/c"));
    EXPECT_FALSE(looksLikeRepoId("../x"));
    EXPECT_FALSE(looksLikeRepoId("org/"));
    EXPECT_FALSE(looksLikeRepoId("org/na me"));
}

TEST(HfCache, CacheDirFollowsTheHubVariables)
{
    EnvGuard a("HF_HUB_CACHE"), b("HF_HOME"), c("XDG_CACHE_HOME"), d("HOME");
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HF_HOME");
    unsetenv("HF_HUB_CACHE");
    EXPECT_EQ(hfHubCacheDir(), fs::path("/home/u/.cache/huggingface/hub"));
    setenv("HF_HOME", "/data/hf", 1);
    EXPECT_EQ(hfHubCacheDir(), fs::path("/data/hf/hub"));
    setenv("HF_HUB_CACHE", "/fast/hub", 1);
    EXPECT_EQ(hfHubCacheDir(), fs::path("/fast/hub"));
}

TEST(HfCache, RefsMainNamesTheSnapshotElseTheNewest)
{
    const fs::path cache = freshDir("refs");
    makeSnapshot(cache, "models--acme--coder", "1111");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    makeSnapshot(cache, "models--acme--coder", "2222");
    // No refs/main: the most recently modified snapshot.
    EXPECT_EQ(findCachedModel("acme/coder", cache), cache / "models--acme--coder/snapshots/2222");
    fs::create_directories(cache / "models--acme--coder/refs");
    std::ofstream(cache / "models--acme--coder/refs/main") << "1111\n";
    EXPECT_EQ(findCachedModel("acme/coder", cache), cache / "models--acme--coder/snapshots/1111");
    EXPECT_FALSE(findCachedModel("acme/other", cache).has_value());
    EXPECT_EQ(modelNameFromDir(cache / "models--acme--coder/snapshots/1111"), "acme/coder");
    EXPECT_EQ(modelNameFromDir(cache / "models--acme--coder/snapshots/1111/"), "acme/coder");
    EXPECT_EQ(modelNameFromDir("/models/my-model"), "my-model");
}

TEST(HfCache, ListsModelsWithAConfig)
{
    const fs::path cache = freshDir("list");
    makeSnapshot(cache, "models--zeta--b", "c1");
    makeSnapshot(cache, "models--alpha--a", "c2");
    fs::create_directories(cache / "models--empty--x/snapshots/c3"); // no config.json
    fs::create_directories(cache / "datasets--alpha--data/snapshots/c4");
    const auto models = listCachedModels(cache);
    ASSERT_EQ(models.size(), 2u);
    EXPECT_EQ(models[0].repoId, "alpha/a");
    EXPECT_EQ(models[1].repoId, "zeta/b");
    EXPECT_EQ(models[1].snapshot, cache / "models--zeta--b/snapshots/c1");
    EXPECT_TRUE(listCachedModels(cache / "absent").empty());
}

TEST(HfCache, ResolveModelDir)
{
    EnvGuard g("HF_HUB_CACHE");
    const fs::path cache = freshDir("resolve");
    makeSnapshot(cache, "models--acme--coder", "abc");
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    EXPECT_EQ(resolveModelDir("acme/coder"), cache / "models--acme--coder/snapshots/abc");
    // An existing folder wins over the cache; a plain path is returned as is.
    const fs::path local = freshDir("local");
    fs::create_directories(local / "acme/coder");
    const auto cwd = fs::current_path();
    fs::current_path(local);
    EXPECT_EQ(resolveModelDir("acme/coder"), fs::path("acme/coder"));
    fs::current_path(cwd);
    EXPECT_EQ(resolveModelDir("/no/such/dir"), fs::path("/no/such/dir"));
    try {
        resolveModelDir("acme/absent");
        FAIL() << "an uncached ORG/NAME must be an error";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find((cache / "models--acme--absent" / "snapshots").string()), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
    }
}
