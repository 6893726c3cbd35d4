// CodeBLEU's data-flow graph (codebleu.h, dataFlowGraph): the codebleu package's DFG_python and DFG_java
// rules on the tree-sitter tree, then its get_data_flow filtering and merging and normalize_dataflow.
#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/galeras/codebleu.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <map>

namespace ascviz {
namespace {

struct Edge {
    std::string code;
    int idx = 0;
    std::string rel;
    std::vector<std::string> names;
    std::vector<int> idxs;
};
using States = std::map<std::string, std::vector<int>>;
using Span = std::pair<std::size_t, std::size_t>;

struct DfgFailed {}; // where the package's code raises (a missing field), it keeps no graph

void sortByIdx(std::vector<Edge>& d)
{
    std::stable_sort(d.begin(), d.end(), [](const Edge& a, const Edge& b) { return a.idx < b.idx; });
}

// names merged where the package writes list(set(a + b)): first order kept (see codebleu.h)
std::vector<std::string> unionNames(std::vector<std::string> a, const std::vector<std::string>& b)
{
    std::vector<std::string> out;
    a.insert(a.end(), b.begin(), b.end());
    for (auto& x : a)
        if (std::find(out.begin(), out.end(), x) == out.end())
            out.push_back(x);
    return out;
}

std::vector<int> sortedUnion(std::vector<int> a, const std::vector<int>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

// the package's loop de-duplication: one edge per (code, idx, relation), sorted by idx
std::vector<Edge> dedupLoop(const std::vector<Edge>& d)
{
    std::vector<Edge> out;
    for (const Edge& e : d) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const Edge& o) { return o.code == e.code && o.idx == e.idx && o.rel == e.rel; });
        if (it == out.end()) {
            out.push_back(e);
        } else {
            it->names = unionNames(it->names, e.names);
            it->idxs = sortedUnion(it->idxs, e.idxs);
        }
    }
    sortByIdx(out);
    return out;
}

class Dfg {
public:
    Dfg(const SyntaxTree& tree, bool java) : m_tree(tree), m_nodes(tree.nodes()), m_java(java)
    {
        const std::string& text = tree.text();
        std::vector<std::size_t> lineStart{0};
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n')
                lineStart.push_back(i + 1);
        std::vector<std::u32string> lines; // the text split at \n, in code points (Python's str lines)
        for (std::size_t l = 0; l < lineStart.size(); ++l) {
            const std::size_t e = l + 1 < lineStart.size() ? lineStart[l + 1] - 1 : text.size();
            std::u32string u;
            std::size_t i = lineStart[l];
            while (i < e)
                u.push_back(nextCodePoint(text, i));
            lines.push_back(u);
        }
        auto point = [&](std::size_t byte) {
            const auto it = std::upper_bound(lineStart.begin(), lineStart.end(), byte);
            const std::size_t row = std::size_t(it - lineStart.begin()) - 1;
            return std::make_pair(row, byte - lineStart[row]);
        };
        // Python slices its str by tree-sitter's byte columns (index_to_code_token)
        auto slice = [](const std::u32string& s, std::size_t a, std::size_t b) {
            a = std::min(a, s.size());
            b = std::min(b, s.size());
            return a < b ? s.substr(a, b - a) : std::u32string();
        };
        int idx = 0;
        for (int k : tokenNodes(0)) {
            const auto [r1, c1] = point(m_nodes[k].start);
            const auto [r2, c2] = point(m_nodes[k].end);
            std::u32string u;
            if (r1 == r2) {
                u = slice(lines[r1], c1, c2);
            } else {
                u = slice(lines[r1], c1, lines[r1].size());
                for (std::size_t r = r1 + 1; r < r2; ++r)
                    u += lines[r];
                u += slice(lines[r2], 0, c2);
            }
            std::string code;
            for (char32_t c : u)
                appendUtf8(code, c);
            m_code[{m_nodes[k].start, m_nodes[k].end}] = {idx++, code};
        }
    }

    std::vector<Edge> run(int node, States& states) { return m_java ? java(node, states) : python(node, states); }

private:
    bool isToken(int k) const
    {
        const AstNode& n = m_nodes[k];
        return (n.children.empty() || n.type == "string_literal" || n.type == "string" ||
                n.type == "character_literal") &&
               n.type != "comment";
    }
    std::vector<int> tokenNodes(int k) const
    {
        if (k < 0)
            throw DfgFailed{};
        if (isToken(k))
            return {k};
        std::vector<int> out;
        for (int c : m_nodes[k].children) {
            auto sub = tokenNodes(c);
            out.insert(out.end(), sub.begin(), sub.end());
        }
        return out;
    }
    const std::pair<int, std::string>& codeOf(int k) const
    {
        const auto it = m_code.find({m_nodes[k].start, m_nodes[k].end});
        if (it == m_code.end())
            throw DfgFailed{};
        return it->second;
    }
    // tree_to_variable_index: the tokens whose text is not their type
    std::vector<int> variables(int k) const
    {
        std::vector<int> out;
        for (int t : tokenNodes(k))
            if (m_nodes[t].type != codeOf(t).second)
                out.push_back(t);
        return out;
    }
    int field(int k, const char* name) const
    {
        if (k < 0)
            throw DfgFailed{};
        for (int c : m_nodes[k].children)
            if (m_nodes[c].field == name)
                return c;
        return -1;
    }
    const std::vector<int>& children(int k) const
    {
        if (k < 0)
            throw DfgFailed{};
        return m_nodes[k].children;
    }

    std::vector<Edge> leaf(int k, States& states)
    {
        const auto& [idx, code] = codeOf(k);
        if (m_nodes[k].type == code)
            return {};
        if (const auto it = states.find(code); it != states.end())
            return {Edge{code, idx, "comesFrom", {code}, it->second}};
        if (m_nodes[k].type == "identifier")
            states[code] = {idx};
        return {Edge{code, idx, "comesFrom", {}, {}}};
    }

    // one comesFrom/computedFrom edge from each variable of `values` to each of `names`; each name's state is its
    // own token from then on
    void eachFromEach(int names, int values, const char* rel, States& states, std::vector<Edge>& d)
    {
        const auto ns = variables(names), vs = variables(values);
        for (int t1 : ns) {
            const auto& [i1, c1] = codeOf(t1);
            for (int t2 : vs) {
                const auto& [i2, c2] = codeOf(t2);
                d.push_back(Edge{c1, i1, rel, {c2}, {i2}});
            }
            states[c1] = {i1};
        }
    }

    // variable_declarator (Java), default_parameter (Python)
    std::vector<Edge> declaration(int k, States& states)
    {
        const int name = field(k, "name"), value = field(k, "value");
        std::vector<Edge> d;
        if (value < 0) {
            for (int t : variables(name)) {
                const auto& [idx, code] = codeOf(t);
                d.push_back(Edge{code, idx, "comesFrom", {}, {}});
                states[code] = {idx};
            }
        } else {
            auto sub = run(value, states);
            d.insert(d.end(), sub.begin(), sub.end());
            eachFromEach(name, value, "comesFrom", states, d);
        }
        sortByIdx(d);
        return d;
    }

    // left ← right: one computedFrom edge per variable of left, from all of right's
    void computedFrom(int left, int right, States& states, std::vector<Edge>& d)
    {
        const auto ls = variables(left), rs = variables(right);
        std::vector<std::string> names;
        std::vector<int> idxs;
        for (int r : rs) {
            names.push_back(codeOf(r).second);
            idxs.push_back(codeOf(r).first);
        }
        for (int l : ls) {
            const auto& [i1, c1] = codeOf(l);
            d.push_back(Edge{c1, i1, "computedFrom", names, idxs});
            states[c1] = {i1};
        }
    }
    // Python's left and right of an assignment or a for: pairwise when both lists have as many items
    void pairwise(int left, int right, std::vector<int>& ls, std::vector<int>& rs) const
    {
        ls.clear(), rs.clear();
        for (int c : children(left))
            if (m_nodes[c].type != ",")
                ls.push_back(c);
        for (int c : children(right))
            if (m_nodes[c].type != ",")
                rs.push_back(c);
        if (ls.size() != rs.size())
            ls = {left}, rs = {right};
        if (ls.empty())
            ls = {left};
        if (rs.empty())
            rs = {right};
    }

    std::vector<Edge> ifStatement(int k, States& states, bool java)
    {
        std::vector<Edge> d;
        States current = states;
        std::vector<States> others;
        bool tag = false, flag = false;
        for (int c : m_nodes[k].children) {
            const std::string& t = m_nodes[c].type;
            if (t.find("else") != std::string::npos)
                tag = true;
            const bool branch =
                java ? (t == "if_statement" || t == "else" || flag) : (t == "elif_clause" || t == "else_clause");
            if (!branch) {
                auto sub = run(c, current);
                d.insert(d.end(), sub.begin(), sub.end());
            } else {
                flag = true;
                States s = states;
                auto sub = run(c, s);
                d.insert(d.end(), sub.begin(), sub.end());
                others.push_back(std::move(s));
            }
        }
        others.push_back(current);
        if (!tag)
            others.push_back(states);
        States merged;
        for (const auto& s : others)
            for (const auto& [key, v] : s)
                merged[key].insert(merged[key].end(), v.begin(), v.end());
        for (auto& [key, v] : merged)
            v = sortedUnion(v, {});
        states = std::move(merged);
        sortByIdx(d);
        return d;
    }

    std::vector<Edge> rest(int k, States& states, bool pythonFirst)
    {
        std::vector<Edge> d;
        if (pythonFirst)
            for (int c : m_nodes[k].children)
                if (m_nodes[c].type == "for_in_clause") {
                    auto sub = run(c, states);
                    d.insert(d.end(), sub.begin(), sub.end());
                }
        for (int c : m_nodes[k].children)
            if (!pythonFirst || m_nodes[c].type != "for_in_clause") {
                auto sub = run(c, states);
                d.insert(d.end(), sub.begin(), sub.end());
            }
        sortByIdx(d);
        return d;
    }

    std::vector<Edge> whileStatement(int k, States& states)
    {
        std::vector<Edge> d;
        for (int i = 0; i < 2; ++i)
            for (int c : m_nodes[k].children) {
                auto sub = run(c, states);
                d.insert(d.end(), sub.begin(), sub.end());
            }
        return dedupLoop(d);
    }

    std::vector<Edge> python(int k, States& states)
    {
        if (k < 0)
            throw DfgFailed{};
        const std::string& type = m_nodes[k].type;
        if (isToken(k))
            return leaf(k, states);
        if (type == "default_parameter")
            return declaration(k, states);
        if (type == "assignment" || type == "augmented_assignment" || type == "for_in_clause") {
            std::vector<int> ls, rs;
            if (type == "for_in_clause") {
                rs = {m_nodes[k].children.back()};
                ls = {field(k, "left")};
            } else {
                if (field(k, "right") < 0)
                    return {};
                pairwise(field(k, "left"), field(k, "right"), ls, rs);
            }
            std::vector<Edge> d;
            for (int r : rs) {
                auto sub = python(r, states);
                d.insert(d.end(), sub.begin(), sub.end());
            }
            for (std::size_t i = 0; i < std::min(ls.size(), rs.size()); ++i)
                computedFrom(ls[i], rs[i], states, d);
            sortByIdx(d);
            return d;
        }
        if (type == "if_statement")
            return ifStatement(k, states, false);
        if (type == "for_statement") {
            std::vector<Edge> d;
            for (int i = 0; i < 2; ++i) {
                std::vector<int> ls, rs;
                pairwise(field(k, "left"), field(k, "right"), ls, rs);
                for (int r : rs) {
                    auto sub = python(r, states);
                    d.insert(d.end(), sub.begin(), sub.end());
                }
                for (std::size_t j = 0; j < std::min(ls.size(), rs.size()); ++j)
                    computedFrom(ls[j], rs[j], states, d);
                if (m_nodes[m_nodes[k].children.back()].type == "block") {
                    auto sub = python(m_nodes[k].children.back(), states);
                    d.insert(d.end(), sub.begin(), sub.end());
                }
            }
            return dedupLoop(d);
        }
        if (type == "while_statement")
            return whileStatement(k, states);
        return rest(k, states, true);
    }

    std::vector<Edge> java(int k, States& states)
    {
        if (k < 0)
            throw DfgFailed{};
        const std::string& type = m_nodes[k].type;
        if (isToken(k))
            return leaf(k, states);
        if (type == "variable_declarator")
            return declaration(k, states);
        if (type == "assignment_expression") {
            const int left = field(k, "left"), right = field(k, "right");
            std::vector<Edge> d = java(right, states);
            eachFromEach(left, right, "computedFrom", states, d);
            sortByIdx(d);
            return d;
        }
        if (type == "update_expression") {
            std::vector<Edge> d;
            eachFromEach(k, k, "computedFrom", states, d);
            sortByIdx(d);
            return d;
        }
        if (type == "if_statement" || type == "else")
            return ifStatement(k, states, true);
        if (type == "for_statement") {
            std::vector<Edge> d;
            for (int c : m_nodes[k].children) {
                auto sub = java(c, states);
                d.insert(d.end(), sub.begin(), sub.end());
            }
            bool flag = false;
            for (int c : m_nodes[k].children) {
                if (flag) {
                    auto sub = java(c, states);
                    d.insert(d.end(), sub.begin(), sub.end());
                } else if (m_nodes[c].type == "local_variable_declaration") {
                    flag = true;
                }
            }
            return dedupLoop(d);
        }
        if (type == "enhanced_for_statement") {
            const int name = field(k, "name"), value = field(k, "value"), body = field(k, "body");
            std::vector<Edge> d;
            for (int i = 0; i < 2; ++i) {
                auto sub = java(value, states);
                d.insert(d.end(), sub.begin(), sub.end());
                eachFromEach(name, value, "computedFrom", states, d);
                sub = java(body, states);
                d.insert(d.end(), sub.begin(), sub.end());
            }
            return dedupLoop(d);
        }
        if (type == "while_statement")
            return whileStatement(k, states);
        return rest(k, states, false);
    }

    const SyntaxTree& m_tree;
    const std::vector<AstNode>& m_nodes;
    bool m_java;
    std::map<Span, std::pair<int, std::string>> m_code;
};

} // namespace

std::vector<DataFlowEdge> dataFlowGraph(const std::string& code, const std::string& language)
{
    const std::string& rules = LanguageRegistry::instance().get(language).codebleuRules.dataflow;
    if (rules.empty())
        throw InputError("CodeBLEU's data-flow match has no rules for " + language +
                         " (its language.json gives no \"codebleu_rules\"; the codebleu package's rule sets "
                         "here: DFG_python, DFG_java)");
    const SyntaxTree tree = SyntaxTree::parse(language, code, 0);
    std::vector<Edge> dfg;
    try {
        Dfg builder(tree, rules == "DFG_java");
        States states;
        dfg = builder.run(0, states);
    } catch (const DfgFailed&) {
        dfg.clear();
    }
    sortByIdx(dfg);
    // keep the edges that take part in a flow
    std::vector<int> used;
    for (const Edge& e : dfg) {
        if (!e.idxs.empty())
            used.push_back(e.idx);
        used.insert(used.end(), e.idxs.begin(), e.idxs.end());
    }
    std::vector<Edge> kept;
    for (const Edge& e : dfg)
        if (std::find(used.begin(), used.end(), e.idx) != used.end())
            kept.push_back(e);
    // merge the edges of one token (the last one's relation, the union of the sources)
    std::vector<Edge> merged;
    for (const Edge& e : kept) {
        auto it = std::find_if(merged.begin(), merged.end(), [&](const Edge& o) { return o.idx == e.idx; });
        if (it == merged.end()) {
            merged.push_back(e);
        } else {
            it->code = e.code, it->rel = e.rel;
            it->names = unionNames(it->names, e.names);
        }
    }
    // normalize_dataflow
    std::map<std::string, std::string> rename;
    auto nameOf = [&](const std::string& v) {
        auto it = rename.find(v);
        if (it == rename.end())
            it = rename.emplace(v, "var_" + std::to_string(rename.size())).first;
        return it->second;
    };
    std::vector<DataFlowEdge> out;
    for (const Edge& e : merged) {
        DataFlowEdge n;
        for (const auto& s : e.names)
            n.sources.push_back(nameOf(s));
        n.var = nameOf(e.code);
        n.relation = e.rel;
        out.push_back(std::move(n));
    }
    return out;
}

} // namespace ascviz
