// The torch-free checkpoint parsers (core/src/model/formats/safetensors.h, state_dict_pickle.h): what they refuse,
// with the message, for the inputs the fuzz targets and the review of the split found (tests/fuzz/regressions).
#include "formats/safetensors.h"
#include "formats/state_dict_pickle.h"

#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

using namespace ascviz;
using namespace ascviz::model;

namespace {

std::string regression(const std::string& target, const std::string& name)
{
    std::ifstream in(std::string(ASCVIZ_FUZZ_DIR) + "/regressions/" + target + "/" + name, std::ios::binary);
    EXPECT_TRUE(in.good()) << name;
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string pickleError(const std::string& bytes)
{
    try {
        parseStateDictPickle(bytes, "m.bin");
    } catch (const ModelError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string safetensorsWith(const std::string& header, std::size_t dataBytes)
{
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i)
        out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out + header + std::string(dataBytes, '\0');
}

} // namespace

TEST(PickleParser, ReadsAHandMadeStateDict)
{
    std::ifstream in(std::string(ASCVIZ_FUZZ_DIR) + "/corpus/pickle/handmade.pkl", std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto dict = parseStateDictPickle(bytes, "m.bin");
    ASSERT_EQ(dict.size(), 1u);
    const auto& w = dict.at("w");
    EXPECT_EQ(w.storageKey, "0");
    EXPECT_EQ(w.storageType, "torch.FloatStorage");
    EXPECT_EQ(w.storageOffset, 1);
    EXPECT_EQ(w.sizes, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(w.strides, (std::vector<int64_t>{3, 1}));
    EXPECT_NO_THROW(checkTensorInStorage(w, 7, "w", "m.bin"));
    EXPECT_THROW(checkTensorInStorage(w, 6, "w", "m.bin"), ModelError);
}

TEST(PickleParser, RefusesWhatBrokeTheOldReader)
{
    EXPECT_NE(pickleError(regression("pickle", "fewer-strides-than-sizes.pkl")).find("2 sizes but 1 strides"),
              std::string::npos);
    EXPECT_NE(pickleError(regression("pickle", "long1-of-9-bytes-shift-past-64.pkl")).find("an integer of 9 bytes"),
              std::string::npos);
    // No longer leaked or recursed into: a list holding itself, 100 000 nested lists (the root is a dict).
    EXPECT_EQ(parseStateDictPickle(regression("pickle", "list-appended-to-itself-leaked.pkl"), "m.bin").size(), 0u);
    EXPECT_EQ(parseStateDictPickle(regression("pickle", "nested-100k-lists-recursive-destruction.pkl"), "m.bin").size(),
              0u);
    // (2^62 - 1) * 4 overflows int64: refused, not wrapped into range.
    const auto dict = parseStateDictPickle(regression("pickle", "stride-product-overflows-int64.pkl"), "m.bin");
    ASSERT_EQ(dict.count("w"), 1u);
    EXPECT_THROW(checkTensorInStorage(dict.at("w"), 1u << 20, "w", "m.bin"), ModelError);
}

TEST(SafetensorsParser, RefusesAShapeWhoseByteCountWraps)
{
    // 2^62 · 4 elements of 4 bytes is 2^66 bytes: wrapped to 0 in 64 bits it used to match an empty span.
    const auto file =
        safetensorsWith(R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})", 0);
    try {
        parseSafetensors(reinterpret_cast<const unsigned char*>(file.data()), file.size(), "m.safetensors");
        FAIL() << "accepted";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("more than 2^64"), std::string::npos) << e.what();
    }
    const auto ok = safetensorsWith(
        R"({"w":{"dtype":"F16","shape":[2,0,3],"data_offsets":[0,0]},"v":{"dtype":"I8","shape":[3],"data_offsets":[0,3]}})",
        3);
    const auto tensors =
        parseSafetensors(reinterpret_cast<const unsigned char*>(ok.data()), ok.size(), "m.safetensors");
    EXPECT_EQ(tensors.size(), 2u);
    EXPECT_EQ(tensors.at("v").bytes, 3u);
}

namespace {
std::string safetensorsError(const std::string& header, std::size_t dataBytes)
{
    const auto file = safetensorsWith(header, dataBytes);
    try {
        parseSafetensors(reinterpret_cast<const unsigned char*>(file.data()), file.size(), "m.safetensors");
    } catch (const ModelError& e) {
        return e.what();
    }
    return "(no error)";
}
} // namespace

// Issue 54: what the safetensors library refuses is refused — overlapping tensors (q_proj's data_offsets set to
// o_proj's loaded and changed the numbers), gaps, bytes left over, and shapes or offsets that are not integers (a
// shape [32.5] was read as [32]).
TEST(SafetensorsParser, RefusesOverlapsGapsAndNonIntegerShapes)
{
    const std::string two = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
    EXPECT_EQ(safetensorsError(two, 16), "(no error)");
    const std::string overlap = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    EXPECT_NE(safetensorsError(overlap, 16).find("must not overlap"), std::string::npos)
        << safetensorsError(overlap, 16);
    const std::string partial = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
    EXPECT_NE(safetensorsError(partial, 8).find("must not overlap"), std::string::npos);
    const std::string gap = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})";
    EXPECT_NE(safetensorsError(gap, 20).find("byte 12"), std::string::npos) << safetensorsError(gap, 20);
    EXPECT_NE(safetensorsError(two, 20).find("cover 16 of the data section's 20 bytes"), std::string::npos)
        << safetensorsError(two, 20);
    const std::string fractional = R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})";
    EXPECT_NE(safetensorsError(fractional, 8).find("shape that is not a list of integers"), std::string::npos)
        << safetensorsError(fractional, 8);
    const std::string offsets = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8.0]}})";
    EXPECT_NE(safetensorsError(offsets, 8).find("data_offsets that is not a list of integers"), std::string::npos);
    const std::string negative = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})";
    EXPECT_NE(safetensorsError(negative, 8).find("negative data_offsets"), std::string::npos);
}

TEST(ShardIndex, ReadsFilesAndRefusesPathsOutsideTheFolder)
{
    const auto index = parseShardIndex(
        R"({"metadata":{},"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","c":"m-1.safetensors"}})",
        "index.json");
    EXPECT_EQ(index.files, (std::set<std::string>{"m-1.safetensors", "m-2.safetensors"}));
    EXPECT_EQ(index.weightMap.at("c"), "m-1.safetensors");
    for (const char* bad : {R"({"weight_map":{"a":1}})", R"({"weight_map":{"a":"/etc/passwd"}})",
                            R"({"weight_map":{"a":"../x.safetensors"}})", R"({"weight_map":[]})", "[1]", "{"})
        EXPECT_THROW(parseShardIndex(bad, "index.json"), ModelError) << bad;
}
