#include "run/runbar.h"
#include "run/runcontroller.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ascviz::ui {

RunBar::RunBar(RunController* run, const QString& kind, const QString& startText, QWidget* parent)
    : QWidget(parent), m_run(run), m_kind(kind)
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    m_start = new QPushButton(startText, this);
    m_pause = new QPushButton(tr("Pause"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_resumeButton = new QPushButton(tr("Resume"), this);
    m_pause->setToolTip(tr("Wait after the current item"));
    m_cancel->setToolTip(tr("Stop after the current item; what it finished is kept and Resume continues it"));
    m_resumeButton->setToolTip(tr("Continue a paused run, or an interrupted run stored in the results file"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%v / %m"));
    for (auto* b : {m_start, m_pause, m_cancel, m_resumeButton})
        row->addWidget(b);
    row->addWidget(m_progress, 1);
    lay->addLayout(row);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    lay->addWidget(m_status);

    connect(m_start, &QPushButton::clicked, this, &RunBar::startRequested);
    connect(m_pause, &QPushButton::clicked, m_run, &RunController::pause);
    connect(m_cancel, &QPushButton::clicked, m_run, &RunController::cancel);
    connect(m_resumeButton, &QPushButton::clicked, this, [this] {
        if (m_run->isRunning())
            m_run->unpause();
        else
            Q_EMIT resumeRequested();
    });
    connect(m_run, &RunController::runStarting, this, [this](const QString& k) {
        if (k == m_kind)
            m_progress->setRange(0, 0); // busy until the first progress report
    });
    connect(m_run, &RunController::progressed, this, &RunBar::onProgress);
    connect(m_run, &RunController::statusChanged, this, [this](const QString& k, const QString& text, bool error) {
        if (k == m_kind)
            setStatus(text, error);
    });
    connect(m_run, &RunController::stateChanged, this, &RunBar::updateButtons);
    connect(m_run, &RunController::finished, this, &RunBar::onFinished);
    updateButtons();
}

void RunBar::setCanResume(std::function<bool()> canResume)
{
    m_canResume = std::move(canResume);
    updateButtons();
}

void RunBar::setStartToolTip(const QString& tip)
{
    m_startTip = tip;
    updateButtons();
}

void RunBar::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#a01818") : QString());
}

QString RunBar::statusText() const
{
    return m_status->text();
}

bool RunBar::ownsRun() const
{
    return m_run->kind() == m_kind;
}

bool RunBar::canResume() const
{
    return m_resumeButton->isEnabled();
}

void RunBar::updateButtons()
{
    const bool running = m_run->isRunning(), mine = running && ownsRun();
    const bool paused = mine && m_run->isPaused(), stopping = mine && m_run->isCancelling();
    m_start->setEnabled(!running);
    m_pause->setEnabled(mine && !paused && !stopping);
    m_cancel->setEnabled(mine && !stopping);
    m_resumeButton->setEnabled(running ? paused : m_canResume && m_canResume());
    const QString work = m_run->runningWork();
    m_start->setToolTip(running && !mine
                            ? tr("%1 is going: one run at a time.").arg(work.left(1).toUpper() + work.mid(1))
                            : m_startTip);
    Q_EMIT buttonsUpdated(running);
}

void RunBar::onProgress(const QString& kind, const RunProgress& p)
{
    if (kind != m_kind)
        return;
    m_progress->setRange(0, std::max(1, p.total));
    m_progress->setValue(p.done);
    setStatus(runProgressText(p, m_run->itemsName()));
    updateButtons();
}

void RunBar::onFinished(const RunEnd& end)
{
    if (end.kind != m_kind)
        return;
    if (m_progress->maximum() == 0)
        m_progress->setRange(0, 1);
    if (end.ok() && end.started && end.total > 0) {
        m_progress->setRange(0, std::max(1, end.total));
        m_progress->setValue(end.done);
    }
}

} // namespace ascviz::ui
