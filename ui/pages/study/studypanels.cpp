// The Study page's widgets: the design form, the run box (study, responses, participants) and the report.
#include "pages/study/likertchart.h"
#include "pages/study/studypage.h"

#include "common/textpos.h"

#include "ascviz/study/study.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ascviz::ui {

void StudyPage::buildUi()
{
    auto* outer = new QHBoxLayout(this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    auto* scroll = new QScrollArea(split);
    scroll->setWidgetResizable(true);
    auto* left = new QWidget(scroll);
    auto* ll = new QVBoxLayout(left);
    ll->addWidget(buildDesignBox());
    ll->addWidget(buildRunBox(), 1);
    scroll->setWidget(left);
    split->addWidget(scroll);
    split->addWidget(buildReportBox());
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    outer->addWidget(split);
}

QWidget* StudyPage::buildDesignBox()
{
    auto* box = new QGroupBox(tr("Design a study"), this);
    auto* form = new QFormLayout(box);
    m_studyName = new QLineEdit(box);
    m_studyName->setPlaceholderText(tr("a name (default: made from the content)"));
    form->addRow(tr("Name"), m_studyName);

    m_source = new QComboBox(box);
    m_source->addItem(tr("Bundled sample corpus"), QStringLiteral("default"));
    m_source->addItem(tr("Corpus file or folder"), QStringLiteral("file"));
    m_corpusPath = new QLineEdit(box);
    m_corpusPath->setPlaceholderText(tr("JSON Lines, CSV or a folder of source files"));
    m_corpusPath->setEnabled(false);
    connect(m_source, &QComboBox::currentIndexChanged, this,
            [this](int) { m_corpusPath->setEnabled(m_source->currentData().toString() == QLatin1String("file")); });
    form->addRow(tr("Samples from"), m_source);
    form->addRow(tr("Corpus"), m_corpusPath);
    m_includeInteractive = new QCheckBox(tr("include the current Interactive result as a sample"), box);
    form->addRow(QString(), m_includeInteractive);

    m_samples = new QSpinBox(box);
    m_samples->setRange(1, 400);
    m_samples->setValue(8);
    form->addRow(tr("Samples"), m_samples);
    m_participants = new QSpinBox(box);
    m_participants->setRange(1, 999);
    m_participants->setValue(8);
    form->addRow(tr("Participants"), m_participants);
    m_seed = new QSpinBox(box);
    m_seed->setRange(0, 1 << 30);
    form->addRow(tr("Seed"), m_seed);

    auto* conds = new QWidget(box);
    auto* cl = new QGridLayout(conds);
    cl->setContentsMargins(0, 0, 0, 0);
    int ci = 0;
    for (const auto& c : studyConditionNames()) {
        auto* b = new QCheckBox(QStringLiteral("%1 (%2)").arg(toQString(c), toQString(conditionDescription(c))), conds);
        b->setChecked(true);
        m_conditions.insert(toQString(c), b);
        cl->addWidget(b, ci / 2, ci % 2);
        ++ci;
    }
    form->addRow(tr("Conditions"), conds);
    m_design = new QComboBox(box);
    m_design->addItem(tr("Within subjects: every participant sees every condition"), QStringLiteral("within"));
    m_design->addItem(tr("Between subjects: one condition per participant"), QStringLiteral("between"));
    form->addRow(tr("Design"), m_design);
    m_background = new QCheckBox(tr("Ask the background questions first"), box);
    m_background->setToolTip(tr("Python proficiency, familiarity with LLMs for code, AST knowledge, problems faced: "
                                "editable in the study file"));
    form->addRow(tr("Background"), m_background);

    m_points = new QComboBox(box);
    m_points->addItem(tr("5-point scale"), 5);
    m_points->addItem(tr("4-point scale"), 4);
    form->addRow(tr("Scale"), m_points);
    m_labels = new QLineEdit(box);
    m_labels->setToolTip(tr("The scale's labels, lowest first, separated by commas"));
    form->addRow(tr("Labels"), m_labels);
    connect(m_points, &QComboBox::currentIndexChanged, this, [this](int) { onPointsChanged(); });
    onPointsChanged();
    for (const auto& q : defaultStudyQuestions(5)) {
        auto* e = new QLineEdit(toQString(q.text), box);
        m_questions.insert(toQString(q.id), e);
        form->addRow(tr("Question \"%1\"").arg(toQString(q.id)), e);
    }
    m_exitKey = new QLineEdit(toQString(Study().exitKey), box);
    m_exitKey->setToolTip(tr("The key combination that ends participant mode (for the researcher)"));
    form->addRow(tr("Exit key"), m_exitKey);

    auto* row = new QWidget(box);
    auto* rl = new QHBoxLayout(row);
    rl->setContentsMargins(0, 0, 0, 0);
    m_create = new QPushButton(tr("Create study…"), row);
    m_cancel = new QPushButton(tr("Cancel"), row);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(row);
    m_progress->setVisible(false);
    rl->addWidget(m_create);
    rl->addWidget(m_cancel);
    rl->addWidget(m_progress, 1);
    form->addRow(row);
    connect(m_create, &QPushButton::clicked, this, &StudyPage::onCreateClicked);
    connect(m_cancel, &QPushButton::clicked, this, &StudyPage::cancelCreation);
    return box;
}

QWidget* StudyPage::buildRunBox()
{
    auto* box = new QGroupBox(tr("Run"), this);
    auto* l = new QVBoxLayout(box);
    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open study…"), box);
    auto* responses = new QPushButton(tr("Responses file…"), box);
    m_start = new QPushButton(tr("Start participant…"), box);
    m_start->setEnabled(false);
    buttons->addWidget(open);
    buttons->addWidget(responses);
    buttons->addStretch(1);
    buttons->addWidget(m_start);
    l->addLayout(buttons);
    m_studyInfo = new QLabel(tr("No study open."), box);
    m_studyInfo->setWordWrap(true);
    m_studyInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->addWidget(m_studyInfo);
    m_table = new QTableWidget(0, 3, box);
    m_table->setHorizontalHeaderLabels({tr("Participant"), tr("Progress"), tr("Status")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    l->addWidget(m_table, 1);
    m_status = new QLabel(box);
    m_status->setWordWrap(true);
    l->addWidget(m_status);
    connect(open, &QPushButton::clicked, this, &StudyPage::onOpenStudyClicked);
    connect(responses, &QPushButton::clicked, this, &StudyPage::onOpenResponsesClicked);
    connect(m_start, &QPushButton::clicked, this, &StudyPage::onStartClicked);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int, int) { onStartClicked(); });
    return box;
}

QWidget* StudyPage::buildReportBox()
{
    auto* box = new QGroupBox(tr("Report"), this);
    auto* l = new QVBoxLayout(box);
    auto* scroll = new QScrollArea(box);
    scroll->setWidgetResizable(true);
    m_chart = new LikertChart(scroll);
    scroll->setWidget(m_chart);
    l->addWidget(scroll, 1);
    auto* row = new QHBoxLayout;
    auto* svg = new QPushButton(tr("Export chart SVG/PDF…"), box);
    auto* csv = new QPushButton(tr("Export answers (CSV)…"), box);
    auto* json = new QPushButton(tr("Export report (JSON)…"), box);
    auto* refreshButton = new QPushButton(tr("Refresh"), box);
    row->addWidget(refreshButton);
    row->addStretch(1);
    row->addWidget(svg);
    row->addWidget(csv);
    row->addWidget(json);
    l->addLayout(row);
    connect(refreshButton, &QPushButton::clicked, this, &StudyPage::refresh);
    connect(svg, &QPushButton::clicked, this, [this] { exportWithDialog(ExportKind::Svg); });
    connect(csv, &QPushButton::clicked, this, [this] { exportWithDialog(ExportKind::Csv); });
    connect(json, &QPushButton::clicked, this, [this] { exportWithDialog(ExportKind::Json); });
    return box;
}

void StudyPage::onPointsChanged()
{
    const int points = m_points->currentData().toInt();
    QStringList labels;
    for (const auto& l : defaultLikertLabels(points))
        labels << toQString(l);
    m_labels->setText(labels.join(QStringLiteral(", ")));
}

} // namespace ascviz::ui
