#include "pages/analysis/layertab.h"

#include "common/figureoptions.h"
#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/figure/charts.h"
#include "ascviz/results/corpus.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSvgWidget>
#include <QVBoxLayout>

namespace ascviz::ui {

LayerTab::LayerTab(ModelService* models, QWidget* parent) : QWidget(parent), m_models(models)
{
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Corpus"), this));
    m_corpus = new QLineEdit(QStringLiteral("default"), this);
    m_corpus->setToolTip(tr("A corpus file or folder, or default (the bundled sample)"));
    bar->addWidget(m_corpus, 2);
    bar->addWidget(new QLabel(tr("Snippets"), this));
    m_limit = new QSpinBox(this);
    m_limit->setRange(1, 100000);
    m_limit->setValue(40);
    bar->addWidget(m_limit);
    bar->addWidget(new QLabel(tr("Fraction"), this));
    m_fraction = new QDoubleSpinBox(this);
    m_fraction->setRange(0.05, 1.0);
    m_fraction->setSingleStep(0.05);
    m_fraction->setValue(0.9);
    m_fraction->setToolTip(tr("The first layer reaching this fraction of the final value is reported per category"));
    bar->addWidget(m_fraction);
    m_compute = new QPushButton(tr("Compute layer matrix"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    bar->addWidget(m_compute);
    bar->addWidget(m_cancel);
    layout->addLayout(bar);
    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    layout->addWidget(m_progress);
    m_status = new QLabel(tr("The layer lens (method.md §13): AsC-Eval of every category at every layer of the loaded "
                             "model."),
                          this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_heat = new QSvgWidget(this);
    layout->addWidget(m_heat, 1, Qt::AlignTop | Qt::AlignLeft);
    layout->addStretch(1);
    connect(m_compute, &QPushButton::clicked, this, &LayerTab::compute);
    connect(m_cancel, &QPushButton::clicked, this, &LayerTab::cancel);
}

bool LayerTab::exportFigure(const QString& path, const FigureExportOptions& options, bool pdf, QString* error) const
{
    if (!m_matrix) {
        if (error)
            *error = tr("There is no layer matrix to export (Compute layer matrix first).");
        return false;
    }
    try {
        const auto [rows, cols] = layerMatrixHeatmap(*m_matrix);
        HeatmapFigureOptions o;
        o.title = "AsC-Eval by category and layer (" + m_matrix->model + ")";
        writeFigure(heatmapFigure(rows, cols, options.style, o), toUtf8(path), pdf);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

void LayerTab::cancel()
{
    if (m_job != 0)
        m_models->jobs()->cancel(m_job);
}

void LayerTab::compute()
{
    if (m_job != 0)
        return;
    const auto model = m_models->model();
    if (!model) {
        m_status->setText(tr("Load a model first."));
        Q_EMIT computed(false);
        return;
    }
    const std::string corpusArg = toUtf8(m_corpus->text().trimmed());
    const auto limit = static_cast<std::size_t>(m_limit->value());
    LayerRunOptions run;
    run.fraction = m_fraction->value();
    auto out = std::make_shared<std::shared_ptr<const LayerMatrix>>();
    JobTracker::Callbacks cb;
    auto ended = [this](bool ok) {
        m_job = 0;
        m_progress->setVisible(false);
        m_compute->setEnabled(true);
        m_cancel->setEnabled(false);
        Q_EMIT computed(ok);
    };
    cb.finished = [this, out, ended] {
        if (!*out) {
            m_status->setText(tr("Cancelled."));
            ended(false);
            return;
        }
        m_matrix = *out;
        const auto [rows, cols] = layerMatrixHeatmap(*m_matrix);
        m_svg = toQString(renderHeatmapSvg(rows, cols, layerMatrixTitle(*m_matrix)));
        m_heat->load(m_svg.toUtf8());
        m_heat->setFixedSize(m_heat->sizeHint());
        QString reaches;
        for (const auto& row : m_matrix->categories)
            reaches += tr("%1: %2; ")
                           .arg(toQString(row.name), row.reaches ? QString::number(*row.reaches) : QStringLiteral("—"));
        m_status->setText(tr("%1 snippets (%2 left out), %3 layers. First layer reaching %4 of the final value — %5")
                              .arg(m_matrix->snippets)
                              .arg(m_matrix->skipped)
                              .arg(m_matrix->layers)
                              .arg(m_matrix->fraction, 0, 'f', 2)
                              .arg(reaches));
        ended(true);
    };
    cb.failed = [this, ended](const QString& message) {
        m_status->setText(tr("Failed: %1").arg(message));
        ended(false);
    };
    cb.progress = [this](double f, const QString& text) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(f * 1000));
        if (!text.isEmpty())
            m_status->setText(text);
    };
    m_progress->setVisible(true);
    m_compute->setEnabled(false);
    m_cancel->setEnabled(true);
    m_job = m_models->jobs()->start(
        tr("Layer matrix"), QStringLiteral("inside"),
        [model, corpusArg, limit, run, out](JobContext& ctx) mutable {
            const Corpus corpus = readCorpus(
                corpusArg == "default" || corpusArg.empty() ? sampleCorpus() : std::filesystem::path(corpusArg));
            std::vector<LayerText> texts;
            for (const auto& e : corpus.entries) {
                if (texts.size() >= limit)
                    break;
                texts.push_back({e.code, e.language});
            }
            run.cancel = ctx.cancelFlag();
            run.progress = [&ctx](std::size_t done, std::size_t total) {
                ctx.setProgress(double(done) / double(std::max<std::size_t>(1, total)),
                                QObject::tr("Layer lens: %1 of %2 snippets").arg(done).arg(total));
            };
            try {
                *out = std::make_shared<const LayerMatrix>(layerMatrixOfTexts(*model, texts, run));
            } catch (const Cancelled&) {
            }
        },
        this, cb);
}

} // namespace ascviz::ui
