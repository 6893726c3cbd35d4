// modelFingerprint (model/fingerprint.h) on a hand-made folder: config.json, a tokenizer and one safetensors
// file of 16 bytes of data. What changes the model changes the fingerprint; the folder's own path does not.
#include "ascviz/base/error.h"
#include "ascviz/base/sha256.h"
#include "ascviz/model/fingerprint.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& p, const std::string& bytes)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// A safetensors file: 8-byte little-endian header length, the JSON header, then `data`.
std::string safetensors(const std::string& data)
{
    const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
    std::string out(8, '\0');
    for (std::size_t i = 0; i < 8; ++i)
        out[i] = char((uint64_t(header.size()) >> (8 * i)) & 0xFF);
    return out + header + data;
}

const std::string kData(16, '\x01');

fs::path makeModel(const std::string& name)
{
    const fs::path dir = testdata::freshTempDir(name);
    writeFile(dir / "config.json", R"({"model_type": "gpt2", "n_layer": 2})");
    writeFile(dir / "tokenizer.json", R"({"model": {"type": "BPE"}})");
    writeFile(dir / "model.safetensors", safetensors(kData));
    return dir;
}

} // namespace

TEST(ModelFingerprint, SameFilesSameFingerprintWherever)
{
    const std::string a = modelFingerprint(makeModel("a"));
    EXPECT_EQ(a.size(), 64u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(modelFingerprint(makeModel("elsewhere")), a);
    // Files that are not the model's do not count.
    const fs::path dir = makeModel("extra");
    writeFile(dir / "README.md", "notes");
    EXPECT_EQ(modelFingerprint(dir), a);
}

TEST(ModelFingerprint, WhatChangesTheModelChangesIt)
{
    const std::string base = modelFingerprint(makeModel("base"));
    {
        const fs::path dir = makeModel("config");
        writeFile(dir / "config.json", R"({"model_type": "gpt2", "n_layer": 3})");
        EXPECT_NE(modelFingerprint(dir), base) << "config.json";
    }
    {
        const fs::path dir = makeModel("tokenizer");
        writeFile(dir / "tokenizer.json", R"({"model": {"type": "Unigram"}})");
        EXPECT_NE(modelFingerprint(dir), base) << "tokenizer.json";
    }
    {
        const fs::path dir = makeModel("weights");
        std::string data = kData;
        data[5] = '\x02'; // one weight byte, same size and header
        writeFile(dir / "model.safetensors", safetensors(data));
        EXPECT_NE(modelFingerprint(dir), base) << "a weight byte";
    }
    {
        const fs::path dir = makeModel("shards");
        writeFile(dir / "model.safetensors.index.json", R"({"weight_map": {"w": "model.safetensors"}})");
        EXPECT_NE(modelFingerprint(dir), base) << "an index file";
    }
}

TEST(ModelFingerprint, ReadsNoMoreThanSamplesOfBigWeights)
{
    // A 1 MiB .bin: a byte in the middle is not read (only the first and last 64 KiB), one at the end is.
    const fs::path dir = makeModel("bin");
    fs::remove(dir / "model.safetensors");
    std::string bin(1 << 20, '\0');
    writeFile(dir / "pytorch_model.bin", bin);
    const std::string before = modelFingerprint(dir);
    bin[bin.size() / 2] = 'x';
    writeFile(dir / "pytorch_model.bin", bin);
    EXPECT_EQ(modelFingerprint(dir), before);
    bin[bin.size() - 1] = 'x';
    writeFile(dir / "pytorch_model.bin", bin);
    EXPECT_NE(modelFingerprint(dir), before);
}

TEST(ModelFingerprint, NoConfigIsAModelError)
{
    const fs::path dir = makeModel("noconfig");
    fs::remove(dir / "config.json");
    EXPECT_THROW(modelFingerprint(dir), ModelError);
}
