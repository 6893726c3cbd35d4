// The Study page (method.md §9; docs/study.md): design a user study (samples from a corpus file or the
// bundled sample, optionally the Interactive result; conditions; questions and their scales; participants),
// create it off the GUI thread (the samples are evaluated once with the loaded model and stored in the
// study file), follow the participants' progress, start a participant in full-window participant mode,
// and read the report (a diverging stacked Likert chart, exportable as SVG; the answers as CSV, the report
// as JSON).
#pragma once
#include "pages/page.h"

#include "ascviz/study/report.h"
#include "ascviz/study/study.h"

#include <QMap>
#include <QPointer>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ascviz::ui {

class LikertChart;
class ModelService;
class ParticipantWindow;
class ResultStore;

class StudyPage : public QWidget, public Page {
    Q_OBJECT
public:
    StudyPage(ModelService* models, ResultStore* results, QWidget* parent = nullptr);
    ~StudyPage() override;

    QString title() const override { return tr("Study"); }
    QWidget* widget() override { return this; }
    QList<QAction*> menuActions() override;
    bool canExport(ExportKind kind) const override;
    QString suggestedExportName(ExportKind kind) const override;
    bool exportTo(ExportKind kind, const QString& path, QString* error) override;

    // --- for scripts and tests
    // The design the form describes (questions, scales, conditions, participants, seed).
    StudyDesign designFromForm() const;
    // Creates a study file at `path` from the form (a job: studyCreated or creationFailed). Refuses an
    // existing file. Returns false with a message when it cannot start.
    bool createStudy(const QString& path, QString* error);
    void cancelCreation();
    bool isCreating() const { return m_job != 0; }
    // Opens a study file and its responses file (default: <study>.responses.sqlite next to it).
    bool openStudy(const QString& path, QString* error);
    bool setResponsesFile(const QString& path, QString* error);
    std::shared_ptr<const Study> study() const { return m_study; }
    QString responsesFile() const { return m_responsesPath; }
    // Starts participant mode for `id` (full screen unless `fullScreen` is false); resumes a participant
    // that has responses when `resume`. Null with `error` set when refused.
    ParticipantWindow* startParticipant(const QString& id, bool resume, bool fullScreen, QString* error);
    // Re-reads the progress and the report from the responses file.
    void refresh();
    const std::optional<StudyReport>& report() const;

    QSpinBox* samplesBox() const { return m_samples; }
    QSpinBox* participantsBox() const { return m_participants; }
    QComboBox* pointsBox() const { return m_points; }
    QComboBox* designBox() const { return m_design; }         // within (Latin square) | between subjects
    QCheckBox* backgroundBox() const { return m_background; } // the paper's background section
    QLineEdit* labelsEdit() const { return m_labels; }
    QLineEdit* corpusEdit() const { return m_corpusPath; }
    QComboBox* sourceBox() const { return m_source; }
    QCheckBox* conditionBox(const QString& c) const { return m_conditions.value(c); }
    QCheckBox* includeInteractiveBox() const { return m_includeInteractive; }
    QTableWidget* participantsTable() const { return m_table; }
    LikertChart* chart() const { return m_chart; }
    QPushButton* createButton() const { return m_create; }
    QLabel* statusLabel() const { return m_status; }

Q_SIGNALS:
    void studyCreated(const QString& path);
    void creationFailed(const QString& message); // also "cancelled"
    void studyOpened();

private:
    void buildUi();
    QWidget* buildDesignBox();
    QWidget* buildRunBox();
    QWidget* buildReportBox();
    void onPointsChanged();
    void onCreateClicked();
    void onOpenStudyClicked();
    void onOpenResponsesClicked();
    void onStartClicked();
    void setStatus(const QString& text, bool error = false);
    void exportWithDialog(ExportKind kind);
    bool exportAnswersCsv(const QString& path, QString* error) const;
    bool exportReportJson(const QString& path, QString* error) const;

    ModelService* m_models;
    ResultStore* m_results;
    std::shared_ptr<const Study> m_study;
    QString m_studyPath, m_responsesPath;
    std::optional<StudyReport> m_report;
    std::vector<ResponseRow> m_rows;
    quint64 m_job = 0;
    QPointer<ParticipantWindow> m_participant;

    QComboBox* m_source = nullptr;
    QLineEdit* m_corpusPath = nullptr;
    QCheckBox* m_includeInteractive = nullptr;
    QSpinBox* m_samples = nullptr;
    QSpinBox* m_participants = nullptr;
    QSpinBox* m_seed = nullptr;
    QMap<QString, QCheckBox*> m_conditions;
    QComboBox* m_points = nullptr;
    QComboBox* m_design = nullptr;
    QCheckBox* m_background = nullptr;
    QLineEdit* m_labels = nullptr;
    QMap<QString, QLineEdit*> m_questions;
    QLineEdit* m_exitKey = nullptr;
    QLineEdit* m_studyName = nullptr;
    QPushButton* m_create = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_studyInfo = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_start = nullptr;
    LikertChart* m_chart = nullptr;
};

} // namespace ascviz::ui
