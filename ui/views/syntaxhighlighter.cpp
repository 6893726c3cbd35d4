#include "views/syntaxhighlighter.h"

#include "common/textpos.h"

namespace ascviz::ui {

namespace {
QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(c);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

// Block states: 0 = normal, 1 + i = inside multi-line string i, kBlockBase + i = inside block comment i.
constexpr int kBlockBase = 1000;

QStringList toList(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << toQString(s);
    return out;
}

// Whether `text` has `what` at `i`.
bool at(const QString& text, int i, const QString& what)
{
    return !what.isEmpty() && QStringView(text).mid(i).startsWith(what);
}
} // namespace

SyntaxHighlighter::SyntaxHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc)
{
    m_string = fmt(QColor(0x06, 0x7D, 0x17));
    m_comment = fmt(QColor(0x8C, 0x8C, 0x8C), false, true);
}

void SyntaxHighlighter::setRules(const HighlightRules& r)
{
    m_rules.clear();
    auto words = [this](const std::vector<std::string>& list, const QTextCharFormat& f) {
        if (list.empty())
            return;
        QStringList escaped;
        for (const auto& w : list)
            escaped << QRegularExpression::escape(toQString(w));
        m_rules.push_back({QRegularExpression(QStringLiteral("\\b(?:%1)\\b").arg(escaped.join(QLatin1Char('|')))), f});
    };
    auto regex = [this](const std::string& re, const QTextCharFormat& f) {
        if (re.empty())
            return;
        QRegularExpression x(toQString(re));
        if (x.isValid())
            m_rules.push_back({x, f, x.captureCount() >= 1});
    };
    words(r.keywords, fmt(QColor(0x00, 0x33, 0x99), true));
    words(r.constants, fmt(QColor(0x80, 0x00, 0x80)));
    words(r.builtins, fmt(QColor(0x00, 0x66, 0x66)));
    regex(r.number, fmt(QColor(0x11, 0x66, 0x44)));
    regex(r.annotation, fmt(QColor(0x99, 0x66, 0x00)));
    regex(r.definition, fmt(QColor(0x00, 0x00, 0x00), true));
    m_lineComment = toQString(r.lineComment);
    m_strings = toList(r.strings);
    m_multiline = toList(r.multilineStrings);
    m_blockComments.clear();
    for (const auto& [open, close] : r.blockComments)
        m_blockComments.push_back({toQString(open), toQString(close)});
    rehighlight();
}

void SyntaxHighlighter::highlightBlock(const QString& text)
{
    // Bounded work (docs/limits.md): regular expressions over every line of a huge document would hold the
    // GUI thread for seconds; such a text (far over the scoring limit) is shown plain.
    if (document() && document()->characterCount() > kMaxHighlightedChars)
        return;
    for (const Rule& r : std::as_const(m_rules)) {
        auto it = r.re.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            // The first capture group that matched (alternatives may each capture their own), else the match.
            int g = 0;
            for (int k = 1; r.group1 && k <= r.re.captureCount() && g == 0; ++k)
                if (m.capturedStart(k) >= 0)
                    g = k;
            setFormat(int(m.capturedStart(g)), int(m.capturedLength(g)), r.format);
        }
    }

    // Strings and comments, scanned left to right so that quotes inside comments (and comment markers
    // inside strings) are handled; multi-line strings and block comments continue through the block state.
    const int n = int(text.size());
    int i = 0;
    const int state = std::max(0, previousBlockState());
    setCurrentBlockState(0);
    // Continues a construct closed by `close` from `from`; returns the index after it, or -1 (open at the end).
    auto continueUntil = [&](int from, const QString& close, const QTextCharFormat& f, int openState) {
        const int end = int(text.indexOf(close, from));
        if (end < 0) {
            setFormat(from, n - from, f);
            setCurrentBlockState(openState);
            return -1;
        }
        setFormat(from, end + int(close.size()) - from, f);
        return end + int(close.size());
    };
    if (state >= 1 && state - 1 < m_multiline.size())
        i = continueUntil(0, m_multiline[state - 1], m_string, state);
    else if (state >= kBlockBase && state - kBlockBase < m_blockComments.size())
        i = continueUntil(0, m_blockComments[state - kBlockBase].second, m_comment, state);
    while (i >= 0 && i < n) {
        if (at(text, i, m_lineComment)) {
            setFormat(i, n - i, m_comment);
            return;
        }
        bool matched = false;
        for (int k = 0; k < m_blockComments.size() && !matched; ++k)
            if (at(text, i, m_blockComments[k].first)) {
                const int start = i;
                i = continueUntil(i + int(m_blockComments[k].first.size()), m_blockComments[k].second, m_comment,
                                  kBlockBase + k);
                setFormat(start, (i < 0 ? n : i) - start, m_comment);
                matched = true;
            }
        for (int k = 0; k < m_multiline.size() && !matched; ++k)
            if (at(text, i, m_multiline[k])) {
                const int start = i;
                i = continueUntil(i + int(m_multiline[k].size()), m_multiline[k], m_string, 1 + k);
                setFormat(start, (i < 0 ? n : i) - start, m_string);
                matched = true;
            }
        for (int k = 0; k < m_strings.size() && !matched; ++k)
            if (at(text, i, m_strings[k])) {
                const QString& d = m_strings[k];
                int j = i + int(d.size());
                while (j < n && !at(text, j, d)) {
                    if (text.at(j) == QLatin1Char('\\'))
                        ++j;
                    ++j;
                }
                const int end = std::min(j + int(d.size()), n);
                setFormat(i, end - i, m_string);
                i = end;
                matched = true;
            }
        if (!matched)
            ++i;
    }
}

} // namespace ascviz::ui
