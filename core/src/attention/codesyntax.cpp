// CodeSyntax's paper relations from a per-language mapping of tree-sitter nodes (method.md §11).
#include "ascviz/attention/codesyntax.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace ascviz {

using nlohmann::json;
using Strings = std::set<std::string>;

namespace {

struct Step {
    enum Kind { Field, Type, Items, Index, From, Following, Through, Flatten, Segment, Unwrap } kind = Field;
    std::string a, b, c; // field / separator / flatten's left, right, same
    Strings list, except;
    int n = 0;
    std::map<std::string, std::string> unwrap; // type -> field whose items replace it
};
using Path = std::vector<Step>;

struct RelSpec {
    std::string name, head, depStart, depEnd;
    int headIndex = 0, depIndex = -1;
    bool headLast = false, depFirstOnly = false;
};

struct Rule {
    std::string ast;
    Strings nodes, parents, withoutField, withoutKeyword, withoutType;
    std::map<std::string, std::string> names;
    std::string innerField, innerSame;
    std::map<std::string, Path> parts;
    std::vector<RelSpec> relations;
};

} // namespace

struct CodeSyntaxMapping::Data {
    Strings open, close, atomic, extras, skipTypes;
    std::map<std::string, Strings> skipFields;
    std::vector<Rule> rules;
    std::string childrenName;
    Strings lift, cut, leafNodes, notNodes, notNodeParents;
    std::map<std::string, Strings> notNodeFields;
    std::vector<std::string> table6;
};

namespace {

Strings strings(const json& j, const char* key)
{
    Strings out;
    if (j.contains(key))
        for (const auto& s : j.at(key))
            out.insert(s.get<std::string>());
    return out;
}

std::map<std::string, Strings> fieldMap(const json& j)
{
    std::map<std::string, Strings> out;
    for (const auto& [k, v] : j.items())
        for (const auto& s : v)
            out[k].insert(s.get<std::string>());
    return out;
}

Step readStep(const json& j)
{
    Step s;
    if (j.contains("field")) {
        s.kind = Step::Field;
        s.a = j.at("field").get<std::string>();
    } else if (j.contains("type")) {
        s.kind = Step::Type;
        s.list = strings(j, "type");
    } else if (j.contains("items")) {
        s.kind = Step::Items;
        s.list = strings(j.at("items"), "keep");
        s.except = strings(j.at("items"), "except");
    } else if (j.contains("index")) {
        s.kind = Step::Index;
        s.n = j.at("index").get<int>();
    } else if (j.contains("from")) {
        s.kind = Step::From;
        s.n = j.at("from").get<int>();
    } else if (j.contains("following")) {
        s.kind = Step::Following;
        s.a = j.at("following").get<std::string>();
    } else if (j.contains("through")) {
        s.kind = Step::Through;
        s.a = j.at("through").get<std::string>();
    } else if (j.contains("flatten")) {
        s.kind = Step::Flatten;
        s.a = j.at("flatten").at("left").get<std::string>();
        s.b = j.at("flatten").at("right").get<std::string>();
        s.c = j.at("flatten").value("same", std::string());
    } else if (j.contains("segment")) {
        s.kind = Step::Segment;
        s.a = j.at("segment").at("separator").get<std::string>();
        s.n = j.at("segment").at("index").get<int>();
    } else if (j.contains("unwrap")) {
        s.kind = Step::Unwrap;
        for (const auto& [k, v] : j.at("unwrap").items())
            s.unwrap[k] = v.get<std::string>();
    } else {
        throw std::invalid_argument("unknown step " + j.dump());
    }
    return s;
}

} // namespace

CodeSyntaxMapping CodeSyntaxMapping::load(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError("cannot read the CodeSyntax mapping " + file.string(), ErrorContext(file.string()));
    auto d = std::make_shared<Data>();
    try {
        const json j = json::parse(in);
        d->open = strings(j, "open_brackets");
        d->close = strings(j, "close_brackets");
        d->atomic = strings(j, "atomic");
        d->extras = strings(j, "extras");
        if (j.contains("skip")) {
            d->skipTypes = strings(j.at("skip"), "types");
            if (j.at("skip").contains("fields"))
                d->skipFields = fieldMap(j.at("skip").at("fields"));
        }
        for (const auto& r : j.at("rules")) {
            Rule rule;
            rule.ast = r.at("ast").get<std::string>();
            rule.nodes = strings(r, "nodes");
            rule.parents = strings(r, "parent");
            rule.withoutField = strings(r, "without_field");
            rule.withoutKeyword = strings(r, "without_keyword");
            rule.withoutType = strings(r, "without_type");
            if (r.contains("names"))
                for (const auto& [k, v] : r.at("names").items())
                    rule.names[k] = v.get<std::string>();
            if (r.contains("inner_of_same")) {
                rule.innerField = r.at("inner_of_same").at("field").get<std::string>();
                rule.innerSame = r.at("inner_of_same").value("same", std::string());
            }
            for (const auto& [name, steps] : r.at("parts").items()) {
                Path p;
                for (const auto& s : steps)
                    p.push_back(readStep(s));
                rule.parts[name] = std::move(p);
            }
            for (const auto& x : r.at("relations")) {
                RelSpec s;
                s.name = x.at("name").get<std::string>();
                s.head = x.at("head").get<std::string>();
                s.headIndex = x.value("head_index", 0);
                s.headLast = x.value("token", std::string("first")) == "last";
                if (x.at("dependent").is_array()) {
                    s.depStart = x.at("dependent").at(0).get<std::string>();
                    s.depEnd = x.at("dependent").at(1).get<std::string>();
                } else {
                    s.depStart = s.depEnd = x.at("dependent").get<std::string>();
                }
                s.depIndex = x.value("dependent_index", -1);
                s.depFirstOnly = x.value("dependent_token", std::string()) == "first";
                for (const auto* part : {&s.head, &s.depStart, &s.depEnd})
                    if (!rule.parts.count(*part))
                        throw std::invalid_argument("relation " + s.name + " names no part '" + *part + "'");
                rule.relations.push_back(std::move(s));
            }
            d->rules.push_back(std::move(rule));
        }
        if (j.contains("children")) {
            const json& c = j.at("children");
            d->childrenName = c.at("name").get<std::string>();
            d->lift = strings(c, "lift");
            d->cut = strings(c, "cut");
            d->leafNodes = strings(c, "leaf_nodes");
            d->notNodes = strings(c, "not_nodes");
            d->notNodeParents = strings(c, "not_node_parents");
            if (c.contains("not_node_fields"))
                d->notNodeFields = fieldMap(c.at("not_node_fields"));
        }
        if (j.contains("table6"))
            d->table6 = j.at("table6").get<std::vector<std::string>>();
    } catch (const std::exception& e) {
        throw InputError(file.string() + ": not a CodeSyntax mapping (" + e.what() + ")", ErrorContext(file.string()));
    }
    CodeSyntaxMapping m;
    m.data = std::move(d);
    return m;
}

bool CodeSyntaxMapping::exists(const std::filesystem::path& folder)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(folder / "codesyntax.json", ec);
}

CodeSyntaxMapping CodeSyntaxMapping::forLanguage(const std::string& language, const std::filesystem::path& folder)
{
    if (!exists(folder))
        throw InputError("the CodeSyntax paper relations are defined for Python (the paper's language); " + language +
                             " has no mapping (" + (folder / "codesyntax.json").string() +
                             "): use the generic relations (fields)",
                         ErrorContext((folder / "codesyntax.json").string()));
    return load(folder / "codesyntax.json");
}

std::vector<std::string> CodeSyntaxMapping::relationTypes() const
{
    std::vector<std::string> out;
    for (const Rule& r : data->rules)
        for (const RelSpec& s : r.relations) {
            if (s.name.find("{ast}") == std::string::npos) {
                out.push_back(s.name);
                continue;
            }
            for (const auto& [type, ast] : r.names) {
                (void)type;
                std::string n = s.name;
                n.replace(n.find("{ast}"), 5, ast);
                out.push_back(n);
            }
        }
    if (!data->childrenName.empty())
        out.push_back(data->childrenName);
    return out;
}

const std::vector<std::string>& CodeSyntaxMapping::table6() const
{
    return data->table6;
}

namespace {

// The tree with the mapping's word and node bookkeeping.
class Walker {
public:
    Walker(const SyntaxTree& tree, const CodeSyntaxMapping::Data& d) : m_tree(tree), m_n(tree.nodes()), m_d(d)
    {
        // Code words: leaves and atomic nodes, outside atomic nodes, not zero-width.
        for (const AstNode& n : m_n) {
            bool insideAtomic = false;
            for (int p = n.parent; p >= 0; p = m_n[static_cast<std::size_t>(p)].parent)
                if (d.atomic.count(m_n[static_cast<std::size_t>(p)].type)) {
                    insideAtomic = true;
                    break;
                }
            if (insideAtomic || n.start == n.end || n.isMissing)
                continue;
            if (n.isTerminal() || d.atomic.count(n.type))
                words.push_back(n.id);
        }
        std::sort(words.begin(), words.end(), [&](int a, int b) { return node(a).start < node(b).start; });
        skipped.assign(m_n.size(), 0);
        for (const AstNode& n : m_n) {
            if (n.parent < 0)
                continue;
            const AstNode& p = node(n.parent);
            const auto f = d.skipFields.find(p.type);
            skipped[static_cast<std::size_t>(n.id)] = skipped[static_cast<std::size_t>(p.id)] ||
                                                      d.skipTypes.count(n.type) ||
                                                      (f != d.skipFields.end() && f->second.count(n.field));
        }
    }

    const AstNode& node(int id) const { return m_n[static_cast<std::size_t>(id)]; }
    std::string_view text(int id) const { return m_tree.nodeText(node(id)); }
    bool extra(int id) const { return m_d.extras.count(node(id).type) > 0; }

    // The first code word of a node, past opening brackets not closed at once (the paper's extractor: "exclude
    // '(' and ')'"); -1 when the node holds none.
    int firstWord(int id) const
    {
        const AstNode& n = node(id);
        auto it = std::lower_bound(words.begin(), words.end(), n.start,
                                   [&](int w, std::size_t s) { return node(w).start < s; });
        if (it == words.end() || node(*it).start >= n.end)
            return -1;
        int w = static_cast<int>(it - words.begin());
        while (w + 1 < static_cast<int>(words.size()) && m_d.open.count(std::string(text(words[w]))) &&
               !m_d.close.count(std::string(text(words[w + 1]))))
            ++w;
        return w;
    }
    // The last code word of a node, before its closing brackets.
    int lastWord(int id) const
    {
        const AstNode& n = node(id);
        auto it =
            std::lower_bound(words.begin(), words.end(), n.end, [&](int w, std::size_t e) { return node(w).end <= e; });
        if (it == words.begin())
            return -1;
        int w = static_cast<int>(it - words.begin()) - 1;
        if (node(words[w]).start < n.start)
            return -1;
        while (w > 0 && m_d.close.count(std::string(text(words[w]))))
            --w;
        return w;
    }

    std::vector<int> children(int id) const { return node(id).children; }
    std::vector<int> items(int id, const Strings& except) const
    {
        std::vector<int> out;
        for (int c : node(id).children)
            if (node(c).named && !node(c).isError && !extra(c) && !except.count(node(c).type))
                out.push_back(c);
        return out;
    }
    int fieldChild(int id, const std::string& field) const
    {
        for (int c : node(id).children)
            if (node(c).field == field)
                return c;
        return -1;
    }
    std::string childText(int id, const std::string& field) const
    {
        const int c = fieldChild(id, field);
        return c < 0 ? std::string() : std::string(text(c));
    }

    void flatten(int id, const Step& s, const std::string& type, std::vector<int>& out) const
    {
        const int l = fieldChild(id, s.a), r = fieldChild(id, s.b);
        if (l >= 0 && node(l).type == type && (s.c.empty() || childText(l, s.c) == childText(id, s.c)))
            flatten(l, s, type, out);
        else if (l >= 0)
            out.push_back(l);
        if (r >= 0)
            out.push_back(r);
    }

    std::vector<int> apply(const Path& path, int self) const
    {
        std::vector<int> cur{self};
        for (const Step& s : path) {
            std::vector<int> next;
            switch (s.kind) {
            case Step::Field:
                for (int x : cur)
                    for (int c : node(x).children)
                        if (node(c).field == s.a)
                            next.push_back(c);
                break;
            case Step::Type:
                for (int x : cur)
                    for (int c : node(x).children)
                        if (node(c).named && s.list.count(node(c).type))
                            next.push_back(c);
                break;
            case Step::Items:
                for (int x : cur) {
                    if (s.list.count(node(x).type)) {
                        next.push_back(x);
                        continue;
                    }
                    for (int c : items(x, s.except))
                        next.push_back(c);
                }
                break;
            case Step::Index: {
                const int i = s.n < 0 ? static_cast<int>(cur.size()) + s.n : s.n;
                if (i >= 0 && i < static_cast<int>(cur.size()))
                    next.push_back(cur[static_cast<std::size_t>(i)]);
                break;
            }
            case Step::From:
                for (std::size_t i = static_cast<std::size_t>(std::max(s.n, 0)); i < cur.size(); ++i)
                    next.push_back(cur[i]);
                break;
            case Step::Following:
                for (int x : cur) {
                    const AstNode& n = node(x);
                    if (n.field == s.a && n.parent >= 0) {
                        bool after = false;
                        for (int c : node(n.parent).children) {
                            if (after && node(c).field == s.a)
                                next.push_back(c);
                            after = after || c == x;
                        }
                    } else {
                        for (int c : n.children)
                            if (node(c).field == s.a)
                                next.push_back(c);
                    }
                }
                break;
            case Step::Through:
                for (int x : cur) {
                    while (node(x).type == node(self).type && fieldChild(x, s.a) >= 0)
                        x = fieldChild(x, s.a);
                    next.push_back(x);
                }
                break;
            case Step::Flatten:
                for (int x : cur)
                    flatten(x, s, node(x).type, next);
                break;
            case Step::Segment:
                for (int x : cur) {
                    int seg = 0;
                    for (int c : node(x).children) {
                        if (!node(c).named && node(c).type == s.a)
                            ++seg;
                        else if (seg == s.n && node(c).named && !extra(c))
                            next.push_back(c);
                    }
                }
                break;
            case Step::Unwrap:
                for (int x : cur) {
                    const auto u = s.unwrap.find(node(x).type);
                    if (u == s.unwrap.end()) {
                        next.push_back(x);
                        continue;
                    }
                    for (int c : node(x).children)
                        if (node(c).field == u->second)
                            for (int i : items(c, {}))
                                next.push_back(i);
                }
                break;
            }
            cur = std::move(next);
        }
        return cur;
    }

    bool matches(const Rule& r, const AstNode& n) const
    {
        if (!r.nodes.count(n.type) || n.isError)
            return false;
        if (!r.parents.empty() && (n.parent < 0 || !r.parents.count(node(n.parent).type)))
            return false;
        for (int c : n.children) {
            const AstNode& ch = node(c);
            if (r.withoutField.count(ch.field) || r.withoutType.count(ch.type) ||
                (!ch.named && r.withoutKeyword.count(ch.type)))
                return false;
        }
        if (!r.innerField.empty() && n.parent >= 0 && n.field == r.innerField && node(n.parent).type == n.type &&
            (r.innerSame.empty() || childText(n.parent, r.innerSame) == childText(n.id, r.innerSame)))
            return false;
        return true;
    }

    Relation make(const std::string& type, int head, int depFirst, int depLast) const
    {
        Relation r;
        r.type = type;
        const AstNode& h = node(words[static_cast<std::size_t>(head)]);
        const AstNode& a = node(words[static_cast<std::size_t>(depFirst)]);
        const AstNode& b = node(words[static_cast<std::size_t>(depLast)]);
        r.head = {h.id, h.start, h.end, {}};
        r.dependent = {a.id, a.start, b.end, {}};
        return r;
    }

    std::vector<int> words; // node ids, in text order
    std::vector<char> skipped;

private:
    const SyntaxTree& m_tree;
    const std::vector<AstNode>& m_n;
    const CodeSyntaxMapping::Data& m_d;
};

} // namespace

std::vector<std::pair<std::size_t, std::size_t>> codeWords(const SyntaxTree& tree, const CodeSyntaxMapping& mapping)
{
    const Walker w(tree, *mapping.data);
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (int id : w.words)
        out.emplace_back(w.node(id).start, w.node(id).end);
    return out;
}

std::vector<Relation> codeSyntaxRelations(const SyntaxTree& tree, const CodeSyntaxMapping& mapping)
{
    const auto& d = *mapping.data;
    const Walker w(tree, d);
    const auto& nodes = tree.nodes();
    // The children relation's nodes: named nodes that are AST nodes of the paper's language.
    std::vector<char> excluded(nodes.size(), 0), isNode(nodes.size(), 0);
    for (const AstNode& n : nodes) {
        const auto i = static_cast<std::size_t>(n.id);
        if (n.parent >= 0) {
            const AstNode& p = nodes[static_cast<std::size_t>(n.parent)];
            const auto f = d.notNodeFields.find(p.type);
            excluded[i] = excluded[static_cast<std::size_t>(p.id)] || d.leafNodes.count(p.type) ||
                          d.notNodeParents.count(p.type) || (f != d.notNodeFields.end() && f->second.count(n.field));
        }
        excluded[i] = excluded[i] || d.notNodes.count(n.type) || w.extra(n.id) || n.isError;
        isNode[i] = n.named && !excluded[i] && !w.skipped[i] && !d.lift.count(n.type) && !d.cut.count(n.type);
    }
    std::vector<Relation> out;
    for (const AstNode& n : nodes) {
        if (w.skipped[static_cast<std::size_t>(n.id)])
            continue;
        for (const Rule& rule : d.rules) {
            if (!w.matches(rule, n))
                continue;
            std::map<std::string, std::vector<int>> parts;
            auto part = [&](const std::string& name) -> const std::vector<int>& {
                auto it = parts.find(name);
                if (it == parts.end())
                    it = parts.emplace(name, w.apply(rule.parts.at(name), n.id)).first;
                return it->second;
            };
            for (const RelSpec& s : rule.relations) {
                const auto& heads = part(s.head);
                if (static_cast<int>(heads.size()) <= s.headIndex)
                    continue;
                const int hn = heads[static_cast<std::size_t>(s.headIndex)];
                int startNode = -1, endNode = -1;
                if (s.depIndex >= 0) {
                    const auto& deps = part(s.depStart);
                    if (static_cast<int>(deps.size()) <= s.depIndex)
                        continue;
                    startNode = endNode = deps[static_cast<std::size_t>(s.depIndex)];
                } else {
                    const auto& starts = part(s.depStart);
                    const auto& ends = part(s.depEnd);
                    if (starts.empty() || ends.empty())
                        continue;
                    startNode = starts.front();
                    endNode = ends.back();
                }
                const int h = s.headLast ? w.lastWord(hn) : w.firstWord(hn);
                const int a = w.firstWord(startNode);
                const int b = s.depFirstOnly ? a : w.lastWord(endNode);
                if (h < 0 || a < 0 || b < 0 || h >= a || a > b)
                    continue;
                std::string name = s.name;
                if (const auto at = name.find("{ast}"); at != std::string::npos) {
                    const auto it = rule.names.find(n.type);
                    name.replace(at, 5, it == rule.names.end() ? rule.ast : it->second);
                }
                out.push_back(w.make(name, h, a, b));
            }
        }
        if (d.childrenName.empty() || !isNode[static_cast<std::size_t>(n.id)])
            continue;
        int p = n.parent;
        while (p >= 0 && d.lift.count(nodes[static_cast<std::size_t>(p)].type))
            p = nodes[static_cast<std::size_t>(p)].parent;
        if (p < 0 || !isNode[static_cast<std::size_t>(p)])
            continue;
        const int h = w.firstWord(p), a = w.firstWord(n.id), b = w.lastWord(n.id);
        if (h >= 0 && a >= 0 && b >= 0 && h < a && a <= b)
            out.push_back(w.make(d.childrenName, h, a, b));
    }
    return out;
}

TokenWords groupTokens(const std::vector<std::pair<std::size_t, std::size_t>>& codeWordSpans,
                       const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans)
{
    const std::size_t T = tokenSpans.size();
    std::vector<char> joinNext(T, 0);
    for (const auto& span : codeWordSpans) {
        const std::size_t s = span.first,
                          e = span.second; // not a structured binding: clang 14's lambdas can't capture one
        auto it =
            std::partition_point(tokenSpans.begin(), tokenSpans.end(), [&](const auto& t) { return t.second <= s; });
        int first = -1, last = -1;
        for (; it != tokenSpans.end() && it->first < e; ++it) {
            if (it->second <= it->first)
                continue;
            const int i = static_cast<int>(it - tokenSpans.begin());
            if (first < 0)
                first = i;
            last = i;
        }
        for (int i = first; i >= 0 && i < last; ++i)
            joinNext[static_cast<std::size_t>(i)] = 1;
    }
    TokenWords out;
    out.ofToken.resize(T);
    for (std::size_t i = 0; i < T; ++i) {
        if (i == 0 || !joinNext[i - 1])
            out.start.push_back(static_cast<int>(i));
        out.ofToken[i] = static_cast<int>(out.start.size()) - 1;
    }
    out.start.push_back(static_cast<int>(T));
    return out;
}

int TokenWords::wordAtByte(const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans, std::size_t byte) const
{
    auto it =
        std::partition_point(tokenSpans.begin(), tokenSpans.end(), [&](const auto& t) { return t.second <= byte; });
    if (it == tokenSpans.end() || it->first > byte)
        return -1;
    return ofToken[static_cast<std::size_t>(it - tokenSpans.begin())];
}

} // namespace ascviz
