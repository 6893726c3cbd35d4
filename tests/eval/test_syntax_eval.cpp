// Parsing, alignment δ, aggregation θ, categories and snippet features (method.md §2–5, §7), checked
// against hand-computed values.
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/syntax/syntax.h"
#include "eval_test_util.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ascviz;
using evaltest::scoredFromPieces;

namespace {

const AstNode& nodeAt(const SyntaxTree& t, std::size_t start, std::size_t end, const std::string& type)
{
    for (const auto& n : t.nodes())
        if (n.start == start && n.end == end && n.type == type)
            return n;
    ADD_FAILURE() << "no node " << type << " [" << start << ", " << end << ")";
    static AstNode none;
    return none;
}

std::vector<int> tokensOf(const EvalResult& r, std::size_t start, std::size_t end, const std::string& type)
{
    return r.nodes.at(static_cast<std::size_t>(nodeAt(r.tree, start, end, type).id)).tokens;
}

std::optional<double> valueOf(const EvalResult& r, std::size_t start, std::size_t end, const std::string& type)
{
    return r.nodes.at(static_cast<std::size_t>(nodeAt(r.tree, start, end, type).id)).value;
}

CategoryMap python()
{
    return CategoryMap::forLanguage("python");
}

// The paper's Fig. 2 example (method.md §3–4): `def f(string, character):` tokenized as
// ( str ing , ·char acter ) with hand-picked NtP so that `parameters` averages to 0.234.
ScoredText paperExample()
{
    return scoredFromPieces(
        {{"def", std::nullopt}, {" f", 0.9},      {"(", 0.07},  {"str", 0.4},   {"ing", 0.5}, {",", 0.1},
         {" char", 0.1},        {"acter", 0.234}, {")", 0.234}, {":", 0.8},     {"\n", 0.6},  {"   ", 0.7},
         {" return", 0.9},      {" string", 0.3}, {".", 0.95},  {"count", 0.2}, {"(", 0.9},   {"character", 0.8},
         {")", 0.99},           {"\n", 0.5}});
}

std::filesystem::path tempFile(const std::string& name, const std::string& content)
{
    static const std::filesystem::path dir = [] {
        return ascviz::testdata::freshTempDir("eval"); // removed at exit
    }();
    const auto p = dir / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

} // namespace

// ---------------------------------------------------------------------------------------------- parse

TEST(Parse, PreOrderTreeWithByteSpans)
{
    const std::string code = "def f(string, character):\n    return string.count(character)\n";
    const auto t = SyntaxTree::parse("python", code);
    const auto& n = t.nodes();
    ASSERT_GT(n.size(), 20u);
    EXPECT_EQ(n[0].type, "module");
    EXPECT_EQ(n[0].parent, -1);
    EXPECT_EQ(n[0].depth, 0);
    EXPECT_EQ(n[1].type, "function_definition");
    for (std::size_t i = 0; i < n.size(); ++i) {
        EXPECT_EQ(n[i].id, static_cast<int>(i));
        if (i > 0) {
            ASSERT_GE(n[i].parent, 0);
            ASSERT_LT(n[i].parent, static_cast<int>(i)); // pre-order: parent first
            const auto& p = n[static_cast<std::size_t>(n[i].parent)];
            EXPECT_EQ(n[i].depth, p.depth + 1);
            EXPECT_LE(p.start, n[i].start);
            EXPECT_GE(p.end, n[i].end);
            EXPECT_NE(std::find(p.children.begin(), p.children.end(), static_cast<int>(i)), p.children.end());
        }
        for (std::size_t k = 1; k < n[i].children.size(); ++k) // children in text order
            EXPECT_LE(n[static_cast<std::size_t>(n[i].children[k - 1])].end,
                      n[static_cast<std::size_t>(n[i].children[k])].start);
    }
    const auto& params = nodeAt(t, 5, 24, "parameters");
    EXPECT_TRUE(params.named);
    EXPECT_EQ(t.nodeText(params), "(string, character)");
    const auto& paren = nodeAt(t, 5, 6, "(");
    EXPECT_FALSE(paren.named);
    EXPECT_TRUE(paren.isTerminal());
    EXPECT_EQ(t.nodeText(nodeAt(t, 14, 23, "identifier")), "character");
    EXPECT_FALSE(t.hasErrors());
    EXPECT_EQ(t.language(), "python");
    EXPECT_EQ(t.text(), code);
}

TEST(Parse, NonAsciiIdentifiersUseByteOffsets)
{
    const std::string code =
        "def \xe5\x87\xbd\xe6\x95\xb0(\xcf\x80): return \"\xf0\x9f\x98\x80\"\n"; // def 函数(π): return "😀"
    const auto t = SyntaxTree::parse("python", code);
    EXPECT_EQ(t.nodeText(nodeAt(t, 4, 10, "identifier")), "\xe5\x87\xbd\xe6\x95\xb0");
    EXPECT_EQ(t.nodeText(nodeAt(t, 11, 13, "identifier")), "\xcf\x80");
    EXPECT_EQ(t.nodeText(nodeAt(t, 24, 28, "string_content")), "\xf0\x9f\x98\x80");
    EXPECT_EQ(t.nodeText(nodeAt(t, 23, 29, "string")), "\"\xf0\x9f\x98\x80\"");
}

TEST(Parse, CrLfLineEndings)
{
    const auto t = SyntaxTree::parse("python", "x = 1\r\ny = 2\r\n");
    EXPECT_FALSE(t.hasErrors());
    EXPECT_EQ(t.nodeText(nodeAt(t, 7, 12, "expression_statement")), "y = 2");
}

TEST(Parse, BrokenCodeKeepsErrorAndMissingNodes)
{
    const auto a = SyntaxTree::parse("python", "x = (1, 2\n");
    EXPECT_TRUE(a.hasErrors());
    const auto& err = nodeAt(a, 0, 9, "ERROR");
    EXPECT_TRUE(err.isError);
    EXPECT_TRUE(err.error());
    EXPECT_FALSE(err.isMissing);

    const auto b = SyntaxTree::parse("python", "def f(:\n  return 1\n");
    EXPECT_TRUE(b.hasErrors());
    const auto& missing = nodeAt(b, 6, 6, ")");
    EXPECT_TRUE(missing.isMissing);
    EXPECT_TRUE(missing.error());
    EXPECT_FALSE(missing.isError);
}

TEST(Parse, EmptyTextIsAModule)
{
    const auto t = SyntaxTree::parse("python", "");
    ASSERT_EQ(t.nodes().size(), 1u);
    EXPECT_EQ(t.nodes()[0].type, "module");
    EXPECT_EQ(t.levels(), 1);
}

TEST(Parse, InvalidInputIsInputError)
{
    EXPECT_THROW(SyntaxTree::parse("cobol", "x = 1\n"), InputError);
    EXPECT_THROW(SyntaxTree::parse("python", std::string("x = '\xff'\n")), InputError);
    EXPECT_THROW(SyntaxTree::parse("python", std::string("x = '\xe5\x87'\n")), InputError); // truncated
    const auto langs = SyntaxTree::languages();
    EXPECT_NE(std::find(langs.begin(), langs.end(), "python"), langs.end());
}

TEST(Parse, DeepNestingDoesNotRecurse)
{
    std::string code = "x = " + std::string(3000, '(') + "1" + std::string(3000, ')') + "\n";
    const auto t = SyntaxTree::parse("python", code);
    EXPECT_GT(t.levels(), 3000);
}

// ------------------------------------------------------------------------------------------ alignment

TEST(Align, PaperExample)
{
    const auto r = evaluate(paperExample(), "python", Aggregation::Mean, python());
    // `(` <- {`(`}; identifier `string` <- {str, ing}; parameters <- ( str ing , char acter )
    EXPECT_EQ(tokensOf(r, 5, 6, "("), (std::vector<int>{2}));
    EXPECT_EQ(tokensOf(r, 6, 12, "identifier"), (std::vector<int>{3, 4}));
    EXPECT_EQ(tokensOf(r, 5, 24, "parameters"), (std::vector<int>{2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(tokensOf(r, 14, 23, "identifier"), (std::vector<int>{6, 7})); // " char" includes the space
    EXPECT_NEAR(*valueOf(r, 5, 24, "parameters"), 0.234, 1e-12);
    EXPECT_NEAR(*valueOf(r, 6, 12, "identifier"), 0.45, 1e-12);
    EXPECT_NEAR(*valueOf(r, 5, 6, "("), 0.07, 1e-12);
}

TEST(Align, AllFourAggregations)
{
    struct Case {
        Aggregation a;
        double parameters, identifier;
    };
    for (const Case c : {Case{Aggregation::Median, 0.234, 0.45}, Case{Aggregation::Mean, 0.234, 0.45},
                         Case{Aggregation::Max, 0.5, 0.5}, Case{Aggregation::Min, 0.07, 0.4}}) {
        const auto r = evaluate(paperExample(), "python", c.a, python());
        EXPECT_NEAR(*valueOf(r, 5, 24, "parameters"), c.parameters, 1e-12) << toString(c.a);
        EXPECT_NEAR(*valueOf(r, 6, 12, "identifier"), c.identifier, 1e-12) << toString(c.a);
    }
    EXPECT_EQ(*aggregate({0.3, 0.1, 0.9, 0.5}, Aggregation::Median), 0.4); // even count: mean of the middle two
    EXPECT_EQ(*aggregate({0.3, 0.1, 0.9}, Aggregation::Median), 0.3);
    EXPECT_FALSE(aggregate({}, Aggregation::Mean).has_value());
    EXPECT_EQ(parseAggregation("max"), Aggregation::Max);
    EXPECT_EQ(toString(parseAggregation("median")), "median");
    EXPECT_THROW(parseAggregation("mode"), InputError);
}

TEST(Align, WhitespaceTokensOnlyInEnclosingNonTerminals)
{
    const auto r = evaluate(paperExample(), "python", Aggregation::Median, python());
    // token 11 is the indent "   " [26, 29): before the block, which starts at `return` (30).
    std::vector<std::string> types;
    for (int n : r.nodesOfToken[11]) {
        EXPECT_FALSE(r.tree.nodes()[static_cast<std::size_t>(n)].isTerminal());
        types.push_back(r.tree.nodes()[static_cast<std::size_t>(n)].type);
    }
    EXPECT_EQ(types, (std::vector<std::string>{"module", "function_definition"}));
    // the final newline [60, 61) is only in the module
    EXPECT_EQ(r.nodesOfToken[19], (std::vector<int>{0}));

    // An indent between two statements of a block is inside the block.
    const auto s = scoredFromPieces({{"if", std::nullopt},
                                     {" x", 0.5},
                                     {":", 0.5},
                                     {"\n", 0.5},
                                     {"    ", 0.5},
                                     {"y", 0.5},
                                     {" = 1", 0.5},
                                     {"\n", 0.5},
                                     {"    ", 0.25},
                                     {"z", 0.5},
                                     {" = 2", 0.5},
                                     {"\n", 0.5}});
    const auto r2 = evaluate(s, "python", Aggregation::Median, python());
    std::vector<std::string> t2;
    for (int n : r2.nodesOfToken[8])
        t2.push_back(r2.tree.nodes()[static_cast<std::size_t>(n)].type);
    EXPECT_EQ(t2, (std::vector<std::string>{"module", "if_statement", "block"}));
}

TEST(Align, TokenSpanningTwoLeavesCountsInBoth)
{
    const auto s = scoredFromPieces({{"a+", 0.2}, {"b", 0.8}, {"\n", 0.5}});
    const auto r = evaluate(s, "python", Aggregation::Median, python());
    EXPECT_EQ(tokensOf(r, 0, 1, "identifier"), (std::vector<int>{0}));
    EXPECT_EQ(tokensOf(r, 1, 2, "+"), (std::vector<int>{0}));
    EXPECT_EQ(tokensOf(r, 2, 3, "identifier"), (std::vector<int>{1}));
    EXPECT_EQ(tokensOf(r, 0, 3, "binary_operator"), (std::vector<int>{0, 1}));
    EXPECT_EQ(r.nodesOfToken[0].size(), 5u); // module, expression_statement, binary_operator, a, +
}

TEST(Align, MultiByteIdentifiersAndEmojiByBytes)
{
    // def 函数(π): return "😀" with a token boundary inside 数 (E6 95 | B0).
    const auto s = scoredFromPieces({{"def", std::nullopt},
                                     {" \xe5\x87\xbd", 0.2},
                                     {"\xe6\x95", 0.4},
                                     {"\xb0(", 0.6},
                                     {"\xcf\x80", 0.8},
                                     {"):", 0.5},
                                     {" return", 0.9},
                                     {" \"", 0.3},
                                     {"\xf0\x9f\x98\x80", 0.05},
                                     {"\"", 0.7},
                                     {"\n", 0.5}});
    ASSERT_FALSE(findInvalidUtf8(s.text).has_value());
    const auto r = evaluate(s, "python", Aggregation::Median, python());
    EXPECT_EQ(tokensOf(r, 4, 10, "identifier"), (std::vector<int>{1, 2, 3}));
    EXPECT_NEAR(*valueOf(r, 4, 10, "identifier"), 0.4, 1e-12);
    EXPECT_EQ(tokensOf(r, 10, 11, "("), (std::vector<int>{3}));
    EXPECT_EQ(tokensOf(r, 11, 13, "identifier"), (std::vector<int>{4}));
    EXPECT_EQ(tokensOf(r, 13, 14, ")"), (std::vector<int>{5}));
    EXPECT_EQ(tokensOf(r, 14, 15, ":"), (std::vector<int>{5})); // "):" straddles two leaves
    EXPECT_EQ(tokensOf(r, 24, 28, "string_content"), (std::vector<int>{8}));
    EXPECT_EQ(tokensOf(r, 23, 24, "string_start"), (std::vector<int>{7}));
    EXPECT_NEAR(*valueOf(r, 24, 28, "string_content"), 0.05, 1e-12);
}

TEST(Align, CrLf)
{
    const auto s = scoredFromPieces({{"x", std::nullopt},
                                     {" =", 0.5},
                                     {" 1", 0.5},
                                     {"\r\n", 0.9},
                                     {"y", 0.2},
                                     {" =", 0.5},
                                     {" 2", 0.5},
                                     {"\r\n", 0.9}});
    const auto r = evaluate(s, "python", Aggregation::Median, python());
    EXPECT_EQ(r.nodesOfToken[3], (std::vector<int>{0})); // the line break is only in the module
    EXPECT_EQ(tokensOf(r, 7, 8, "identifier"), (std::vector<int>{4}));
    EXPECT_EQ(tokensOf(r, 7, 12, "expression_statement"), (std::vector<int>{4, 5, 6}));
}

TEST(Align, ErrorNodesGetValuesMissingNodesGetNone)
{
    const auto a = evaluate(
        scoredFromPieces({{"x", std::nullopt}, {" = (", 0.3}, {"1", 0.6}, {",", 0.9}, {" 2", 0.2}, {"\n", 0.5}}),
        "python", Aggregation::Median, python());
    EXPECT_EQ(tokensOf(a, 0, 9, "ERROR"), (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_NEAR(*valueOf(a, 0, 9, "ERROR"), 0.45, 1e-12); // median of .3 .6 .9 .2 (token 0 is null)

    // def f(:  -> MISSING ")" at [6, 6); the token "(:" [5, 7) straddles it but an empty span aligns nothing.
    const auto b = evaluate(scoredFromPieces({{"def", std::nullopt},
                                              {" f", 0.5},
                                              {"(:", 0.3},
                                              {"\n", 0.5},
                                              {"  return", 0.5},
                                              {" 1", 0.5},
                                              {"\n", 0.5}}),
                            "python", Aggregation::Median, python());
    EXPECT_TRUE(tokensOf(b, 6, 6, ")").empty());
    EXPECT_FALSE(valueOf(b, 6, 6, ")").has_value());
    EXPECT_TRUE(alignNode(b.scored.tokens, 6, 6).empty());
    EXPECT_EQ(tokensOf(b, 5, 6, "("), (std::vector<int>{2}));
}

TEST(Align, NodeWithOnlyTheUnscoredFirstTokenIsNa)
{
    const auto s = scoredFromPieces({{"x", std::nullopt}, {" =", 0.5}, {" 1", 0.25}, {"\n", 0.75}});
    const auto r = evaluate(s, "python", Aggregation::Mean, python());
    EXPECT_EQ(tokensOf(r, 0, 1, "identifier"), (std::vector<int>{0})); // aligned ...
    EXPECT_FALSE(valueOf(r, 0, 1, "identifier").has_value());          // ... but no value
    EXPECT_NEAR(*valueOf(r, 0, 5, "assignment"), 0.375, 1e-12);        // null NtP left out
    EXPECT_NEAR(*valueOf(r, 0, 6, "module"), 0.5, 1e-12);
}

TEST(Align, FastPathEqualsTheRule)
{
    // evaluate() uses a binary search for sorted tokens; it must equal alignNode for every node, also for
    // overlapping tokens (two tokens sharing one character, as Hugging Face offsets do).
    auto s = paperExample();
    s.tokens[4].start = 8; // "ing" now overlaps "str" by one byte
    const auto r = evaluate(s, "python", Aggregation::Median, python());
    for (const auto& n : r.tree.nodes())
        EXPECT_EQ(r.nodes[static_cast<std::size_t>(n.id)].tokens, alignNode(r.scored.tokens, n.start, n.end)) << n.type;
    // and unsorted tokens (slow path) give the same node sets
    auto u = paperExample();
    std::swap(u.tokens[2], u.tokens[3]);
    const auto ru = evaluate(u, "python", Aggregation::Median, python());
    for (const auto& n : ru.tree.nodes())
        EXPECT_EQ(ru.nodes[static_cast<std::size_t>(n.id)].tokens, alignNode(ru.scored.tokens, n.start, n.end));
    EXPECT_EQ(tokensOf(ru, 5, 6, "("), (std::vector<int>{3}));
}

TEST(Align, NodesOfTokenIsTheInverse)
{
    const auto r = evaluate(paperExample(), "python", Aggregation::Median, python());
    ASSERT_EQ(r.nodesOfToken.size(), r.scored.tokens.size());
    std::size_t pairs = 0;
    for (std::size_t n = 0; n < r.nodes.size(); ++n)
        for (int t : r.nodes[n].tokens) {
            const auto& inv = r.nodesOfToken[static_cast<std::size_t>(t)];
            EXPECT_NE(std::find(inv.begin(), inv.end(), static_cast<int>(n)), inv.end());
            ++pairs;
        }
    std::size_t inverse = 0;
    for (const auto& v : r.nodesOfToken)
        inverse += v.size();
    EXPECT_EQ(pairs, inverse);
}

TEST(Align, TokenOutsideTheTextIsInputError)
{
    auto s = scoredFromPieces({{"x", 0.5}});
    s.tokens[0].end = 5;
    EXPECT_THROW(evaluate(s, "python", Aggregation::Median, python()), InputError);
}

// ----------------------------------------------------------------------------------------- categories

TEST(Categories, BundledPythonTable)
{
    const auto c = python();
    EXPECT_EQ(c.categoryOf("for_statement"), "Iterative");
    EXPECT_EQ(c.categoryOf("while_statement"), "Iterative");
    EXPECT_EQ(c.categoryOf(")"), "Scope");
    EXPECT_EQ(c.categoryOf(":"), "Scope");
    EXPECT_EQ(c.categoryOf("return_statement"), "Scope");
    EXPECT_EQ(c.categoryOf("elif"), "Decision"); // keyword leaves (method.md §5), not the clauses
    EXPECT_EQ(c.categoryOf("else"), "Decision");
    EXPECT_FALSE(c.categoryOf("elif_clause").has_value());
    EXPECT_EQ(c.categoryOf("boolean_operator"), "Operator");
    EXPECT_EQ(c.categoryOf("lambda"), "Functional Programming");
    EXPECT_EQ(c.categoryOf("identifier"), "Natural Language");
    EXPECT_EQ(c.categoryOf("dictionary"), "Data Structures");
    EXPECT_EQ(c.categoryOf("finally"), "Exceptions");
    EXPECT_EQ(c.categoryOf("raise"), "Exceptions");
    EXPECT_FALSE(c.categoryOf("finally_clause").has_value());
    EXPECT_EQ(c.categoryOf("assert_statement"), "Testing");
    EXPECT_EQ(c.categoryOf("float"), "Types");
    EXPECT_FALSE(c.categoryOf("module").has_value());
    EXPECT_FALSE(c.categoryOf("(").has_value());
    EXPECT_EQ(c.categories(),
              (std::vector<std::string>{"Iterative", "Scope", "Decision", "Operator", "Functional Programming",
                                        "Natural Language", "Data Structures", "Exceptions", "Testing", "Types"}));
    const auto r = evaluate(paperExample(), "python", Aggregation::Median, c);
    EXPECT_EQ(r.nodes[static_cast<std::size_t>(nodeAt(r.tree, 6, 12, "identifier").id)].category, "Natural Language");
    EXPECT_FALSE(r.nodes[static_cast<std::size_t>(nodeAt(r.tree, 5, 24, "parameters").id)].category.has_value());
    EXPECT_THROW(CategoryMap::forLanguage("cobol"), InputError);
}

TEST(Categories, CustomFileFromTempPath)
{
    const auto f = tempFile("custom.json", R"json({"language": "python", "categories": {
        "Names": ["identifier"], "Brackets": ["(", ")"], "Empty": []}})json");
    const auto c = CategoryMap::fromFile(f);
    EXPECT_EQ(c.categories(), (std::vector<std::string>{"Names", "Brackets", "Empty"}));
    EXPECT_EQ(c.categoryOf("("), "Brackets");
    EXPECT_FALSE(c.categoryOf("for_statement").has_value());
    const auto r = evaluate(paperExample(), "python", Aggregation::Median, c);
    EXPECT_EQ(r.nodes[static_cast<std::size_t>(nodeAt(r.tree, 5, 6, "(").id)].category, "Brackets");
    EXPECT_NEAR(r.features.perCategory.at("Brackets"), (0.07 + 0.234 + 0.9 + 0.99) / 4, 1e-12);
}

TEST(Categories, MalformedFileIsInputError)
{
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad1.json", "{\"categories\": {\"A\": [\"x\"]")), InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad2.json", "[1, 2]")), InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad3.json", "{\"categories\": {\"A\": \"identifier\"}}")), InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad4.json", "{\"categories\": {\"A\": [1]}}")), InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad5.json", "{\"categories\": {\"A\": [\"x\"], \"B\": [\"x\"]}}")),
                 InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("bad6.json", "{\"types\": {}}")), InputError);
    EXPECT_THROW(CategoryMap::fromFile(tempFile("nope/none.json", "")), InputError); // missing file
    try {
        CategoryMap::fromFile(tempFile("bad7.json", "{\"categories\": {\"A\": [\"x\"], \"B\": [\"x\"]}}"));
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("\"x\""), std::string::npos) << e.what();
    }
}

// ------------------------------------------------------------------------------------------- features

TEST(Features, CyclomaticComplexityOfAKnownSnippet)
{
    const std::string code = R"(def g(xs, flag):
    total = 0
    for x in xs:
        if x > 0 and flag:
            total += x
        elif x < -10 or not flag:
            total -= 1
        else:
            pass
    while total > 100:
        total //= 2
    try:
        y = [v for v in xs if v]
    except ValueError:
        y = []
    z = 1 if flag else 2
    match z:
        case 1:
            pass
        case _:
            pass
    return total
)";
    // for, if, and, elif, or, while, comprehension if, except, conditional expression, 2 x case = 11
    EXPECT_EQ(cyclomaticComplexity(SyntaxTree::parse("python", code)), 12);
    EXPECT_EQ(cyclomaticComplexity(SyntaxTree::parse("python", "x = 1\n")), 1);
    // a comprehension's `for` is not a decision point (method.md §7 lists only its `if`s)
    EXPECT_EQ(cyclomaticComplexity(SyntaxTree::parse("python", "y = [a for a in b for c in a]\n")), 1);
    EXPECT_EQ(cyclomaticComplexity(SyntaxTree::parse("python", "y = a and b and c or d\n")), 4);
}

TEST(Features, SnippetFeaturesByHand)
{
    // module, expression_statement, binary_operator: {.2 .8 (.5)}; a: n/a; +: .2; b: .8
    const auto s = scoredFromPieces({{"a", std::nullopt}, {"+", 0.2}, {"b", 0.8}, {"\n", 0.5}});
    auto r = evaluate(s, "python", Aggregation::Median, python());
    EXPECT_EQ(r.features.tokens, 4);
    EXPECT_EQ(r.features.astNodes, 6);
    EXPECT_EQ(r.features.astLevels, 4);
    EXPECT_EQ(r.features.cyclomatic, 1);
    ASSERT_TRUE(r.features.ascEval.has_value());
    EXPECT_NEAR(*r.features.ascEval, (0.5 + 0.5 + 0.5 + 0.2 + 0.8) / 5, 1e-12);
    EXPECT_NEAR(r.features.perConcept.at("identifier"), 0.8, 1e-12); // `a` has no value: excluded, not 0
    EXPECT_NEAR(r.features.perConcept.at("+"), 0.2, 1e-12);
    EXPECT_NEAR(r.features.perCategory.at("Natural Language"), 0.8, 1e-12);
    EXPECT_NEAR(r.features.perCategory.at("Operator"), 0.5, 1e-12);
    EXPECT_EQ(r.features.perCategory.count("Iterative"), 0u);

    reaggregate(r, Aggregation::Max);
    EXPECT_EQ(r.aggregation, Aggregation::Max);
    EXPECT_NEAR(*r.nodes[0].value, 0.8, 1e-12);
    EXPECT_NEAR(*r.features.ascEval, (0.8 + 0.8 + 0.8 + 0.2 + 0.8) / 5, 1e-12);
    EXPECT_EQ(r.nodes[0].tokens, (std::vector<int>{0, 1, 2, 3}));
    reaggregate(r, Aggregation::Min);
    EXPECT_NEAR(*r.nodes[0].value, 0.2, 1e-12);
    EXPECT_NEAR(r.features.perCategory.at("Operator"), 0.2, 1e-12);
}

TEST(Features, NothingScoredMeansNoAscEval)
{
    const auto r = evaluate(scoredFromPieces({{"x", std::nullopt}}), "python", Aggregation::Median, python());
    EXPECT_FALSE(r.features.ascEval.has_value());
    EXPECT_TRUE(r.features.perConcept.empty());
    EXPECT_EQ(r.features.astLevels, 3); // module > expression_statement > identifier
}
