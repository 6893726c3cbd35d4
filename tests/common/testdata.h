// The one test-data lookup of every test suite: tests/data (fixtures copied from the Hugging Face
// reference run), the bundled resources, and the fixture checkpoints listed in
// tests/data/fixtures/models/index.json. ctest passes the folders by environment (tests/CMakeLists.txt);
// a missing variable is an error naming it, never a silently skipped test.
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <stdlib.h>

namespace ascviz::testdata {

// A fresh folder under the system temp folder, removed with everything in it when the object goes
// (a failed assertion included; a static one at exit). ASCVIZ_KEEP_TEST_TMP=1 keeps it for debugging.
class TempDir {
public:
    // The folder is named ascviz-<name>-XXXXXX ("ascviz-" is not repeated when `name` starts with it).
    explicit TempDir(const std::string& name = "ascviz-test")
    {
        const std::string prefix = name.rfind("ascviz", 0) == 0 ? name : "ascviz-" + name;
        std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (!mkdtemp(tmpl.data()))
            throw std::runtime_error("cannot create a temporary folder " + tmpl);
        m_path = tmpl;
    }
    ~TempDir()
    {
        const char* keep = std::getenv("ASCVIZ_KEEP_TEST_TMP");
        if (keep && *keep && std::string(keep) != "0")
            return;
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
    operator const std::filesystem::path&() const { return m_path; }

private:
    std::filesystem::path m_path;
};

inline std::filesystem::path envDir(const char* name)
{
    const char* d = std::getenv(name);
    if (!d || !*d)
        throw std::runtime_error(std::string(name) + " is not set (run the test through ctest)");
    return d;
}

// One temporary folder per test program, removed at exit (failed tests included): helpers make their
// folders inside it.
inline const std::filesystem::path& processTempDir()
{
    static const TempDir dir("ascviz-test");
    return dir.path();
}

// A new empty folder processTempDir()/name.
inline std::filesystem::path freshTempDir(const std::string& name)
{
    const std::filesystem::path d = processTempDir() / name;
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

// tests/data
inline std::filesystem::path dataDir()
{
    return envDir("ASCVIZ_TEST_DATA");
}
// resources/ (the bundled model, language descriptors, sample corpus)
inline std::filesystem::path resourcesDir()
{
    return envDir("ASCVIZ_RESOURCES");
}
// tests/data/<relative>
inline std::filesystem::path data(const std::string& relative)
{
    return dataDir() / relative;
}
inline std::filesystem::path fixtureModel(const std::string& folder)
{
    return dataDir() / "fixtures" / "models" / folder;
}
inline std::filesystem::path fixtureTokenizer(const std::string& name)
{
    return dataDir() / "fixtures" / "tokenizers" / name / "tokenizer.json";
}

inline nlohmann::json readJsonFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + p.string());
    return nlohmann::json::parse(in);
}

// The architectures of the fixture checkpoints (index.json keys whose "ok" is true), in file order; the
// checkpoint of architecture A is fixtureModel("tiny-" + A).
inline std::vector<std::string> fixtureArchitectures()
{
    const auto index = readJsonFile(dataDir() / "fixtures" / "models" / "index.json");
    std::vector<std::string> out;
    for (const auto& [arch, entry] : index.items())
        if (entry.value("ok", false))
            out.push_back(arch);
    if (out.empty())
        throw std::runtime_error("no usable checkpoint in fixtures/models/index.json");
    return out;
}

// The tokenizers with reference cases (tests/data/fixtures/tokenizer-cases/<name>.json), sorted.
inline std::vector<std::string> fixtureTokenizerCases()
{
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dataDir() / "fixtures" / "tokenizer-cases"))
        if (e.path().extension() == ".json")
            out.push_back(e.path().stem().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ascviz::testdata
