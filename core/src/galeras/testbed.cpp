// Galeras testbeds: the function's parts by tree-sitter and the cut rule (testbed.h).
#include "ascviz/galeras/testbed.h"

#include "ascviz/galeras/outcomes.h"

#include "fnv.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>
#include <random>
#include <set>

namespace ascviz {
namespace {

// resources/languages/<id>/testbed.json: which node types are a definition, its body, its docstring.
struct TestbedRules {
    bool found = false;
    std::set<std::string> definitions, bodies, docStatements, docLiterals;
};

std::set<std::string> stringSet(const nlohmann::json& j, const char* key, const std::string& file)
{
    std::set<std::string> out;
    if (!j.contains(key))
        return out;
    if (!j.at(key).is_array())
        throw InputError(file + ": \"" + key + "\" must be an array of node types", ErrorContext(file));
    for (const auto& v : j.at(key)) {
        if (!v.is_string())
            throw InputError(file + ": \"" + key + "\" must be an array of node types", ErrorContext(file));
        out.insert(v.get<std::string>());
    }
    return out;
}

const TestbedRules& rulesFor(const std::string& language)
{
    static std::mutex mutex;
    static std::map<std::string, TestbedRules> cache;
    std::lock_guard lock(mutex);
    if (const auto it = cache.find(language); it != cache.end())
        return it->second;
    TestbedRules r;
    const auto& info = LanguageRegistry::instance().get(language);
    const auto file = info.folder / "testbed.json";
    if (std::ifstream in(file); in) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            throw InputError(file.string() + " is not valid JSON: " + e.what(), ErrorContext(file.string()));
        }
        r.found = true;
        r.definitions = stringSet(j, "definitions", file.string());
        r.bodies = stringSet(j, "bodies", file.string());
        if (j.contains("docstring") && j.at("docstring").is_object()) {
            r.docStatements = stringSet(j.at("docstring"), "statements", file.string());
            r.docLiterals = stringSet(j.at("docstring"), "literals", file.string());
        }
    }
    return cache.emplace(language, std::move(r)).first->second;
}

std::size_t codePoints(const std::string& s)
{
    std::size_t n = 0, i = 0;
    while (i < s.size()) {
        nextCodePoint(s, i);
        ++n;
    }
    return n;
}

struct Line {
    std::size_t start, end; // [start, end), '\n' included
};

std::vector<Line> splitLines(const std::string& s)
{
    std::vector<Line> lines;
    std::size_t b = 0;
    while (b < s.size()) {
        const auto nl = s.find('\n', b);
        const std::size_t e = nl == std::string::npos ? s.size() : nl + 1;
        lines.push_back({b, e});
        b = e;
    }
    // trailing whitespace-only lines are no part of the function
    while (!lines.empty() && s.find_first_not_of(" \t\r\n", lines.back().start) >= lines.back().end)
        lines.pop_back();
    return lines;
}

int lineOf(const std::vector<Line>& lines, std::size_t pos)
{
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (pos < lines[i].end)
            return static_cast<int>(i);
    return static_cast<int>(lines.size());
}

} // namespace

Testbed parseTestbed(const std::string& s)
{
    if (s == "randomcut")
        return Testbed::RandomCut;
    if (s == "withdocstring")
        return Testbed::WithDocString;
    if (s == "fromdocstring")
        return Testbed::FromDocString;
    throw InputError("the testbed must be randomcut, withdocstring or fromdocstring (got '" + s + "')");
}

std::string toString(Testbed t)
{
    switch (t) {
    case Testbed::RandomCut:
        return "randomcut";
    case Testbed::WithDocString:
        return "withdocstring";
    case Testbed::FromDocString:
        return "fromdocstring";
    }
    return "randomcut";
}

FunctionParts findFunctionParts(const std::string& code, const std::string& language, std::size_t maxAstNodes)
{
    FunctionParts p;
    const auto& rules = rulesFor(language);
    if (!rules.found || rules.definitions.empty() || rules.bodies.empty()) {
        p.error = "no testbed rules for language " + language + " (resources/languages/" + language + "/testbed.json)";
        return p;
    }
    const SyntaxTree tree = SyntaxTree::parse(language, code, maxAstNodes);
    if (tree.hasErrors()) {
        p.error = "unparsable code: " + describeSyntaxProblems(tree);
        return p;
    }
    const auto& nodes = tree.nodes();
    const auto def = std::find_if(nodes.begin(), nodes.end(),
                                  [&](const AstNode& n) { return n.named && rules.definitions.count(n.type); });
    if (def == nodes.end()) {
        p.error = "no function definition";
        return p;
    }
    const AstNode* body = nullptr;
    for (int c : def->children)
        if (rules.bodies.count(nodes[c].type))
            body = &nodes[c];
    const AstNode* first = nullptr;
    if (body)
        for (int c : body->children)
            if (nodes[c].named) {
                first = &nodes[c];
                break;
            }
    if (!first) {
        p.error = "no function body";
        return p;
    }
    p.bodyStart = first->start;
    std::string sig = code.substr(def->start, p.bodyStart - def->start);
    while (!sig.empty() && std::isspace(static_cast<unsigned char>(sig.back())))
        sig.pop_back();
    p.signature = sig;
    if (rules.docStatements.count(first->type)) {
        std::vector<const AstNode*> named;
        for (int c : first->children)
            if (nodes[c].named)
                named.push_back(&nodes[c]);
        if (named.size() == 1 && rules.docLiterals.count(named[0]->type)) {
            p.docStart = first->start;
            p.docEnd = first->end;
            p.docstring = std::string(tree.nodeText(*named[0]));
        }
    }
    return p;
}

int docstringWords(const std::string& docstring)
{
    int words = 0;
    bool inRun = false, counted = false;
    for (unsigned char c : docstring) {
        if (std::isspace(c)) {
            inRun = false;
            continue;
        }
        if (!inRun) {
            inRun = true;
            counted = false;
        }
        if (!counted && (std::isalnum(c) || c >= 0x80)) { // a letter or digit (any non-ASCII code point too)
            ++words;
            counted = true;
        }
    }
    return words;
}

std::optional<std::size_t> functionEnd(const std::string& code, const std::string& language)
{
    const auto& rules = rulesFor(language);
    if (!rules.found)
        return std::nullopt;
    const SyntaxTree tree = SyntaxTree::parse(language, code);
    for (const auto& n : tree.nodes())
        if (n.named && rules.definitions.count(n.type)) {
            if (code.find_first_not_of(" \t\r\n", n.end) == std::string::npos)
                return std::nullopt;
            return n.end;
        }
    return std::nullopt;
}

namespace {

// One record's testbed item, or the reason it is skipped; throws InputError past a limit.
template <class Skip>
void addItem(TestbedSet& set, const GalerasRecord& r, Testbed kind, uint64_t seed, const TestbedLimits& lim,
             const Skip& skip)
{
    if (codePoints(r.code) <= 100 && lexicalTokensFrom(r.code, 0, r.language).size() <= 10) {
        skip(r, "too short (<= 10 tokens and <= 100 characters)");
        return;
    }
    const FunctionParts parts = findFunctionParts(r.code, r.language, lim.maxAstNodes);
    if (!parts.error.empty()) {
        skip(r, parts.error.rfind("unparsable", 0) == 0 ? "unparsable code" : parts.error);
        return;
    }
    TestbedItem item;
    item.recordId = r.id;
    item.language = r.language;
    item.record = &r;
    item.signature = r.signature.value_or(parts.signature);
    item.docstring = r.docstring.value_or(parts.docstring.value_or(""));
    if (item.signature.empty()) {
        skip(r, "no signature");
        return;
    }
    const bool needDoc = kind != Testbed::RandomCut;
    if (needDoc && !parts.docStart) {
        skip(r, "no docstring");
        return;
    }
    if (needDoc && docstringWords(item.docstring) <= 3) {
        skip(r, "docstring of 3 words or fewer");
        return;
    }
    const auto lines = splitLines(r.code);
    const int bodyLine = lineOf(lines, parts.bodyStart);
    int docFirst = -1, docLast = -2;
    if (parts.docStart) {
        docFirst = lineOf(lines, *parts.docStart);
        docLast = lineOf(lines, parts.docEnd - 1);
    }
    std::vector<int> body;
    for (int i = bodyLine; i < static_cast<int>(lines.size()); ++i)
        if (i < docFirst || i > docLast)
            body.push_back(i);
    const int need = kind == Testbed::FromDocString ? 1 : 2;
    if (static_cast<int>(body.size()) < need) {
        skip(r, "too few body lines to cut");
        return;
    }
    int k = 0;
    if (kind != Testbed::FromDocString) {
        std::mt19937_64 rng(seed ^ galeras_detail::fnvMix(galeras_detail::kFnvBasis, r.id, false));
        k = static_cast<int>(rng() % (body.size() - 1)) + 1;
    }
    auto text = [&](int i) { return r.code.substr(lines[i].start, lines[i].end - lines[i].start); };
    for (int i = 0; i < bodyLine; ++i)
        item.partial += text(i);
    if (needDoc)
        for (int i = docFirst; i <= docLast; ++i)
            item.partial += text(i);
    for (int j = 0; j < static_cast<int>(body.size()); ++j)
        (j < k ? item.partial : item.groundTruth) += text(body[j]);
    item.cutLine = k;
    set.items.push_back(std::move(item));
}

} // namespace

TestbedSet buildTestbed(const RecordSet& records, Testbed kind, uint64_t seed, const TestbedLimits& lim)
{
    TestbedSet set;
    set.kind = kind;
    auto skip = [&](const GalerasRecord& r, const std::string& reason) {
        ++set.skipped[reason];
        set.skippedRecords.emplace_back(r.id, reason);
    };
    // Over a limit: counted under one reason, each record named with its own size.
    auto skipOverLimit = [&](const GalerasRecord& r, const std::string& reason, const std::string& why) {
        skip(r, reason);
        set.overLimit.push_back({r.id, r.location, why});
    };
    for (const auto& r : records.records) {
        try {
            limits::checkTextSize(r.code.size(), lim.maxTextBytes, "the code");
        } catch (const InputError& e) {
            skipOverLimit(r, "code over the text limit", e.what());
            continue;
        }
        try {
            addItem(set, r, kind, seed, lim, skip);
        } catch (const InputError& e) {
            skipOverLimit(r, "syntax tree over the limits", e.what());
        }
    }
    return set;
}

} // namespace ascviz
