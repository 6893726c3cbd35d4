// CodeBLEU (codebleu.h): the n-gram matches, the syntax match and the data-flow match of the codebleu package.
#include "ascviz/galeras/codebleu.h"

#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

namespace ascviz {
namespace {

using Gram = std::vector<std::string>;

// n-grams with their counts, in the order each first appears (Python's Counter)
std::vector<std::pair<Gram, double>> ngramCounts(const std::vector<std::string>& t, std::size_t n)
{
    std::vector<std::pair<Gram, double>> out;
    std::map<Gram, std::size_t> at;
    for (std::size_t i = 0; i + n <= t.size(); ++i) {
        Gram g(t.begin() + long(i), t.begin() + long(i + n));
        const auto it = at.find(g);
        if (it == at.end()) {
            at.emplace(g, out.size());
            out.emplace_back(std::move(g), 1.0);
        } else {
            out[it->second].second += 1.0;
        }
    }
    return out;
}

double countOf(const std::vector<std::pair<Gram, double>>& counts, const Gram& g)
{
    for (const auto& [h, c] : counts)
        if (h == g)
            return c;
    return 0.0;
}

// nltk's corpus_bleu tail: method-1 smoothing, uniform weights, the brevity penalty given
double combine(const double num[4], const double den[4], double bp)
{
    if (num[0] == 0)
        return 0.0;
    double s = 0;
    for (int i = 0; i < 4; ++i)
        s += 0.25 * std::log((num[i] == 0 ? 0.1 : num[i]) / den[i]);
    return bp * std::exp(s);
}

double brevity(double r, double c)
{
    if (c > r)
        return 1.0;
    if (c == 0)
        return 0.0;
    return std::exp(1.0 - r / c);
}

} // namespace

bool isPythonWhitespace(char32_t c)
{
    return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

std::string pythonStrip(const std::string& text)
{
    std::size_t b = 0, e = text.size(), i = 0;
    bool seen = false;
    while (i < text.size()) {
        const std::size_t at = i;
        const char32_t c = nextCodePoint(text, i);
        if (!isPythonWhitespace(c)) {
            if (!seen)
                b = at;
            seen = true;
            e = i;
        }
    }
    return seen ? text.substr(b, e - b) : std::string();
}

std::vector<std::string> whitespaceTokens(const std::string& text)
{
    std::vector<std::string> out;
    std::string cur;
    bool in = false;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t at = i;
        const char32_t c = nextCodePoint(text, i);
        if (isPythonWhitespace(c)) {
            if (in)
                out.push_back(cur);
            cur.clear();
            in = false;
        } else {
            cur.append(text, at, i - at);
            in = true;
        }
    }
    if (in)
        out.push_back(cur);
    return out;
}

double ngramMatch(const std::vector<std::string>& cand, const std::vector<std::string>& ref)
{
    double num[4], den[4];
    for (std::size_t n = 1; n <= 4; ++n) {
        const auto counts = ngramCounts(cand, n), refCounts = ngramCounts(ref, n);
        double m = 0, total = 0;
        for (const auto& [g, c] : counts) {
            m += std::min(c, countOf(refCounts, g));
            total += c;
        }
        num[n - 1] = m;
        den[n - 1] = std::max(1.0, total);
    }
    return combine(num, den, brevity(double(ref.size()), double(cand.size())));
}

double weightedNgramMatch(const std::vector<std::string>& cand, const std::vector<std::string>& ref,
                          const std::set<std::string>& keywords)
{
    double num[4], den[4];
    for (std::size_t n = 1; n <= 4; ++n) {
        const auto counts = ngramCounts(cand, n), refCounts = ngramCounts(ref, n);
        double m = 0, total = 0;
        for (const auto& [g, c] : refCounts) {
            const double w = n == 1 ? (keywords.count(g[0]) ? 1.0 : 0.2) : 1.0;
            m += std::min(c, countOf(counts, g)) * w;
            total += c * w;
        }
        num[n - 1] = m;
        den[n - 1] = std::max(1.0, total);
    }
    return combine(num, den, brevity(2.0, double(cand.size())));
}

double syntaxMatch(const std::string& candidate, const std::string& reference, const std::string& language)
{
    auto sexps = [&](const std::string& code) {
        std::vector<std::string> out;
        for (auto& s : subtreeStrings(language, removeCommentsAndDocstrings(code, language)))
            if (!s.empty())
                out.push_back(std::move(s));
        return out;
    };
    const auto cand = sexps(candidate), ref = sexps(reference);
    const std::unordered_set<std::string> have(cand.begin(), cand.end());
    std::size_t m = 0;
    for (const auto& s : ref)
        m += have.count(s);
    return ref.empty() ? 0.0 : double(m) / double(ref.size());
}

double dataflowMatch(const std::string& candidate, const std::string& reference, const std::string& language)
{
    auto cand = dataFlowGraph(removeCommentsAndDocstrings(candidate, language), language);
    const auto ref = dataFlowGraph(removeCommentsAndDocstrings(reference, language), language);
    if (ref.empty())
        return 0.0;
    std::size_t m = 0;
    for (const auto& e : ref) {
        const auto it = std::find(cand.begin(), cand.end(), e);
        if (it != cand.end()) {
            ++m;
            cand.erase(it);
        }
    }
    return double(m) / double(ref.size());
}

bool codeBleuSupports(const std::string& language)
{
    const LanguageInfo* l = LanguageRegistry::instance().find(language);
    return l && !l->codebleuRules.dataflow.empty();
}

CodeBleuScore codeBleu(const std::string& candidate, const std::string& reference, const std::string& language,
                       const std::set<std::string>& keywords)
{
    const std::string cand = pythonStrip(candidate), ref = pythonStrip(reference);
    const auto ct = whitespaceTokens(cand), rt = whitespaceTokens(ref);
    CodeBleuScore s;
    s.ngram = ngramMatch(ct, rt);
    s.weightedNgram = weightedNgramMatch(ct, rt, keywords);
    s.syntax = syntaxMatch(cand, ref, language);
    s.dataflow = dataflowMatch(cand, ref, language);
    s.codebleu =
        0.25 * s.ngram + 0.25 * s.weightedNgram + 0.25 * s.syntax + 0.25 * (s.dataflow == 0 ? 1.0 : s.dataflow);
    return s;
}

} // namespace ascviz
