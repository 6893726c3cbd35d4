// Galeras in the GUI: the run panel and the analysis view (galeraspanel.h).
#include "pages/galeras/galeraspanel.h"

#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/resources.h"
#include "ascviz/galeras/effects.h"
#include "ascviz/galerasrun/run.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <atomic>

namespace ascviz::ui {

GalerasAnalysisView::GalerasAnalysisView(QWidget* parent) : QWidget(parent)
{
    auto* lay = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    m_db = new QLineEdit(this);
    m_db->setPlaceholderText(tr("Galeras runs database (galeras run --db)"));
    m_outcome = new QComboBox(this);
    for (const auto& y : galerasOutcomes())
        m_outcome->addItem(toQString(y), toQString(y));
    auto* go = new QPushButton(tr("Analyze treatments"), this);
    row->addWidget(new QLabel(tr("Runs:"), this));
    row->addWidget(m_db, 1);
    row->addWidget(new QLabel(tr("Outcome:"), this));
    row->addWidget(m_outcome);
    row->addWidget(go);
    lay->addLayout(row);
    m_table = new QPlainTextEdit(this);
    m_table->setReadOnly(true);
    m_table->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_table->setPlaceholderText(tr("Per treatment vs the control: the ATE by OLS back-door adjustment (se, 95 % CI), "
                                   "refutations with p-values, and the descriptive table (docs/galeras.md)."));
    lay->addWidget(m_table, 1);
    connect(go, &QPushButton::clicked, this, [this] { analyze(); });
    connect(m_outcome, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_db->text().isEmpty())
            analyze();
    });
}

void GalerasAnalysisView::setDbPath(const QString& path)
{
    m_db->setText(path);
}

void GalerasAnalysisView::setOutcome(const QString& outcome)
{
    const int i = m_outcome->findData(outcome);
    if (i >= 0)
        m_outcome->setCurrentIndex(i);
}

bool GalerasAnalysisView::analyze()
{
    try {
        TreatmentAnalysisOptions o;
        o.outcome = toUtf8(m_outcome->currentData().toString());
        const auto r = analyzeTreatments(GalerasDb::open(toUtf8(m_db->text())), o);
        m_table->setPlainText(toQString(treatmentsText(r)));
        return true;
    } catch (const std::exception& e) {
        m_table->setPlainText(tr("Cannot analyse: %1").arg(toQString(e.what())));
        return false;
    }
}

QString GalerasAnalysisView::text() const
{
    return m_table->toPlainText();
}

GalerasRunPanel::GalerasRunPanel(ModelService* models, QWidget* parent) : QWidget(parent), m_models(models)
{
    auto* lay = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_records = new QLineEdit(this);
    m_records->setPlaceholderText(tr("JSON Lines or CSV records; empty: the bundled sample"));
    m_treatments = new QLineEdit(this);
    m_treatments->setPlaceholderText(tr("treatments JSON; empty: the paper's control, T1, T2"));
    m_db = new QLineEdit(this);
    m_db->setPlaceholderText(tr("runs database to write"));
    m_testbed = new QComboBox(this);
    for (const char* t : {"withdocstring", "randomcut", "fromdocstring"}) // the paper's testbed first
        m_testbed->addItem(QString::fromLatin1(t), QString::fromLatin1(t));
    m_limit = new QSpinBox(this);
    m_limit->setRange(0, 1000000);
    m_limit->setSpecialValueText(tr("all"));
    m_limit->setValue(100);
    m_maxNew = new QSpinBox(this);
    m_maxNew->setRange(1, 4096);
    m_maxNew->setValue(64);
    m_functionEnd = new QCheckBox(tr("stop at the function's end"), this);
    m_functionEnd->setChecked(true);
    form->addRow(tr("Records:"), m_records);
    form->addRow(tr("Testbed:"), m_testbed);
    form->addRow(tr("Treatments:"), m_treatments);
    form->addRow(tr("Runs database:"), m_db);
    form->addRow(tr("Items:"), m_limit);
    form->addRow(tr("Max new tokens:"), m_maxNew);
    form->addRow(QString(), m_functionEnd);
    lay->addLayout(form);
    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run Galeras"), this);
    m_resume = new QPushButton(tr("Resume"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    buttons->addWidget(m_run);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    lay->addLayout(buttons);
    m_status = new QLabel(tr("Generates every testbed item under every treatment with the loaded model."), this);
    m_status->setWordWrap(true);
    lay->addWidget(m_status);
    m_analysis = new GalerasAnalysisView(this);
    lay->addWidget(m_analysis, 1);
    connect(m_run, &QPushButton::clicked, this, [this] { start(false); });
    connect(m_resume, &QPushButton::clicked, this, [this] { start(true); });
    connect(m_cancel, &QPushButton::clicked, this, [this] { cancel(); });
}

GalerasRunPanel::~GalerasRunPanel()
{
    if (m_job)
        m_models->jobs()->cancel(m_job);
}

void GalerasRunPanel::setRecordsPath(const QString& path)
{
    m_records->setText(path);
}
void GalerasRunPanel::setTreatmentsPath(const QString& path)
{
    m_treatments->setText(path);
}
void GalerasRunPanel::setDbPath(const QString& path)
{
    m_db->setText(path);
}
void GalerasRunPanel::setTestbed(const QString& testbed)
{
    const int i = m_testbed->findData(testbed);
    if (i >= 0)
        m_testbed->setCurrentIndex(i);
}
void GalerasRunPanel::setLimit(int items)
{
    m_limit->setValue(items);
}
void GalerasRunPanel::setMaxNewTokens(int n)
{
    m_maxNew->setValue(n);
}
QString GalerasRunPanel::status() const
{
    return m_status->text();
}

void GalerasRunPanel::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_resume->setEnabled(!running);
    m_cancel->setEnabled(running);
}

bool GalerasRunPanel::start(bool resume)
{
    if (m_job)
        return false;
    const auto model = m_models->model();
    if (!model) {
        m_status->setText(tr("Load a model first (Model › Load): the run generates with it."));
        return false;
    }
    if (m_db->text().isEmpty()) {
        m_status->setText(tr("Choose a runs database to write."));
        return false;
    }
    GalerasRunOptions opts;
    opts.testbed = parseTestbed(toUtf8(m_testbed->currentData().toString()));
    opts.limit = static_cast<std::size_t>(m_limit->value());
    opts.generation.maxNewTokens = m_maxNew->value();
    opts.stopAtFunctionEnd = m_functionEnd->isChecked();
    opts.resume = resume;
    const std::string records = toUtf8(m_records->text()), treatments = toUtf8(m_treatments->text()),
                      db = toUtf8(m_db->text());
    auto hold = std::make_shared<std::shared_ptr<void>>(m_models->hold(tr("Galeras run")));
    auto ended = std::make_shared<GalerasRunSummary>();
    JobTracker::Callbacks cb;
    cb.progress = [this](double f, const QString& text) {
        m_progress->setValue(static_cast<int>(f * 1000));
        m_status->setText(text);
    };
    cb.finished = [this, hold, ended, dbQ = m_db->text()] {
        hold->reset();
        m_job = 0;
        setRunning(false);
        const bool complete = !ended->cancelled && ended->done + ended->resumed == ended->planned;
        const QString msg = complete ? tr("Done: %1 rows (%2 already there), %3 errors.")
                                           .arg(ended->done)
                                           .arg(ended->resumed)
                                           .arg(ended->errors)
                                     : tr("Interrupted after %1 of %2 rows; Resume continues.")
                                           .arg(ended->done + ended->resumed)
                                           .arg(ended->planned);
        m_status->setText(msg);
        m_analysis->setDbPath(dbQ);
        if (ended->done + ended->resumed > 0)
            m_analysis->analyze();
        Q_EMIT runEnded(complete, msg);
    };
    cb.failed = [this, hold](const QString& message) {
        hold->reset();
        m_job = 0;
        setRunning(false);
        m_status->setText(tr("Galeras run failed: %1").arg(message));
        Q_EMIT runEnded(false, message);
    };
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    setRunning(true);
    m_status->setText(tr("Starting…"));
    m_job = m_models->jobs()->start(
        tr("Galeras run %1").arg(m_db->text()), QStringLiteral("galeras"),
        [model, opts, records, treatments, db, ended](JobContext& ctx) {
            const RecordSet rs = readRecords(records.empty() ? sampleCorpus() : std::filesystem::path(records));
            const TreatmentSet ts = readTreatments(treatments.empty() ? resourceDir() / "galeras" / "treatments.json"
                                                                      : std::filesystem::path(treatments));
            *ended = runGaleras(
                *model, rs, ts, db, opts,
                [&ctx](const GalerasProgress& p) {
                    ctx.setProgress(p.planned ? double(p.finished) / p.planned : 1.0,
                                    QObject::tr("%1 of %2 rows (%3, %4: %5)")
                                        .arg(p.finished)
                                        .arg(p.planned)
                                        .arg(toQString(p.recordId), toQString(p.treatment), toQString(p.stop)));
                },
                ctx.cancelFlag());
        },
        this, cb);
    return true;
}

void GalerasRunPanel::cancel()
{
    if (m_job)
        m_models->jobs()->cancel(m_job);
}

} // namespace ascviz::ui
