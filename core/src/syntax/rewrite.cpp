// The rewrite probe's rewrites (method.md §14.4): renaming by case convention, spacing around punctuation, and the
// tree-shape check that keeps only rewrites the grammar parses to the same tree.
#include "ascviz/syntax/rewrite.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ascviz {

namespace {

bool lowerOrDigit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

// A leaf: no children, a non-empty span, not MISSING.
bool isLeaf(const AstNode& n)
{
    return n.children.empty() && n.end > n.start && !n.isMissing;
}

// An anonymous leaf without letters, digits or underscores: punctuation or an operator (`(`, `:`, `+=`, `->`).
bool isPunctuation(const SyntaxTree& tree, const AstNode& n)
{
    if (n.named)
        return false;
    for (char c : tree.nodeText(n))
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (static_cast<unsigned char>(c) & 0x80))
            return false;
    return true;
}

// Whether a name leaf is bound by the snippet (method.md §14.4): the name of a definition (field "name", not of a
// keyword argument), a parameter (inside a node whose type names a parameter or a pattern), or an assignment or
// loop target (field "left" of an assignment or a for, through any tuple or list pattern).
bool isBinding(const SyntaxTree& tree, const AstNode& leaf)
{
    const auto& nodes = tree.nodes();
    if (leaf.parent < 0)
        return false;
    const AstNode& parent = nodes[static_cast<std::size_t>(leaf.parent)];
    if (leaf.field == "name")
        return !contains(parent.type, "argument");
    if (contains(parent.type, "parameter") || contains(parent.type, "splat_pattern"))
        return leaf.field.empty() || leaf.field == "name";
    const AstNode* n = &leaf;
    while (n->parent >= 0 && n->field.empty() && contains(nodes[static_cast<std::size_t>(n->parent)].type, "pattern"))
        n = &nodes[static_cast<std::size_t>(n->parent)];
    if (n->field != "left" || n->parent < 0)
        return false;
    const std::string& owner = nodes[static_cast<std::size_t>(n->parent)].type;
    return contains(owner, "assignment") || contains(owner, "for");
}

// A name occurrence that renaming leaves alone: an attribute (`x.count`) or a keyword argument's name (`f(count=1)`):
// their meaning belongs to another object or function.
bool isForeignName(const SyntaxTree& tree, const AstNode& leaf)
{
    if (leaf.field == "attribute" || leaf.field == "field" || leaf.field == "property")
        return true;
    return leaf.field == "name" && leaf.parent >= 0 &&
           contains(tree.nodes()[static_cast<std::size_t>(leaf.parent)].type, "argument");
}

std::vector<TextEdit> renameEdits(const SyntaxTree& tree, std::map<std::string, std::string>& names)
{
    std::set<std::string> bound, leafTexts;
    for (const auto& n : tree.nodes()) {
        if (!isLeaf(n))
            continue;
        leafTexts.insert(std::string(tree.nodeText(n)));
        if (n.type == "identifier" && isBinding(tree, n))
            bound.insert(std::string(tree.nodeText(n)));
    }
    std::set<std::string> taken = leafTexts;
    for (const auto& old : bound) {
        const std::string fresh = flipCaseConvention(old);
        if (fresh.empty() || taken.count(fresh))
            continue; // one word, or the new form is already a name of the snippet
        names[old] = fresh;
        taken.insert(fresh);
    }
    std::vector<TextEdit> edits;
    for (const auto& n : tree.nodes()) {
        if (!isLeaf(n) || n.type != "identifier" || isForeignName(tree, n))
            continue;
        const auto it = names.find(std::string(tree.nodeText(n)));
        if (it != names.end())
            edits.push_back({n.start, n.end, it->second});
    }
    return edits;
}

// Whether the gap between leaves a and b lies inside a string (an ancestor of both whose type names a string).
bool gapInString(const SyntaxTree& tree, const AstNode& a, const AstNode& b)
{
    const auto& nodes = tree.nodes();
    for (int p = a.parent; p >= 0; p = nodes[static_cast<std::size_t>(p)].parent) {
        const AstNode& n = nodes[static_cast<std::size_t>(p)];
        if (n.start <= a.start && n.end >= b.end && contains(n.type, "string"))
            return true;
    }
    return false;
}

std::vector<TextEdit> spacingEdits(const SyntaxTree& tree)
{
    std::vector<const AstNode*> leaves;
    for (const auto& n : tree.nodes())
        if (isLeaf(n))
            leaves.push_back(&n);
    std::stable_sort(leaves.begin(), leaves.end(),
                     [](const AstNode* x, const AstNode* y) { return x->start < y->start; });
    std::vector<TextEdit> edits;
    const std::string& text = tree.text();
    for (std::size_t i = 1; i < leaves.size(); ++i) {
        const AstNode& a = *leaves[i - 1];
        const AstNode& b = *leaves[i];
        if (b.start < a.end || !(isPunctuation(tree, a) || isPunctuation(tree, b)))
            continue;
        const std::size_t gap = b.start - a.end;
        if (gap > 1 || (gap == 1 && text[a.end] != ' ') || gapInString(tree, a, b))
            continue;
        edits.push_back({a.end, b.start, gap == 0 ? " " : ""});
    }
    return edits;
}

} // namespace

RewriteKind parseRewriteKind(const std::string& name)
{
    if (name == "rename")
        return RewriteKind::Rename;
    if (name == "spacing")
        return RewriteKind::Spacing;
    throw InputError("unknown rewrite '" + name + "': rename or spacing");
}

std::string toString(RewriteKind kind)
{
    return kind == RewriteKind::Rename ? "rename" : "spacing";
}

std::string flipCaseConvention(const std::string& name)
{
    const std::size_t first = name.find_first_not_of('_');
    if (first == std::string::npos)
        return "";
    const std::size_t last = name.find_last_not_of('_');
    const std::string prefix = name.substr(0, first), suffix = name.substr(last + 1);
    const std::string core = name.substr(first, last + 1 - first);
    if (!(core[0] >= 'a' && core[0] <= 'z'))
        return "";
    std::string out;
    if (core.find('_') != std::string::npos) {
        // snake_case: lower-case words of letters and digits, each after the first starting with a letter
        bool upNext = false;
        for (std::size_t i = 0; i < core.size(); ++i) {
            const char c = core[i];
            if (c == '_') {
                if (upNext || i + 1 >= core.size() || !(core[i + 1] >= 'a' && core[i + 1] <= 'z'))
                    return "";
                upNext = true;
            } else if (!lowerOrDigit(c)) {
                return "";
            } else {
                out += upNext ? static_cast<char>(c - 'a' + 'A') : c;
                upNext = false;
            }
        }
    } else {
        // lower camelCase: each capital followed by a lower-case letter or digit
        bool any = false;
        for (std::size_t i = 0; i < core.size(); ++i) {
            const char c = core[i];
            if (c >= 'A' && c <= 'Z') {
                if (i + 1 >= core.size() || !lowerOrDigit(core[i + 1]))
                    return "";
                out += '_';
                out += static_cast<char>(c - 'A' + 'a');
                any = true;
            } else if (lowerOrDigit(c)) {
                out += c;
            } else {
                return "";
            }
        }
        if (!any)
            return "";
    }
    return prefix + out + suffix;
}

std::string treeShapeDifference(const SyntaxTree& a, const SyntaxTree& b)
{
    if (a.nodes().size() != b.nodes().size())
        return "the trees have " + std::to_string(a.nodes().size()) + " and " + std::to_string(b.nodes().size()) +
               " nodes";
    for (std::size_t i = 0; i < a.nodes().size(); ++i) {
        const AstNode& x = a.nodes()[i];
        const AstNode& y = b.nodes()[i];
        if (x.type != y.type || x.named != y.named || x.field != y.field || x.children.size() != y.children.size() ||
            x.isError != y.isError || x.isMissing != y.isMissing)
            return "node " + std::to_string(i) + " is " + x.type + (x.field.empty() ? "" : " (" + x.field + ")") +
                   " with " + std::to_string(x.children.size()) + " children, then " + y.type +
                   (y.field.empty() ? "" : " (" + y.field + ")") + " with " + std::to_string(y.children.size());
    }
    return "";
}

std::string applyEdits(const std::string& text, std::vector<TextEdit> edits)
{
    std::sort(edits.begin(), edits.end(), [](const TextEdit& x, const TextEdit& y) { return x.start < y.start; });
    std::string out;
    std::size_t at = 0;
    for (const auto& e : edits) {
        if (e.start < at || e.end < e.start || e.end > text.size())
            throw InputError("rewrite: the edits at byte " + std::to_string(e.start) + " overlap or leave the text");
        out.append(text, at, e.start - at);
        out += e.replacement;
        at = e.end;
    }
    out.append(text, at, std::string::npos);
    return out;
}

RewriteResult rewriteSnippet(const SyntaxTree& tree, RewriteKind kind)
{
    RewriteResult r;
    const std::vector<TextEdit> edits = kind == RewriteKind::Rename ? renameEdits(tree, r.names) : spacingEdits(tree);
    r.edits = static_cast<int>(edits.size());
    r.text = applyEdits(tree.text(), edits);
    if (r.edits == 0)
        return r;
    const SyntaxTree again = SyntaxTree::parse(tree.language(), r.text, 0);
    r.difference = treeShapeDifference(tree, again);
    r.sameShape = r.difference.empty();
    return r;
}

} // namespace ascviz
