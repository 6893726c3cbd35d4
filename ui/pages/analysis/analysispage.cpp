// The Analysis page: jobs, heat map, exports (analysispage.h). Widgets: analysispanels.cpp.
#include "pages/analysis/analysispage.h"
#include "pages/analysis/layertab.h"
#include "pages/galeras/galeraspanel.h"

#include "common/figureoptions.h"
#include "common/textpos.h"
#include "models/analysismodels.h"
#include "models/batchmodels.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/batchcharts.h"

#include "ascviz/analysis/tables.h"
#include "ascviz/figure/charts.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/resultsdb.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QSvgWidget>
#include <QTabWidget>
#include <QTableView>
#include <QValueAxis>

#include <algorithm>
#include <numeric>

namespace ascviz::ui {

namespace {
// The open results databases' statistics with their labels; none (and `error` said) when no database is open.
std::vector<std::pair<std::string, const CorpusStats*>> openStats(const ResultStore& results, QString* error)
{
    std::vector<std::pair<std::string, const CorpusStats*>> in;
    for (const auto& s : results.batchSets())
        in.emplace_back(toUtf8(s->label), &s->stats);
    if (in.empty() && error)
        *error = AnalysisPage::tr("No results database is open.");
    return in;
}
} // namespace

AnalysisPage::AnalysisPage(ModelService* models, ResultStore* results, QWidget* parent)
    : QWidget(parent), m_models(models), m_results(results)
{
    buildUi();
    connect(m_results, &ResultStore::batchSetsChanged, this, [this] {
        refreshSets();
        refreshHeatmap();
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_job)
            m_models->jobs()->cancel(m_job);
    });
    auto* latex = new QAction(tr("Export LaTeX table…"), this);
    latex->setToolTip(tr("The AsC-Causal table (Table II layout) or, on the heat map tab, the model comparison"));
    connect(latex, &QAction::triggered, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("LaTeX table"), QString(), tr("LaTeX (*.tex)"));
        QString error;
        if (!f.isEmpty() && !exportLatex(f, &error))
            setStatus(error, true);
    });
    m_actions << latex;
    refreshSets();
    refreshHeatmap();
}

AnalysisPage::~AnalysisPage()
{
    if (m_job)
        m_models->jobs()->cancel(m_job);
}

QList<QAction*> AnalysisPage::menuActions()
{
    return m_actions;
}

void AnalysisPage::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: #a00000") : QString());
}

void AnalysisPage::refreshSets()
{
    const QString keep = m_set->currentData().toString();
    m_set->clear();
    for (const auto& s : m_results->batchSets())
        m_set->addItem(QStringLiteral("%1 — %2").arg(s->label, QFileInfo(s->path).fileName()), s->path);
    const int at = m_set->findData(keep);
    m_set->setCurrentIndex(at >= 0 ? at : m_set->count() - 1);
    m_run->setEnabled(m_set->count() > 0 && !m_job);
}

void AnalysisPage::refreshHeatmap()
{
    const auto& sets = m_results->batchSets();
    m_heatmapSvg.clear();
    m_heatmapWarning->setText(m_results->comparisonWarning());
    m_heatmapWarning->setVisible(!m_heatmapWarning->text().isEmpty());
    if (sets.empty()) {
        m_heatmap->load(QByteArray());
        return;
    }
    std::vector<std::pair<std::string, const CorpusStats*>> in;
    for (const auto& s : sets)
        in.emplace_back(toUtf8(s->label), &s->stats);
    const auto [rows, cols] = heatmapData(in);
    m_heatmapSvg = toQString(renderHeatmapSvg(rows, cols));
    m_heatmap->load(m_heatmapSvg.toUtf8());
    m_heatmap->setFixedSize(m_heatmap->renderer()->defaultSize());
}

QString AnalysisPage::heatmapWarning() const
{
    return m_heatmapWarning->text();
}

void AnalysisPage::setCurrentSet(int index)
{
    m_set->setCurrentIndex(index);
}

void AnalysisPage::setBy(CausalBy by)
{
    m_by->setCurrentIndex(m_by->findData(int(by)));
}

void AnalysisPage::analyse()
{
    if (m_job || m_set->currentIndex() < 0)
        return;
    const QString path = m_set->currentData().toString();
    const auto by = static_cast<CausalBy>(m_by->currentData().toInt());
    CausalOptions opts;
    opts.minSnippets = m_minSnippets->value();
    struct Out {
        std::shared_ptr<CausalReport> causal = std::make_shared<CausalReport>();
        std::shared_ptr<std::map<std::string, CausalRows>> rows = std::make_shared<std::map<std::string, CausalRows>>();
        std::shared_ptr<PerplexedReport> perplexed = std::make_shared<PerplexedReport>();
    };
    auto out = std::make_shared<Out>();
    m_analysedLabel = m_set->currentText();
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    setStatus(tr("Analysing %1…").arg(m_analysedLabel));
    JobTracker::Callbacks cb;
    cb.progress = [this](double, const QString& text) {
        if (!text.isEmpty())
            setStatus(text);
    };
    cb.finished = [this, out] {
        const bool cancelled = !out->causal || out->perplexed->tokens == 0;
        m_job = 0;
        m_run->setEnabled(m_set->count() > 0);
        m_cancel->setEnabled(false);
        if (cancelled) {
            setStatus(tr("Analysis cancelled."));
            Q_EMIT analysisFinished(false, tr("cancelled"));
            return;
        }
        m_causal = out->causal;
        m_rows = out->rows;
        m_perplexed = out->perplexed;
        m_causalModel->setReport(m_causal);
        const PerplexedReport& p = *m_perplexed;
        m_ceModels[0]->setRows(p.worstTokens);
        m_ceModels[1]->setRows(p.bestTokens);
        m_ceModels[2]->setRows(p.worstLabels);
        m_ceModels[3]->setRows(p.bestLabels);
        m_calls->setText(callsText());
        for (auto* v : findChildren<QTableView*>())
            v->resizeColumnsToContents();
        showScatter(QString());
        const auto& g = m_causal->global;
        setStatus(tr("%1: %2 snippets; global effect of AsC-Eval on cross-entropy %3; %4 tokens in PERPLEXED.")
                      .arg(m_analysedLabel)
                      .arg(g.n)
                      .arg(g.hasEffect ? QStringLiteral("%1 (se %2)").arg(g.effect, 0, 'f', 3).arg(g.se, 0, 'f', 3)
                                       : toQString(g.note))
                      .arg(p.tokens));
        Q_EMIT analysisFinished(true, QString());
    };
    cb.failed = [this](const QString& message) {
        m_job = 0;
        m_run->setEnabled(m_set->count() > 0);
        m_cancel->setEnabled(false);
        setStatus(tr("Analysis failed: %1").arg(message), true);
        Q_EMIT analysisFinished(false, message);
    };
    m_job = m_models->jobs()->start(
        tr("Analysing %1").arg(QFileInfo(path).fileName()), QStringLiteral("analysis"),
        [path, by, opts, out](JobContext& ctx) {
            const auto db = ResultsDb::open(toUtf8(path));
            ctx.setProgress(0.0, tr("AsC-Causal…"));
            *out->causal = analyzeCausal(db, by, opts, out->rows.get());
            if (ctx.isCancelled()) {
                out->causal.reset();
                return;
            }
            ctx.setProgress(0.5, tr("PERPLEXED…"));
            *out->perplexed = analyzePerplexed(db);
            ctx.setProgress(1.0);
        },
        this, std::move(cb));
}

QString AnalysisPage::callsText() const
{
    if (!m_perplexed)
        return {};
    const auto& p = *m_perplexed;
    auto call = [](const CallStat& c) {
        return tr("%1 calls, mean CE %2 (std %3, %4 tokens)")
            .arg(c.calls)
            .arg(c.ce.mean, 0, 'f', 3)
            .arg(c.ce.std, 0, 'f', 3)
            .arg(c.ce.count);
    };
    return tr("<b>Calls</b> internal: %1; external: %2; %3 builtin calls left out. <b>ERROR-parented tokens</b>: %4, "
              "mean CE %5. All tokens: %6, mean CE %7.")
        .arg(call(p.internalCalls), call(p.externalCalls))
        .arg(p.builtinCalls)
        .arg(p.errorParented.count)
        .arg(p.errorParented.mean, 0, 'f', 3)
        .arg(p.tokens)
        .arg(p.all.mean, 0, 'f', 3);
}

void AnalysisPage::selectCausalRow(int row)
{
    const QModelIndex src = m_causalModel->index(row, 0);
    m_causalView->selectRow(m_causalProxy->mapFromSource(src).row());
    showScatter(m_causalModel->key(row));
}

void AnalysisPage::showScatter(const QString& key)
{
    m_scatterKey = key;
    QChart* chart = m_scatter->chart();
    chart->removeAllSeries();
    for (auto* a : chart->axes())
        chart->removeAxis(a);
    if (!m_rows || !m_causal)
        return;
    const auto it = m_rows->find(toUtf8(key));
    if (it == m_rows->end())
        return;
    const CausalRows& r = it->second;
    const CausalEstimate& e = key.isEmpty() ? m_causal->global : m_causal->groups.at(toUtf8(key));
    auto* points = new QScatterSeries;
    points->setName(tr("snippets"));
    points->setMarkerSize(6);
    for (std::size_t i = 0; i < r.t.size(); ++i)
        points->append(r.t[i], r.y[i]);
    chart->addSeries(points);
    auto* x = new QValueAxis;
    auto* y = new QValueAxis;
    x->setTitleText(tr("T: AsC-Eval%1").arg(key.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(key)));
    y->setTitleText(tr("cross-entropy"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    points->attachAxis(x);
    points->attachAxis(y);
    if (!r.t.empty()) {
        const auto [tmin, tmax] = std::minmax_element(r.t.begin(), r.t.end());
        const auto [ymin, ymax] = std::minmax_element(r.y.begin(), r.y.end());
        const double px = std::max(1e-6, 0.05 * (*tmax - *tmin)), py = std::max(1e-6, 0.05 * (*ymax - *ymin));
        x->setRange(*tmin - px, *tmax + px);
        y->setRange(*ymin - py, *ymax + py);
        if (e.hasEffect) {
            // The adjusted effect as a line through the means (slope = T's coefficient with the confounders held).
            const double mt = std::accumulate(r.t.begin(), r.t.end(), 0.0) / double(r.t.size());
            const double my = std::accumulate(r.y.begin(), r.y.end(), 0.0) / double(r.y.size());
            auto* line = new QLineSeries;
            line->setName(tr("adjusted effect %1").arg(e.effect, 0, 'f', 2));
            line->append(*tmin, my + e.effect * (*tmin - mt));
            line->append(*tmax, my + e.effect * (*tmax - mt));
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
        }
    }
    chart->setTitle(tr("%1: T vs cross-entropy (n = %2, ρ = %3)")
                        .arg(key.isEmpty() ? tr("Global AsC-Eval") : key)
                        .arg(e.n)
                        .arg(e.rhoOutcome ? QString::number(*e.rhoOutcome, 'f', 3) : QStringLiteral("n/a")));
}

bool AnalysisPage::canExport(ExportKind kind) const
{
    const QWidget* w = m_tabs->currentWidget();
    if (w == m_treatments)
        return false;
    if (const auto* layers = qobject_cast<const LayerTab*>(w))
        return (kind == ExportKind::Svg || kind == ExportKind::Pdf) && layers->matrix();
    const bool heat = m_tabs->currentIndex() == 2;
    if (kind == ExportKind::Svg || kind == ExportKind::Pdf)
        return heat ? !m_heatmapSvg.isEmpty() : (m_causal && m_tabs->currentIndex() == 0);
    if (kind == ExportKind::Csv)
        return !heat && w && (m_tabs->currentIndex() == 0 ? m_causal != nullptr : m_perplexed != nullptr);
    return false;
}

bool AnalysisPage::exportsFigure(ExportKind kind) const
{
    return (kind == ExportKind::Svg || kind == ExportKind::Pdf) && canExport(kind);
}

void AnalysisPage::setFigureOptions(const FigureExportOptions& options)
{
    m_figureOptions = std::make_shared<FigureExportOptions>(options);
}

bool AnalysisPage::exportHeatmapFigure(const QString& path, bool pdf, QString* error) const
{
    const auto in = openStats(*m_results, error);
    if (in.empty())
        return false;
    try {
        const FigureExportOptions o = m_figureOptions ? *m_figureOptions : FigureExportOptions{};
        const auto [rows, cols] = heatmapData(in);
        HeatmapFigureOptions h;
        if (o.warning)
            h.note = m_results->comparison().warning;
        writeFigure(heatmapFigure(rows, cols, o.style, h), toUtf8(path), pdf);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

QString AnalysisPage::suggestedExportName(ExportKind kind) const
{
    const int t = m_tabs->currentIndex();
    const QString base = qobject_cast<const LayerTab*>(m_tabs->currentWidget()) ? QStringLiteral("layers")
                         : t == 0                                               ? QStringLiteral("causal")
                         : t == 1                                               ? QStringLiteral("perplexed")
                                                                                : QStringLiteral("heatmap");
    return base + QLatin1Char('.') + exportKindName(kind);
}

bool AnalysisPage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    auto fail = [error](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    if (!canExport(kind))
        return fail(tr("Nothing to export here (run Analyse, or open results in the Batch tab)."));
    const int t = m_tabs->currentIndex();
    const bool pdf = kind == ExportKind::Pdf;
    if (const auto* layers = qobject_cast<const LayerTab*>(m_tabs->currentWidget()))
        return layers->exportFigure(path, m_figureOptions ? *m_figureOptions : FigureExportOptions{}, pdf, error);
    if (t == 0 && (kind == ExportKind::Svg || pdf))
        return exportScatterFigure(path, error);
    if (pdf || (kind == ExportKind::Svg && m_figureOptions))
        return exportHeatmapFigure(path, pdf, error);
    if (kind == ExportKind::Svg) {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(m_heatmapSvg.toUtf8()) < 0)
            return fail(tr("Cannot write %1").arg(path));
        return true;
    }
    if (t == 0)
        return writeModelCsv(m_causalModel, path, error);
    // PERPLEXED: the four lists in one file, with a column naming the list.
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return fail(tr("Cannot write %1").arg(path));
    QByteArray out = "list,name,mean_ce,std_ce,count\r\n";
    const char* lists[4] = {"worst_tokens", "best_tokens", "worst_labels", "best_labels"};
    const std::vector<std::pair<std::string, CeStat>>* data[4] = {&m_perplexed->worstTokens, &m_perplexed->bestTokens,
                                                                  &m_perplexed->worstLabels, &m_perplexed->bestLabels};
    for (int i = 0; i < 4; ++i)
        for (const auto& [name, s] : *data[i])
            out += QByteArray(lists[i]) + ',' + QByteArray::fromStdString(csvField(name)) + ',' +
                   QByteArray::number(s.mean, 'g', 10) + ',' + QByteArray::number(s.std, 'g', 10) + ',' +
                   QByteArray::number(qlonglong(s.count)) + "\r\n";
    if (f.write(out) < 0)
        return fail(tr("Cannot write %1").arg(path));
    return true;
}

bool AnalysisPage::exportScatterFigure(const QString& path, QString* error) const
{
    // The paper figure of the figure room (85 mm, text as text; PDF when the name ends in .pdf), not a grab.
    const auto* r =
        m_rows && m_causal && m_rows->count(toUtf8(m_scatterKey)) ? &m_rows->at(toUtf8(m_scatterKey)) : nullptr;
    if (!r) {
        if (error)
            *error = tr("There is no scatter to export (select a row of the causal table).");
        return false;
    }
    try {
        const CausalEstimate& e = m_scatterKey.isEmpty() ? m_causal->global : m_causal->groups.at(toUtf8(m_scatterKey));
        ScatterData d;
        d.title = toUtf8(m_scatter->chart()->title());
        d.xLabel = "T: AsC-Eval" + (m_scatterKey.isEmpty() ? std::string() : " (" + toUtf8(m_scatterKey) + ")");
        d.yLabel = "cross-entropy";
        d.x = r->t;
        d.y = r->y;
        if (e.hasEffect && !r->t.empty()) {
            // The adjusted effect as a line through the means, as on screen.
            const double mt = std::accumulate(r->t.begin(), r->t.end(), 0.0) / double(r->t.size());
            const double my = std::accumulate(r->y.begin(), r->y.end(), 0.0) / double(r->y.size());
            d.fit = ScatterFit{my - e.effect * mt, e.effect, toUtf8(tr("adjusted effect %1").arg(e.effect, 0, 'f', 2))};
        }
        writeFigure(scatterFigure(d, m_figureOptions ? m_figureOptions->style : FigureStyle{}), toUtf8(path),
                    path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive));
        return true;
    } catch (const std::exception& ex) {
        if (error)
            *error = toQString(ex.what());
        return false;
    }
}

bool AnalysisPage::exportLatex(const QString& path, QString* error)
{
    std::string tex;
    if (m_tabs->currentIndex() == 2) {
        const auto in = openStats(*m_results, error);
        if (in.empty())
            return false;
        tex = comparisonLatex(in, m_results->comparison().warning);
    } else {
        if (!m_causal) {
            if (error)
                *error = tr("Run Analyse first.");
            return false;
        }
        tex = causalLatex(*m_causal);
    }
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(tex)) < 0) {
        if (error)
            *error = tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace ascviz::ui
