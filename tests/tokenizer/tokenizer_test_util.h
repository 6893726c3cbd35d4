// Shared helpers of the tokenizer tests: fixture paths and JSON loading.
#pragma once
#include "testdata.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace toktest {

using ascviz::testdata::dataDir;
using ascviz::testdata::fixtureTokenizer;

inline nlohmann::json readJson(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
}

} // namespace toktest
