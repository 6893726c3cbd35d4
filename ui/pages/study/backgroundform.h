// The background section of a survey (method.md §9): the study file's background questions, asked once
// before a participant's first trial — a row of choices per choice question, a line of text per text
// question. Start is enabled once every choice question is answered (text may stay empty).
#pragma once
#include "ascviz/study/study.h"

#include <QMap>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QButtonGroup;
class QLineEdit;
class QPushButton;

namespace ascviz::ui {

class BackgroundForm : public QWidget {
    Q_OBJECT
public:
    BackgroundForm(std::vector<BackgroundQuestion> questions, QWidget* parent = nullptr);
    // question id -> the chosen option's text or the typed text (unanswered choices are left out).
    std::map<std::string, std::string> answers() const;
    bool complete() const;
    QPushButton* startButton() const { return m_start; }
    QButtonGroup* choices(const QString& question) const { return m_groups.value(question, nullptr); }
    QLineEdit* textField(const QString& question) const { return m_texts.value(question, nullptr); }

Q_SIGNALS:
    void submitted();

private:
    std::vector<BackgroundQuestion> m_questions;
    QMap<QString, QButtonGroup*> m_groups;
    QMap<QString, QLineEdit*> m_texts;
    QPushButton* m_start;
};

} // namespace ascviz::ui
