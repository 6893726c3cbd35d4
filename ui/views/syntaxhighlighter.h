// The prompt editor's highlighter, driven by a language descriptor's rules (LanguageInfo::highlight):
// keywords, constants, builtins, numbers, annotations, definitions, line and block comments, one-line and
// multi-line strings. Nothing here names a language.
#pragma once
#include "ascviz/syntax/language.h"

#include <QRegularExpression>
#include <QStringList>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QVector>

namespace ascviz::ui {

class SyntaxHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    // Documents longer than this (in QChars) are not highlighted: docs/limits.md.
    static constexpr int kMaxHighlightedChars = 256 * 1024;
    explicit SyntaxHighlighter(QTextDocument* doc);
    // Replaces the rules and re-highlights the document.
    void setRules(const HighlightRules& rules);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression re;
        QTextCharFormat format;
        bool group1 = false; // style the first matching capture group when the expression has any
    };
    QVector<Rule> m_rules;
    QString m_lineComment;
    QStringList m_strings;                            // one-line delimiters
    QStringList m_multiline;                          // self-closing multi-line delimiters; block state 1 + index
    QVector<QPair<QString, QString>> m_blockComments; // block state kBlockBase + index
    QTextCharFormat m_string;
    QTextCharFormat m_comment;
};

} // namespace ascviz::ui
