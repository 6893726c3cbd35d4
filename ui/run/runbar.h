// The progress widget and buttons of a corpus run, the same for every kind (Batch, Galeras): Start (the view's),
// Pause, Cancel (Stop: after the current item, the file stays resumable), Resume (a paused run, or the view's
// resume of a stored run), the progress bar and the status line. It shows the RunController's run of its own
// kind; while a run of another kind is going, its Start and Resume are off and the line says which run it is.
#pragma once
#include "ascviz/corpusrun/engine.h"

#include <QWidget>

#include <functional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ascviz::ui {

class RunController;
struct RunEnd;

class RunBar : public QWidget {
    Q_OBJECT
public:
    RunBar(RunController* run, const QString& kind, const QString& startText, QWidget* parent = nullptr);

    // Whether Resume continues a stored run when no run is going (the view decides: its file is unfinished).
    void setCanResume(std::function<bool()> canResume);
    void setStartToolTip(const QString& tip);
    void setStatus(const QString& text, bool error = false);
    QString statusText() const;
    // Whether the controller's run (going or last) is of this bar's kind.
    bool ownsRun() const;
    bool canResume() const;
    void updateButtons();

    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* resumeButton() const { return m_resumeButton; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

Q_SIGNALS:
    void startRequested();
    void resumeRequested(); // Resume with no paused run: continue the stored run
    void buttonsUpdated(bool running);

private:
    void onProgress(const QString& kind, const RunProgress& p);
    void onFinished(const RunEnd& end);

    RunController* m_run;
    QString m_kind;
    std::function<bool()> m_canResume;
    QString m_startTip;
    QPushButton *m_start = nullptr, *m_pause = nullptr, *m_cancel = nullptr, *m_resumeButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace ascviz::ui
