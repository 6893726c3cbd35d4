// ascviz-cli across languages (issue 16): --language (id, name or alias, else the extension), node-types,
// syntax-error reports for code of another language, extract, and a mixed-language batch with its report.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

using nlohmann::json;

namespace {

std::string q(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

json jsonOf(const clitest::Result& r)
{
    EXPECT_EQ(r.status, 0) << r.err;
    try {
        return json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << r.out.substr(0, 300);
        return json::object();
    }
}

} // namespace

TEST(CliLanguages, ParseTakesTheLanguageFromTheExtensionOrTheOption)
{
    // Non-ASCII text: byte offsets of the string literal.
    const std::string java = "class A { String s = \"日本 🎉\"; }\n";
    const auto file = clitest::writeTemp("A.java", java);
    const json j = jsonOf(clitest::run("parse --text-file " + q(file)));
    EXPECT_EQ(j["language"], "java");
    EXPECT_TRUE(j["syntax_errors"].empty());
    bool found = false;
    for (const auto& n : j["nodes"])
        if (n["type"] == "string_literal") {
            found = true;
            EXPECT_EQ(n["start"].get<std::size_t>(), java.find('"'));
            EXPECT_EQ(n["end"].get<std::size_t>(), java.rfind('"') + 1);
        }
    EXPECT_TRUE(found);
    // The same text as C++ by name ("C++" is the display name), JavaScript by alias.
    EXPECT_EQ(jsonOf(clitest::run("parse --language C++ --text-file " + q(file)))["language"], "cpp");
    EXPECT_EQ(jsonOf(clitest::run("parse --language js --text-file " + q(file)))["language"], "javascript");
    const auto bad = clitest::run("parse --language cobol --text-file " + q(file));
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--language must be one of"), std::string::npos) << bad.err;
}

TEST(CliLanguages, CodeOfAnotherLanguageIsReportedWithItsErrorNodes)
{
    const auto file = clitest::writeTemp("really_python.java", "def f(x):\n    return [y for y in x if y]\n");
    const auto r = clitest::run("parse --text-file " + q(file));
    const json j = jsonOf(r);
    EXPECT_EQ(j["language"], "java"); // the extension's language, never silently switched
    ASSERT_FALSE(j["syntax_errors"].empty());
    EXPECT_EQ(j["syntax_errors"][0]["line"], 1);
    EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("parsing as java"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("parses without errors as python"), std::string::npos) << r.err;
    // Clean code: no warning.
    const auto ok = clitest::run("parse --language python --text-file " + q(file));
    EXPECT_EQ(ok.status, 0);
    EXPECT_EQ(ok.err.find("warning"), std::string::npos) << ok.err;
}

TEST(CliLanguages, NodeTypesListTheGrammarAndTheTable)
{
    for (const char* lang : {"java", "javascript", "cpp", "python"}) {
        const json j = jsonOf(clitest::run(std::string("node-types --language ") + lang));
        EXPECT_EQ(j["language"], lang);
        std::set<std::string> named(j["named"].begin(), j["named"].end());
        std::set<std::string> anonymous(j["anonymous"].begin(), j["anonymous"].end());
        EXPECT_TRUE(named.count("identifier")) << lang;
        EXPECT_TRUE(anonymous.count(")")) << lang;
        // Every categorized type is one of the grammar's.
        for (const auto& [type, category] : j["categories"].items())
            EXPECT_TRUE(named.count(type) || anonymous.count(type)) << lang << ": " << type;
        EXPECT_EQ(j["categories"]["identifier"], "Natural Language") << lang;
    }
}

TEST(CliLanguages, AForeignCategoryTableIsRefused)
{
    const auto table = clitest::writeTemp(
        "java-table.json", R"({"language": "java", "categories": {"Iterative": ["enhanced_for_statement"]}})");
    const auto code = clitest::writeTemp("x.py", "for x in y:\n    pass\n");
    const auto r = clitest::run("eval --model default --categories " + q(table) + " --text-file " + q(code));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("is for language 'java', not 'python'"), std::string::npos) << r.err;
}

TEST(CliLanguages, ExtractCutsFunctionsThatParseAlone)
{
    const auto dir = clitest::tempDir() / "extract-src";
    std::filesystem::create_directories(dir / "pkg");
    std::ofstream(dir / "pkg" / "A.java") << "package pkg;\n\nclass A {\n    int one(int x) {\n        int y = x;\n"
                                             "        return y + 1;\n    }\n\n    void tiny() {}\n\n"
                                             "    A(int z) {\n        this.z = z;\n        check(z);\n    }\n\n"
                                             "    String two() {\n        return \"二\";\n    }\n}\n";
    std::ofstream(dir / "B.java")
        << "class B {\n    int one(int x) {\n        int y = x;\n        return y + 1;\n    }\n}\n";
    std::ofstream(dir / "notes.txt") << "int f() {\n  return 1;\n}\n";
    const auto out = clitest::tempDir() / "cut.jsonl";
    const auto r = clitest::run("extract --language java --node-types method_declaration,constructor_declaration "
                                "--source " +
                                q(dir) + " --root " + q(dir) + " --licence MIT --prompts --out " + q(out));
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(out);
    std::vector<json> rows;
    for (std::string line; std::getline(in, line);)
        rows.push_back(json::parse(line));
    // B.java's `one` is the same code as A's (dropped); tiny() is one line (< 3); notes.txt is not Java; the
    // constructor does not parse alone (a bare `A(int z) {...}` is no Java declaration), so it is dropped.
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["source"], "B.java::one");
    EXPECT_EQ(rows[0]["code"], "int one(int x) {\n    int y = x;\n    return y + 1;\n}"); // dedented
    EXPECT_EQ(rows[0]["line"], 2);
    EXPECT_EQ(rows[1]["source"], "pkg/A.java::two");
    EXPECT_EQ(rows[1]["line"], 16);
    EXPECT_EQ(rows[1]["language"], "java");
    EXPECT_EQ(rows[1]["licence"], "MIT");
    const std::string prompt = rows[1]["prompt"];
    const std::string code = rows[1]["code"];
    EXPECT_EQ(code.compare(0, prompt.size(), prompt), 0);
    EXPECT_LT(prompt.size(), code.size());
    EXPECT_EQ(prompt.back(), '\n');
    // Sampling is reproducible and a subset.
    const auto s1 = clitest::tempDir() / "s1.jsonl";
    const auto s2 = clitest::tempDir() / "s2.jsonl";
    for (const auto& o : {s1, s2})
        ASSERT_EQ(clitest::run("extract --language java --node-types method_declaration,constructor_declaration "
                               "--source " +
                               q(dir) + " --sample 1 --seed 5 --out " + q(o))
                      .status,
                  0);
    std::ifstream a(s1), b(s2);
    std::string la((std::istreambuf_iterator<char>(a)), {}), lb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(la, lb);
    EXPECT_EQ(std::count(la.begin(), la.end(), '\n'), 1);
    const auto none =
        clitest::run("extract --language java --node-types no_such_type --source " + q(dir) + " --out " + q(s1));
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("no node type 'no_such_type'"), std::string::npos) << none.err;
}

TEST(CliLanguages, MixedLanguageBatchReportsEachLanguage)
{
    const auto corpus = clitest::writeTemp(
        "mixed.jsonl",
        "{\"id\": \"p1\", \"code\": \"def f(x):\\n    return x + 1\\n\"}\n"
        "{\"id\": \"j1\", \"language\": \"java\", \"code\": \"int f(int x) {\\n    return x + 1;\\n}\\n\"}\n"
        "{\"id\": \"c1\", \"language\": \"C++\", \"code\": \"int f(int x) {\\n    return x + 1;\\n}\\n\"}\n"
        "{\"id\": \"s1\", \"language\": \"javascript\", \"code\": \"function f(x) {\\n  return x +\\n\"}\n");
    const auto db = clitest::tempDir() / "mixed.db";
    std::filesystem::remove(db);
    const auto b = clitest::run("batch --model default --quiet --corpus " + q(corpus) + " --db " + q(db));
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_NE(b.err.find("languages: cpp 1 java 1 javascript 1 python 1"), std::string::npos) << b.err;
    const json j = jsonOf(clitest::run("report --db " + q(db) + " --json"));
    EXPECT_TRUE(j["mixed_languages"].get<bool>());
    for (const char* l : {"cpp", "java", "javascript", "python"}) {
        ASSERT_TRUE(j["languages"].contains(l)) << l;
        EXPECT_EQ(j["languages"][l]["snippets"], 1) << l;
        EXPECT_TRUE(j["languages"][l]["concepts"].contains("identifier")) << l;
    }
    EXPECT_TRUE(j["concepts"].contains("java:return_statement"));
    EXPECT_TRUE(j["concepts"].contains("python:return_statement"));
    // The broken JavaScript snippet is stored (ok) with its syntax errors named in its message.
    const auto csvDir = clitest::tempDir() / "mixed-csv";
    ASSERT_EQ(clitest::run("report --db " + q(db) + " --csv " + q(csvDir)).status, 0);
    std::ifstream snippets(csvDir / "snippets.csv");
    std::string all((std::istreambuf_iterator<char>(snippets)), {});
    EXPECT_NE(all.find("parsing as javascript"), std::string::npos) << all;
    EXPECT_NE(all.find(",java\r\n"), std::string::npos) << all;
    const auto text = clitest::run("report --db " + q(db));
    EXPECT_NE(text.out.find("== java: 1 snippets"), std::string::npos) << text.out;
}

// For each language: eval with the bundled model, then every node value recomputed from the JSON alone
// (the median of its aligned tokens' NtP), the categories from the language's table, the complexity.
TEST(CliLanguages, EvalNodeValuesAreRecomputableFromTheJsonInEveryLanguage)
{
    const struct {
        const char* file;
        const char* code;
        const char* ifCategoryType; // a node whose category is checked: Decision
        int cyclomatic;
    } cases[] = {
        {"m.java",
         "int sign(int x) {\n    // 符号 🎉\n    if (x > 0 && x < 100) {\n        return 1;\n    } else {\n        "
         "return -1;\n    }\n}\n",
         "if_statement", 3},
        {"m.js",
         "function sign(x) {\n  // 符号 🎉\n  if (x > 0 || x === -0) {\n    return 1;\n  }\n  return x < 0 ? -1 : "
         "0;\n}\n",
         "if_statement", 4},
        {"m.cpp",
         "int sign(int x) {\n    // 符号 🎉\n    switch (x) {\n    case 0: return 0;\n    default: return x > 0 ? 1 : "
         "-1;\n    }\n}\n",
         "switch_statement", 3},
    };
    for (const auto& c : cases) {
        const auto f = clitest::writeTemp(c.file, c.code);
        const json j = jsonOf(clitest::run("eval --model default --text-file " + q(f)));
        ASSERT_TRUE(j.contains("nodes")) << c.file;
        const json table = jsonOf(clitest::run("node-types --language " + j["language"].get<std::string>()));
        const auto& tokens = j["tokens"];
        int withValue = 0;
        bool sawDecision = false;
        for (const auto& n : j["nodes"]) {
            std::vector<double> v;
            for (const auto& ti : n["tokens"])
                if (!tokens[ti.get<std::size_t>()]["ntp"].is_null())
                    v.push_back(tokens[ti.get<std::size_t>()]["ntp"].get<double>());
            std::sort(v.begin(), v.end());
            if (v.empty()) {
                EXPECT_TRUE(n["asc_eval"].is_null()) << c.file;
                continue;
            }
            const double m = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
            EXPECT_NEAR(n["asc_eval"].get<double>(), m, 1e-9) << c.file << " node " << n["id"];
            ++withValue;
            const std::string type = n["type"];
            const json expected = table["categories"].contains(type) ? table["categories"][type] : json(nullptr);
            EXPECT_EQ(n["category"], expected) << c.file << ": " << type;
            sawDecision = sawDecision || (type == c.ifCategoryType && n["category"] == "Decision");
        }
        EXPECT_GT(withValue, 10) << c.file;
        EXPECT_TRUE(sawDecision) << c.file;
        EXPECT_EQ(j["summary"]["cyclomatic"], c.cyclomatic) << c.file;
        EXPECT_TRUE(j["syntax_errors"].empty()) << c.file;
    }
}

TEST(CliLanguages, BatchOverALanguagesSampleCorpus)
{
    for (const char* lang : {"java", "javascript", "cpp"}) {
        const auto db = clitest::tempDir() / (std::string("sample-") + lang + ".db");
        std::filesystem::remove(db);
        const auto b = clitest::run(std::string("batch --model default --quiet --corpus default --language ") + lang +
                                    " --limit 4 --db " + q(db));
        ASSERT_EQ(b.status, 0) << b.err;
        EXPECT_NE(b.err.find(std::string(lang) + "-functions.jsonl"), std::string::npos) << b.err;
        const json j = jsonOf(clitest::run("report --db " + q(db) + " --json"));
        EXPECT_EQ(j["snippets"], 4) << lang;
        EXPECT_FALSE(j["mixed_languages"].get<bool>());
        EXPECT_EQ(j["languages"].size(), 1u);
        EXPECT_TRUE(j["languages"].contains(lang));
        EXPECT_EQ(j["category_table"], std::string("resources/languages/") + lang + "/categories.json");
        EXPECT_TRUE(j["categories"].contains("Scope")) << lang;
        EXPECT_TRUE(j["global_asc_eval"].is_number()) << lang;
    }
}
