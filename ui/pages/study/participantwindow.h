// Participant mode: a full-window screen that runs one participant through their trials (TrialScreen),
// writing every answer to the responses file as it is given (one SQLite transaction each), the trial's
// time and comment on Next, and resuming at the first trial not completed when reopened. The researcher
// ends it with the key combination the study file names (participant_mode.exit_key).
#pragma once
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"

#include <QElapsedTimer>
#include <QWidget>

#include <memory>
#include <optional>

namespace ascviz::ui {

class BackgroundForm;
class TrialScreen;

class ParticipantWindow : public QWidget {
    Q_OBJECT
public:
    // Opens the responses file and starts (or, with `resume`, resumes) the participant. Returns null with
    // `error` set when the file belongs to another study, the participant is unknown, or already has
    // responses and `resume` is false.
    static ParticipantWindow* open(std::shared_ptr<const Study> study, const QString& responsesPath,
                                   const QString& participant, bool resume, QString* error, QWidget* parent = nullptr);
    ~ParticipantWindow() override;

    TrialScreen* screen() const { return m_screen; }
    // The background section, shown before the first trial while the participant has not answered it
    // (null when the study has none or it was answered).
    BackgroundForm* backgroundForm() const { return m_background; }
    int currentTrial() const { return m_trial; } // = trialCount() when done
    int trialCount() const;
    QString participant() const { return m_participant; }
    bool isDone() const { return m_trial >= trialCount(); }

Q_SIGNALS:
    void trialCompleted(int trial);
    void participantDone();
    void closed(); // ended (exit key or window closed)

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    ParticipantWindow(std::shared_ptr<const Study> study, ResponsesDb db, const QString& participant, QWidget* parent);
    void showCurrent();
    void onAnswered(const QString& question, int point);
    void onNext();
    double elapsed() const;

    std::shared_ptr<const Study> m_study;
    std::optional<ResponsesDb> m_db;
    QString m_participant;
    int m_trial = 0;
    QElapsedTimer m_timer;
    TrialScreen* m_screen;
    BackgroundForm* m_background = nullptr;
};

} // namespace ascviz::ui
