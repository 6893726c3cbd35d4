#pragma once
// Galeras in the GUI (docs/galeras.md): GalerasRunPanel is the Batch page's form of `galeras run` (testbed,
// treatments) and a view of the page's RunController, which runs it (progress, pause, stop, resume, the
// close-during-run prompt: as for a batch run) over the ModelService's one model; GalerasAnalysisView shows `analyze
// treatments` of a runs database (the Analysis page and the run panel use it). Widgets and wiring only: the work is
// core's (galeras, galerasrun).
#include <QList>
#include <QStringList>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ascviz::ui {

class RunBar;
class RunController;
struct RunEnd;

class GalerasAnalysisView : public QWidget {
    Q_OBJECT
public:
    explicit GalerasAnalysisView(QWidget* parent = nullptr);
    void setDbPath(const QString& path);
    void setOutcome(const QString& outcome); // levenshtein, bleu4, exact_match, ast_match, codebleu, asc_eval
    QString dbPath() const;
    // The confounders the OLS adjusts for (checkboxes; the paper's four by default: galerasPaperConfounders).
    void setConfounders(const QStringList& names);
    QStringList confounders() const;
    // "" when `items` testbed items (each a control and a treatment row) are enough to fit an adjustment for
    // `confounders` confounders (OLS: intercept, D and each confounder; it needs more rows than parameters),
    // else the message saying how many items are needed.
    static QString tooFewRows(int items, int confounders);
    // Analyses the database now (a few hundred rows: well under a second); the table or the error is shown.
    bool analyze();
    QString text() const;

protected:
    void showEvent(QShowEvent* e) override; // an empty runs field takes the last Galeras run's database

private:
    QLineEdit* m_db = nullptr;
    QComboBox* m_outcome = nullptr;
    QList<QCheckBox*> m_confounders;
    QPlainTextEdit* m_table = nullptr;
};

class GalerasRunPanel : public QWidget {
    Q_OBJECT
public:
    // `run`: the controller that runs it (the Batch page's, shared with its batch runs: one run at a time).
    explicit GalerasRunPanel(RunController* run, QWidget* parent = nullptr);

    void setRecordsPath(const QString& path);    // empty: the bundled sample
    void setTreatmentsPath(const QString& path); // empty: resources/galeras/treatments.json
    void setDbPath(const QString& path);
    void setTestbed(const QString& testbed); // randomcut, withdocstring, fromdocstring
    void setLimit(int items);                // 0 = all
    void setMaxNewTokens(int n);
    // The settings key holding the runs database of the last Galeras run started (the Treatments tabs'
    // default).
    static QString lastDbKey();

    bool start(bool resume); // false (and a status line) when it cannot start
    void pause();            // the run waits after its current row
    void cancel();           // stops after the current row; Resume continues
    bool isRunning() const;  // a Galeras run is going
    QString status() const;
    RunBar* runBar() const { return m_bar; }
    GalerasAnalysisView* analysis() const { return m_analysis; }

Q_SIGNALS:
    void runEnded(bool complete, const QString& message);

private:
    RunController* m_run;
    QLineEdit *m_records = nullptr, *m_treatments = nullptr, *m_db = nullptr;
    QComboBox* m_testbed = nullptr;
    QSpinBox *m_limit = nullptr, *m_maxNew = nullptr;
    QCheckBox* m_functionEnd = nullptr;
    RunBar* m_bar = nullptr;
    GalerasAnalysisView* m_analysis = nullptr;
    void onFinished(const RunEnd& end);
    void setStatus(const QString& text, bool error = false);
};

} // namespace ascviz::ui
