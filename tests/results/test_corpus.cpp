// Corpus readers: JSON Lines, CSV (RFC 4180), folders; malformed entries reported with their location.
#include "ascviz/base/error.h"
#include "ascviz/results/corpus.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

fs::path tempDir()
{
    static const fs::path dir = ascviz::testdata::freshTempDir("corpus"); // removed at exit
    return dir;
}

fs::path writeFile(const fs::path& p, const std::string& content)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

TEST(JsonLines, CorruptLineReportedWithLineNumberAndSkipped)
{
    const std::string text = "{\"id\": \"a\", \"code\": \"x = 1\\n\"}\n"
                             "{\"id\": \"b\", \"code\": \"y = 2\\n\"}\n"
                             "{\"id\": \"c\", \"code\": \"broken\n" // line 3: unterminated string
                             "\n"
                             "{\"code\": \"def f():\\n    return 1\\n\", \"prompt\": \"def f():\"}\r\n"
                             "[1, 2]\n"                               // line 6: not an object
                             "{\"id\": \"e\"}\n"                      // line 7: no code
                             "{\"id\": \"a\", \"code\": \"z = 3\"}\n" // line 8: duplicate id
                             "{\"id\": 17, \"code\": \"w = 4\"}\n";
    const auto c = parseJsonLines(text, "mem.jsonl");
    ASSERT_EQ(c.entries.size(), 4u);
    EXPECT_EQ(c.entries[0].id, "a");
    EXPECT_EQ(c.entries[0].code, "x = 1\n");
    EXPECT_EQ(c.entries[0].location, "mem.jsonl:1");
    EXPECT_EQ(c.entries[2].id, "line-5");
    ASSERT_TRUE(c.entries[2].prompt);
    EXPECT_EQ(*c.entries[2].prompt, "def f():");
    EXPECT_EQ(c.entries[3].id, "17");
    ASSERT_EQ(c.issues.size(), 4u);
    EXPECT_EQ(c.issues[0].location, "mem.jsonl:3");
    EXPECT_NE(c.issues[0].message.find("invalid JSON"), std::string::npos);
    EXPECT_EQ(c.issues[1].location, "mem.jsonl:6");
    EXPECT_EQ(c.issues[2].location, "mem.jsonl:7");
    EXPECT_NE(c.issues[2].message.find("code"), std::string::npos);
    EXPECT_EQ(c.issues[3].location, "mem.jsonl:8");
    EXPECT_NE(c.issues[3].message.find("duplicate"), std::string::npos);
}

TEST(JsonLines, NonUtf8LineReportedAndSkipped)
{
    const std::string text = "{\"code\": \"ok = 1\"}\n{\"code\": \"bad \xff\xfe\"}\n{\"code\": \"ok = 2\"}\n";
    const auto c = parseJsonLines(text, "u.jsonl");
    ASSERT_EQ(c.entries.size(), 2u);
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].location, "u.jsonl:2");
    EXPECT_NE(c.issues[0].message.find("UTF-8"), std::string::npos);
}

// A fuzz finding (tests/fuzz/regressions/corpus_jsonl): a number beyond double's range made the JSON parser
// throw out_of_range, which escaped the reader instead of becoming an issue for that line.
TEST(JsonLines, NumberOutOfRangeIsAnIssueForItsLine)
{
    const auto c = parseJsonLines("{\"code\": \"x = 1\", \"n\": 1e400}\n{\"code\": \"y = 2\"}\n", "n.jsonl");
    ASSERT_EQ(c.entries.size(), 1u);
    EXPECT_EQ(c.entries[0].code, "y = 2");
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].location, "n.jsonl:1");
    EXPECT_NE(c.issues[0].message.find("invalid JSON"), std::string::npos) << c.issues[0].message;
}

TEST(JsonLines, UnicodeCodeIsKept)
{
    const auto c = parseJsonLines("{\"code\": \"名字 = '🙂'\"}\n", "x");
    ASSERT_EQ(c.entries.size(), 1u);
    EXPECT_EQ(c.entries[0].code, "名字 = '🙂'");
}

TEST(Csv, QuotedMultiLineCode)
{
    const std::string text = "id,code,prompt\r\n"
                             "f1,\"def f(a, b):\n    return \"\"x\"\"\n\",def f\r\n"
                             "f2,x = 1,\n"
                             "f3,\"unterminated\n";
    const auto c = parseCsv(text, "m.csv");
    ASSERT_EQ(c.entries.size(), 2u);
    EXPECT_EQ(c.entries[0].id, "f1");
    EXPECT_EQ(c.entries[0].code, "def f(a, b):\n    return \"x\"\n");
    ASSERT_TRUE(c.entries[0].prompt);
    EXPECT_EQ(*c.entries[0].prompt, "def f");
    EXPECT_EQ(c.entries[0].location, "m.csv:2");
    EXPECT_EQ(c.entries[1].id, "f2");
    EXPECT_EQ(c.entries[1].code, "x = 1");
    EXPECT_FALSE(c.entries[1].prompt); // empty prompt = none
    EXPECT_EQ(c.entries[1].location, "m.csv:5");
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].location, "m.csv:6");
    EXPECT_NE(c.issues[0].message.find("unterminated"), std::string::npos);
}

TEST(Csv, WrongFieldCountAndStrayQuoteReported)
{
    const std::string text = "code\nok\n\"a\"b\nx\"y\n\"two\",\"fields\"\n";
    const auto c = parseCsv(text, "w.csv");
    ASSERT_EQ(c.entries.size(), 1u);
    EXPECT_EQ(c.entries[0].id, "row-1");
    ASSERT_EQ(c.issues.size(), 3u);
    EXPECT_EQ(c.issues[0].location, "w.csv:3");
    EXPECT_EQ(c.issues[1].location, "w.csv:4");
    EXPECT_EQ(c.issues[2].location, "w.csv:5");
    EXPECT_NE(c.issues[2].message.find("fields"), std::string::npos);
}

TEST(Csv, NoCodeColumnIsAnInputError)
{
    EXPECT_THROW(parseCsv("id,text\n1,x\n", "n.csv"), InputError);
}

TEST(Folder, RecursiveByExtensionSortedSkippingHiddenAndNonUtf8)
{
    const fs::path root = tempDir() / "src";
    writeFile(root / "pkg" / "b.py", "def b():\n    pass\n");
    writeFile(root / "a.py", "x = 1\n");
    writeFile(root / "notes.txt", "not python");
    writeFile(root / ".git" / "hook.py", "hidden = True\n");
    writeFile(root / "pkg" / "deep" / "c.py", "y = 2\n");
    writeFile(root / "bad.py", std::string("s = '\xc3\x28'\n"));
    const auto c = readCorpus(root);
    EXPECT_EQ(c.format, CorpusFormat::Folder);
    ASSERT_EQ(c.entries.size(), 3u);
    EXPECT_EQ(c.entries[0].id, "a.py");
    EXPECT_EQ(c.entries[1].id, "pkg/b.py");
    EXPECT_EQ(c.entries[2].id, "pkg/deep/c.py");
    EXPECT_EQ(c.entries[2].code, "y = 2\n");
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_TRUE(endsWith(c.issues[0].location, "bad.py"));
    EXPECT_NE(c.issues[0].message.find("UTF-8"), std::string::npos);
}

TEST(Folder, ExtensionsMatchCaseInsensitivelyAndDefaultToTheLanguages)
{
    const fs::path root = tempDir() / "cased";
    writeFile(root / "Upper.PY", "x = 1\n");
    writeFile(root / "lower.py", "y = 2\n");
    writeFile(root / "other.txt", "z\n");
    const auto c = readCorpus(root); // no extensions: the default language's (registry)
    ASSERT_EQ(c.entries.size(), 2u);
    EXPECT_EQ(c.entries[0].id, "Upper.PY");
    EXPECT_EQ(c.entries[1].id, "lower.py");
    CorpusReadOptions txt;
    txt.extensions = {".txt"};
    const auto t = readCorpus(root, txt);
    ASSERT_EQ(t.entries.size(), 1u);
    EXPECT_EQ(t.entries[0].id, "other.txt");
    CorpusReadOptions unknown;
    unknown.language = "no-such-language";
    EXPECT_THROW(readCorpus(root, unknown), InputError);
}

TEST(ReadCorpus, EmptyCorpusIsAClearInputError)
{
    const auto empty = writeFile(tempDir() / "empty.jsonl", "");
    try {
        readCorpus(empty);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("empty corpus"), std::string::npos);
    }
    const auto onlyBad = writeFile(tempDir() / "bad.jsonl", "{nope\n");
    try {
        readCorpus(onlyBad);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.jsonl:1"), std::string::npos) << e.what();
    }
    fs::create_directories(tempDir() / "nopy");
    writeFile(tempDir() / "nopy" / "x.txt", "text");
    EXPECT_THROW(readCorpus(tempDir() / "nopy"), InputError);
    EXPECT_THROW(readCorpus(tempDir() / "missing.jsonl"), InputError);
}

TEST(ReadCorpus, FormatByExtensionAndFingerprint)
{
    const auto csv = writeFile(tempDir() / "c.csv", "code\n\"a = 1\"\n");
    const auto jl = writeFile(tempDir() / "c.jsonl", "{\"code\": \"a = 1\"}\n");
    const auto c1 = readCorpus(csv);
    const auto c2 = readCorpus(jl);
    EXPECT_EQ(c1.format, CorpusFormat::Csv);
    EXPECT_EQ(c2.format, CorpusFormat::JsonLines);
    EXPECT_TRUE(c1.source.is_absolute());
    const auto again = readCorpus(jl);
    EXPECT_EQ(c2.fingerprint(), again.fingerprint());
    const auto other = parseJsonLines("{\"code\": \"a = 2\"}\n", "x");
    EXPECT_NE(c2.fingerprint(), other.fingerprint());
    EXPECT_EQ(c2.fingerprint().size(), 16u);
}

TEST(ReadCorpus, BundledSampleCorpusReadsCleanly)
{
    const auto c = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
    EXPECT_EQ(c.entries.size(), 600u);
    EXPECT_TRUE(c.issues.empty());
    EXPECT_EQ(c.entries[0].id, "stdlib-0000");
}
