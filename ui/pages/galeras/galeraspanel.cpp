// Galeras in the GUI: the run panel and the analysis view (galeraspanel.h).
#include "pages/galeras/galeraspanel.h"

#include "common/textpos.h"
#include "run/runbar.h"
#include "run/runcontroller.h"
#include "services/jobtracker.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/galeras/effects.h"
#include "ascviz/galeras/testbed.h"
#include "ascviz/galerasrun/run.h"
#include "ascviz/results/galerasdb.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>

namespace ascviz::ui {

namespace {
// Whether `db` is a Galeras runs database with fewer rows than planned (a run to resume).
bool galerasRunIncomplete(const QString& db)
{
    if (db.isEmpty() || !QFileInfo::exists(db))
        return false;
    try {
        const GalerasDb runs = GalerasDb::open(toUtf8(db));
        const auto meta = runs.meta();
        const auto planned = meta.find("planned");
        return planned == meta.end() || runs.doneKeys().size() < std::stoull(planned->second);
    } catch (const std::exception&) {
        return true; // unreadable here: Resume says why
    }
}
} // namespace

namespace {

// `edit` in a row with a "…" button that picks a file (save: a new one).
QWidget* withPicker(QLineEdit* edit, const QString& caption, const QString& filter, bool save)
{
    auto* box = new QWidget(edit->parentWidget());
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    edit->setParent(box);
    h->addWidget(edit, 1);
    auto* pick = new QToolButton(box);
    pick->setText(QStringLiteral("…"));
    pick->setToolTip(caption);
    QObject::connect(pick, &QToolButton::clicked, box, [edit, caption, filter, save] {
        const QString start = edit->text().isEmpty() ? QString() : QFileInfo(edit->text()).path();
        const QString f = save ? QFileDialog::getSaveFileName(edit, caption, start, filter, nullptr,
                                                              QFileDialog::DontConfirmOverwrite)
                               : QFileDialog::getOpenFileName(edit, caption, start, filter);
        if (!f.isEmpty())
            edit->setText(f);
    });
    h->addWidget(pick);
    return box;
}

const QString kRunsFilter = QStringLiteral("Galeras runs (*.db *.sqlite);;All files (*)");

} // namespace

QString GalerasRunPanel::lastDbKey()
{
    return QStringLiteral("galeras/lastRunsDb");
}

QString GalerasAnalysisView::tooFewRows(int items, int confounders)
{
    const int parameters = 2 + confounders; // intercept, D, the confounders
    if (2 * items > parameters)
        return {};
    const int need = parameters / 2 + 1;
    return tr("%n testbed item(s) give %1 rows per comparison (the control's and the treatment's), too few to "
              "adjust for %2 confounders: the least-squares fit has %3 parameters and needs more rows than that. "
              "Run at least %4 items, or choose fewer confounders.",
              nullptr, items)
        .arg(2 * items)
        .arg(confounders)
        .arg(parameters)
        .arg(need);
}

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
    row->addWidget(withPicker(m_db, tr("Open a Galeras runs database"), kRunsFilter, false), 1);
    row->addWidget(new QLabel(tr("Outcome:"), this));
    row->addWidget(m_outcome);
    row->addWidget(go);
    lay->addLayout(row);
    auto* conf = new QHBoxLayout;
    conf->addWidget(new QLabel(tr("Confounders:"), this));
    const auto& paper = galerasPaperConfounders();
    for (const auto& c : galerasConfounders()) {
        auto* box = new QCheckBox(toQString(c), this);
        box->setObjectName(toQString(c)); // the column's name (the text may gain a mnemonic '&')
        box->setChecked(std::find(paper.begin(), paper.end(), c) != paper.end());
        box->setToolTip(tr("Adjust the effect for %1 (the paper's four are checked by default)").arg(toQString(c)));
        m_confounders << box;
        conf->addWidget(box);
        connect(box, &QCheckBox::toggled, this, [this] {
            if (!m_db->text().isEmpty())
                analyze();
        });
    }
    conf->addStretch(1);
    lay->addLayout(conf);
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

QString GalerasAnalysisView::dbPath() const
{
    return m_db->text();
}

void GalerasAnalysisView::setConfounders(const QStringList& names)
{
    for (auto* box : m_confounders) {
        const QSignalBlocker block(box);
        box->setChecked(names.contains(box->objectName()));
    }
}

QStringList GalerasAnalysisView::confounders() const
{
    QStringList out;
    for (const auto* box : m_confounders)
        if (box->isChecked())
            out << box->objectName();
    return out;
}

void GalerasAnalysisView::showEvent(QShowEvent* e)
{
    if (m_db->text().isEmpty()) {
        const QString last = QSettings().value(GalerasRunPanel::lastDbKey()).toString();
        if (!last.isEmpty() && QFileInfo::exists(last))
            m_db->setText(last);
    }
    QWidget::showEvent(e);
}

bool GalerasAnalysisView::analyze()
{
    try {
        TreatmentAnalysisOptions o;
        o.outcome = toUtf8(m_outcome->currentData().toString());
        for (const QString& c : confounders())
            o.confounders.push_back(toUtf8(c));
        if (o.confounders.empty()) {
            m_table->setPlainText(tr("Choose at least one confounder."));
            return false;
        }
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

GalerasRunPanel::GalerasRunPanel(RunController* run, QWidget* parent) : QWidget(parent), m_run(run)
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
    form->addRow(tr("Records:"), withPicker(m_records, tr("Galeras records"),
                                            tr("Records (*.jsonl *.ndjson *.json *.csv);;All files (*)"), false));
    form->addRow(tr("Testbed:"), m_testbed);
    form->addRow(tr("Treatments:"),
                 withPicker(m_treatments, tr("Galeras treatments"), tr("Treatments (*.json);;All files (*)"), false));
    form->addRow(tr("Runs database:"), withPicker(m_db, tr("Galeras runs database to write"), kRunsFilter, true));
    form->addRow(tr("Items:"), m_limit);
    form->addRow(tr("Max new tokens:"), m_maxNew);
    form->addRow(QString(), m_functionEnd);
    lay->addLayout(form);
    m_bar = new RunBar(m_run, QStringLiteral("galeras"), tr("Run Galeras"), this);
    m_bar->setStartToolTip(tr("Generate every testbed item under every treatment into a new runs database"));
    // Resume continues a runs database that holds fewer rows than it planned (issue 54: it stayed enabled after a
    // run was done).
    m_bar->setCanResume([this] { return galerasRunIncomplete(m_db->text()); });
    m_bar->setStatus(tr("Generates every testbed item under every treatment with the loaded model."));
    lay->addWidget(m_bar);
    connect(m_db, &QLineEdit::textChanged, m_bar, &RunBar::updateButtons);
    m_analysis = new GalerasAnalysisView(this);
    lay->addWidget(m_analysis, 1);
    connect(m_bar, &RunBar::buttonsUpdated, this, [this] {
        // the form is the run's while it goes
        for (QWidget* w : std::initializer_list<QWidget*>{m_records, m_treatments, m_db, m_testbed, m_limit, m_maxNew,
                                                          m_functionEnd})
            w->setEnabled(!isRunning());
    });
    connect(m_bar, &RunBar::startRequested, this, [this] { start(false); });
    connect(m_bar, &RunBar::resumeRequested, this, [this] { start(true); });
    connect(m_run, &RunController::finished, this, &GalerasRunPanel::onFinished);
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
    return m_bar->statusText();
}

void GalerasRunPanel::setStatus(const QString& text, bool error)
{
    m_bar->setStatus(text, error);
}

bool GalerasRunPanel::isRunning() const
{
    return m_run->isRunning() && m_run->kind() == QLatin1String("galeras");
}

void GalerasRunPanel::pause()
{
    if (isRunning())
        m_run->pause();
}

void GalerasRunPanel::cancel()
{
    if (isRunning())
        m_run->cancel();
}

bool GalerasRunPanel::start(bool resume)
{
    const int confounders = static_cast<int>(m_analysis->confounders().size());
    if (m_limit->value() > 0)
        if (const QString few = GalerasAnalysisView::tooFewRows(m_limit->value(), confounders); !few.isEmpty()) {
            setStatus(few, true);
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
    RunJob job;
    job.kind = QStringLiteral("galeras");
    job.what = tr("a Galeras run into %1").arg(QFileInfo(m_db->text()).fileName());
    job.itemsName = tr("rows");
    job.db = db;
    job.resume = resume;
    job.noModelText = tr("Load a model first (Model › Load): the run generates with it.");
    if (m_db->text().isEmpty())
        job.refusal = tr("Choose a runs database to write.");
    job.work = [opts, records, treatments, db, confounders](const LanguageModel& model, const RunControls& controls,
                                                            JobContext&) {
        const RecordSet rs = readRecords(records.empty() ? sampleCorpus() : std::filesystem::path(records));
        const TreatmentSet ts = readTreatments(treatments.empty() ? resourceDir() / "galeras" / "treatments.json"
                                                                  : std::filesystem::path(treatments));
        // The testbed's usable items (records without a docstring, over a limit, … are skipped): too few for
        // the analysis is said before the model generates anything.
        if (!opts.resume) {
            std::size_t items = buildTestbed(rs, opts.testbed, opts.seed).items.size();
            if (opts.limit > 0)
                items = std::min(items, opts.limit);
            if (const QString few = GalerasAnalysisView::tooFewRows(int(items), confounders); !few.isEmpty())
                throw InputError(toUtf8(few));
        }
        const GalerasRunSummary sum = runGaleras(model, rs, ts, db, opts, controls);
        RunEnd end;
        end.cancelled = sum.cancelled;
        end.done = sum.done + sum.resumed;
        end.total = sum.planned;
        end.detail = sum;
        return end;
    };
    if (!m_run->start(std::move(job)))
        return false;
    QSettings().setValue(lastDbKey(), QFileInfo(m_db->text()).absoluteFilePath());
    return true;
}

void GalerasRunPanel::onFinished(const RunEnd& end)
{
    if (end.kind != QLatin1String("galeras"))
        return;
    if (!end.ok()) {
        setStatus(tr("Galeras run failed: %1").arg(end.error), true);
        Q_EMIT runEnded(false, end.error);
        return;
    }
    const auto* sum = std::any_cast<GalerasRunSummary>(&end.detail);
    const bool complete = sum && !sum->cancelled && sum->done + sum->resumed == sum->planned;
    const QString msg =
        !sum ? tr("Stopped before the run started.")
        : complete
            ? tr("Done: %1 rows (%2 already there), %3 errors.").arg(sum->done).arg(sum->resumed).arg(sum->errors)
            : tr("Interrupted after %1 of %2 rows; Resume continues.").arg(sum->done + sum->resumed).arg(sum->planned);
    setStatus(msg);
    m_analysis->setDbPath(toQString(end.db.string()));
    if (sum && sum->done + sum->resumed > 0)
        m_analysis->analyze();
    Q_EMIT runEnded(complete, msg);
}

} // namespace ascviz::ui
