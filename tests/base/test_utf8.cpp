// The one UTF-8 codec (base/utf8.h) and the structured context of errors (base/error.h).
#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/utf8.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ascviz;

TEST(Utf8, DecodesAsciiCjkAndEmojiWithTheirLengths)
{
    const std::string s = "a\xE5\x87\xBD\xF0\x9F\x98\x80"; // a 函 😀
    std::vector<std::pair<char32_t, std::size_t>> got;
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Step st = decodeUtf8(s, i);
        ASSERT_EQ(st.status, Utf8Status::Ok) << "at " << i;
        got.emplace_back(st.codePoint, st.length);
        i += st.length;
    }
    const std::vector<std::pair<char32_t, std::size_t>> want = {{U'a', 1}, {U'函', 3}, {U'😀', 4}};
    EXPECT_EQ(got, want);
}

TEST(Utf8, RefusesOverlongsSurrogatesAndOutOfRangeByMaximalSubpart)
{
    EXPECT_EQ(decodeUtf8("\xC0\xAF", 0).status, Utf8Status::Invalid);         // overlong '/'
    EXPECT_EQ(decodeUtf8("\xE0\x80\xAF", 0).status, Utf8Status::Invalid);     // overlong, 3 bytes
    EXPECT_EQ(decodeUtf8("\xED\xA0\x80", 0).status, Utf8Status::Invalid);     // U+D800
    EXPECT_EQ(decodeUtf8("\xF4\x90\x80\x80", 0).status, Utf8Status::Invalid); // > U+10FFFF
    const Utf8Step bad = decodeUtf8("\xE5\x87"
                                    "a",
                                    0); // lead + one continuation, then ASCII
    EXPECT_EQ(bad.status, Utf8Status::Invalid);
    EXPECT_EQ(bad.length, 2u); // one U+FFFD replaces the maximal subpart
    const Utf8Step cut = decodeUtf8("\xF0\x9F\x98", 0);
    EXPECT_EQ(cut.status, Utf8Status::Truncated);
    EXPECT_EQ(cut.length, 3u);
}

TEST(Utf8, EncodesAndRoundTrips)
{
    std::string out;
    for (char32_t c : {U'x', U'é', U'函', U'😀'})
        appendUtf8(out, c);
    EXPECT_EQ(out, "x\xC3\xA9\xE5\x87\xBD\xF0\x9F\x98\x80");
    std::size_t i = 0;
    EXPECT_EQ(nextCodePoint(out, i), U'x');
    EXPECT_EQ(nextCodePoint(out, i), U'é');
    EXPECT_EQ(nextCodePoint(out, i), U'函');
    EXPECT_EQ(nextCodePoint(out, i), U'😀');
    EXPECT_EQ(i, out.size());
    std::string sur;
    appendUtf8(sur, 0xD800); // not encodable: U+FFFD
    EXPECT_EQ(sur, "\xEF\xBF\xBD");
}

TEST(Utf8, FloorFindsTheCodePointStart)
{
    const std::string s = "a\xF0\x9F\x98\x80"
                          "b";
    EXPECT_EQ(utf8Floor(s, 0), 0u);
    EXPECT_EQ(utf8Floor(s, 3), 1u);
    EXPECT_EQ(utf8Floor(s, 5), 5u);
    EXPECT_EQ(utf8Floor(s, 99), s.size());
}

TEST(Utf8, FindInvalidPointsAtTheFirstBadByte)
{
    EXPECT_FALSE(findInvalidUtf8("def 函数(π): return \"😀\"").has_value());
    EXPECT_EQ(findInvalidUtf8("ok \xE5\x87 x"), std::optional<std::size_t>(3));
}

TEST(ErrorContext, ReadUtf8FileCarriesPathAndOffset)
{
    const auto file = ascviz::testdata::processTempDir() / "bad-utf8.py";
    {
        std::ofstream(file, std::ios::binary) << "x = 1\n\xFF\n";
    }
    try {
        readUtf8File(file);
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.context().path, file.string());
        ASSERT_TRUE(e.context().byteOffset.has_value());
        EXPECT_EQ(*e.context().byteOffset, 6u);
        EXPECT_NE(std::string(e.what()).find("offset 6"), std::string::npos);
    }
    std::filesystem::remove(file);
    try {
        readUtf8File(file);
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.context().path, file.string());
        EXPECT_FALSE(e.context().byteOffset.has_value());
    }
}

// Issue 54: `eval --text-file /dev/zero` and `eval --scores /dev/zero` grew to 4 GB and ended in a bare
// std::bad_alloc naming no file. Every file read whole stops at limits::kMaxInputFileBytes, naming it.
TEST(ReadUtf8File, AFileWithoutEndStopsAtTheLimitNamingIt)
{
    try {
        (void)ascviz::readUtf8File("/dev/zero");
        FAIL() << "read /dev/zero";
    } catch (const ascviz::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("/dev/zero is over the limit of " + std::to_string(ascviz::limits::kMaxInputFileBytes)),
                  std::string::npos)
            << what;
        EXPECT_EQ(e.context().path, "/dev/zero");
    }
    try {
        (void)ascviz::readFileBounded("/dev/zero", 1000, "the corpus file");
        FAIL() << "read /dev/zero";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("the corpus file /dev/zero is over the limit of 1000 bytes"),
                  std::string::npos)
            << e.what();
    }
}
