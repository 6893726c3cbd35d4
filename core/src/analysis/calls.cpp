// PERPLEXED's internal vs external calls by repository (calls.h, method.md §10).
#include "ascviz/analysis/calls.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ascviz {
namespace {

bool listed(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

// A qualified name (C++ a::b) by its last part.
std::string lastPart(const std::string& name)
{
    const std::size_t k = name.rfind("::");
    return k == std::string::npos ? name : name.substr(k + 2);
}

bool within(const AstNode& n, std::size_t pos)
{
    return n.start <= pos && pos < n.end;
}

} // namespace

CallRepository CallRepository::fromCorpus(const Corpus& corpus)
{
    CallRepository r;
    for (const auto& e : corpus.entries)
        if (!e.repo.empty() && !e.path.empty())
            r.add(e.id, {e.repo, e.path}, e.language, e.code);
    return r;
}

void CallRepository::add(const std::string& id, const RepoFile& file, const std::string& language,
                         const std::string& code)
{
    const LanguageInfo* lang = LanguageRegistry::instance().find(language);
    if (!lang)
        throw InputError("source " + id + " (" + file.repo + "/" + file.path + ") is in language '" + language +
                         "', which this build lacks");
    m_files[id] = file;
    auto& names = m_decls[file.repo];
    const SyntaxTree tree = SyntaxTree::parse(lang->id, code);
    for (const auto& n : tree.nodes())
        if (n.named && listed(lang->calls.definitions, n.type)) {
            const std::string name = definitionName(tree, n);
            names[name].insert(file.path);
            names[lastPart(name)].insert(file.path); // a definition A::f declares f
        }
}

const RepoFile* CallRepository::fileOf(const std::string& snippetId) const
{
    const auto it = m_files.find(snippetId);
    return it == m_files.end() ? nullptr : &it->second;
}

bool CallRepository::declaredElsewhere(const RepoFile& file, const std::string& name) const
{
    const auto repo = m_decls.find(file.repo);
    if (repo == m_decls.end())
        return false;
    const auto paths = repo->second.find(name);
    if (paths == repo->second.end())
        return false;
    return std::any_of(paths->second.begin(), paths->second.end(), [&](const auto& p) { return p != file.path; });
}

int calleeNode(const SyntaxTree& tree, const LanguageInfo& lang, const AstNode& c)
{
    const auto& nodes = tree.nodes();
    std::size_t argsStart = c.end;
    for (int k : c.children)
        if (listed(lang.calls.arguments, nodes[static_cast<std::size_t>(k)].type)) {
            argsStart = nodes[static_cast<std::size_t>(k)].start;
            break;
        }
    int callee = -1;
    for (int id = c.id + 1; id < static_cast<int>(nodes.size()); ++id) {
        const AstNode& d = nodes[static_cast<std::size_t>(id)];
        if (d.start >= argsStart || d.start >= c.end)
            break;
        if (isNameNode(d.type) && d.end <= argsStart)
            callee = id;
    }
    return callee;
}

void CallTableBuilder::addSnippet(const std::string& id, const LanguageInfo& lang, const SyntaxTree& tree,
                                  const std::vector<CeToken>& tokens)
{
    const auto& nodes = tree.nodes();
    const std::string& code = tree.text();
    const RepoFile* file = m_repo.fileOf(id);
    if (!file) {
        ++m_unplaced;
        return;
    }
    // Each token's first non-whitespace byte (npos: all whitespace).
    std::vector<std::size_t> anchor(tokens.size(), std::string::npos);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        for (std::size_t p = tokens[i].start; p < tokens[i].end && p < code.size(); ++p)
            if (!std::isspace(static_cast<unsigned char>(code[p]))) {
                anchor[i] = p;
                break;
            }
    std::vector<int> callNodes;
    for (const auto& n : nodes)
        if (n.named && listed(lang.calls.types, n.type))
            callNodes.push_back(n.id);
    for (int cid : callNodes) {
        const AstNode& c = nodes[static_cast<std::size_t>(cid)];
        const int nameId = calleeNode(tree, lang, c);
        if (nameId < 0)
            continue;
        const AstNode& name = nodes[static_cast<std::size_t>(nameId)];
        const std::string callee = lastPart(std::string(tree.nodeText(name)));
        if (listed(lang.calls.builtins, callee)) {
            ++m_builtin;
            continue;
        }
        const bool internal = m_repo.declaredElsewhere(*file, callee);
        ++m_calls[internal ? 1 : 0];
        // The counted nodes, by the paper's leaf rule (Table 1's rows are leaf labels whose parent is the call
        // or its argument node): the method name when it is a child of the call itself (Python's obj.m names
        // m inside an attribute node: not a row), and each child of the argument node(s) that is a leaf — no
        // children, or a string literal (language.json calls.leaves). Argument subtrees (a + b, k=v, obj.x,
        // a nested call) are not rows: their tokens are not counted.
        std::vector<std::pair<const AstNode*, std::string>> counted;
        if (name.parent == cid) {
            counted.emplace_back(&name, c.type + " -> " + name.type);
            m_nameRows.insert(counted.back().second);
        }
        for (int k : c.children) {
            const AstNode& args = nodes[static_cast<std::size_t>(k)];
            if (!listed(lang.calls.arguments, args.type))
                continue;
            for (int a : args.children) {
                const AstNode& child = nodes[static_cast<std::size_t>(a)];
                if (child.children.empty() || listed(lang.calls.leaves, child.type))
                    counted.emplace_back(&child, args.type + " -> " + child.type);
            }
        }
        // Calls nested inside the counted children count only as themselves.
        std::vector<const AstNode*> nested;
        for (int other : callNodes)
            if (other > cid && nodes[static_cast<std::size_t>(other)].start >= c.start &&
                nodes[static_cast<std::size_t>(other)].end <= c.end)
                nested.push_back(&nodes[static_cast<std::size_t>(other)]);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::size_t p = anchor[i];
            if (p == std::string::npos || !within(c, p))
                continue;
            if (std::any_of(nested.begin(), nested.end(), [&](const AstNode* n) { return within(*n, p); }))
                continue;
            for (const auto& [node, label] : counted)
                if (within(*node, p)) {
                    m_values[{label, internal}].push_back(tokens[i].ce);
                    break;
                }
        }
    }
}

CallTable CallTableBuilder::finish() const
{
    CallTable t;
    t.builtinCalls = m_builtin;
    t.unplacedSnippets = m_unplaced;
    t.sources = m_repo.sources();
    t.repositories = m_repo.repositories();
    t.internal.calls = m_calls[1];
    t.external.calls = m_calls[0];
    for (const auto& [key, values] : m_values)
        t.rows.push_back({key.first, key.second, ceStat(values)});
    std::stable_sort(t.rows.begin(), t.rows.end(), [&](const CallTableRow& a, const CallTableRow& b) {
        const bool na = m_nameRows.count(a.node) > 0, nb = m_nameRows.count(b.node) > 0;
        if (na != nb)
            return na;
        if (a.node != b.node)
            return a.node < b.node;
        return a.internal && !b.internal;
    });
    for (const bool internal : {true, false}) {
        CallSummary& s = internal ? t.internal : t.external;
        std::vector<double> means;
        for (const auto& r : t.rows)
            if (r.internal == internal) {
                means.push_back(r.ce.mean);
                s.tokens += r.ce.count;
            }
        s.rows = static_cast<int64_t>(means.size());
        if (means.empty())
            continue;
        for (double m : means)
            s.mean += m / static_cast<double>(means.size());
        double ss = 0;
        for (double m : means)
            ss += (m - s.mean) * (m - s.mean);
        s.std = std::sqrt(ss / static_cast<double>(means.size()));
    }
    return t;
}

nlohmann::json callTableToJson(const CallTable& t)
{
    nlohmann::json j;
    auto rows = nlohmann::json::array();
    for (const auto& r : t.rows)
        rows.push_back({{"node", r.node},
                        {"internal", r.internal},
                        {"count", r.ce.count},
                        {"mean_ce", r.ce.mean},
                        {"std_ce", r.ce.std}});
    j["rows"] = std::move(rows);
    auto sum = [](const CallSummary& s) {
        return nlohmann::json{
            {"calls", s.calls}, {"rows", s.rows}, {"tokens", s.tokens}, {"mean_ce", s.mean}, {"std_ce", s.std}};
    };
    j["summary"] = {{"internal", sum(t.internal)}, {"external", sum(t.external)}};
    j["builtin_calls_left_out"] = t.builtinCalls;
    j["unplaced_snippets"] = t.unplacedSnippets;
    j["sources"] = t.sources;
    j["repositories"] = t.repositories;
    j["rule"] = "internal: the callee's name is declared in another file of the same repository; rows (the paper's "
                "leaf rule): the method name when a child of the call node (not obj.m's m), and each leaf child of "
                "the argument node (string literals as one leaf; argument subtrees are not rows), a token once per "
                "call (its first non-whitespace byte); summary: unweighted mean of the rows' mean CE and their "
                "population std";
    return j;
}

std::optional<CallRepository> callRepositoryOfRun(const ResultsDb& db,
                                                  const std::optional<std::filesystem::path>& corpus, std::string* why)
{
    const RunInfo info = db.runInfo();
    const std::filesystem::path path = corpus ? *corpus : std::filesystem::path(info.corpusPath);
    std::error_code ec;
    if (!corpus && !std::filesystem::exists(path, ec)) {
        if (why)
            *why = "the run's corpus " + path.string() + " is not there";
        return std::nullopt;
    }
    CorpusReadOptions ro;
    if (!std::filesystem::is_directory(path, ec))
        ro.language = info.language; // entries without a `language` field are in the run's
    return CallRepository::fromCorpus(readCorpus(path, ro));
}

} // namespace ascviz
