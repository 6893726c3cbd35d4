#include "pages/study/trialscreen.h"

#include "common/textpos.h"
#include "views/astview.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"
#include "views/syntaxhighlighter.h"

#include "ascviz/render/layout.h"
#include "ascviz/syntax/language.h"

#include <QButtonGroup>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTextCursor>
#include <QTextEdit>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace ascviz::ui {

AnalysisPtr studySampleAnalysis(const StudySample& sample, bool layouts)
{
    auto eval = std::make_shared<EvalResult>(*sample.eval);
    eval->scored.model.clear(); // the model is not named to participants
    for (auto& t : eval->scored.tokens)
        t.top.clear();
    auto a = std::make_shared<Analysis>();
    a->eval = eval;
    if (!layouts)
        return a;
    try {
        a->partial = std::make_shared<const GraphLayout>(layoutAst(*eval, ascviz::AstView::Partial));
        a->complete = std::make_shared<const GraphLayout>(layoutAst(*eval, ascviz::AstView::Complete));
    } catch (const std::exception& e) {
        a->layoutError = toQString(e.what());
    }
    return a;
}

TrialScreen::TrialScreen(std::shared_ptr<const Study> study, QWidget* parent)
    : QWidget(parent), m_study(std::move(study))
{
    auto* outer = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_progressText = new QLabel(this);
    m_progressText->setObjectName(QStringLiteral("trialProgressText"));
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(10);
    top->addWidget(m_progressText);
    top->addWidget(m_progress, 1);
    outer->addLayout(top);

    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack, 1);

    m_trialPage = new QWidget(m_stack);
    auto* tl = new QVBoxLayout(m_trialPage);
    tl->setContentsMargins(0, 0, 0, 0);
    auto* split = m_split = new QSplitter(Qt::Horizontal, m_trialPage);
    auto* codeBox = new QWidget(split);
    auto* cl = new QVBoxLayout(codeBox);
    cl->setContentsMargins(0, 0, 0, 0);
    m_codeTitle = new QLabel(tr("Code"), codeBox);
    m_code = new QPlainTextEdit(codeBox);
    m_code->setObjectName(QStringLiteral("trialCode"));
    m_code->setReadOnly(true);
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    cl->addWidget(m_codeTitle);
    cl->addWidget(m_code, 1);
    m_viewBox = new QWidget(split);
    auto* vl = new QVBoxLayout(m_viewBox);
    vl->setContentsMargins(0, 0, 0, 0);
    m_sequence = new SequenceView(m_viewBox);
    m_sequence->setObjectName(QStringLiteral("trialSequence"));
    m_ast = new AstView(ascviz::AstView::Partial, m_viewBox);
    m_ast->setObjectName(QStringLiteral("trialAst"));
    m_legend = new LegendWidget(LegendWidget::Mode::Sequence, m_viewBox);
    m_legend->setShowsSelection(false); // a participant selects nothing: no "selected" mark to explain
    vl->addWidget(m_sequence, 1);
    vl->addWidget(m_ast, 1);
    vl->addWidget(m_legend);
    split->addWidget(codeBox);
    split->addWidget(m_viewBox);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    tl->addWidget(split, 1);

    auto* qbox = new QWidget(m_trialPage);
    auto* grid = new QGridLayout(qbox);
    grid->setObjectName(QStringLiteral("questionsGrid"));
    tl->addWidget(qbox);
    m_comment = new QLineEdit(m_trialPage);
    m_comment->setObjectName(QStringLiteral("trialComment"));
    m_comment->setPlaceholderText(tr("Comment (optional)"));
    m_comment->setVisible(m_study->allowComments);
    m_commentTimer = new QTimer(this);
    m_commentTimer->setSingleShot(true);
    m_commentTimer->setInterval(600);
    connect(m_comment, &QLineEdit::textEdited, m_commentTimer, qOverload<>(&QTimer::start));
    connect(m_commentTimer, &QTimer::timeout, this, [this] { Q_EMIT commentEdited(m_comment->text()); });
    connect(m_comment, &QLineEdit::editingFinished, this, [this] {
        if (m_commentTimer->isActive()) {
            m_commentTimer->stop();
            Q_EMIT commentEdited(m_comment->text());
        }
    });
    tl->addWidget(m_comment);
    auto* bottom = new QHBoxLayout;
    m_error = new QLabel(m_trialPage);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setWordWrap(true);
    m_next = new QPushButton(tr("Next"), m_trialPage);
    m_next->setObjectName(QStringLiteral("trialNext"));
    m_next->setDefault(true);
    bottom->addWidget(m_error, 1);
    bottom->addWidget(m_next);
    tl->addLayout(bottom);
    m_stack->addWidget(m_trialPage);

    m_donePage = new QLabel(m_stack);
    m_donePage->setAlignment(Qt::AlignCenter);
    m_donePage->setObjectName(QStringLiteral("trialDone"));
    QFont f = m_donePage->font();
    f.setPointSizeF(f.pointSizeF() * 1.6);
    m_donePage->setFont(f);
    m_stack->addWidget(m_donePage);

    // Questions: one row each, the scale's labels as radio buttons.
    for (int qi = 0; qi < int(m_study->questions.size()); ++qi) {
        const StudyQuestion& q = m_study->questions[std::size_t(qi)];
        auto* text = new QLabel(toQString(q.text), qbox);
        text->setWordWrap(true);
        m_questionTexts.append(text);
        grid->addWidget(text, qi, 0);
        auto* group = new QButtonGroup(this);
        group->setExclusive(true);
        const QString qid = toQString(q.id);
        for (int p = 1; p <= q.points(); ++p) {
            auto* b = new QRadioButton(toQString(q.labels[std::size_t(p - 1)]), qbox);
            b->setObjectName(QStringLiteral("answer_%1_%2").arg(qid).arg(p));
            group->addButton(b, p);
            grid->addWidget(b, qi, p);
        }
        connect(group, &QButtonGroup::idClicked, this, [this, qid](int p) {
            updateNext();
            Q_EMIT answered(qid, p);
        });
        m_groups.insert(qid, group);
    }
    grid->setColumnStretch(0, 1);
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (allAnswered())
            Q_EMIT nextClicked();
    });
    updateNext();
}

void TrialScreen::showTrial(int index, int count, const StudyTrial& trial, const QMap<QString, int>& answers,
                            const QString& comment)
{
    m_stack->setCurrentWidget(m_trialPage);
    m_progressText->setText(tr("Trial %1 of %2").arg(index + 1).arg(count));
    m_progress->setRange(0, count);
    m_progress->setValue(index);
    m_error->clear();
    const StudySample& sample = m_study->samples.at(std::size_t(trial.sample));
    m_condition = toQString(trial.condition);
    const bool needsTree = trial.condition == "S2" || trial.condition == "S3";
    const AnalysisPtr a = studySampleAnalysis(sample, needsTree);
    m_code->setPlainText(toQString(sample.eval->scored.text));
    if (const auto* lang = LanguageRegistry::instance().find(sample.language)) {
        if (!m_code->document()->findChild<SyntaxHighlighter*>()) {
            auto* h = new SyntaxHighlighter(m_code->document());
            h->setRules(lang->highlight);
        } else {
            m_code->document()->findChild<SyntaxHighlighter*>()->setRules(lang->highlight);
        }
    }
    highlightCompletion(sample);
    const bool hasCompletion = generatedSpan(sample).has_value();
    for (int qi = 0; qi < int(m_questionTexts.size()) && qi < int(m_study->questions.size()); ++qi)
        m_questionTexts[qi]->setText(
            toQString(questionTextFor(m_study->questions[std::size_t(qi)], trial.condition, hasCompletion)));
    const bool seq = trial.condition == "S1";
    const bool ast = trial.condition == "S2" || trial.condition == "S3";
    // S1: the sequence view is the code, coloured; C: the code alone; S2/S3: the code and the AST view.
    m_code->parentWidget()->setVisible(!seq);
    m_viewBox->setVisible(seq || ast);
    m_sequence->setVisible(seq);
    m_ast->setVisible(ast);
    m_legend->setMode(seq ? LegendWidget::Mode::Sequence : LegendWidget::Mode::Ast);
    // With an AST view, the code keeps the width of its longest line (up to 560 px) on the left.
    int codeWidth = 0;
    const QFontMetrics fm(m_code->font());
    for (const QString& line : m_code->toPlainText().split(QLatin1Char('\n')))
        codeWidth = std::max(codeWidth, fm.horizontalAdvance(line));
    m_code->parentWidget()->setMinimumWidth(ast ? std::clamp(codeWidth + 36, 200, 560) : 0);
    m_sequence->setAnalysis(seq ? a : nullptr);
    if (ast) {
        auto* old = m_ast;
        m_ast = new AstView(trial.condition == "S2" ? ascviz::AstView::Partial : ascviz::AstView::Complete, m_viewBox);
        m_ast->setObjectName(QStringLiteral("trialAst"));
        static_cast<QVBoxLayout*>(m_viewBox->layout())->replaceWidget(old, m_ast);
        old->hide();
        old->deleteLater();
        m_ast->setVisible(true);
        m_ast->setAnalysis(a);
        m_ast->fitWhole(); // the tree conditions open scaled to the trial area (and stay so on resize)
    } else {
        m_ast->setAnalysis(nullptr);
    }
    for (auto it = m_groups.begin(); it != m_groups.end(); ++it) {
        auto* g = it.value();
        g->setExclusive(false);
        for (auto* b : g->buttons())
            b->setChecked(false);
        g->setExclusive(true);
        if (const int v = answers.value(it.key(), 0); v > 0 && g->button(v))
            g->button(v)->setChecked(true);
    }
    m_commentTimer->stop();
    m_comment->setText(comment);
    updateNext();
}

// The model's completion in bold, underlined, on a light yellow background, as the paper's Fig. 5 region 1
// and as the sequence view marks generated tokens: in C, S2 and S3 the participant sees it in the code
// (method.md §9). What is the completion is what the study file records as generated (generatedSpan), never
// the prompt's length: human-written code is never presented as the model's (issue 44).
void TrialScreen::highlightCompletion(const StudySample& sample)
{
    const std::string& text = sample.eval->scored.text;
    const auto span = generatedSpan(sample);
    QList<QTextEdit::ExtraSelection> marks;
    if (span) {
        const TextPositions pos(text);
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(m_code->document());
        sel.cursor.setPosition(pos.toQt(std::min(span->first, text.size())));
        sel.cursor.setPosition(pos.toQt(std::min(span->second, text.size())), QTextCursor::KeepAnchor);
        sel.format.setBackground(QColor(0xFF, 0xF3, 0xB0));
        sel.format.setFontUnderline(true);
        sel.format.setFontWeight(QFont::Bold);
        marks.append(sel);
    }
    m_code->setExtraSelections(marks);
    m_codeTitle->setText(span ? tr("Code (the model's completion is highlighted)") : tr("Code"));
}

void TrialScreen::showDone()
{
    m_progressText->setText(tr("Done"));
    m_progress->setValue(m_progress->maximum());
    m_donePage->setText(tr("Thank you! All trials are answered.\nPlease tell the researcher."));
    m_stack->setCurrentWidget(m_donePage);
}

void TrialScreen::setError(const QString& message)
{
    m_error->setText(message);
}

QWidget* TrialScreen::conditionView() const
{
    if (m_condition == QLatin1String("S1"))
        return m_sequence;
    if (m_condition == QLatin1String("S2") || m_condition == QLatin1String("S3"))
        return m_ast;
    return m_code;
}

int TrialScreen::answer(const QString& question) const
{
    const auto* g = m_groups.value(question, nullptr);
    return g && g->checkedId() > 0 ? g->checkedId() : 0;
}

QString TrialScreen::comment() const
{
    return m_comment->text();
}

bool TrialScreen::allAnswered() const
{
    for (auto* g : m_groups)
        if (g->checkedId() <= 0)
            return false;
    return true;
}

QAbstractButton* TrialScreen::choiceButton(const QString& question, int point) const
{
    const auto* g = m_groups.value(question, nullptr);
    return g ? g->button(point) : nullptr;
}

void TrialScreen::updateNext()
{
    m_next->setEnabled(allAnswered());
}

void TrialScreen::keyPressEvent(QKeyEvent* e)
{
    // Return or Enter: Next, once every question is answered.
    if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && m_stack->currentWidget() == m_trialPage) {
        if (allAnswered())
            Q_EMIT nextClicked();
        e->accept();
        return;
    }
    QWidget::keyPressEvent(e);
}

} // namespace ascviz::ui
