#include "pages/study/backgroundform.h"

#include "common/textpos.h"

#include <QButtonGroup>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace ascviz::ui {

BackgroundForm::BackgroundForm(std::vector<BackgroundQuestion> questions, QWidget* parent)
    : QWidget(parent), m_questions(std::move(questions))
{
    setObjectName(QStringLiteral("backgroundForm"));
    auto* l = new QVBoxLayout(this);
    auto* title = new QLabel(tr("<b>About you</b><br>Before the samples, a few questions about your background."));
    title->setWordWrap(true);
    l->addWidget(title);
    for (const auto& q : m_questions) {
        const QString id = toQString(q.id);
        auto* text = new QLabel(toQString(q.text), this);
        text->setWordWrap(true);
        l->addSpacing(8);
        l->addWidget(text);
        if (q.kind == "text") {
            auto* edit = new QLineEdit(this);
            edit->setObjectName(QStringLiteral("background_") + id);
            edit->setPlaceholderText(tr("Your answer (optional)"));
            m_texts.insert(id, edit);
            l->addWidget(edit);
            continue;
        }
        auto* row = new QHBoxLayout;
        auto* group = new QButtonGroup(this);
        group->setObjectName(QStringLiteral("background_") + id);
        for (std::size_t i = 0; i < q.options.size(); ++i) {
            auto* b = new QRadioButton(toQString(q.options[i]), this);
            group->addButton(b, int(i) + 1);
            row->addWidget(b);
        }
        row->addStretch(1);
        l->addLayout(row);
        m_groups.insert(id, group);
        connect(group, &QButtonGroup::idClicked, this, [this] { m_start->setEnabled(complete()); });
    }
    l->addStretch(1);
    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(QStringLiteral("backgroundStart"));
    m_start->setEnabled(complete());
    auto* bottom = new QHBoxLayout;
    bottom->addStretch(1);
    bottom->addWidget(m_start);
    l->addLayout(bottom);
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (complete())
            Q_EMIT submitted();
    });
}

std::map<std::string, std::string> BackgroundForm::answers() const
{
    std::map<std::string, std::string> out;
    for (const auto& q : m_questions) {
        const QString id = toQString(q.id);
        if (const auto* g = m_groups.value(id, nullptr); g && g->checkedId() > 0)
            out[q.id] = q.options.at(std::size_t(g->checkedId() - 1));
        else if (const auto* e = m_texts.value(id, nullptr))
            out[q.id] = toUtf8(e->text().trimmed());
    }
    return out;
}

bool BackgroundForm::complete() const
{
    for (const auto* g : m_groups)
        if (g->checkedId() <= 0)
            return false;
    return true;
}

} // namespace ascviz::ui
