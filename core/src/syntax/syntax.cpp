// tree-sitter parsing into the immutable pre-order AstNode vector (syntax.h). This is the only
// translation unit that touches tree-sitter handles; they are owned by the RAII types below.
#include "ascviz/syntax/syntax.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace ascviz {
namespace {

// The language registry: adding a language = one line here (plus linking its grammar into
// ascviz_grammars) and a resources/categories/<name>.json file.
struct LanguageEntry {
    const char* name;
    const TSLanguage* (*grammar)();
};
constexpr LanguageEntry kLanguages[] = {
    {"python", tree_sitter_python},
};

const LanguageEntry* findLanguage(const std::string& name)
{
    for (const auto& l : kLanguages)
        if (name == l.name)
            return &l;
    return nullptr;
}

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};
struct CursorGuard {
    TSTreeCursor cursor;
    explicit CursorGuard(TSNode root) : cursor(ts_tree_cursor_new(root)) {}
    ~CursorGuard() { ts_tree_cursor_delete(&cursor); }
    CursorGuard(const CursorGuard&) = delete;
    CursorGuard& operator=(const CursorGuard&) = delete;
};

// tree-sitter's built-in error symbol (ts_builtin_sym_error in tree_sitter/parser.h); 0.20.7 has no
// ts_node_is_error().
constexpr TSSymbol kErrorSymbol = static_cast<TSSymbol>(-1);

} // namespace

std::vector<std::string> SyntaxTree::languages()
{
    std::vector<std::string> out;
    for (const auto& l : kLanguages)
        out.emplace_back(l.name);
    return out;
}

SyntaxTree SyntaxTree::parse(const std::string& language, std::string_view text)
{
    const LanguageEntry* lang = findLanguage(language);
    if (!lang) {
        std::string known;
        for (const auto& l : kLanguages)
            known += std::string(known.empty() ? "" : ", ") + l.name;
        throw InputError("unknown language '" + language + "' (supported: " + known + ")");
    }
    if (auto bad = findInvalidUtf8(text))
        throw InputError("the code is not valid UTF-8 (first invalid byte at offset " + std::to_string(*bad) + ")");
    if (text.size() >= std::numeric_limits<uint32_t>::max())
        throw InputError("the code is too large to parse (" + std::to_string(text.size()) + " bytes)");

    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    if (!parser)
        throw Error("tree-sitter: cannot create a parser");
    const TSLanguage* grammar = lang->grammar();
    if (!ts_parser_set_language(parser.get(), grammar)) {
        throw Error("tree-sitter: the " + language + " grammar has ABI version " +
                    std::to_string(ts_language_version(grammar)) + " but this tree-sitter runtime supports " +
                    std::to_string(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) + " to " +
                    std::to_string(TREE_SITTER_LANGUAGE_VERSION) + "; rebuild with a compatible grammar");
    }
    std::unique_ptr<TSTree, TreeDeleter> tree(
        ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!tree)
        throw Error("tree-sitter returned no tree for the " + language + " code (parse cancelled or timed out)");

    SyntaxTree out;
    out.m_language = language;
    out.m_text = std::string(text);

    // Iterative pre-order walk with a cursor (no recursion: deeply nested code must not overflow the stack).
    CursorGuard guard(ts_tree_root_node(tree.get()));
    TSTreeCursor* cur = &guard.cursor;
    std::vector<int> stack; // ids of the ancestors of the current node
    for (;;) {
        const TSNode n = ts_tree_cursor_current_node(cur);
        AstNode a;
        a.id = static_cast<int>(out.m_nodes.size());
        const char* type = ts_node_type(n);
        a.type = type ? type : "";
        a.named = ts_node_is_named(n);
        a.start = ts_node_start_byte(n);
        a.end = ts_node_end_byte(n);
        // Defensive: keep spans inside the text whatever the grammar reports.
        a.end = std::min<std::size_t>(a.end, text.size());
        a.start = std::min(a.start, a.end);
        a.parent = stack.empty() ? -1 : stack.back();
        a.depth = static_cast<int>(stack.size());
        a.isMissing = ts_node_is_missing(n);
        a.isError = ts_node_symbol(n) == kErrorSymbol || a.type == "ERROR";
        if (a.parent >= 0)
            out.m_nodes[static_cast<std::size_t>(a.parent)].children.push_back(a.id);
        out.m_nodes.push_back(std::move(a));

        if (ts_tree_cursor_goto_first_child(cur)) {
            stack.push_back(static_cast<int>(out.m_nodes.size()) - 1);
            continue;
        }
        bool done = false;
        while (!ts_tree_cursor_goto_next_sibling(cur)) {
            if (!ts_tree_cursor_goto_parent(cur)) {
                done = true;
                break;
            }
            stack.pop_back();
        }
        if (done)
            break;
    }
    return out;
}

int SyntaxTree::levels() const
{
    int maxDepth = -1;
    for (const auto& n : m_nodes)
        maxDepth = std::max(maxDepth, n.depth);
    return maxDepth + 1;
}

bool SyntaxTree::hasErrors() const
{
    return std::any_of(m_nodes.begin(), m_nodes.end(), [](const AstNode& n) { return n.error(); });
}

} // namespace ascviz
