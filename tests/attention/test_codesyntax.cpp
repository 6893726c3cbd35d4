// CodeSyntax's paper mode (method.md §11): the Python mapping's relation instances on a real snippet (derived by
// hand from the paper's extractor rules), words from BPE tokens, the word-level ranks of the first / last / any
// metrics on a hand-built attention matrix (with and without BOS), and the paper's baselines.
#include "ascviz/attention/codesyntax.h"
#include "ascviz/attention/headreport.h"
#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <set>
#include <tuple>

namespace {

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

ascviz::CodeSyntaxMapping python()
{
    const auto& info = ascviz::LanguageRegistry::instance().get("python");
    return ascviz::CodeSyntaxMapping::forLanguage(info.id, info.folder);
}

TEST(CodeSyntax, PythonMappingHasThePapers43TypesAndChildren)
{
    const auto types = python().relationTypes();
    EXPECT_EQ(types.size(), 44u);
    const std::set<std::string> set(types.begin(), types.end());
    EXPECT_EQ(set.size(), 44u);
    for (const char* t :
         {"If:if\u2192else", "Assign:target\u2192value", "Call:func\u2192args", "ListComp:elt\u2192generator",
          "SetComp:elt\u2192generator", "GeneratorExp:elt\u2192generator", "comprehension:target\u2192iter",
          "Try:handler\u2192finalbody", "With:item\u2192body", "children:parent\u2192child"})
        EXPECT_TRUE(set.count(t)) << t;
    EXPECT_EQ(python().table6().size(), 7u);
}

TEST(CodeSyntax, LanguageWithoutMappingIsAClearError)
{
    const auto& info = ascviz::LanguageRegistry::instance().get("java");
    EXPECT_FALSE(ascviz::CodeSyntaxMapping::exists(info.folder));
    try {
        ascviz::CodeSyntaxMapping::forLanguage(info.id, info.folder);
        FAIL() << "no error";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("java has no mapping"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fields"), std::string::npos) << e.what();
    }
}

TEST(CodeSyntax, RelationsOfARealSnippet)
{
    const std::string code = "def f(a):\n"
                             "    if a:\n"
                             "        x = g(a, k=1)\n"
                             "    else:\n"
                             "        return a.b\n";
    const auto tree = ascviz::SyntaxTree::parse("python", code);
    const auto rels = ascviz::codeSyntaxRelations(tree, python());
    std::vector<std::tuple<std::string, std::string, std::string>> got;
    for (const auto& r : rels)
        got.emplace_back(r.type, code.substr(r.head.start, r.head.end - r.head.start),
                         code.substr(r.dependent.start, r.dependent.end - r.dependent.start));
    // By the paper's extractor: heads are first tokens (Call's func: its last), dependent blocks end before
    // closing brackets ("x = g(a, k=1" for the body), FunctionDef and its parameters give nothing, a parent
    // whose first token is its child's gives no children edge (Assign→x, Call→g, Attribute→a).
    const std::vector<std::tuple<std::string, std::string, std::string>> want{
        {"If:if\u2192else", "if", "else"},
        {"If:if\u2192test", "if", "a"},
        {"If:if\u2192body", "if", "x = g(a, k=1"},
        {"If:test\u2192body", "a", "x = g(a, k=1"},
        {"If:test\u2192orelse", "a", "return a.b"},
        {"If:body\u2192orelse", "x", "return a.b"},
        {"children:parent\u2192child", "if", "a"},
        {"Assign:target\u2192value", "x", "g(a, k=1"},
        {"children:parent\u2192child", "if", "x = g(a, k=1"},
        {"Call:func\u2192args", "g", "a"},
        {"Call:args\u2192keywords", "a", "k=1"},
        {"Call:func\u2192keywords", "g", "k=1"},
        {"children:parent\u2192child", "x", "g(a, k=1"},
        {"children:parent\u2192child", "g", "a"},
        {"children:parent\u2192child", "g", "k=1"},
        {"children:parent\u2192child", "k", "1"},
        {"children:parent\u2192child", "if", "return a.b"},
        {"Attribute:value\u2192attr", "a", "b"},
        {"children:parent\u2192child", "return", "a.b"},
    };
    EXPECT_EQ(got, want);
}

TEST(CodeSyntax, ElifChainsLoopsComprehensionsAndSlices)
{
    const std::string code = "def f(a, b):\n"
                             "    if a and b and c:\n"
                             "        pass\n"
                             "    elif b < c:\n"
                             "        y = [v for v in a]\n"
                             "    else:\n"
                             "        z = a[1:2]\n"
                             "    for i in b:\n"
                             "        s += i\n";
    const auto tree = ascviz::SyntaxTree::parse("python", code);
    std::set<std::tuple<std::string, std::string, std::string>> got;
    for (const auto& r : ascviz::codeSyntaxRelations(tree, python()))
        got.emplace(r.type, code.substr(r.head.start, r.head.end - r.head.start),
                    code.substr(r.dependent.start, r.dependent.end - r.dependent.start));
    for (const auto& w : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"If:if\u2192else", "if", "elif"},   // the next alternative's keyword
             {"If:if\u2192else", "elif", "else"}, // the elif is an If of its own
             {"If:test\u2192orelse", "a", "elif b < c:\n        y = [v for v in a]\n    else:\n        z = a[1:2"},
             {"If:body\u2192orelse", "y", "z = a[1:2"},
             {"BoolOp:value\u2192value", "a", "b"}, // values[0] -> values[1] of the flattened a and b and c
             {"Compare:left\u2192comparator", "b", "c"},
             {"ListComp:elt\u2192generator", "v", "v in a"}, // first target .. last iter
             {"comprehension:target\u2192iter", "v", "a"},
             {"Subscript:value\u2192slice", "a", "1:2"},
             {"Slice:lower\u2192upper", "1", "2"},
             {"For:for\u2192target", "for", "i"},
             {"For:target\u2192iter", "i", "b"},
             {"For:iter\u2192body", "b", "s += i"},
             {"AugAssign:target\u2192value", "s", "i"},
         })
        EXPECT_TRUE(got.count(w)) << std::get<0>(w) << " " << std::get<1>(w) << " -> " << std::get<2>(w);
    // The flattened BoolOp gives one relation, not one per and.
    int boolOps = 0;
    for (const auto& g : got)
        boolOps += std::get<0>(g) == "BoolOp:value\u2192value";
    EXPECT_EQ(boolOps, 1);
}

TEST(CodeSyntax, WordsFromTokens)
{
    // Code words foo ( x ) over tokens "fo" "o" "(x" ")" "\n": foo's two tokens are one word, "(x" joins ( and
    // x, the line break is a word of its own.
    const Spans words{{0, 3}, {3, 4}, {4, 5}, {5, 6}};
    const Spans tokens{{0, 2}, {2, 3}, {3, 5}, {5, 6}, {6, 7}};
    const auto w = ascviz::groupTokens(words, tokens);
    EXPECT_EQ(w.start, std::vector<int>({0, 2, 3, 4, 5}));
    EXPECT_EQ(w.ofToken, std::vector<int>({0, 0, 1, 2, 3}));
    EXPECT_EQ(w.words(), 4);
    EXPECT_EQ(w.wordAtByte(tokens, 4), 1);
    EXPECT_EQ(w.wordAtByte(tokens, 1), 0);
}

// One head; words w0 = tokens {0, 1}, w1 = {2}, w2 = {3, 4}; the relation head w0 -> dependent block w1..w2.
struct Fixture {
    Spans tokens{{0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}};
    ascviz::TokenWords words = ascviz::groupTokens({{0, 3}, {3, 4}, {4, 6}}, tokens);
    std::vector<ascviz::Relation> rels;
    Fixture()
    {
        ascviz::Relation r;
        r.type = "t";
        r.head = {0, 0, 3, {}};
        r.dependent = {0, 3, 6, {}};
        rels.push_back(r);
    }
    // Ranks per metric on a [1, T, T] attention, `bos` rows first.
    uint8_t rank(ascviz::HeadMetric m, int bos, const std::vector<std::vector<float>>& rows)
    {
        const int T = static_cast<int>(rows.size());
        std::vector<float> a(static_cast<std::size_t>(T * T), 0.0f);
        for (int q = 0; q < T; ++q)
            for (std::size_t k = 0; k < rows[static_cast<std::size_t>(q)].size(); ++k)
                a[static_cast<std::size_t>(q * T) + k] = rows[static_cast<std::size_t>(q)][k];
        ascviz::HeadScorer s(1, bos, ascviz::paperEdges(rels, words, tokens, m));
        s.setWords(words);
        const std::array<int64_t, 3> shape{1, T, T};
        s.observeAttention(0, 0, shape, a);
        EXPECT_TRUE(s.evaluated(0));
        return s.rank(0, 0, 0);
    }
};

TEST(CodeSyntax, WordRanksForFirstLastAny)
{
    Fixture f;
    ASSERT_EQ(f.words.words(), 3);
    // No BOS. Query w1 (token 2): w0 gets 0.3 + 0.3 = 0.6 (summed over its tokens; each token alone is below
    // the query's own 0.4), so first = 0. Query w2 (tokens 3, 4, averaged): w0 (0.2 + 0.2) / 2 = 0.2, w1 0.15,
    // w2 itself (0.6 + 0.7) / 2 = 0.65 above it: last = 1. Any: the better of the two, 0.
    const std::vector<std::vector<float>> rows{
        {1.0f}, {0.5f, 0.5f}, {0.3f, 0.3f, 0.4f}, {0.1f, 0.1f, 0.2f, 0.6f}, {0.1f, 0.1f, 0.1f, 0.3f, 0.4f}};
    EXPECT_EQ(f.rank(ascviz::HeadMetric::First, 0, rows), 0);
    EXPECT_EQ(f.rank(ascviz::HeadMetric::Last, 0, rows), 1);
    EXPECT_EQ(f.rank(ascviz::HeadMetric::Any, 0, rows), 0);
    // A BOS is a candidate: with 0.5 on it, query w1's row is BOS 0.5, w0 0.3, w1 0.2: first = 1.
    const std::vector<std::vector<float>> bos{{1.0f},
                                              {0.5f, 0.5f},
                                              {0.3f, 0.3f, 0.4f},
                                              {0.5f, 0.15f, 0.15f, 0.2f},
                                              {0.0f, 0.1f, 0.1f, 0.2f, 0.6f},
                                              {0.0f, 0.1f, 0.1f, 0.1f, 0.3f, 0.4f}};
    EXPECT_EQ(f.rank(ascviz::HeadMetric::First, 1, bos), 1);
    EXPECT_EQ(f.rank(ascviz::HeadMetric::Last, 1, bos), 1);
    EXPECT_EQ(f.rank(ascviz::HeadMetric::Any, 1, bos), 1);
    // The edges: head word 0, queries by metric, offset = the dependent's first word - the head's.
    const auto any = ascviz::paperEdges(f.rels, f.words, f.tokens, ascviz::HeadMetric::Any);
    ASSERT_EQ(any.size(), 1u);
    EXPECT_EQ(any[0].targets, std::vector<int>({0}));
    EXPECT_EQ(any[0].queries, std::vector<int>({1, 2}));
    EXPECT_EQ(any[0].offset, 1);
    EXPECT_EQ(ascviz::paperEdges(f.rels, f.words, f.tokens, ascviz::HeadMetric::Last)[0].queries,
              std::vector<int>({2}));
}

TEST(CodeSyntax, PaperBaselinesLookForwardFromTheHead)
{
    // Words: if x : \n pass \n else : -- If:if->else, head 0, dependent 6. Offset 6 hits; the keyword else
    // hits (the first else after the head); with an else between them it would not.
    const std::vector<std::string> texts{"if", " x", ":", "\n", " pass", "\n", "else", ":"};
    ascviz::HeadEdge e;
    e.paper = true;
    e.targets = {0};
    e.queries = {6};
    e.query = 6;
    const std::vector<std::string> keywords{"else", "if", "pass"};
    const auto hits = ascviz::baselineHits(e, texts, keywords);
    ASSERT_EQ(hits.size(), 2u);
    EXPECT_EQ(hits[0].offset, 6);
    EXPECT_TRUE(hits[1].isKeyword);
    EXPECT_EQ(hits[1].keyword, "else");
    std::vector<std::string> between = texts;
    between[4] = "else";
    EXPECT_EQ(ascviz::baselineHits(e, between, keywords).size(), 1u);
    // The any metric: every word of the block is a query, each with its offset.
    e.queries = {4, 5, 6};
    const auto anyHits = ascviz::baselineHits(e, texts, keywords);
    EXPECT_EQ(anyHits.size(), 5u); // offsets 4, 5, 6 and the keywords pass, else
}

} // namespace
