// The Study page's report: the participants' progress and the answers read from the responses file, the
// Likert chart, and the exports (chart SVG or PDF through the figure room, answers CSV, report JSON).
#include "pages/study/likertchart.h"
#include "pages/study/studypage.h"

#include "common/textpos.h"

#include "ascviz/study/responses.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QTableWidget>

#include <fstream>

namespace ascviz::ui {

void StudyPage::refresh()
{
    m_table->setRowCount(0);
    m_rows.clear();
    m_report.reset();
    if (!m_study) {
        m_chart->setReport(std::nullopt);
        return;
    }
    std::vector<ParticipantProgress> progress;
    try {
        if (!m_responsesPath.isEmpty() && QFileInfo::exists(m_responsesPath)) {
            const auto db = ResponsesDb::openExisting(toUtf8(m_responsesPath));
            progress = db.progress();
            m_rows = db.rows();
        } else {
            for (const auto& p : m_study->participants)
                progress.push_back({p.id, int(p.trials.size()), 0, false, {}});
        }
        m_report = computeStudyReport(m_study->conditions, m_study->questions, m_rows);
    } catch (const std::exception& e) {
        setStatus(toQString(e.what()), true);
    }
    m_table->setRowCount(int(progress.size()));
    for (int i = 0; i < int(progress.size()); ++i) {
        const auto& p = progress[std::size_t(i)];
        m_table->setItem(i, 0, new QTableWidgetItem(toQString(p.id)));
        m_table->setItem(i, 1, new QTableWidgetItem(QStringLiteral("%1 / %2").arg(p.completed).arg(p.trials)));
        m_table->setItem(i, 2,
                         new QTableWidgetItem(!p.started                ? tr("not started")
                                              : p.completed >= p.trials ? tr("done")
                                                                        : tr("in progress")));
    }
    m_chart->setReport(m_report);
}

bool StudyPage::canExport(ExportKind kind) const
{
    return m_report && (kind == ExportKind::Svg || kind == ExportKind::Csv || kind == ExportKind::Json);
}

QString StudyPage::suggestedExportName(ExportKind kind) const
{
    switch (kind) {
    case ExportKind::Svg:
        return QStringLiteral("study-report.svg");
    case ExportKind::Csv:
        return QStringLiteral("study-answers.csv");
    case ExportKind::Json:
        return QStringLiteral("study-report.json");
    default:
        return Page::suggestedExportName(kind);
    }
}

bool StudyPage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    switch (kind) {
    case ExportKind::Svg:
        return m_chart->exportSvg(path, error);
    case ExportKind::Csv:
        return exportAnswersCsv(path, error);
    case ExportKind::Json:
        return exportReportJson(path, error);
    default:
        if (error)
            *error = tr("the Study page exports SVG, CSV and JSON");
        return false;
    }
}

void StudyPage::exportWithDialog(ExportKind kind)
{
    if (!canExport(kind))
        return;
    const QString filter = kind == ExportKind::Svg ? tr("SVG (*.svg);;PDF (*.pdf)") : QString();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), suggestedExportName(kind), filter);
    if (path.isEmpty())
        return;
    QString err;
    if (!exportTo(kind, path, &err))
        setStatus(err, true);
    else
        setStatus(tr("Wrote %1.").arg(path));
}

bool StudyPage::exportAnswersCsv(const QString& path, QString* error) const
{
    try {
        writeResponsesCsv(toUtf8(path), m_rows);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

bool StudyPage::exportReportJson(const QString& path, QString* error) const
{
    if (!m_report) {
        if (error)
            *error = tr("there is no report");
        return false;
    }
    std::ofstream out(toUtf8(path), std::ios::binary | std::ios::trunc);
    out << studyReportJson(*m_report).dump(2) << '\n';
    if (!out) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace ascviz::ui
