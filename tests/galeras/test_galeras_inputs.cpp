// Galeras inputs: records (JSONL, CSV, field mapping), the cut rule of the testbeds, treatments files.
#include "ascviz/base/error.h"
#include "ascviz/galeras/records.h"
#include "ascviz/galeras/testbed.h"
#include "ascviz/galeras/treatments.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

using namespace ascviz;

namespace {

const char* kLines[] = {"def f(a, b):\n",  "    \"\"\"Add, double, less one.\"\"\"\n",
                        "    c = a + b\n", "    d = c * 2\n",
                        "    e = d - 1\n", "    return e\n"};

std::string fn()
{
    std::string s;
    for (const char* l : kLines)
        s += l;
    return s;
}

RecordSet oneRecord(const std::string& code, const std::string& id = "r1")
{
    return parseRecordsJsonl(nlohmann::json{{"id", id}, {"code", code}}.dump() + "\n", "mem");
}

// The documented draw: k = mt19937_64(seed XOR FNV-1a 64(id)) first output mod (L - 1) + 1.
int expectedCut(uint64_t seed, const std::string& id, int bodyLines)
{
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : id) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    std::mt19937_64 rng(seed ^ h);
    return static_cast<int>(rng() % static_cast<uint64_t>(bodyLines - 1)) + 1;
}

} // namespace

TEST(GalerasTestbed, FunctionParts)
{
    const auto p = findFunctionParts(fn(), "python");
    ASSERT_TRUE(p.error.empty()) << p.error;
    EXPECT_EQ(p.signature, "def f(a, b):");
    ASSERT_TRUE(p.docstring);
    EXPECT_EQ(*p.docstring, "\"\"\"Add, double, less one.\"\"\"");
    EXPECT_EQ(p.bodyStart, std::string(kLines[0]).size() + 4);
}

TEST(GalerasTestbed, CutRule)
{
    const auto records = oneRecord(fn());
    for (uint64_t seed : {1ULL, 2ULL, 3ULL, 20230807ULL}) {
        const int k = expectedCut(seed, "r1", 4); // body lines without the docstring: 4
        ASSERT_GE(k, 1);
        ASSERT_LE(k, 3);
        const auto rc = buildTestbed(records, Testbed::RandomCut, seed);
        ASSERT_EQ(rc.items.size(), 1u);
        EXPECT_EQ(rc.items[0].cutLine, k);
        std::string partial = kLines[0], truth;
        for (int j = 0; j < 4; ++j)
            (j < k ? partial : truth) += kLines[2 + j];
        EXPECT_EQ(rc.items[0].partial, partial) << "seed " << seed; // the docstring is left out
        EXPECT_EQ(rc.items[0].groundTruth, truth);
        EXPECT_EQ(rc.items[0].signature, "def f(a, b):");
        const auto wd = buildTestbed(records, Testbed::WithDocString, seed);
        ASSERT_EQ(wd.items.size(), 1u);
        EXPECT_EQ(wd.items[0].partial,
                  std::string(kLines[0]) + kLines[1] + partial.substr(std::string(kLines[0]).size()));
        EXPECT_EQ(wd.items[0].groundTruth, truth);
    }
    const auto fd = buildTestbed(records, Testbed::FromDocString, 7);
    ASSERT_EQ(fd.items.size(), 1u);
    EXPECT_EQ(fd.items[0].partial, std::string(kLines[0]) + kLines[1]);
    EXPECT_EQ(fd.items[0].groundTruth, std::string(kLines[2]) + kLines[3] + kLines[4] + kLines[5]);
    EXPECT_EQ(fd.items[0].cutLine, 0);
}

TEST(GalerasTestbed, SkippedWithReasons)
{
    const std::string text =
        nlohmann::json{{"id", "short"}, {"code", "def g():\n    pass\n"}}.dump() + "\n" +
        nlohmann::json{{"id", "bad"},
                       {"code", "def h(:\n    return aaaaaaaaaaaaa + bbbbbbbbbbbbbbbbb + ccccc + dddd\n"}}
            .dump() +
        "\n" +
        nlohmann::json{{"id", "nodoc"}, {"code", "def k(x):\n    y = x + 1\n    z = y * 2\n    return z\n"}}.dump() +
        "\n" + nlohmann::json{{"id", "ok"}, {"code", fn()}}.dump() + "\n" +
        nlohmann::json{
            {"id", "shortdoc"},
            {"code", "def m(x):\n    \"\"\"Add one more.\"\"\"\n    y = x + 1\n    z = y * 2\n    return z\n"}}
            .dump() +
        "\n";
    const auto rs = parseRecordsJsonl(text, "mem");
    ASSERT_EQ(rs.records.size(), 5u);
    const auto rc = buildTestbed(rs, Testbed::RandomCut, 1);
    EXPECT_EQ(rc.items.size(), 3u); // RandomCut needs no docstring
    EXPECT_EQ(rc.skipped.at("too short (<= 10 tokens and <= 100 characters)"), 1);
    EXPECT_EQ(rc.skipped.at("unparsable code"), 1);
    const auto wd = buildTestbed(rs, Testbed::WithDocString, 1);
    EXPECT_EQ(wd.items.size(), 1u);
    EXPECT_EQ(wd.skipped.at("no docstring"), 1);
    // the seed keeps "a docstring that is longer than 3 words"
    EXPECT_EQ(wd.skipped.at("docstring of 3 words or fewer"), 1);
    EXPECT_EQ(wd.skippedRecords.size(), 4u);
    EXPECT_EQ(buildTestbed(rs, Testbed::FromDocString, 1).skipped.at("docstring of 3 words or fewer"), 1);
}

// issue 40: core names no command-line flag; the CLI adds "--testbed: " (test_cli_galeras).
TEST(GalerasTestbed, UnknownTestbedNamedWithoutAFlag)
{
    EXPECT_EQ(parseTestbed("fromdocstring"), Testbed::FromDocString);
    try {
        (void)parseTestbed("nope");
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("randomcut, withdocstring or fromdocstring (got 'nope')"), std::string::npos) << what;
        EXPECT_EQ(what.find("--"), std::string::npos) << what;
    }
}

TEST(GalerasTestbed, DocstringWords)
{
    EXPECT_EQ(docstringWords("\"\"\"Add one more.\"\"\""), 3); // the quotes are not words
    EXPECT_EQ(docstringWords("\"\"\"Add, double, less one.\"\"\""), 4);
    EXPECT_EQ(docstringWords("\"\"\"\n    Return x.\n    \"\"\""), 2);
    EXPECT_EQ(docstringWords(""), 0);
    EXPECT_EQ(docstringWords("r\"\"\"Größe der Datei lesen.\"\"\""), 4); // r"""Größe: one word
}

TEST(GalerasRecords, JsonlCsvAndMapping)
{
    RecordReadOptions o;
    o.fields = parseFieldMapping("code=body,signature=sig");
    const auto j = parseRecordsJsonl("{\"body\": \"def a():\\n    return 1\\n\", \"sig\": \"def a():\", \"nloc\": 2}\n"
                                     "not json\n{\"code\": \"x\"}\n{\"body\": 5}\n",
                                     "r.jsonl", o);
    ASSERT_EQ(j.records.size(), 1u);
    EXPECT_EQ(j.records[0].id, "r.jsonl:1");
    EXPECT_EQ(*j.records[0].signature, "def a():");
    EXPECT_DOUBLE_EQ(j.records[0].confounders.at("nloc"), 2.0);
    ASSERT_EQ(j.issues.size(), 3u);
    EXPECT_EQ(j.issues[0].location, "r.jsonl:2");
    EXPECT_EQ(j.issues[1].location, "r.jsonl:3"); // no `body`
    const auto c = parseRecordsCsv("id,code,docstring,size\nx1,\"def a():\n    return 1\n\",doc,17\nx2,,,\n", "r.csv");
    ASSERT_EQ(c.records.size(), 1u);
    EXPECT_EQ(c.records[0].id, "x1");
    EXPECT_EQ(*c.records[0].docstring, "doc");
    EXPECT_DOUBLE_EQ(c.records[0].confounders.at("size"), 17.0);
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].location, "r.csv:5"); // x1 spans lines 2-4
    EXPECT_THROW(parseRecordsCsv("id,body\n1,x\n", "r.csv"), InputError);
    EXPECT_THROW(parseFieldMapping("cod=body"), InputError);
}

TEST(GalerasTreatments, ParseAndRender)
{
    const auto t = parseTreatments(R"({"control": {"name": "c", "template": "{code}"},
        "treatments": [{"name": "T1", "template": "# {signature} {{x}}\n{code}"}]})",
                                   "t.json");
    EXPECT_EQ(t.all().size(), 2u);
    TestbedItem item;
    item.partial = "def f():\n";
    item.signature = "def f():";
    item.language = "python";
    EXPECT_EQ(renderPrompt(t.treatments[0].tmpl, item), "# def f(): {x}\ndef f():\n");
    // a multi-line field inserted into a comment line stays commented line by line (indentation kept)
    item.docstring = "\"\"\"Sum two values.\n\n    Returns their sum.\n    \"\"\"";
    EXPECT_EQ(renderPrompt("  # Doc: {docstring}\n{code}", item),
              "  # Doc: \"\"\"Sum two values.\n  # \n  #     Returns their sum.\n  #     \"\"\"\ndef f():\n");
    // outside a comment line a field is inserted as it is
    EXPECT_EQ(renderPrompt("x = {docstring}\n{code}", item), "x = " + item.docstring + "\ndef f():\n");
    auto fails = [](const std::string& json, const std::string& needle) {
        try {
            parseTreatments(json, "t.json");
        } catch (const InputError& e) {
            return std::string(e.what()).find(needle) != std::string::npos &&
                   std::string(e.what()).find("t.json") != std::string::npos;
        }
        return false;
    };
    EXPECT_TRUE(fails(R"({"control": {"name": "c", "template": "no code"}, "treatments": []})", "no {code}"));
    EXPECT_TRUE(fails(R"({"control": {"name": "c", "template": "{code}"}, "treatments": [{"name": "c",
        "template": "{code}"}]})",
                      "used twice"));
    EXPECT_TRUE(fails(R"({"control": {"name": "c", "template": "{code} {nope}"}, "treatments": [{"name": "d",
        "template": "{code}"}]})",
                      "unknown placeholder"));
    EXPECT_TRUE(fails("{", "not valid JSON"));
    EXPECT_TRUE(fails(R"({"control": {"name": "c", "template": "{code"}, "treatments": []})", "unmatched"));
}

// The bundled T2 (issue 43): its context is commented line by line — no line of a multi-line docstring or
// signature stands uncommented above the code — and its processing prompt asks for removing comments and
// optimizing code, as the seed (003) words it.
TEST(GalerasTreatments, BundledT2IsCommentedLineByLine)
{
    const auto set = readTreatments(testdata::resourcesDir() / "galeras" / "treatments.json");
    const Treatment* t2 = nullptr;
    for (const auto& t : set.treatments)
        if (t.name == "T2")
            t2 = &t;
    ASSERT_NE(t2, nullptr);
    EXPECT_NE(t2->tmpl.find("optimiz"), std::string::npos) << t2->tmpl;
    EXPECT_NE(t2->tmpl.find("emove comments"), std::string::npos) << t2->tmpl;
    TestbedItem item;
    item.language = "python";
    item.signature = "def f(a,\n      b):";
    item.docstring = "\"\"\"Add two values.\n\n    Then return the sum.\n    \"\"\"";
    item.partial =
        "def f(a,\n      b):\n    \"\"\"Add two values.\n\n    Then return the sum.\n    \"\"\"\n    c = a\n";
    const std::string prompt = renderPrompt(t2->tmpl, item);
    const auto codeAt = prompt.find(item.partial);
    ASSERT_NE(codeAt, std::string::npos) << prompt;
    std::size_t lineStart = 0, lines = 0;
    while (lineStart < codeAt) {
        const auto nl = prompt.find('\n', lineStart);
        const std::string line = prompt.substr(lineStart, nl - lineStart);
        EXPECT_EQ(line.rfind('#', 0), 0u) << "uncommented line above the code: '" << line << "'\n" << prompt;
        ++lines;
        lineStart = nl + 1;
    }
    EXPECT_GE(lines, 7u) << prompt; // 2 signature lines, 4 docstring lines, the processing line
}

TEST(GalerasRecords, InvalidUtf8SkipsThatRecordOnly)
{
    const testdata::TempDir dir("galeras-utf8");
    const std::string good = nlohmann::json{{"id", "a"}, {"code", fn()}}.dump();
    const std::string bad = R"({"id": "b", "code": "def g():\n    return ')" + std::string("\xFF") + R"('\n"})";
    {
        std::ofstream(dir / "r.jsonl", std::ios::binary) << good << "\n"
                                                         << bad << "\n"
                                                         << nlohmann::json{{"id", "c"}, {"code", fn()}}.dump() << "\n";
        const RecordSet s = readRecords(dir / "r.jsonl");
        ASSERT_EQ(s.records.size(), 2u);
        EXPECT_EQ(s.records[1].id, "c");
        ASSERT_EQ(s.issues.size(), 1u);
        EXPECT_EQ(s.issues[0].location, (dir / "r.jsonl").string() + ":2");
        EXPECT_NE(s.issues[0].message.find("invalid UTF-8"), std::string::npos) << s.issues[0].message;
    }
    {
        std::ofstream(dir / "r.csv", std::ios::binary) << "id,code\n"
                                                       << "a,\"def f():\n    return 1\n\"\n"
                                                       << "b,\"def g():\n    return '\xFF'\n\"\n"
                                                       << "c,\"def h():\n    return 3\n\"\n";
        const RecordSet s = readRecords(dir / "r.csv");
        ASSERT_EQ(s.records.size(), 2u);
        ASSERT_EQ(s.issues.size(), 1u);
        EXPECT_EQ(s.issues[0].location, (dir / "r.csv").string() + ":5"); // where record b starts
        EXPECT_NE(s.issues[0].message.find("\"code\" is not valid UTF-8"), std::string::npos) << s.issues[0].message;
    }
}

TEST(GalerasRecords, ReaderIsBounded)
{
    // /dev/zero: one endless line, refused at the line bound (64 MiB by default) with the file and line named
    try {
        readRecords("/dev/zero");
        FAIL() << "read /dev/zero";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/zero:1: the line is longer than 67.1 MB"), std::string::npos)
            << e.what();
        EXPECT_EQ(e.context().path, "/dev/zero");
        EXPECT_EQ(e.context().line, 1u);
    }
    const testdata::TempDir dir("galeras-bounded");
    {
        std::ofstream(dir / "long.jsonl") << nlohmann::json{{"id", "a"}, {"code", fn()}}.dump() << "\n"
                                          << std::string(5000, ' ') << "\n";
    }
    RecordReadOptions o;
    o.maxLineBytes = 4096;
    try {
        readRecords(dir / "long.jsonl", o);
        FAIL() << "read a line over the bound";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("long.jsonl:2: the line is longer than 4,096 bytes"), std::string::npos)
            << e.what();
    }
    o.maxLineBytes = 0;
    o.maxFileBytes = 1000;
    EXPECT_THROW(readRecords(dir / "long.jsonl", o), InputError);
    o.maxFileBytes = 0;
    EXPECT_EQ(readRecords(dir / "long.jsonl", o).records.size(), 1u);
}

TEST(GalerasTestbed, RecordsOverALimitAreSkippedByName)
{
    std::string big = "def g(x):\n";
    for (int i = 0; i < 200; ++i)
        big += "    x = x + " + std::to_string(i) + "\n";
    big += "    return x\n";
    const std::string text = nlohmann::json{{"id", "small"}, {"code", fn()}}.dump() + "\n" +
                             nlohmann::json{{"id", "big"}, {"code", big}}.dump() + "\n";
    const RecordSet records = parseRecordsJsonl(text, "mem");
    ASSERT_EQ(records.records.size(), 2u);

    TestbedLimits lim;
    lim.maxTextBytes = 1000; // fn() is ~100 bytes, big ~3,500
    const TestbedSet bytes = buildTestbed(records, Testbed::RandomCut, 1, lim);
    ASSERT_EQ(bytes.items.size(), 1u);
    EXPECT_EQ(bytes.items[0].recordId, "small");
    ASSERT_EQ(bytes.overLimit.size(), 1u);
    EXPECT_EQ(bytes.overLimit[0].recordId, "big");
    EXPECT_EQ(bytes.overLimit[0].location, "mem:2");
    EXPECT_NE(bytes.overLimit[0].why.find("over the limit of 1,000 bytes"), std::string::npos)
        << bytes.overLimit[0].why;
    EXPECT_EQ(bytes.skippedRecords,
              (std::vector<std::pair<std::string, std::string>>{{"big", "code over the text limit"}}));

    // the syntax tree's node limit: the big one is skipped by name, not the whole testbed refused
    lim.maxTextBytes = 0;
    lim.maxAstNodes = 400;
    const TestbedSet nodes = buildTestbed(records, Testbed::RandomCut, 1, lim);
    ASSERT_EQ(nodes.items.size(), 1u);
    EXPECT_EQ(nodes.items[0].recordId, "small");
    ASSERT_EQ(nodes.overLimit.size(), 1u);
    EXPECT_NE(nodes.overLimit[0].why.find("nodes, over the limit of 400 nodes"), std::string::npos)
        << nodes.overLimit[0].why;
    EXPECT_EQ(nodes.skipped.at("syntax tree over the limits"), 1);

    lim.maxAstNodes = 0; // no limit: both are items
    EXPECT_EQ(buildTestbed(records, Testbed::RandomCut, 1, lim).items.size(), 2u);
}
