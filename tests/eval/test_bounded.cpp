// Bounded work (issue 17, docs/limits.md): the AST depth limit of AsC-Eval, the linear-time tree layout beyond
// Graphviz's node limit, deep nesting through parse -> eval -> layout -> SVG -> JSON without recursion (also on
// a thread with a small stack), and the size bound of the clean-parse hint.
#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/svg.h"
#include "eval_test_util.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

using namespace ascviz;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// `depth` nested parentheses around 1, not scored (no tokens: the alignment stays linear).
ScoredText nested(int depth, char open = '(', char close = ')')
{
    ScoredText s;
    s.model = "none";
    s.text = "x = " + std::string(static_cast<std::size_t>(depth), open) + "1" +
             std::string(static_cast<std::size_t>(depth), close) + "\n";
    return s;
}

// n statements `a = 1`, one scored token per line: a wide tree of 5n + 1 nodes.
ScoredText wide(int lines)
{
    std::vector<std::pair<std::string, std::optional<double>>> pieces;
    for (int i = 0; i < lines; ++i)
        pieces.push_back({"a = 1\n", 0.25 + 0.5 * (i % 2)});
    return evaltest::scoredFromPieces(pieces);
}

// Runs f on a thread with a stack of `bytes` (QThreadPool threads and others may have less than 8 MB).
void onSmallStack(std::size_t bytes, const std::function<void()>& f)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, bytes);
    pthread_t t;
    auto* fn = new std::function<void()>(f);
    ASSERT_EQ(pthread_create(
                  &t, &attr,
                  [](void* p) -> void* {
                      auto* g = static_cast<std::function<void()>*>(p);
                      (*g)();
                      return nullptr;
                  },
                  fn),
              0);
    pthread_join(t, nullptr);
    pthread_attr_destroy(&attr);
    delete fn;
}

// Every shown node is laid out once, inside the graph, with no two boxes overlapping on one rank.
void expectSoundLayout(const EvalResult& r, const GraphLayout& g, AstView view)
{
    ASSERT_EQ(g.nodes.size(), visibleNodes(r, view).size());
    std::set<int> seen;
    std::map<double, std::vector<std::pair<double, double>>> ranks;
    for (const auto& n : g.nodes) {
        EXPECT_TRUE(seen.insert(n.node).second);
        ASSERT_TRUE(std::isfinite(n.x) && std::isfinite(n.y));
        ASSERT_GE(n.x - n.width / 2, 0.0);
        ASSERT_LE(n.x + n.width / 2, g.width + 1e-6);
        ASSERT_GE(n.y - n.height / 2, 0.0);
        ASSERT_LE(n.y + n.height / 2, g.height + 1e-6);
        ranks[n.y].push_back({n.x - n.width / 2, n.x + n.width / 2});
    }
    for (auto& [y, boxes] : ranks) {
        std::sort(boxes.begin(), boxes.end());
        for (std::size_t k = 1; k < boxes.size(); ++k)
            ASSERT_LE(boxes[k - 1].second, boxes[k].first + 1e-6) << "overlap on the rank at y = " << y;
    }
    EXPECT_EQ(g.edges.size(), g.nodes.size() - 1); // a tree
    for (const auto& e : g.edges)
        ASSERT_EQ(e.points.size(), 4u);
}

} // namespace

TEST(Limits, TextSizeMessageNamesSizeLimitAndOption)
{
    EXPECT_NO_THROW(limits::checkTextSize(8192, 8192, "f.py"));
    EXPECT_NO_THROW(limits::checkTextSize(5'000'000, 0, "f.py"));
    try {
        limits::checkTextSize(5'567'398, 8192, "big.py");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "big.py is 5.6 MB (5,567,398 bytes), over the limit of 8,192 bytes for scoring "
                  "with a model (--max-text-bytes N raises it, 0 = no limit)");
    }
}

TEST(Limits, AstDepthRefusedWithMessage)
{
    const auto t0 = Clock::now();
    try {
        evaluate(nested(20000), "python", Aggregation::Median, CategoryMap::forLanguage("python"));
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("the syntax tree is 20,00"), std::string::npos) << m;
        EXPECT_NE(m.find("over the limit of 1,000 levels"), std::string::npos) << m;
        EXPECT_NE(m.find("--max-ast-depth"), std::string::npos) << m;
    }
    std::printf("[timing] 20,000 nested parentheses refused in %.2f s\n", secondsSince(t0));
    // A shallow tree under a tight explicit limit is refused too; 0 = no limit.
    EXPECT_THROW(evaluate(nested(10), "python", Aggregation::Median, CategoryMap::forLanguage("python"), 5),
                 InputError);
    EXPECT_NO_THROW(evaluate(nested(10), "python", Aggregation::Median, CategoryMap::forLanguage("python"), 0));
}

TEST(Limits, AstNodesCountedBeforeTheCopyAndRefusedWithMessage)
{
    // tree-sitter's count of visible descendants, checked before the walk, is the walk's node count (named,
    // anonymous, ERROR and MISSING nodes alike): a tree of exactly the limit passes, one more node does not.
    for (const std::string& code : {std::string("def f(a):\n    return a + 1\n"), std::string("x = (1,\n"),
                                    std::string("if x\n"), nested(50).text, wide(300).text}) {
        const SyntaxTree t = SyntaxTree::parse("python", code, 0);
        EXPECT_NO_THROW(SyntaxTree::parse("python", code, t.nodes().size())) << code;
        EXPECT_THROW(SyntaxTree::parse("python", code, t.nodes().size() - 1), InputError) << code;
    }
    const std::string code = wide(300).text;
    ASSERT_EQ(SyntaxTree::parse("python", code, 0).nodes().size(), 1501u);
    try {
        SyntaxTree::parse("python", code, 1000);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "the syntax tree has 1,501 nodes, over the limit of 1,000 nodes "
                                         "(--max-ast-nodes N raises it, 0 = no limit)");
    }
    // AsC-Eval applies it (0 = no limit) ...
    const auto python = CategoryMap::forLanguage("python");
    EXPECT_THROW(evaluate(wide(300), "python", Aggregation::Median, python, 1000, 1000), InputError);
    EXPECT_EQ(evaluate(wide(300), "python", Aggregation::Median, python, 1000, 0).tree.nodes().size(), 1501u);
    // ... and so does parseForEval, the check callers make before a model runs, with the depth limit.
    EXPECT_THROW(parseForEval("python", wide(300).text, 1000, 1000), InputError);
    EXPECT_THROW(parseForEval("python", nested(2000).text), InputError);
    EXPECT_EQ(parseForEval("python", nested(2000).text, 0).levels(),
              SyntaxTree::parse("python", nested(2000).text).levels());
    // A tree is evaluated only with the text it was parsed from.
    EXPECT_THROW(evaluate(wide(2), parseForEval("python", wide(3).text), Aggregation::Median, python), InputError);
    EXPECT_EQ(evaluate(wide(3), parseForEval("python", wide(3).text), Aggregation::Median, python).nodes.size(), 16u);
}

TEST(Limits, FiveMegabytesOfCodeRefusedBeforeTheTreeIsCopied)
{
    std::string code;
    for (int i = 0; code.size() < 5'000'000; ++i)
        code += "def f" + std::to_string(i) + "(a, b):\n    if a > b:\n        return a * b + " + std::to_string(i) +
                "\n    return [x for x in range(a)]\n";
    const auto t0 = Clock::now();
    try {
        SyntaxTree::parse("python", code);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("the syntax tree has ", 0), 0u) << m;
        EXPECT_NE(m.find("nodes, over the limit of 200,000 nodes (--max-ast-nodes N raises it"), std::string::npos)
            << m;
        std::printf("[timing] %zu bytes of Python refused in %.2f s: %s\n", code.size(), secondsSince(t0), m.c_str());
    }
}

TEST(TreeLayout, SmallTreesStayOnGraphviz)
{
    const EvalResult r = evaluate(wide(3), "python", Aggregation::Median, CategoryMap::forLanguage("python"));
    EXPECT_EQ(layoutAst(r, AstView::Complete).engine, LayoutEngine::Graphviz);
    const std::string svg = renderAstSvg(r, AstView::Complete);
    EXPECT_EQ(svg.find("tree layout"), std::string::npos);
    // Forced: the tree layout of the same small tree is sound too.
    expectSoundLayout(r, layoutAstTree(r, AstView::Complete), AstView::Complete);
    expectSoundLayout(r, layoutAstTree(r, AstView::Partial), AstView::Partial);
}

TEST(TreeLayout, TwentyThousandNodesEveryNodeInAValidSvg)
{
    const EvalResult r = evaluate(wide(4000), "python", Aggregation::Median, CategoryMap::forLanguage("python"));
    ASSERT_GT(r.tree.nodes().size(), 20000u);
    auto t0 = Clock::now();
    const GraphLayout g = layoutAst(r, AstView::Complete);
    std::printf("[timing] tree layout of %zu nodes: %.3f s\n", g.nodes.size(), secondsSince(t0));
    EXPECT_EQ(g.engine, LayoutEngine::Tree);
    expectSoundLayout(r, g, AstView::Complete);
    // Leaves in text order, left to right.
    double lastX = -1;
    for (const auto& n : g.nodes)
        if (r.tree.nodes()[static_cast<std::size_t>(n.node)].isTerminal()) {
            EXPECT_GT(n.x, lastX);
            lastX = n.x;
        }
    t0 = Clock::now();
    const std::string svg = renderAstSvg(r, AstView::Complete);
    std::printf("[timing] SVG of %zu nodes: %.3f s, %zu bytes\n", g.nodes.size(), secondsSince(t0), svg.size());
    const auto xml = evaltest::checkXml(svg);
    EXPECT_TRUE(xml.ok) << xml.error;
    std::set<int> drawn; // every node id once, in one pass over the document
    const std::string key = "id=\"node-";
    for (auto p = svg.find(key); p != std::string::npos; p = svg.find(key, p + 1))
        EXPECT_TRUE(drawn.insert(std::stoi(svg.substr(p + key.size(), 12))).second);
    EXPECT_EQ(drawn.size(), r.tree.nodes().size());
    EXPECT_NE(svg.find("tree layout (over 1500 nodes for Graphviz)"), std::string::npos);
    // The partial view is laid out the same way.
    expectSoundLayout(r, layoutAst(r, AstView::Partial), AstView::Partial);
}

TEST(DeepNesting, TenAndHundredThousandLevelsOnAnEightMegabyteAndASmallStack)
{
    // 10,000 levels: two shapes, on the default 8 MB stack and on 256 KiB; 100,000 levels: parentheses on 256 KiB.
    for (const int depth : {10000, 100000}) {
        for (const std::size_t stack : {std::size_t{8} << 20, std::size_t{256} << 10}) {
            if (depth > 10000 && stack > (std::size_t{256} << 10))
                continue;
            bool done = false;
            onSmallStack(stack, [&] {
                const auto t0 = Clock::now();
                for (auto [open, close] : {std::pair{'(', ')'}, std::pair{'[', ']'}}) {
                    if (depth > 10000 && open == '[')
                        continue;
                    const EvalResult r = evaluate(nested(depth, open, close), "python", Aggregation::Median,
                                                  CategoryMap::forLanguage("python"), 0, 0);
                    ASSERT_GT(r.tree.levels(), depth);
                    const std::string svg = renderAstSvg(r, AstView::Complete);
                    ASSERT_NE(svg.find("id=\"node-" + std::to_string(r.tree.nodes().size() - 1) + "\""),
                              std::string::npos);
                    ASSERT_FALSE(renderSequenceSvg(r).empty());
                    const std::string json = evalResultJson(r).dump();
                    ASSERT_EQ(nlohmann::json::parse(json)["nodes"].size(), r.tree.nodes().size());
                    const auto clean = languagesParsingCleanly(r.tree.text(), "python"); // bounded: no crash
                    if (r.tree.text().size() > limits::kMaxCleanParseHintBytes) {
                        EXPECT_TRUE(clean.empty());
                    }
                }
                std::printf("[timing] depth %d on a %zu KiB stack: parse+eval+layout+SVG+JSON in %.2f s\n", depth,
                            stack >> 10, secondsSince(t0));
                done = true;
            });
            EXPECT_TRUE(done);
        }
    }
}

TEST(Limits, CleanParseHintSkipsLongTexts)
{
    const std::string small = "int f() { return 1; }\n";
    EXPECT_FALSE(languagesParsingCleanly(small, "python").empty());
    std::string big;
    while (big.size() <= limits::kMaxCleanParseHintBytes)
        big += small;
    EXPECT_TRUE(languagesParsingCleanly(big, "python").empty());
}
