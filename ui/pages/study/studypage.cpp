// The Study page's logic: creating a study (a JobTracker job), opening it, participants, the report.
#include "pages/study/studypage.h"

#include "common/textpos.h"
#include "pages/study/likertchart.h"
#include "pages/study/participantwindow.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "services/resultstore.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/results/corpus.h"
#include "ascviz/study/responses.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableWidget>

#include <fstream>

namespace ascviz::ui {

StudyPage::StudyPage(ModelService* models, ResultStore* results, QWidget* parent)
    : QWidget(parent), m_models(models), m_results(results)
{
    buildUi();
}

StudyPage::~StudyPage()
{
    if (m_job)
        m_models->jobs()->cancel(m_job);
    if (m_participant)
        delete m_participant.data();
}

QList<QAction*> StudyPage::menuActions()
{
    auto* open = new QAction(tr("Open study…"), this);
    connect(open, &QAction::triggered, this, &StudyPage::onOpenStudyClicked);
    auto* start = new QAction(tr("Start participant…"), this);
    connect(start, &QAction::triggered, this, &StudyPage::onStartClicked);
    return {open, start};
}

const std::optional<StudyReport>& StudyPage::report() const
{
    return m_report;
}

void StudyPage::setStatus(const QString& text, bool error)
{
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
    m_status->setText(text);
}

StudyDesign StudyPage::designFromForm() const
{
    StudyDesign d;
    d.id = toUtf8(m_studyName->text().trimmed());
    d.seed = uint64_t(m_seed->value());
    d.participants = m_participants->value();
    d.conditions.clear();
    for (const auto& c : studyConditionNames())
        if (m_conditions.value(toQString(c))->isChecked())
            d.conditions.push_back(c);
    d.design = parseStudyDesign(toUtf8(m_design->currentData().toString()));
    if (m_background->isChecked())
        d.background = defaultBackgroundQuestions();
    const int points = m_points->currentData().toInt();
    std::vector<std::string> labels;
    for (const QString& l : m_labels->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        labels.push_back(toUtf8(l.trimmed()));
    d.questions = defaultStudyQuestions(points);
    for (auto& q : d.questions) {
        q.labels = labels;
        if (auto* e = m_questions.value(toQString(q.id)); e && !e->text().trimmed().isEmpty())
            q.text = toUtf8(e->text().trimmed());
    }
    return d;
}

bool StudyPage::createStudy(const QString& path, QString* error)
{
    auto fail = [error](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    if (m_job)
        return fail(tr("a study is being created already"));
    if (QFileInfo::exists(path))
        return fail(tr("%1 exists already; not overwritten (choose another name)").arg(path));
    StudyDesign d = designFromForm();
    const int total = m_samples->value();
    // The design's arithmetic is checked before any model work.
    try {
        if (int(d.questions.front().labels.size()) != m_points->currentData().toInt())
            throw InputError("the scale needs " + std::to_string(m_points->currentData().toInt()) +
                             " labels separated by commas");
        if (d.design == StudyDesignKind::Between)
            assignTrialsBetween(total, d.conditions, d.participants, d.seed);
        else
            assignTrials(total, d.conditions, d.participants, d.seed);
    } catch (const std::exception& e) {
        return fail(toQString(e.what()));
    }
    // An assignment that cannot balance is said with the result (as the CLI's note).
    const QString balance = toQString(studyBalanceNote(d));
    AnalysisPtr interactive = m_includeInteractive->isChecked() ? m_results->interactiveResult() : nullptr;
    if (m_includeInteractive->isChecked() && (!interactive || !interactive->eval))
        return fail(tr("there is no Interactive result to include"));
    const int fromCorpus = total - (interactive ? 1 : 0);
    std::shared_ptr<const LanguageModel> model = m_models->model();
    if (fromCorpus > 0 && !model)
        return fail(tr("load a model first: the samples are evaluated when the study is created"));
    const bool useFile = m_source->currentData().toString() == QLatin1String("file");
    if (useFile && fromCorpus > 0 && m_corpusPath->text().trimmed().isEmpty())
        return fail(tr("choose a corpus file"));
    const std::string corpusPath = useFile ? toUtf8(m_corpusPath->text().trimmed()) : sampleCorpus().string();
    d.source = fromCorpus > 0 ? corpusPath : "interactive";
    d.model = model ? model->info().name : (interactive ? interactive->eval->scored.model : std::string());
    std::shared_ptr<const EvalResult> interactiveEval = interactive ? interactive->eval : nullptr;
    const std::string out = toUtf8(path);
    const std::string exitKey = toUtf8(m_exitKey->text().trimmed());
    auto hold = fromCorpus > 0 ? std::make_shared<std::shared_ptr<void>>(m_models->hold(tr("Creating a study")))
                               : std::shared_ptr<std::shared_ptr<void>>();
    auto work = [d, fromCorpus, corpusPath, model, interactiveEval, out, exitKey, hold](JobContext& ctx) {
        std::vector<StudySample> samples;
        if (interactiveEval) {
            StudySample s;
            s.id = "interactive";
            s.language = interactiveEval->tree.language();
            s.eval = interactiveEval;
            samples.push_back(std::move(s));
        }
        if (fromCorpus > 0) {
            const Corpus corpus = readCorpus(corpusPath);
            if (std::size_t(fromCorpus) > corpus.entries.size())
                throw InputError("the corpus " + corpusPath + " has " + std::to_string(corpus.entries.size()) +
                                 " usable entries, fewer than the " + std::to_string(fromCorpus) +
                                 " samples asked for");
            const auto picked = drawSamples(corpus.entries.size(), fromCorpus, d.seed);
            for (std::size_t i = 0; i < picked.size(); ++i) {
                if (ctx.isCancelled())
                    throw Cancelled();
                const CorpusEntry& e = corpus.entries[picked[i]];
                ctx.setProgress(double(i) / double(picked.size()),
                                tr("Evaluating sample %1 of %2").arg(i + 1).arg(picked.size()));
                // the corpus's code is human-written: no token is flagged generated (issue 44)
                ScoredText s = model->score(e.code);
                samples.push_back(makeStudySample(e.id, e.language, std::move(s), d.aggregation));
            }
        }
        Study st = makeStudy(d, std::move(samples));
        if (!exitKey.empty())
            st.exitKey = exitKey;
        writeStudyFile(out, st);
    };
    JobTracker::Callbacks cb;
    auto* tracker = m_models->jobs();
    auto finishUi = [this] {
        m_job = 0;
        m_create->setEnabled(true);
        m_cancel->setEnabled(false);
        m_progress->setVisible(false);
    };
    cb.finished = [this, path, finishUi, balance] {
        finishUi();
        QString err;
        if (!QFileInfo::exists(path)) {
            setStatus(tr("Creating the study was cancelled."), true);
            Q_EMIT creationFailed(tr("cancelled"));
            return;
        }
        if (!openStudy(path, &err)) {
            setStatus(err, true);
            Q_EMIT creationFailed(err);
            return;
        }
        setStatus(balance.isEmpty() ? tr("Created %1.").arg(path) : tr("Created %1. Note: %2.").arg(path, balance));
        Q_EMIT studyCreated(path);
    };
    cb.failed = [this, finishUi](const QString& message) {
        finishUi();
        const bool cancelled = message == QLatin1String("cancelled");
        setStatus(cancelled ? tr("Creating the study was cancelled.") : message, true);
        Q_EMIT creationFailed(message);
    };
    cb.progress = [this](double f, const QString& text) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(f * 1000));
        if (!text.isEmpty())
            setStatus(text);
    };
    m_create->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setVisible(true);
    m_progress->setValue(0);
    setStatus(tr("Creating the study…"));
    m_job = tracker->start(tr("Creating a study"), QStringLiteral("study"), std::move(work), this, std::move(cb));
    return true;
}

void StudyPage::cancelCreation()
{
    if (m_job)
        m_models->jobs()->cancel(m_job);
}

bool StudyPage::openStudy(const QString& path, QString* error)
{
    try {
        auto s = std::make_shared<const Study>(readStudyFile(toUtf8(path)));
        m_study = std::move(s);
        m_studyPath = path;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    const QFileInfo fi(path);
    const QString responses = fi.dir().filePath(fi.completeBaseName() + QStringLiteral(".responses.sqlite"));
    QString err;
    if (!setResponsesFile(responses, &err)) {
        m_responsesPath.clear();
        setStatus(err, true);
    }
    m_start->setEnabled(true);
    m_studyInfo->setText(
        tr("<b>%1</b> (%2): %3 samples, conditions %4, %5 questions, %6 participants.<br>"
           "Model (not shown to participants): %7. Exit key in participant mode: <code>%8</code>.")
            .arg(toQString(m_study->id).toHtmlEscaped(), path.toHtmlEscaped())
            .arg(m_study->samples.size())
            .arg(toQString([&] {
                std::string c;
                for (const auto& x : m_study->conditions)
                    c += (c.empty() ? "" : ", ") + x;
                return c;
            }()))
            .arg(m_study->questions.size())
            .arg(m_study->participants.size())
            .arg(toQString(m_study->model).toHtmlEscaped(), toQString(m_study->exitKey).toHtmlEscaped()));
    refresh();
    Q_EMIT studyOpened();
    return true;
}

bool StudyPage::setResponsesFile(const QString& path, QString* error)
{
    if (!m_study) {
        if (error)
            *error = tr("open a study first");
        return false;
    }
    if (QFileInfo::exists(path)) {
        try {
            ResponsesDb::open(toUtf8(path), *m_study); // refuses another study's file, changes nothing
        } catch (const std::exception& e) {
            if (error)
                *error = toQString(e.what());
            return false;
        }
    }
    m_responsesPath = path;
    refresh();
    return true;
}

ParticipantWindow* StudyPage::startParticipant(const QString& id, bool resume, bool fullScreen, QString* error)
{
    if (!m_study || m_responsesPath.isEmpty()) {
        if (error)
            *error = tr("open a study (and its responses file) first");
        return nullptr;
    }
    if (m_participant) {
        if (error)
            *error = tr("participant %1 is running").arg(m_participant->participant());
        return nullptr;
    }
    auto* w = ParticipantWindow::open(m_study, m_responsesPath, id, resume, error, nullptr);
    if (!w)
        return nullptr;
    w->setAttribute(Qt::WA_DeleteOnClose, true);
    m_participant = w;
    connect(w, &ParticipantWindow::trialCompleted, this, &StudyPage::refresh);
    connect(w, &ParticipantWindow::closed, this, &StudyPage::refresh);
    if (fullScreen)
        w->showFullScreen();
    else
        w->show();
    return w;
}

void StudyPage::onCreateClicked()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Create study"), QStringLiteral("study.json"), tr("Study files (*.json)"),
                                     nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    QString err;
    if (!createStudy(path, &err))
        setStatus(err, true);
}

void StudyPage::onOpenStudyClicked()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open study"), QString(), tr("Study files (*.json)"));
    if (path.isEmpty())
        return;
    QString err;
    if (!openStudy(path, &err))
        setStatus(err, true);
}

void StudyPage::onOpenResponsesClicked()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Responses file"), m_responsesPath, tr("Responses (*.sqlite)"), nullptr,
                                     QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    QString err;
    if (!setResponsesFile(path, &err))
        setStatus(err, true);
    else
        setStatus(tr("Responses go to %1.").arg(path));
}

void StudyPage::onStartClicked()
{
    if (!m_study)
        return;
    QString id;
    const int row = m_table->currentRow();
    if (row >= 0 && m_table->item(row, 0))
        id = m_table->item(row, 0)->text();
    if (id.isEmpty()) {
        QStringList ids;
        for (const auto& p : m_study->participants)
            ids << toQString(p.id);
        bool ok = false;
        id = QInputDialog::getItem(this, tr("Start participant"), tr("Participant"), ids, 0, false, &ok);
        if (!ok)
            return;
    }
    bool resume = false;
    if (QFileInfo::exists(m_responsesPath)) {
        try {
            const auto db = ResponsesDb::openExisting(toUtf8(m_responsesPath));
            if (db.hasParticipant(toUtf8(id))) {
                const int open = db.firstOpenTrial(toUtf8(id));
                const int total = int(m_study->participant(toUtf8(id))->trials.size());
                if (QMessageBox::question(
                        this, tr("Start participant"),
                        tr("%1 has responses already (%2 of %3 trials completed). Resume at the first "
                           "open trial?")
                            .arg(id)
                            .arg(open)
                            .arg(total)) != QMessageBox::Yes)
                    return;
                resume = true;
            }
        } catch (const std::exception& e) {
            setStatus(toQString(e.what()), true);
            return;
        }
    }
    QString err;
    if (!startParticipant(id, resume, true, &err))
        setStatus(err, true);
    else
        setStatus(tr("Participant %1 is running; %2 ends participant mode.").arg(id, toQString(m_study->exitKey)));
}

} // namespace ascviz::ui
