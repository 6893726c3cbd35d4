// Relations (method.md §11) from real tree-sitter trees: field names and keyword leaves as roles, the earlier
// child as the head, byte spans and the tokens each end overlaps.
#include "ascviz/attention/relations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

const ascviz::Relation* find(const std::vector<ascviz::Relation>& rels, const std::string& type)
{
    const auto it = std::find_if(rels.begin(), rels.end(), [&](const auto& r) { return r.type == type; });
    return it == rels.end() ? nullptr : &*it;
}

TEST(Relations, PythonIfElseFromFieldsAndKeywords)
{
    const std::string code = "if a:\n    b = 1\nelse:\n    c\n";
    const auto tree = ascviz::SyntaxTree::parse("python", code);
    const auto rels = ascviz::syntaxRelations(tree);
    const auto* ifCond = find(rels, "if_statement:if\u2192condition");
    ASSERT_NE(ifCond, nullptr);
    EXPECT_EQ(ifCond->head.start, 0u);
    EXPECT_EQ(ifCond->head.end, 2u);
    EXPECT_EQ(ifCond->dependent.start, 3u);
    EXPECT_EQ(ifCond->dependent.end, 4u);
    ASSERT_NE(find(rels, "if_statement:if\u2192alternative"), nullptr);
    ASSERT_NE(find(rels, "if_statement:condition\u2192consequence"), nullptr);
    ASSERT_NE(find(rels, "else_clause:else\u2192body"), nullptr);
    const auto* assign = find(rels, "assignment:left\u2192right");
    ASSERT_NE(assign, nullptr);
    EXPECT_EQ(code.substr(assign->head.start, assign->head.end - assign->head.start), "b");
    EXPECT_EQ(code.substr(assign->dependent.start, assign->dependent.end - assign->dependent.start), "1");
    // Punctuation (":", "=") has no role; the later child never heads an edge to an earlier one.
    for (const auto& r : rels) {
        EXPECT_EQ(r.type.find(":\u2192"), std::string::npos) << r.type;
        EXPECT_LT(r.head.start, r.dependent.start) << r.type;
    }
    EXPECT_EQ(find(rels, "if_statement:condition\u2192if"), nullptr);
}

TEST(Relations, EveryRegisteredLanguageGivesRelations)
{
    // The same code for every language: a call has function and arguments fields in each grammar.
    const std::pair<const char*, const char*> cases[] = {{"python", "f(x)\n"},
                                                         {"java", "class A { void m() { f(x); } }\n"},
                                                         {"cpp", "void m() { f(x); }\n"},
                                                         {"javascript", "f(x);\n"}};
    for (const auto& [lang, code] : cases) {
        const auto rels = ascviz::syntaxRelations(ascviz::SyntaxTree::parse(lang, code));
        const bool call = std::any_of(rels.begin(), rels.end(), [](const auto& r) {
            return r.type.find("\u2192arguments") != std::string::npos;
        });
        EXPECT_TRUE(call) << lang;
    }
}

TEST(Relations, TokensAndOffsetFromTokenSpans)
{
    const std::string code = "x = foo\n";
    auto rels = ascviz::syntaxRelations(ascviz::SyntaxTree::parse("python", code));
    // Tokens "x", " =", " fo", "o", "\n".
    ascviz::attachTokens(rels, {{0, 1}, {1, 3}, {3, 6}, {6, 7}, {7, 8}});
    const auto* r = find(rels, "assignment:left\u2192right");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->head.tokens, std::vector<int>({0}));
    EXPECT_EQ(r->dependent.tokens, std::vector<int>({2, 3}));
    EXPECT_EQ(r->offset, 2);
}

TEST(Relations, RolesOfChildren)
{
    ascviz::AstNode kw;
    kw.type = "return";
    EXPECT_EQ(ascviz::relationRole(kw), "return");
    ascviz::AstNode punct;
    punct.type = "(";
    EXPECT_EQ(ascviz::relationRole(punct), "");
    ascviz::AstNode unnamedField; // a named node without a field has no role
    unnamedField.type = "identifier";
    unnamedField.named = true;
    EXPECT_EQ(ascviz::relationRole(unnamedField), "");
    unnamedField.field = "name";
    EXPECT_EQ(ascviz::relationRole(unnamedField), "name");
}

} // namespace
