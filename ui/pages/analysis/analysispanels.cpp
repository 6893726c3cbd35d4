// The Analysis page's widgets (analysispage.h).
#include "pages/analysis/analysispage.h"

#include "models/analysismodels.h"
#include "pages/analysis/layertab.h"
#include "pages/galeras/galeraspanel.h"
#include "views/tableview.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QSvgWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ascviz::ui {

void AnalysisPage::buildUi()
{
    auto* top = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_set = new QComboBox(this);
    m_set->setMinimumContentsLength(24);
    m_set->setToolTip(tr("A results database opened in the Batch tab"));
    m_by = new QComboBox(this);
    m_by->addItem(tr("Global"), int(CausalBy::Global));
    m_by->addItem(tr("Per category"), int(CausalBy::Category));
    m_by->addItem(tr("Per concept"), int(CausalBy::Concept));
    m_by->setToolTip(tr("The treatment T: the snippet's AsC-Eval, and also restricted to each category or concept "
                        "(snippets without one are excluded)"));
    m_minSnippets = new QSpinBox(this);
    m_minSnippets->setRange(7, 100000);
    m_minSnippets->setValue(CausalOptions{}.minSnippets);
    m_minSnippets->setToolTip(tr("Groups with fewer snippets get ρ only (no effect)"));
    m_run = new QPushButton(tr("Analyse"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    bar->addWidget(new QLabel(tr("Results"), this));
    bar->addWidget(m_set, 1);
    bar->addWidget(new QLabel(tr("Treatment"), this));
    bar->addWidget(m_by);
    bar->addWidget(new QLabel(tr("Min. snippets"), this));
    bar->addWidget(m_minSnippets);
    bar->addWidget(m_run);
    bar->addWidget(m_cancel);
    top->addLayout(bar);
    m_status = new QLabel(tr("Open a results database in the Batch tab, then Analyse."), this);
    m_status->setWordWrap(true);
    top->addWidget(m_status);

    m_tabs = new QTabWidget(this);
    // Causal: the Table II rows, and the scatter of the selected row.
    auto* causal = new QSplitter(Qt::Vertical, m_tabs);
    m_causalModel = new CausalTableModel(this);
    m_causalView = makeSortedResultTable(causal, m_causalModel);
    m_causalProxy = qobject_cast<QSortFilterProxyModel*>(m_causalView->model());
    m_scatter = new QChartView(new QChart, causal);
    m_scatter->setRenderHint(QPainter::Antialiasing);
    // A real plot: the title, the legend and two axis captions took ~170 px of the former 220 px minimum, which
    // left a ~50 px strip of plot. The legend goes right, the view keeps at least 380 px and the larger share.
    m_scatter->setMinimumHeight(380);
    m_scatter->chart()->legend()->setAlignment(Qt::AlignRight);
    m_scatter->chart()->setMargins(QMargins(4, 4, 4, 4));
    causal->addWidget(m_causalView);
    causal->addWidget(m_scatter);
    causal->setStretchFactor(0, 1);
    causal->setStretchFactor(1, 2);
    causal->setChildrenCollapsible(false);
    m_tabs->addTab(causal, tr("AsC-Causal"));
    // PERPLEXED: four ranked lists and the calls summary.
    auto* perplexed = new QWidget(m_tabs);
    auto* grid = new QGridLayout(perplexed);
    const QString titles[4] = {tr("Worst tokens"), tr("Best tokens"), tr("Worst AST labels"), tr("Best AST labels")};
    for (int i = 0; i < 4; ++i) {
        m_ceModels[i] = new CeTableModel(i < 2 ? tr("Token") : tr("Label (parent -> type)"), i < 2, this);
        auto* box = new QGroupBox(titles[i], perplexed);
        auto* l = new QVBoxLayout(box);
        auto* v = makeSortedResultTable(box, m_ceModels[i]);
        l->addWidget(v);
        grid->addWidget(box, i / 2, i % 2);
    }
    m_calls = new QLabel(perplexed);
    m_calls->setWordWrap(true);
    grid->addWidget(m_calls, 2, 0, 1, 2);
    m_tabs->addTab(perplexed, tr("PERPLEXED"));
    // Heat map of every open results database.
    auto* heat = new QWidget(m_tabs);
    auto* hl = new QVBoxLayout(heat);
    m_heatmapWarning = new QLabel(heat);
    m_heatmapWarning->setWordWrap(true);
    m_heatmapWarning->setStyleSheet(QStringLiteral("color:#8a5a00"));
    m_heatmapWarning->hide();
    hl->addWidget(m_heatmapWarning);
    m_heatmap = new QSvgWidget(heat);
    hl->addWidget(m_heatmap, 1, Qt::AlignTop | Qt::AlignLeft);
    hl->addStretch(1);
    m_tabs->addTab(heat, tr("Heat map"));
    // Galeras treatments (docs/galeras.md): the effects over a `galeras run` database; no export.
    m_treatments = new GalerasAnalysisView(m_tabs);
    m_tabs->addTab(m_treatments, tr("Treatments"));
    m_tabs->addTab(new LayerTab(m_models, m_tabs), tr("Layers")); // the layer lens (method.md 13)
    top->addWidget(m_tabs, 1);

    connect(m_run, &QPushButton::clicked, this, &AnalysisPage::analyse);
    connect(m_causalView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) { showScatter(m_causalModel->key(m_causalProxy->mapToSource(i).row())); });
}

} // namespace ascviz::ui
