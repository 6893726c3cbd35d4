// Cutting sample corpora out of source files (corpus_cut.h).
#include "ascviz/results/corpus_cut.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <random>
#include <set>

namespace ascviz {
namespace fs = std::filesystem;
namespace {

int lineOf(const std::string& text, std::size_t pos)
{
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// The node's text with the indentation of its first line (the spaces/tabs before it on that line) removed
// from every line that starts with the same indentation.
std::string dedented(const std::string& text, std::size_t start, std::size_t end)
{
    std::size_t lineStart = text.rfind('\n', start == 0 ? 0 : start - 1);
    lineStart = lineStart == std::string::npos || start == 0 ? 0 : lineStart + 1;
    const std::string indent = text.substr(lineStart, start - lineStart);
    const bool blank = std::all_of(indent.begin(), indent.end(), [](char c) { return c == ' ' || c == '\t'; });
    const std::string body = text.substr(start, end - start);
    if (!blank || indent.empty())
        return body;
    std::string out;
    std::size_t i = 0;
    while (i < body.size()) {
        const std::size_t nl = body.find('\n', i);
        const std::size_t stop = nl == std::string::npos ? body.size() : nl + 1;
        std::string_view line(body.data() + i, stop - i);
        if (i > 0 && line.substr(0, indent.size()) == indent)
            line.remove_prefix(indent.size());
        out.append(line);
        i = stop;
    }
    return out;
}

} // namespace

std::vector<CutSnippet> cutSnippets(const std::string& text, const std::string& relPath, const CutOptions& opts)
{
    std::vector<CutSnippet> out;
    // A whole source file, walked once for its definitions (no AsC-Eval): no node limit.
    const SyntaxTree tree = SyntaxTree::parse(opts.language, text, 0);
    for (const auto& n : tree.nodes()) {
        if (!n.named || n.error() ||
            std::find(opts.nodeTypes.begin(), opts.nodeTypes.end(), n.type) == opts.nodeTypes.end())
            continue;
        if (n.end - n.start > opts.maxBytes)
            continue;
        std::string code = dedented(text, n.start, n.end);
        const int lines = 1 + static_cast<int>(std::count(code.begin(), code.end(), '\n'));
        if (lines < opts.minLines || lines > opts.maxLines)
            continue;
        if (opts.requireClean && SyntaxTree::parse(opts.language, code).hasErrors())
            continue;
        CutSnippet s;
        s.name = definitionName(tree, n);
        s.source = relPath + "::" + s.name;
        s.path = relPath;
        s.code = std::move(code);
        s.line = lineOf(text, n.start);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<CutSnippet> cutCorpus(const std::vector<fs::path>& sources, const fs::path& root, const CutOptions& opts,
                                  std::size_t sample, uint64_t seed, std::vector<std::string>* skipped)
{
    const LanguageInfo& lang = LanguageRegistry::instance().get(opts.language);
    if (opts.nodeTypes.empty())
        throw InputError("no node types to cut (e.g. function_definition)");
    for (const auto& t : opts.nodeTypes)
        if (!SyntaxTree::hasNodeType(opts.language, t))
            throw InputError("the " + lang.name + " grammar has no node type '" + t + "'");
    std::vector<fs::path> files;
    for (const auto& s : sources) {
        std::error_code ec;
        if (fs::is_directory(s, ec)) {
            std::vector<fs::path> found;
            for (fs::recursive_directory_iterator it(s, ec), end; !ec && it != end; it.increment(ec))
                if (it->is_regular_file(ec) && LanguageRegistry::instance().forFile(it->path()) == &lang)
                    found.push_back(it->path());
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(s, ec)) {
            files.push_back(s);
        } else {
            throw InputError("source not found: " + s.string());
        }
    }
    std::vector<CutSnippet> all;
    std::set<std::string> seen;
    for (const auto& f : files) {
        std::string text;
        try {
            text = readUtf8File(f);
        } catch (const InputError& e) {
            if (skipped)
                skipped->push_back(f.string() + ": " + e.what());
            continue;
        }
        const std::string rel = f.lexically_relative(root).generic_string();
        for (auto& s : cutSnippets(text, rel.empty() || rel.rfind("..", 0) == 0 ? f.generic_string() : rel, opts))
            if (seen.insert(s.code).second)
                all.push_back(std::move(s));
    }
    if (sample == 0 || sample >= all.size())
        return all;
    std::vector<std::size_t> idx(all.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
        idx[i] = i;
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < sample; ++i) {
        const std::size_t j = i + static_cast<std::size_t>(rng() % (idx.size() - i));
        std::swap(idx[i], idx[j]);
    }
    idx.resize(sample);
    std::sort(idx.begin(), idx.end());
    std::vector<CutSnippet> out;
    for (std::size_t i : idx)
        out.push_back(std::move(all[i]));
    return out;
}

} // namespace ascviz
