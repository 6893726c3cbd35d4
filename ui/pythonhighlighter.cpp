#include "pythonhighlighter.h"

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

// Block states: 0 = normal, 1 = inside ''' string, 2 = inside """ string.
constexpr int kInSingle = 1;
constexpr int kInDouble = 2;
} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc)
{
    const QStringList keywords = {
        QStringLiteral("and"),    QStringLiteral("as"),     QStringLiteral("assert"), QStringLiteral("async"),
        QStringLiteral("await"),  QStringLiteral("break"),  QStringLiteral("class"),  QStringLiteral("continue"),
        QStringLiteral("def"),    QStringLiteral("del"),    QStringLiteral("elif"),   QStringLiteral("else"),
        QStringLiteral("except"), QStringLiteral("finally"), QStringLiteral("for"),   QStringLiteral("from"),
        QStringLiteral("global"), QStringLiteral("if"),     QStringLiteral("import"), QStringLiteral("in"),
        QStringLiteral("is"),     QStringLiteral("lambda"), QStringLiteral("nonlocal"), QStringLiteral("not"),
        QStringLiteral("or"),     QStringLiteral("pass"),   QStringLiteral("raise"),  QStringLiteral("return"),
        QStringLiteral("try"),    QStringLiteral("while"),  QStringLiteral("with"),   QStringLiteral("yield"),
        QStringLiteral("match"),  QStringLiteral("case")};
    const QStringList constants = {QStringLiteral("None"), QStringLiteral("True"), QStringLiteral("False"),
                                   QStringLiteral("self"), QStringLiteral("cls")};
    const QStringList builtins = {
        QStringLiteral("print"), QStringLiteral("len"),   QStringLiteral("range"), QStringLiteral("int"),
        QStringLiteral("str"),   QStringLiteral("float"), QStringLiteral("list"),  QStringLiteral("dict"),
        QStringLiteral("set"),   QStringLiteral("tuple"), QStringLiteral("isinstance"), QStringLiteral("enumerate"),
        QStringLiteral("zip"),   QStringLiteral("sorted"), QStringLiteral("min"),  QStringLiteral("max"),
        QStringLiteral("sum"),   QStringLiteral("open"),  QStringLiteral("super"), QStringLiteral("bool"),
        QStringLiteral("type"),  QStringLiteral("getattr"), QStringLiteral("setattr"), QStringLiteral("hasattr")};

    auto words = [](const QStringList& l) { return QStringLiteral("\\b(?:%1)\\b").arg(l.join(QLatin1Char('|'))); };
    m_rules.push_back({QRegularExpression(words(keywords)), fmt(QColor(0x00, 0x33, 0x99), true)});
    m_rules.push_back({QRegularExpression(words(constants)), fmt(QColor(0x80, 0x00, 0x80))});
    m_rules.push_back({QRegularExpression(words(builtins)), fmt(QColor(0x00, 0x66, 0x66))});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(?:0[xX][0-9a-fA-F_]+|\\d[\\d_]*(?:\\.\\d*)?(?:[eE][+-]?\\d+)?j?)\\b")),
                       fmt(QColor(0x11, 0x66, 0x44))});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*(@[\\w.]+)")), fmt(QColor(0x99, 0x66, 0x00)), 1});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(?:def|class)\\s+(\\w+)")), fmt(QColor(0x00, 0x00, 0x00), true), 1});
    m_string = fmt(QColor(0x06, 0x7D, 0x17));
    m_comment = fmt(QColor(0x8C, 0x8C, 0x8C), false, true);
}

void PythonHighlighter::highlightBlock(const QString& text)
{
    for (const Rule& r : std::as_const(m_rules)) {
        auto it = r.re.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(int(m.capturedStart(r.group)), int(m.capturedLength(r.group)), r.format);
        }
    }

    // Strings and comments, scanned left to right so that quotes inside comments (and # inside strings)
    // are handled; triple-quoted strings continue over blocks through the block state.
    int i = 0;
    const int n = int(text.size());
    int state = previousBlockState() < 0 ? 0 : previousBlockState();
    if (state == kInSingle || state == kInDouble) {
        const QString close = state == kInSingle ? QStringLiteral("'''") : QStringLiteral("\"\"\"");
        const int end = int(text.indexOf(close));
        if (end < 0) {
            setFormat(0, n, m_string);
            setCurrentBlockState(state);
            return;
        }
        setFormat(0, end + 3, m_string);
        i = end + 3;
    }
    setCurrentBlockState(0);
    while (i < n) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('#')) {
            setFormat(i, n - i, m_comment);
            return;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            const bool triple = i + 2 < n && text.at(i + 1) == c && text.at(i + 2) == c;
            if (triple) {
                const QString close(3, c);
                const int end = int(text.indexOf(close, i + 3));
                if (end < 0) {
                    setFormat(i, n - i, m_string);
                    setCurrentBlockState(c == QLatin1Char('\'') ? kInSingle : kInDouble);
                    return;
                }
                setFormat(i, end + 3 - i, m_string);
                i = end + 3;
                continue;
            }
            int j = i + 1;
            while (j < n && text.at(j) != c) {
                if (text.at(j) == QLatin1Char('\\'))
                    ++j;
                ++j;
            }
            const int end = std::min(j + 1, n);
            setFormat(i, end - i, m_string);
            i = end;
            continue;
        }
        ++i;
    }
}

} // namespace ascviz::ui
