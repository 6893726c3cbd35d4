// CodeBLEU's comment and docstring removal (codebleu.h, removeCommentsAndDocstrings). The Python branch follows
// the tokens of CPython 3.11's tokenize module (the package runs it), as far as they decide what is removed and
// where the rest lands: strings, comments, brackets, line ends, indentation and the errors that make the
// package keep the text unchanged.
#include "ascviz/base/utf8.h"
#include "ascviz/galeras/codebleu.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <cctype>

namespace ascviz {
namespace {

using U32 = std::u32string;

bool isPySpace(char32_t c)
{
    return isPythonWhitespace(c);
}

bool isWordChar(char32_t c)
{
    return c == '_' || (c < 0x80 && std::isalnum(static_cast<int>(c))) || (c >= 0x80 && !isPySpace(c));
}

U32 decode(const std::string& s)
{
    U32 out;
    std::size_t i = 0;
    while (i < s.size())
        out.push_back(nextCodePoint(s, i));
    return out;
}

std::string encode(const U32& s)
{
    std::string out;
    for (char32_t c : s)
        appendUtf8(out, c);
    return out;
}

enum class Tok { Other, String, Comment, Newline, Nl, Indent, Dedent };

struct Token {
    Tok type = Tok::Other;
    std::size_t sl = 0, sc = 0, el = 0, ec = 0;
    U32 text;
};

struct TokenizeError {};

bool validPrefix(const U32& w)
{
    std::string lower;
    for (char32_t c : w)
        lower.push_back(c < 0x80 ? char(std::tolower(static_cast<int>(c))) : '?');
    return lower.empty() || lower == "b" || lower == "r" || lower == "u" || lower == "f" || lower == "br" ||
           lower == "rb" || lower == "fr" || lower == "rf";
}

// The end of a string body that closes with `quote` (`triple`: three quotes) on this line from p, escapes
// \x with x not a line break; npos when the line ends first.
std::size_t closeOnLine(const U32& line, std::size_t p, char32_t quote, bool triple, bool newlineEnds)
{
    while (p < line.size()) {
        const char32_t c = line[p];
        if (c == quote) {
            if (!triple)
                return p + 1;
            if (p + 2 < line.size() && line[p + 1] == quote && line[p + 2] == quote)
                return p + 3;
            ++p;
        } else if (c == '\\') {
            if (p + 1 < line.size() && line[p + 1] != '\n')
                p += 2;
            else
                return U32::npos;
        } else if (c == '\n' && newlineEnds) {
            return U32::npos;
        } else {
            ++p;
        }
    }
    return U32::npos;
}

bool endsWithBackslashNewline(const U32& line, std::size_t from)
{
    const std::size_t n = line.size();
    return (n >= from + 2 && line[n - 2] == '\\' && line[n - 1] == '\n') ||
           (n >= from + 3 && line[n - 3] == '\\' && line[n - 2] == '\r' && line[n - 1] == '\n');
}

std::vector<Token> pythonTokens(const std::vector<U32>& lines)
{
    std::vector<Token> toks;
    auto emit = [&](Tok t, std::size_t sl, std::size_t sc, std::size_t el, std::size_t ec, U32 text) {
        toks.push_back(Token{t, sl, sc, el, ec, std::move(text)});
    };
    long parenlev = 0;
    bool continued = false;
    std::vector<std::size_t> indents{0};
    // an open string spanning lines
    bool inStr = false, strTriple = false, needCont = false;
    char32_t strQuote = 0;
    std::size_t strLine = 0, strCol = 0;
    U32 contstr;
    U32 line, lastLine;
    std::size_t lnum = 0;
    for (std::size_t li = 0;; ++li) {
        lastLine = line;
        line = li < lines.size() ? lines[li] : U32();
        ++lnum;
        std::size_t pos = 0;
        const std::size_t max = line.size();
        if (inStr) {
            if (line.empty())
                throw TokenizeError{}; // EOF in multi-line string
            const std::size_t end = closeOnLine(line, 0, strQuote, strTriple, false);
            if (end != U32::npos) {
                emit(Tok::String, strLine, strCol, lnum, end, contstr + line.substr(0, end));
                pos = end;
                inStr = false;
                contstr.clear();
            } else if (needCont && !endsWithBackslashNewline(line, 0)) {
                emit(Tok::Other, strLine, strCol, lnum, line.size(), contstr + line);
                inStr = false;
                contstr.clear();
                continue;
            } else {
                contstr += line;
                continue;
            }
        } else if (parenlev == 0 && !continued) {
            if (line.empty())
                break;
            std::size_t column = 0;
            while (pos < max) {
                if (line[pos] == ' ')
                    ++column;
                else if (line[pos] == '\t')
                    column = (column / 8 + 1) * 8;
                else if (line[pos] == '\f')
                    column = 0;
                else
                    break;
                ++pos;
            }
            if (pos == max)
                break;
            if (line[pos] == '#' || line[pos] == '\r' || line[pos] == '\n') {
                if (line[pos] == '#') {
                    std::size_t e = line.size();
                    while (e > pos && (line[e - 1] == '\r' || line[e - 1] == '\n'))
                        --e;
                    emit(Tok::Comment, lnum, pos, lnum, e, line.substr(pos, e - pos));
                    pos = e;
                }
                emit(Tok::Nl, lnum, pos, lnum, line.size(), line.substr(pos));
                continue;
            }
            if (column > indents.back()) {
                indents.push_back(column);
                emit(Tok::Indent, lnum, 0, lnum, pos, line.substr(0, pos));
            }
            while (column < indents.back()) {
                if (std::find(indents.begin(), indents.end(), column) == indents.end())
                    throw TokenizeError{}; // IndentationError
                indents.pop_back();
                emit(Tok::Dedent, lnum, pos, lnum, pos, U32());
            }
        } else {
            if (line.empty())
                throw TokenizeError{}; // EOF in multi-line statement
            continued = false;
        }

        while (pos < max) {
            std::size_t start = pos;
            while (start < max && (line[start] == ' ' || line[start] == '\f' || line[start] == '\t'))
                ++start;
            if (start == max) {
                pos = max;
                break;
            }
            const char32_t c = line[start];
            if (c == '\\' && ((start + 1 < max && line[start + 1] == '\n') ||
                              (start + 2 < max && line[start + 1] == '\r' && line[start + 2] == '\n'))) {
                continued = true;
                pos = start + (line[start + 1] == '\n' ? 2 : 3);
                continue;
            }
            if (c == '#') {
                std::size_t e = start;
                while (e < max && line[e] != '\r' && line[e] != '\n')
                    ++e;
                emit(Tok::Comment, lnum, start, lnum, e, line.substr(start, e - start));
                pos = e;
                continue;
            }
            // a string prefix (or a name)
            std::size_t w = start;
            while (w < max && isWordChar(line[w]) && !(c >= '0' && c <= '9'))
                ++w;
            const U32 word = line.substr(start, w - start);
            if (w < max && (line[w] == '\'' || line[w] == '"') && validPrefix(word)) {
                const char32_t q = line[w];
                const bool triple = w + 2 < max && line[w + 1] == q && line[w + 2] == q;
                if (triple) {
                    const std::size_t end = closeOnLine(line, w + 3, q, true, false);
                    if (end != U32::npos) {
                        emit(Tok::String, lnum, start, lnum, end, line.substr(start, end - start));
                        pos = end;
                        continue;
                    }
                    inStr = true, strTriple = true, needCont = false, strQuote = q;
                    strLine = lnum, strCol = start, contstr = line.substr(start);
                    break;
                }
                // one-line string, or one continued with a backslash at the end of the line
                std::size_t p = w + 1;
                bool closed = false, cont = false;
                while (p < max) {
                    if (line[p] == q) {
                        closed = true;
                        ++p;
                        break;
                    }
                    if (line[p] == '\n')
                        break;
                    if (line[p] == '\\') {
                        if ((p + 1 < max && line[p + 1] == '\n') ||
                            (p + 2 < max && line[p + 1] == '\r' && line[p + 2] == '\n')) {
                            cont = true;
                            break;
                        }
                        if (p + 1 >= max)
                            break;
                        p += 2;
                        continue;
                    }
                    ++p;
                }
                if (closed) {
                    emit(Tok::String, lnum, start, lnum, p, line.substr(start, p - start));
                    pos = p;
                    continue;
                }
                if (cont) {
                    inStr = true, strTriple = false, needCont = true, strQuote = q;
                    strLine = lnum, strCol = start, contstr = line.substr(start);
                    break;
                }
                if (word.empty()) { // an unmatched quote: ERRORTOKEN
                    emit(Tok::Other, lnum, start, lnum, start + 1, line.substr(start, 1));
                    pos = start + 1;
                    continue;
                }
                emit(Tok::Other, lnum, start, lnum, w, word); // the name before it
                pos = w;
                continue;
            }
            if (c == '\n' || (c == '\r' && start + 1 < max && line[start + 1] == '\n')) {
                const std::size_t e = c == '\n' ? start + 1 : start + 2;
                emit(parenlev > 0 ? Tok::Nl : Tok::Newline, lnum, start, lnum, e, line.substr(start, e - start));
                pos = e;
                continue;
            }
            if (w > start) { // a name
                emit(Tok::Other, lnum, start, lnum, w, word);
                pos = w;
                continue;
            }
            if (c >= '0' && c <= '9') { // a number (its exact extent does not change the output)
                std::size_t e = start;
                while (e < max && (isWordChar(line[e]) || line[e] == '.'))
                    ++e;
                emit(Tok::Other, lnum, start, lnum, e, line.substr(start, e - start));
                pos = e;
                continue;
            }
            if (c == '(' || c == '[' || c == '{')
                ++parenlev;
            else if (c == ')' || c == ']' || c == '}')
                --parenlev;
            emit(Tok::Other, lnum, start, lnum, start + 1, line.substr(start, 1));
            pos = start + 1;
        }
    }
    if (inStr)
        throw TokenizeError{};
    // the implicit NEWLINE of a text that does not end with a line break
    if (!lastLine.empty() && lastLine.back() != '\r' && lastLine.back() != '\n') {
        std::size_t b = 0;
        while (b < lastLine.size() && isPySpace(lastLine[b]))
            ++b;
        if (b >= lastLine.size() || lastLine[b] != '#')
            emit(Tok::Newline, lnum - 1, lastLine.size(), lnum - 1, lastLine.size() + 1, U32());
    }
    return toks;
}

std::string withoutBlankLines(const U32& text)
{
    std::string out;
    std::size_t b = 0;
    bool first = true;
    while (b <= text.size()) {
        std::size_t e = text.find(U32(1, '\n'), b);
        if (e == U32::npos)
            e = text.size();
        const U32 l = text.substr(b, e - b);
        if (std::any_of(l.begin(), l.end(), [](char32_t c) { return !isPySpace(c); })) {
            if (!first)
                out += '\n';
            out += encode(l);
            first = false;
        }
        b = e + 1;
    }
    return out;
}

std::string removePython(const std::string& code)
{
    const U32 text = decode(code);
    std::vector<U32> lines;
    std::size_t b = 0;
    while (b < text.size()) {
        const std::size_t nl = text.find(U32(1, '\n'), b);
        const std::size_t e = nl == U32::npos ? text.size() : nl + 1;
        lines.push_back(text.substr(b, e - b));
        b = e;
    }
    std::vector<Token> toks;
    try {
        toks = pythonTokens(lines);
    } catch (const TokenizeError&) {
        return code; // the package keeps the text when tokenize raises
    }
    U32 out;
    Tok prev = Tok::Indent;
    std::size_t lastCol = 0, lastLine = 0;
    bool any = false;
    for (const Token& t : toks) {
        if (!any || t.sl > lastLine)
            lastCol = 0;
        any = true;
        if (t.sc > lastCol)
            out.append(t.sc - lastCol, U' ');
        if (t.type == Tok::Comment) {
        } else if (t.type == Tok::String) {
            if (prev != Tok::Indent && prev != Tok::Newline && t.sc > 0)
                out += t.text;
        } else {
            out += t.text;
        }
        prev = t.type;
        lastCol = t.ec;
        lastLine = t.el;
    }
    return withoutBlankLines(out);
}

// The package's regular expression //.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|"(?:\\.|[^\\"])*" (DOTALL, MULTILINE):
// comments become one space, literals stay.
std::string removeCStyle(const std::string& code)
{
    const U32 s = decode(code);
    U32 out;
    std::size_t i = 0;
    while (i < s.size()) {
        if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            std::size_t e = i;
            while (e < s.size() && s[e] != '\n')
                ++e;
            out += U' ';
            i = e;
            continue;
        }
        if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const std::size_t close = s.find(U"*/", i + 2);
            if (close != U32::npos) {
                out += U' ';
                i = close + 2;
                continue;
            }
        }
        if (s[i] == '\'' || s[i] == '"') {
            std::size_t j = i + 1;
            bool closed = false;
            while (j < s.size()) {
                if (s[j] == '\\') {
                    if (j + 1 >= s.size())
                        break;
                    j += 2;
                } else if (s[j] == s[i]) {
                    closed = true;
                    ++j;
                    break;
                } else {
                    ++j;
                }
            }
            if (closed) {
                out += s.substr(i, j - i);
                i = j;
                continue;
            }
        }
        out += s[i];
        ++i;
    }
    return withoutBlankLines(out);
}

} // namespace

std::string removeCommentsAndDocstrings(const std::string& code, const std::string& language)
{
    if (LanguageRegistry::instance().get(language).codebleuRules.comments == "tokenize")
        return removePython(code);
    return removeCStyle(code);
}

} // namespace ascviz
