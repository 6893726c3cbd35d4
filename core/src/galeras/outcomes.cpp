// Galeras outcomes (outcomes.h).
#include "ascviz/galeras/outcomes.h"

#include "ascviz/base/utf8.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ascviz {
namespace {

std::vector<char32_t> codePointsOf(const std::string& s)
{
    std::vector<char32_t> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const Utf8Step st = decodeUtf8(s, i);
        // invalid bytes count one by one, each distinct from every code point
        out.push_back(st.status == Utf8Status::Ok ? st.codePoint
                                                  : char32_t(0x110000 + static_cast<unsigned char>(s[i])));
        i += st.status == Utf8Status::Ok ? st.length : 1;
    }
    return out;
}

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r\n\f\v");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n\f\v");
    return s.substr(b, e - b + 1);
}

} // namespace

double levenshteinSimilarity(const std::string& a, const std::string& b)
{
    const auto x = codePointsOf(a), y = codePointsOf(b);
    if (x.empty() && y.empty())
        return 1.0;
    std::vector<std::size_t> prev(y.size() + 1), cur(y.size() + 1);
    for (std::size_t j = 0; j <= y.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= x.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= y.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return 1.0 - double(prev[y.size()]) / double(std::max(x.size(), y.size()));
}

double bleu4(const std::vector<std::string>& cand, const std::vector<std::string>& ref)
{
    if (cand.empty())
        return 0.0;
    double logSum = 0;
    for (std::size_t n = 1; n <= 4; ++n) {
        std::map<std::vector<std::string>, int> refCounts, candCounts;
        for (std::size_t i = 0; i + n <= ref.size(); ++i)
            ++refCounts[std::vector<std::string>(ref.begin() + long(i), ref.begin() + long(i + n))];
        for (std::size_t i = 0; i + n <= cand.size(); ++i)
            ++candCounts[std::vector<std::string>(cand.begin() + long(i), cand.begin() + long(i + n))];
        int matches = 0;
        for (const auto& [g, c] : candCounts) {
            const auto it = refCounts.find(g);
            if (it != refCounts.end())
                matches += std::min(c, it->second);
        }
        const double possible = cand.size() >= n ? double(cand.size() - n + 1) : 0.0;
        logSum += std::log((matches + 1.0) / (possible + 1.0));
    }
    const double c = double(cand.size()), r = double(ref.size());
    const double bp = c < r ? std::exp(1.0 - r / c) : 1.0;
    return bp * std::exp(logSum / 4.0);
}

double exactMatch(const std::string& candidate, const std::string& reference)
{
    return trim(candidate) == trim(reference) ? 1.0 : 0.0;
}

std::vector<std::string> lexicalTokensFrom(const std::string& code, std::size_t from, const std::string& language)
{
    std::vector<std::string> out;
    const SyntaxTree tree = SyntaxTree::parse(language, code);
    for (const auto& n : tree.nodes())
        if (n.isTerminal() && n.end > n.start && n.start >= from)
            out.emplace_back(tree.nodeText(n));
    return out;
}

std::vector<std::string> subtreeSexps(const std::string& code, std::size_t from, const std::string& language)
{
    const SyntaxTree tree = SyntaxTree::parse(language, code);
    const auto& nodes = tree.nodes();
    std::vector<std::string> sexp(nodes.size());
    for (std::size_t k = nodes.size(); k-- > 0;) {
        const AstNode& n = nodes[k];
        if (!n.named)
            continue;
        std::string s = "(" + n.type;
        for (int c : n.children)
            if (nodes[c].named)
                s += " " + sexp[c];
        sexp[k] = s + ")";
    }
    std::vector<std::string> out;
    for (std::size_t k = 0; k < nodes.size(); ++k)
        if (nodes[k].named && nodes[k].start >= from && nodes[k].end > nodes[k].start)
            out.push_back(sexp[k]);
    return out;
}

double astMatch(const std::string& partial, const std::string& candidate, const std::string& reference,
                const std::string& language)
{
    const auto ref = subtreeSexps(partial + reference, partial.size(), language);
    if (ref.empty())
        return 1.0;
    const auto cand = subtreeSexps(partial + candidate, partial.size(), language);
    const std::set<std::string> have(cand.begin(), cand.end());
    std::size_t m = 0;
    for (const auto& x : ref)
        m += have.count(x);
    return double(m) / double(ref.size());
}

} // namespace ascviz
