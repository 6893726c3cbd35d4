// Shared helpers of the tokenizer tests: fixture paths and JSON loading.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace toktest {

inline std::filesystem::path dataDir()
{
    const char* d = std::getenv("ASCVIZ_TEST_DATA");
    return d ? std::filesystem::path(d) : std::filesystem::path("tests/data");
}

inline std::filesystem::path fixtureTokenizer(const std::string& name)
{
    return dataDir() / "fixtures" / "tokenizers" / name / "tokenizer.json";
}

inline nlohmann::json readJson(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
}

} // namespace toktest
