// Languages beyond Python (issue 16): every bundled language's grammar, category table, decision points,
// byte offsets on non-ASCII text, syntax-error reports, mixed-language corpora and per-language statistics.
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"
#include "dbcontent.h"
#include "eval_test_util.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ascviz;

namespace {

fs::path freshDir(const std::string& name)
{
    return ascviz::testdata::freshTempDir(name);
} // removed at exit

const AstNode* firstOfType(const SyntaxTree& t, const std::string& type)
{
    for (const auto& n : t.nodes())
        if (n.type == type)
            return &n;
    return nullptr;
}

// One token per UTF-8 character run between spaces: enough to evaluate a text with known NtP values.
ScoredText scoredByWords(const std::string& text, double ntp)
{
    std::vector<std::pair<std::string, std::optional<double>>> pieces;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t j = i + 1;
        while (j < text.size() && text[j] != ' ' && text[j] != '\n')
            ++j;
        pieces.push_back({text.substr(i, j - i), ntp});
        i = j;
    }
    return evaltest::scoredFromPieces(pieces);
}

} // namespace

TEST(Languages, TheFourLanguagesAreRegisteredWithTheirGrammars)
{
    const auto& reg = LanguageRegistry::instance();
    for (const char* id : {"python", "java", "javascript", "cpp"}) {
        const LanguageInfo* l = reg.find(id);
        ASSERT_NE(l, nullptr) << id;
        EXPECT_FALSE(SyntaxTree::nodeTypes(id).empty()) << id;
        EXPECT_FALSE(l->decisionPoints.empty()) << id;
        EXPECT_FALSE(l->highlight.lineComment.empty()) << id;
    }
    EXPECT_EQ(reg.forFile("Main.java")->id, "java");
    EXPECT_EQ(reg.forFile("app.MJS")->id, "javascript");
    EXPECT_EQ(reg.forFile("x/y.hpp")->id, "cpp");
    EXPECT_EQ(reg.forFile("x/y.cc")->id, "cpp");
    // What corpora call them.
    EXPECT_EQ(reg.lookup("C++")->id, "cpp");
    EXPECT_EQ(reg.lookup("JavaScript")->id, "javascript");
    EXPECT_EQ(reg.lookup("js")->id, "javascript");
    EXPECT_EQ(reg.lookup("JAVA")->id, "java");
    EXPECT_EQ(reg.lookup("Python")->id, "python");
    EXPECT_EQ(reg.lookup("cobol"), nullptr);
    EXPECT_EQ(reg.lookup(""), nullptr);
}

TEST(Languages, EveryTableAndDecisionPointNamesOnlyTypesItsGrammarHas)
{
    for (const auto& l : LanguageRegistry::instance().languages()) {
        const CategoryMap table = CategoryMap::forLanguage(l.id); // throws when a type is unknown
        EXPECT_TRUE(table.unknownTypes(l.id).empty()) << l.id;
        EXPECT_EQ(table.language(), l.id);
        EXPECT_GE(table.types().size(), 15u) << l.id;
        const auto types = SyntaxTree::nodeTypes(l.id);
        auto has = [&](const std::string& name, bool named) {
            return std::any_of(types.begin(), types.end(),
                               [&](const NodeType& t) { return t.name == name && t.named == named; });
        };
        for (const auto& t : l.decisionPoints)
            EXPECT_TRUE(has(t, true)) << l.id << ": decision point type " << t << " is not a named node type";
        for (const auto& t : l.decisionTokens)
            EXPECT_TRUE(has(t, false)) << l.id << ": decision token " << t << " is not an anonymous node type";
        // The ten categories of method.md §5, in every table.
        const auto cats = table.categories();
        for (const char* c : {"Iterative", "Scope", "Decision", "Operator", "Functional Programming",
                              "Natural Language", "Data Structures", "Exceptions", "Testing", "Types"})
            EXPECT_NE(std::find(cats.begin(), cats.end(), c), cats.end()) << l.id << " lacks " << c;
    }
}

TEST(Languages, ACategoryTableNamingUnknownTypesOrAnotherLanguageIsRefused)
{
    const fs::path dir = freshDir("tables");
    {
        std::ofstream(dir / "bad.json")
            << R"({"language": "java", "categories": {"Iterative": ["for_statement", "for_in_clause", "no_such_node"]}})";
        std::ofstream(dir / "py.json") << R"({"language": "python", "categories": {"Iterative": ["for_statement"]}})";
        std::ofstream(dir / "free.json") << R"({"categories": {"Iterative": ["for_statement"]}})";
    }
    try {
        CategoryMap::fromFile(dir / "bad.json", "java");
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("\"for_in_clause\", \"no_such_node\""), std::string::npos) << m; // Python's, not Java's
        EXPECT_NE(m.find("tree-sitter-java"), std::string::npos) << m;
        EXPECT_EQ(m.find("for_statement"), std::string::npos) << m;
    }
    EXPECT_NO_THROW(CategoryMap::fromFile(dir / "bad.json")); // no language: not checked
    try {
        CategoryMap::fromFile(dir / "py.json", "cpp");
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is for language 'python', not 'cpp'"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(CategoryMap::fromFile(dir / "free.json", "javascript"));
    EXPECT_THROW(CategoryMap::fromFile(dir / "free.json", "cobol"), InputError);
    fs::remove_all(dir);
}

// A string literal and a comment holding CJK and emoji: the nodes' byte spans are UTF-8 byte offsets into
// the text, whatever the language.
TEST(Languages, ByteOffsetsOnNonAsciiTextInEveryLanguage)
{
    const std::string lit = "\"日本語 🎉 ok\"";
    const struct {
        const char* language;
        std::string code;
        const char* stringType;
        const char* commentType;
        const char* comment;
    } cases[] = {
        {"python", "# 注释 🐍\ns = " + lit + "\n", "string", "comment", "# 注释 🐍"},
        {"java", "class A {\n  // 注释 🐍\n  String s = " + lit + ";\n}\n", "string_literal", "line_comment",
         "// 注释 🐍"},
        {"javascript", "// 注释 🐍\nconst s = " + lit + ";\n", "string", "comment", "// 注释 🐍"},
        {"cpp", "// 注释 🐍\nconst char* s = " + lit + ";\n", "string_literal", "comment", "// 注释 🐍"},
    };
    for (const auto& c : cases) {
        const SyntaxTree t = SyntaxTree::parse(c.language, c.code);
        EXPECT_FALSE(t.hasErrors()) << c.language;
        const AstNode* s = firstOfType(t, c.stringType);
        ASSERT_NE(s, nullptr) << c.language;
        EXPECT_EQ(s->start, c.code.find(lit)) << c.language;
        EXPECT_EQ(s->end, c.code.find(lit) + lit.size()) << c.language;
        EXPECT_EQ(t.nodeText(*s), lit) << c.language;
        const AstNode* k = firstOfType(t, c.commentType);
        ASSERT_NE(k, nullptr) << c.language;
        EXPECT_EQ(t.nodeText(*k), c.comment) << c.language;
        EXPECT_EQ(k->start, c.code.find(c.comment)) << c.language;
    }
}

TEST(Languages, CyclomaticComplexityCountsEachLanguagesDecisionPoints)
{
    // Counted by hand; the comment lists the decision points.
    const struct {
        const char* language;
        const char* code;
        int expected;
    } cases[] = {
        // if, &&, for, case, case (default: not), ternary
        {"java",
         "class A { int f(int x) { if (x > 0 && x < 9) return 1; for (int i = 0; i < x; i++) {} "
         "switch (x) { case 1: case 2: break; default: break; } return x > 0 ? 1 : 0; } }",
         7},
        // enhanced for, while, do, catch, ||
        {"java",
         "class B { void g(int[] a) { for (int v : a) {} while (a.length > 1 || a == null) {} do {} while (false); "
         "try {} catch (Exception e) {} } }",
         6},
        // if, &&, ||, for-of, while, case (default: not), ??
        {"javascript",
         "function f(x) { if (x && y || z) {} for (const a of b) {} while (x) {} "
         "switch (x) { case 1: break; default: } return x ?? 0; }",
         8},
        // if, `and`, range-for, catch, case (default: not), ?:
        {"cpp",
         "int f(int x) { if (x > 0 and x < 9) return 1; for (auto v : xs) {} try {} catch (...) {} "
         "switch (x) { case 1: break; default: break; } return x ? 1 : 0; }",
         7},
        // nothing but straight-line code
        {"cpp", "int g() { int a = 1; return a + 2; }", 1},
    };
    for (const auto& c : cases) {
        const SyntaxTree t = SyntaxTree::parse(c.language, c.code);
        EXPECT_FALSE(t.hasErrors()) << c.language << ": " << c.code;
        EXPECT_EQ(cyclomaticComplexity(t), c.expected) << c.language << ": " << c.code;
    }
}

TEST(Languages, CategoriesFollowEachLanguagesTable)
{
    const struct {
        const char* language;
        const char* code;
        std::vector<std::pair<std::string, std::string>> expect; // node type -> category
    } cases[] = {
        {"java",
         "class A { int f(int[] xs) { for (int x : xs) { if (x > 0) { return 1; } else { throw new E(); } } "
         "Runnable r = () -> {}; assert xs != null; return xs.length; } }",
         {{"enhanced_for_statement", "Iterative"},
          {"else", "Decision"},
          {"throw", "Exceptions"},
          {"lambda_expression", "Functional Programming"},
          {"assert_statement", "Testing"},
          {"integral_type", "Types"},
          {"}", "Scope"},
          {"identifier", "Natural Language"},
          {"binary_expression", "Operator"}}},
        {"javascript",
         "const f = (xs) => { try { return [1, 2].map(x => x * 2); } catch (e) { return {a: 'b'}; } };",
         {{"arrow_function", "Functional Programming"},
          {"catch", "Exceptions"},
          {"array", "Data Structures"},
          {"object", "Data Structures"},
          {"number", "Types"},
          {"string", "Natural Language"},
          {";", "Scope"}}},
        {"cpp",
         "int f(std::vector<int> v) { static_assert(sizeof(int) == 4); int a[] = {1, 2}; "
         "auto g = [](int x) { return x; }; while (v.size() > 0) v.pop_back(); return a[0]; }",
         {{"static_assert_declaration", "Testing"},
          {"initializer_list", "Data Structures"},
          {"lambda_expression", "Functional Programming"},
          {"while_statement", "Iterative"},
          {"primitive_type", "Types"},
          {"number_literal", "Types"},
          {"return_statement", "Scope"}}},
    };
    for (const auto& c : cases) {
        const CategoryMap table = CategoryMap::forLanguage(c.language);
        const EvalResult r = evaluate(scoredByWords(c.code, 0.5), c.language, Aggregation::Median, table);
        EXPECT_FALSE(r.tree.hasErrors()) << c.language;
        for (const auto& [type, category] : c.expect) {
            const AstNode* n = firstOfType(r.tree, type);
            ASSERT_NE(n, nullptr) << c.language << ": no " << type;
            ASSERT_TRUE(r.nodes[static_cast<std::size_t>(n->id)].category.has_value()) << c.language << ": " << type;
            EXPECT_EQ(*r.nodes[static_cast<std::size_t>(n->id)].category, category) << c.language << ": " << type;
        }
        EXPECT_EQ(r.features.perCategory.count("Natural Language"), 1u) << c.language;
    }
}

TEST(Languages, CodeOfAnotherLanguageIsReportedNotGuessed)
{
    const std::string python = "def f(x):\n    return [y for y in x if y]\n";
    const SyntaxTree asJava = SyntaxTree::parse("java", python);
    EXPECT_TRUE(asJava.hasErrors());
    EXPECT_EQ(asJava.language(), "java"); // parsed as asked
    const auto problems = syntaxProblems(asJava);
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems.front().line, 1);
    const std::string d = describeSyntaxProblems(asJava);
    EXPECT_NE(d.find("parsing as java"), std::string::npos) << d;
    const auto clean = languagesParsingCleanly(python, "java");
    EXPECT_NE(std::find(clean.begin(), clean.end(), "python"), clean.end());
    EXPECT_EQ(std::find(clean.begin(), clean.end(), "java"), clean.end());
    EXPECT_TRUE(describeSyntaxProblems(SyntaxTree::parse("python", python)).empty());

    // Line and column (in code points) of an error after CJK text: the stray `@@` on line 3.
    const std::string js = "// 日本語\nconst a = '🎉';\nlet 变量 = @@;\n";
    const SyntaxTree t = SyntaxTree::parse("javascript", js);
    const auto ps = syntaxProblems(t);
    ASSERT_FALSE(ps.empty());
    EXPECT_EQ(ps.front().line, 3);
    const std::size_t line3 = js.find("let ");
    EXPECT_GE(ps.front().start, line3);
    EXPECT_LE(ps.front().start, js.find("@@"));
    // The column counts code points from the line start: "变量" is 6 bytes but 2 columns.
    std::size_t codePoints = 0;
    for (std::size_t i = line3; i < ps.front().start; ++i)
        codePoints += (static_cast<unsigned char>(js[i]) & 0xC0) != 0x80 ? 1 : 0;
    EXPECT_EQ(ps.front().column, static_cast<int>(codePoints) + 1);
    EXPECT_LT(ps.front().column, static_cast<int>(ps.front().start - line3) + 1); // not a byte count
    // Nested ERROR nodes are reported once (the outermost).
    for (std::size_t i = 1; i < ps.size(); ++i)
        EXPECT_GE(ps[i].start, ps[i - 1].end > ps[i - 1].start ? ps[i - 1].start : 0u);
}

TEST(Languages, MixedLanguageJsonLinesAndFolders)
{
    const fs::path dir = freshDir("corpus");
    {
        std::ofstream f(dir / "c.jsonl");
        f << R"({"id": "p", "code": "x = 1\n"})" << '\n'
          << R"({"id": "j", "language": "Java", "code": "class A {}"})" << '\n'
          << R"({"id": "c", "language": "c++", "code": "int x;"})" << '\n'
          << R"({"id": "u", "language": "cobol", "code": "MOVE A TO B."})" << '\n'
          << R"({"id": "n", "language": 3, "code": "x"})" << '\n';
        std::ofstream(dir / "c.csv") << "id,language,code\r\na,javascript,let a = 1;\r\nb,,y = 2\r\n";
    }
    const Corpus c = readCorpus(dir / "c.jsonl");
    ASSERT_EQ(c.entries.size(), 3u);
    EXPECT_EQ(c.entries[0].language, LanguageRegistry::instance().defaultLanguage().id); // no field: the default
    EXPECT_EQ(c.entries[1].language, "java");
    EXPECT_EQ(c.entries[2].language, "cpp");
    ASSERT_EQ(c.issues.size(), 2u);
    EXPECT_NE(c.issues[0].message.find("unknown language 'cobol'"), std::string::npos) << c.issues[0].message;
    EXPECT_NE(c.issues[1].message.find("\"language\" must be a string"), std::string::npos);
    EXPECT_EQ(c.languages(), (std::vector<std::string>{"cpp", "java", "python"}));
    // --language sets the language of entries that name none.
    CorpusReadOptions js;
    js.language = "javascript";
    const Corpus cj = readCorpus(dir / "c.jsonl", js);
    EXPECT_EQ(cj.entries[0].language, "javascript");
    EXPECT_EQ(cj.entries[1].language, "java");
    EXPECT_NE(cj.fingerprint(), c.fingerprint()); // a language change is a content change for --resume

    const Corpus csv = readCorpus(dir / "c.csv");
    ASSERT_EQ(csv.entries.size(), 2u);
    EXPECT_EQ(csv.entries[0].language, "javascript");
    EXPECT_EQ(csv.entries[1].language, LanguageRegistry::instance().defaultLanguage().id);

    const fs::path folder = dir / "src";
    fs::create_directories(folder / "sub");
    std::ofstream(folder / "a.py") << "x = 1\n";
    std::ofstream(folder / "sub" / "B.java") << "class B {}\n";
    std::ofstream(folder / "sub" / "c.JS") << "let c = 1;\n";
    std::ofstream(folder / "d.hpp") << "int d();\n";
    std::ofstream(folder / "notes.txt") << "not code\n";
    const Corpus f = readCorpus(folder);
    ASSERT_EQ(f.entries.size(), 4u); // every registered extension; notes.txt is not one
    std::map<std::string, std::string> byId;
    for (const auto& e : f.entries)
        byId[e.id] = e.language;
    EXPECT_EQ(byId["a.py"], "python");
    EXPECT_EQ(byId["sub/B.java"], "java");
    EXPECT_EQ(byId["sub/c.JS"], "javascript");
    EXPECT_EQ(byId["d.hpp"], "cpp");
    CorpusReadOptions only;
    only.language = "java";
    const Corpus fj = readCorpus(folder, only);
    ASSERT_EQ(fj.entries.size(), 1u);
    EXPECT_EQ(fj.entries[0].language, "java");
    fs::remove_all(dir);
}

namespace {

void writeEvaluated(ResultsDb& db, int64_t index, const std::string& language, const std::string& code, double ntp,
                    bool setLanguage = true)
{
    const EvalResult r =
        evaluate(scoredByWords(code, ntp), language, Aggregation::Median, CategoryMap::forLanguage(language));
    SnippetMeta m;
    m.index = index;
    m.id = language + std::to_string(index);
    m.code = code;
    m.promptBytes = code.size();
    m.ok = true;
    if (setLanguage)
        m.language = language;
    db.writeSnippet(m, &r);
}

RunInfo runInfo(const std::string& language)
{
    RunInfo run;
    run.modelName = "hand-made";
    run.modelDir = "/nowhere";
    run.corpusPath = "/c.jsonl";
    run.corpusFingerprint = "00";
    run.language = language;
    return run;
}

} // namespace

TEST(Languages, MixedResultsAreReportedPerLanguageAndWithQualifiedConcepts)
{
    const fs::path dir = freshDir("stats");
    {
        auto db = ResultsDb::create(dir / "r.db", runInfo("python"));
        writeEvaluated(db, 0, "python", "for x in y:\n    pass\n", 0.9);
        writeEvaluated(db, 1, "python", "while x:\n    pass\n", 0.8);
        writeEvaluated(db, 2, "java", "class A { void f() { for (;;) { if (a) { } else { } } } }", 0.3);
        writeEvaluated(db, 3, "java", "class B { int g(int x) { return x + 1; } }", 0.2);
    }
    const auto db = ResultsDb::open(dir / "r.db");
    EXPECT_EQ(db.languages(), (std::map<std::string, int64_t>{{"java", 2}, {"python", 2}}));
    const CorpusStats s = computeStats(db);
    EXPECT_TRUE(s.mixedLanguages);
    ASSERT_EQ(s.languages.size(), 2u);
    EXPECT_EQ(s.languages[0].language, "java");
    EXPECT_EQ(s.languages[1].language, "python");
    // Concepts are qualified by language; the Java values are all 0.3/0.2 and the Python ones 0.9/0.8.
    ASSERT_TRUE(s.concepts.count("java:identifier"));
    ASSERT_TRUE(s.concepts.count("python:identifier"));
    EXPECT_FALSE(s.concepts.count("identifier"));
    EXPECT_LE(s.concepts.at("java:identifier").median, 0.3);
    EXPECT_GE(s.concepts.at("python:identifier").median, 0.8);
    EXPECT_EQ(s.categoryOf.at("java:else"), "Decision");
    // Per language: the same node counts as the qualified concepts, each under its own table.
    const LanguageStats& java = s.languages[0];
    EXPECT_EQ(java.snippets, 2);
    EXPECT_EQ(java.concepts.at("identifier").n, s.concepts.at("java:identifier").n);
    EXPECT_EQ(java.categoryOf.at("else"), "Decision");
    EXPECT_FALSE(s.languages[1].categoryOf.count("else") && s.languages[1].concepts.count("else"));
    ASSERT_TRUE(java.globalAscEval && s.languages[1].globalAscEval && s.globalAscEval);
    EXPECT_LT(*java.globalAscEval, 0.31);
    EXPECT_GT(*s.languages[1].globalAscEval, 0.79);
    // Global = mean over every categorized qualified concept.
    double sum = 0;
    int n = 0;
    for (const auto& [name, r] : s.concepts)
        if (s.categoryOf.count(name)) {
            sum += r.median;
            ++n;
        }
    EXPECT_NEAR(*s.globalAscEval, sum / n, 1e-12);
    const auto j = statsToJson(s);
    EXPECT_TRUE(j["mixed_languages"].get<bool>());
    EXPECT_EQ(j["languages"]["java"]["snippets"].get<int>(), 2);
    EXPECT_NEAR(j["languages"]["python"]["global_asc_eval"].get<double>(), *s.languages[1].globalAscEval, 1e-12);
    EXPECT_EQ(s.snippetLanguages, (std::vector<std::string>{"python", "python", "java", "java"}));
    fs::remove_all(dir);
}

TEST(Languages, SchemaOneDatabasesReadAsTheRunsLanguageAndUpgradeOnWrite)
{
    const fs::path dir = freshDir("schema1");
    {
        auto db = ResultsDb::create(dir / "r.db", runInfo("java"));
        writeEvaluated(db, 0, "java", "class A { }", 0.5, false);
        testdata::query(db, "ALTER TABLE snippets DROP COLUMN language", [](const auto&) {});
        for (const char* c : {"shard_index", "shard_count", "run_planned", // added in version 3
                              "aggregation_scope"})                        // added in version 4
            testdata::query(db, std::string("ALTER TABLE run DROP COLUMN ") + c, [](const auto&) {});
        for (const char* c : {"entropy", "topk_entropy", "p1", "margin", "rank"}) // added in version 5
            testdata::query(db, std::string("ALTER TABLE tokens DROP COLUMN ") + c, [](const auto&) {});
        testdata::query(db, "UPDATE run SET schema_version = 1", [](const auto&) {});
    }
    {
        const auto db = ResultsDb::open(dir / "r.db");
        EXPECT_EQ(db.schemaVersion(), 1);
        ASSERT_EQ(db.snippets().size(), 1u);
        EXPECT_EQ(db.snippets()[0].language, "java");
        EXPECT_EQ(db.languages(), (std::map<std::string, int64_t>{{"java", 1}}));
        EXPECT_EQ(computeStats(db).languages.at(0).language, "java");
    }
    {
        auto db = ResultsDb::open(dir / "r.db", ResultsDb::Mode::ReadWrite);
        EXPECT_EQ(db.schemaVersion(), 5);
        EXPECT_EQ(db.runInfo().shardCount, 1);
        EXPECT_EQ(db.runInfo().aggregationScope, AggregationScope::Tokens); // older runs: θ over tokens
        writeEvaluated(db, 1, "cpp", "int x;", 0.5);
        EXPECT_EQ(db.languages(), (std::map<std::string, int64_t>{{"cpp", 1}, {"java", 1}}));
    }
    fs::remove_all(dir);
}
