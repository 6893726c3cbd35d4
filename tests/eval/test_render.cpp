// Colour scale, Graphviz layout of the AST views and the SVG export (method.md §8).
#include "ascviz/base/error.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/svg.h"
#include "eval_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ascviz;
using evaltest::checkXml;
using evaltest::scoredFromPieces;

namespace {

EvalResult sample(Aggregation a = Aggregation::Median)
{
    const auto s = scoredFromPieces({{"def", std::nullopt}, {" f", 0.9},      {"(", 0.07},          {"str", 0.4},
                                     {"ing", 0.5},          {",", 0.1},       {" char", 0.1},       {"acter", 0.234},
                                     {")", 0.234},          {":", 0.8},       {"\n", 0.6},          {"   ", 0.7},
                                     {" if", 0.3},          {" string", 0.3}, {" <", 0.2},          {" 1", 0.95},
                                     {":", 0.99},           {" return", 0.9}, {" \"a&b<c>\"", 0.5}, {"\n", 0.5}},
                                    "tiny & <model>");
    return evaluate(s, "python", a, CategoryMap::forLanguage("python"));
}

EvalResult broken()
{
    return evaluate(scoredFromPieces({{"def", std::nullopt},
                                      {" f", 0.5},
                                      {"(:", 0.3},
                                      {"\n", 0.5},
                                      {"  return", 0.5},
                                      {" (1,", 0.5},
                                      {"\n", 0.5}}),
                    "python", Aggregation::Median, CategoryMap::forLanguage("python"));
}

const evaltest::XmlElement* findById(const evaltest::XmlCheck& x, const std::string& id)
{
    for (const auto& e : x.elements) {
        auto it = e.attrs.find("id");
        if (it != e.attrs.end() && it->second == id)
            return &e;
    }
    return nullptr;
}

} // namespace

TEST(Color, DivergingRedWhiteBlueAndGrey)
{
    const Rgb lo = ascColor(0.0), mid = ascColor(0.5), hi = ascColor(1.0), na = ascColor(std::nullopt);
    EXPECT_GT(lo.r, 150);
    EXPECT_LT(lo.b, 80);
    EXPECT_EQ(mid.r, 255);
    EXPECT_EQ(mid.g, 255);
    EXPECT_EQ(mid.b, 255);
    EXPECT_GT(hi.b, 150);
    EXPECT_LT(hi.r, 80);
    EXPECT_EQ(na.r, na.g);
    EXPECT_EQ(na.g, na.b);
    EXPECT_LT(na.r, 240);
    // out-of-range values clamp; the red channel grows from 0 to .5 and the blue one shrinks back
    EXPECT_EQ(ascColor(-1.0).r, lo.r);
    EXPECT_EQ(ascColor(2.0).b, hi.b);
    EXPECT_LT(ascColor(0.1).g, ascColor(0.3).g);
    EXPECT_GT(ascColor(0.7).r, ascColor(0.9).r);
}

TEST(Layout, PartialViewHasNoTerminalsButKeepsErrors)
{
    const auto r = sample();
    const auto partial = visibleNodes(r, AstView::Partial);
    const auto complete = visibleNodes(r, AstView::Complete);
    EXPECT_EQ(complete.size(), r.tree.nodes().size());
    EXPECT_LT(partial.size(), complete.size());
    for (int id : partial)
        EXPECT_FALSE(r.tree.nodes()[static_cast<std::size_t>(id)].isTerminal());
    for (const auto& n : r.tree.nodes())
        if (!n.isTerminal()) {
            EXPECT_NE(std::find(partial.begin(), partial.end(), n.id), partial.end()) << n.type;
        }

    const auto b = broken();
    const auto bp = visibleNodes(b, AstView::Partial);
    int errors = 0;
    for (const auto& n : b.tree.nodes())
        if (n.error()) {
            ++errors;
            EXPECT_NE(std::find(bp.begin(), bp.end(), n.id), bp.end()) << n.type; // MISSING leaves too
        }
    EXPECT_GE(errors, 1);
}

TEST(Layout, EveryVisibleNodeInsideTheBounds)
{
    const auto r = sample();
    for (AstView view : {AstView::Complete, AstView::Partial}) {
        const auto visible = visibleNodes(r, view);
        const auto g = layoutAst(r, view);
        ASSERT_EQ(g.nodes.size(), visible.size());
        EXPECT_EQ(g.edges.size(), visible.size() - 1); // a tree
        EXPECT_GT(g.width, 0);
        EXPECT_GT(g.height, 0);
        std::set<int> seen;
        for (const auto& n : g.nodes) {
            seen.insert(n.node);
            EXPECT_GT(n.width, 0);
            EXPECT_GT(n.height, 0);
            EXPECT_GE(n.x - n.width / 2, -0.5);
            EXPECT_LE(n.x + n.width / 2, g.width + 0.5);
            EXPECT_GE(n.y - n.height / 2, -0.5);
            EXPECT_LE(n.y + n.height / 2, g.height + 0.5);
            EXPECT_EQ(n.label, nodeLabel(r, n.node, view));
        }
        EXPECT_EQ(seen, std::set<int>(visible.begin(), visible.end()));
        std::map<int, const LayoutNode*> byId;
        for (const auto& n : g.nodes)
            byId[n.node] = &n;
        for (const auto& e : g.edges) {
            ASSERT_GE(e.points.size(), 4u);
            EXPECT_EQ((e.points.size() - 1) % 3, 0u); // cubic Bézier pieces
            for (const auto& [x, y] : e.points) {
                EXPECT_GE(x, -0.5);
                EXPECT_LE(x, g.width + 0.5);
                EXPECT_GE(y, -0.5);
                EXPECT_LE(y, g.height + 0.5);
            }
            EXPECT_LT(byId.at(e.from)->y, byId.at(e.to)->y); // top-down (y grows downwards)
        }
        // ordered children: left to right in text order
        for (const auto& n : r.tree.nodes()) {
            double lastX = -1e9;
            for (int c : n.children) {
                auto it = byId.find(c);
                if (it == byId.end() || !byId.count(n.id))
                    continue;
                EXPECT_GT(it->second->x, lastX) << n.type;
                lastX = it->second->x;
            }
        }
    }
}

TEST(Layout, Labels)
{
    const auto r = sample();
    const auto& nodes = r.tree.nodes();
    auto find = [&](const std::string& type, std::size_t start) {
        for (const auto& n : nodes)
            if (n.type == type && n.start == start)
                return n.id;
        ADD_FAILURE() << type;
        return 0;
    };
    EXPECT_EQ(nodeLabel(r, find("identifier", 6), AstView::Complete), "identifier\nstring\n0.45");
    EXPECT_EQ(nodeLabel(r, find("(", 5), AstView::Complete), "(\n0.07");
    EXPECT_EQ(nodeLabel(r, find("parameters", 5), AstView::Partial), "parameters\n0.23");
    EXPECT_EQ(nodeLabel(r, find("def", 0), AstView::Complete), "def\nn/a");
    const auto b = broken();
    for (const auto& n : b.tree.nodes())
        if (n.isMissing) {
            EXPECT_EQ(nodeLabel(b, n.id, AstView::Complete), "MISSING " + n.type + "\nn/a");
        }
    EXPECT_EQ(b.tree.nodes().size(), b.nodes.size());
}

TEST(Svg, AstViewsAreWellFormedAndContainEveryVisibleNode)
{
    for (const auto& r : {sample(), broken()}) {
        for (AstView view : {AstView::Partial, AstView::Complete}) {
            const std::string svg = renderAstSvg(r, view);
            const auto x = checkXml(svg);
            ASSERT_TRUE(x.ok) << x.error << "\n" << svg.substr(0, 2000);
            ASSERT_FALSE(x.elements.empty());
            EXPECT_EQ(x.elements[0].name, "svg");
            EXPECT_EQ(x.elements[0].attrs.at("xmlns"), "http://www.w3.org/2000/svg");
            const auto visible = visibleNodes(r, view);
            for (int id : visible) {
                const auto* g = findById(x, "node-" + std::to_string(id));
                ASSERT_NE(g, nullptr) << id;
                EXPECT_EQ(g->attrs.at("data-node"), std::to_string(id));
                const bool err = r.tree.nodes()[static_cast<std::size_t>(id)].error();
                EXPECT_EQ(g->attrs.at("class").find("error") != std::string::npos, err);
            }
            EXPECT_EQ(x.count("path"), static_cast<int>(visible.size()) - 1);
            EXPECT_NE(svg.find("linearGradient"), std::string::npos); // legend colour bar
            EXPECT_NE(svg.find("n/a"), std::string::npos);
            EXPECT_NE(svg.find("ERROR / MISSING"), std::string::npos);
            EXPECT_NE(svg.find("\u03b8 = median"), std::string::npos);
            if (view == AstView::Partial) {
                EXPECT_EQ(findById(x, "node-" + std::to_string(r.tree.nodes().size() - 1)) != nullptr,
                          !r.tree.nodes().back().isTerminal() || r.tree.nodes().back().error());
            }
        }
    }
    const std::string svg = renderAstSvg(sample(), AstView::Complete);
    EXPECT_NE(svg.find("tiny &amp; &lt;model&gt;"), std::string::npos); // escaped model name
    EXPECT_NE(svg.find(">a&amp;b&lt;c&gt;<"), std::string::npos);       // escaped terminal text
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
    EXPECT_NE(renderAstSvg(broken(), AstView::Partial).find("MISSING"), std::string::npos);
}

TEST(Svg, SequenceViewIsWellFormedValidUtf8AndColoursEveryToken)
{
    // A token boundary inside 数 and inside 😀; CRLF; a tab; a form feed; XML specials.
    auto s = scoredFromPieces({{"def", std::nullopt},
                               {" \xe5\x87\xbd", 0.2},
                               {"\xe6\x95", 0.4},
                               {"\xb0(", 0.6},
                               {"\xcf\x80", 0.8},
                               {"):", 0.5},
                               {"\r\n", 0.5},
                               {"\t", 0.5},
                               {"return", 0.9},
                               {" \"<&", 0.3},
                               {"\xf0\x9f", 0.05},
                               {"\x98\x80", 0.06},
                               {"\x0c\"", 0.7},
                               {"\n", 0.5}});
    for (std::size_t i = 9; i < s.tokens.size(); ++i)
        s.tokens[i].generated = true;
    const auto r = evaluate(s, "python", Aggregation::Median, CategoryMap::forLanguage("python"));
    const std::string svg = renderSequenceSvg(r);
    const auto x = checkXml(svg);
    ASSERT_TRUE(x.ok) << x.error << "\n" << svg;
    std::set<std::string> drawn;
    int generated = 0;
    for (const auto& e : x.elements)
        if (e.attrs.count("data-token")) {
            drawn.insert(e.attrs.at("data-token"));
            generated += e.attrs.at("class").find("generated") != std::string::npos ? 1 : 0;
        }
    // every token that owns at least one character is drawn; "\x98\x80" lies inside 😀, owned by token 10
    for (int t : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13})
        EXPECT_TRUE(drawn.count(std::to_string(t))) << t;
    EXPECT_FALSE(drawn.count("11"));
    EXPECT_GE(generated, 4);
    EXPECT_NE(svg.find("\xe5\x87\xbd"), std::string::npos);     // 函 intact
    EXPECT_NE(svg.find("\xe6\x95\xb0"), std::string::npos);     // 数 intact although split by tokens
    EXPECT_NE(svg.find("\xf0\x9f\x98\x80"), std::string::npos); // 😀 intact
    EXPECT_NE(svg.find("&lt;&amp;"), std::string::npos);
    EXPECT_NE(svg.find("\u240c"), std::string::npos);       // form feed shown as a symbol, not a raw control char
    EXPECT_NE(svg.find(">    </text>"), std::string::npos); // tab expanded to 4 spaces
    EXPECT_NE(svg.find("generated token (bold, underlined)"), std::string::npos);
    EXPECT_NE(svg.find("linearGradient"), std::string::npos);
    // two lines of code: line numbers 1 and 2 (CRLF is one break; the final newline opens no line 3)
    EXPECT_NE(svg.find(">2</text>"), std::string::npos);
    EXPECT_EQ(svg.find(">3</text>"), std::string::npos);
}

TEST(Svg, EmptyTextStillRenders)
{
    const auto r = evaluate(scoredFromPieces({}), "python", Aggregation::Median, CategoryMap::forLanguage("python"));
    EXPECT_TRUE(checkXml(renderSequenceSvg(r)).ok);
    const auto x = checkXml(renderAstSvg(r, AstView::Complete));
    EXPECT_TRUE(x.ok) << x.error;
    EXPECT_NE(findById(x, "node-0"), nullptr);
}
