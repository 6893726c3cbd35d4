// What a participant sees in one trial of a study (method.md §9): a progress line, the code, the view of
// the trial's condition only (C: the code alone; S1: the sequence view with NtP; S2/S3: the code and the
// partial/complete AST view), the Likert questions, an optional comment and Next. No model name, no menus,
// nothing of the other conditions. Used by the participant window and by `study render` (a PNG of it).
#pragma once
#include "common/analysis.h"

#include "ascviz/study/study.h"

#include <QList>
#include <QMap>
#include <QWidget>

#include <memory>

class QAbstractButton;
class QButtonGroup;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QVBoxLayout;

namespace ascviz::ui {

class AstView;
class LegendWidget;
class SequenceView;

// The Analysis the views of a sample show: the stored evaluation with the model's name removed, and
// (with `layouts`) the AST layouts (Graphviz; computed here, on the calling thread: study snippets are small).
AnalysisPtr studySampleAnalysis(const StudySample& sample, bool layouts = true);

class TrialScreen : public QWidget {
    Q_OBJECT
public:
    explicit TrialScreen(std::shared_ptr<const Study> study, QWidget* parent = nullptr);

    // Shows trial `index` (0-based) of `count` with `trial`'s sample under its condition; answers given
    // before (a resumed trial) are preselected.
    void showTrial(int index, int count, const StudyTrial& trial, const QMap<QString, int>& answers = {},
                   const QString& comment = {});
    // The closing screen after the last trial.
    void showDone();
    void setError(const QString& message); // a line in red (e.g. the responses file cannot be written)

    QString condition() const { return m_condition; }
    QWidget* conditionView() const; // the view of the condition shown (the code for C)
    // The answer (1..points) given to a question, 0 when none.
    int answer(const QString& question) const;
    QString comment() const;
    bool allAnswered() const;
    QPushButton* nextButton() const { return m_next; }
    QLineEdit* commentEdit() const { return m_comment; }
    // The radio button of scale point `point` (1-based) of a question.
    QAbstractButton* choiceButton(const QString& question, int point) const;
    QLabel* progressLabel() const { return m_progressText; }

Q_SIGNALS:
    void answered(const QString& question, int point);
    void commentEdited(const QString& text); // after a pause in typing or when the field loses focus
    void nextClicked();

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    void buildQuestions();
    void highlightCompletion(const StudySample& sample);
    void updateNext();

    std::shared_ptr<const Study> m_study;
    QString m_condition;
    QLabel* m_progressText;
    QProgressBar* m_progress;
    QStackedWidget* m_stack;
    QSplitter* m_split;
    QWidget* m_trialPage;
    QLabel* m_donePage;
    QLabel* m_codeTitle;
    QPlainTextEdit* m_code;
    SequenceView* m_sequence;
    AstView* m_ast;
    LegendWidget* m_legend;
    QWidget* m_viewBox;
    QMap<QString, QButtonGroup*> m_groups;
    QList<QLabel*> m_questionTexts; // one per question; the wording depends on the condition (C has no view)
    QLineEdit* m_comment;
    class QTimer* m_commentTimer;
    QLabel* m_error;
    QPushButton* m_next;
};

} // namespace ascviz::ui
