#include "pages/study/participantwindow.h"

#include "pages/study/backgroundform.h"

#include "common/textpos.h"
#include "pages/study/trialscreen.h"

#include "ascviz/base/error.h"

#include <QCloseEvent>
#include <QKeySequence>
#include <QShortcut>
#include <QVBoxLayout>

namespace ascviz::ui {

ParticipantWindow* ParticipantWindow::open(std::shared_ptr<const Study> study, const QString& responsesPath,
                                           const QString& participant, bool resume, QString* error, QWidget* parent)
{
    try {
        auto db = ResponsesDb::open(toUtf8(responsesPath), *study);
        db.startParticipant(toUtf8(participant), resume);
        return new ParticipantWindow(std::move(study), std::move(db), participant, parent);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return nullptr;
    }
}

ParticipantWindow::ParticipantWindow(std::shared_ptr<const Study> study, ResponsesDb db, const QString& participant,
                                     QWidget* parent)
    : QWidget(parent, Qt::Window), m_study(std::move(study)), m_db(std::move(db)), m_participant(participant)
{
    setAttribute(Qt::WA_DeleteOnClose, false);
    setWindowTitle(tr("Study"));
    auto* l = new QVBoxLayout(this);
    m_screen = new TrialScreen(m_study, this);
    l->addWidget(m_screen);
    connect(m_screen, &TrialScreen::answered, this, &ParticipantWindow::onAnswered);
    connect(m_screen, &TrialScreen::nextClicked, this, &ParticipantWindow::onNext);
    connect(m_screen, &TrialScreen::commentEdited, this, [this](const QString& text) {
        if (isDone())
            return;
        try {
            m_db->saveCommentDraft(toUtf8(m_participant), m_trial, toUtf8(text));
        } catch (const std::exception& e) {
            m_screen->setError(tr("Your comment could not be saved (%1).").arg(toQString(e.what())));
        }
    });
    auto* exit = new QShortcut(QKeySequence(toQString(m_study->exitKey)), this);
    exit->setContext(Qt::WindowShortcut);
    connect(exit, &QShortcut::activated, this, &QWidget::close);
    m_trial = m_db->firstOpenTrial(toUtf8(m_participant));
    // The background section first, unless answered (a resumed participant) or the trials are under way.
    const auto given = m_db->backgroundAnswers();
    if (!m_study->background.empty() && m_trial == 0 && !given.count(toUtf8(m_participant))) {
        m_background = new BackgroundForm(m_study->background, this);
        l->insertWidget(0, m_background);
        m_screen->hide();
        connect(m_background, &BackgroundForm::submitted, this, [this] {
            try {
                m_db->recordBackground(toUtf8(m_participant), m_background->answers());
            } catch (const std::exception& e) {
                m_screen->setError(
                    tr("Your answers could not be saved (%1). Please tell the researcher.").arg(toQString(e.what())));
            }
            m_background->hide();
            m_background->deleteLater();
            m_background = nullptr;
            m_screen->show();
            showCurrent();
        });
    }
    showCurrent();
}

ParticipantWindow::~ParticipantWindow() = default;

int ParticipantWindow::trialCount() const
{
    const auto* p = m_study->participant(toUtf8(m_participant));
    return p ? int(p->trials.size()) : 0;
}

double ParticipantWindow::elapsed() const
{
    return double(m_timer.elapsed()) / 1000.0;
}

void ParticipantWindow::showCurrent()
{
    if (isDone()) {
        m_screen->showDone();
        Q_EMIT participantDone();
        return;
    }
    const std::string pid = toUtf8(m_participant);
    const auto& trial = m_study->participant(pid)->trials[std::size_t(m_trial)];
    QMap<QString, int> given;
    for (const auto& [q, a] : m_db->answers(pid, m_trial))
        given.insert(toQString(q), a);
    m_screen->showTrial(m_trial, trialCount(), trial, given, toQString(m_db->comment(pid, m_trial)));
    m_timer.start();
}

void ParticipantWindow::onAnswered(const QString& question, int point)
{
    try {
        m_db->recordAnswer(toUtf8(m_participant), m_trial, toUtf8(question), point, elapsed());
        m_screen->setError({});
    } catch (const std::exception& e) {
        m_screen->setError(
            tr("Your answer could not be saved (%1). Please tell the researcher.").arg(toQString(e.what())));
    }
}

void ParticipantWindow::onNext()
{
    if (isDone())
        return;
    try {
        m_db->completeTrial(toUtf8(m_participant), m_trial, elapsed(), toUtf8(m_screen->comment().trimmed()));
    } catch (const std::exception& e) {
        m_screen->setError(
            tr("This trial could not be saved (%1). Please tell the researcher.").arg(toQString(e.what())));
        return;
    }
    Q_EMIT trialCompleted(m_trial);
    ++m_trial;
    showCurrent();
}

void ParticipantWindow::closeEvent(QCloseEvent* e)
{
    Q_EMIT closed();
    e->accept();
}

} // namespace ascviz::ui
