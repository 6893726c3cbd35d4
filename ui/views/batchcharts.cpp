#include "views/batchcharts.h"

#include "common/textpos.h"

#include "ascviz/figure/charts.h"
#include "ascviz/figure/data.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <set>

namespace ascviz::ui {

namespace {

const QColor kPalette[] = {QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52), QColor(0x55, 0xa8, 0x68),
                           QColor(0xc4, 0x4e, 0x52), QColor(0x81, 0x72, 0xb3), QColor(0x93, 0x78, 0x60)};

QColor paletteColor(std::size_t i)
{
    return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (auto* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
}

QValueAxis* unitAxis(const QString& title)
{
    auto* y = new QValueAxis;
    y->setRange(0.0, 1.0);
    y->setTickCount(11);
    y->setLabelFormat(QStringLiteral("%.1f"));
    y->setTitleText(title);
    return y;
}

void hideFromLegend(QChart* chart, QAbstractSeries* s)
{
    for (auto* m : chart->legend()->markers(s))
        m->setVisible(false);
}

} // namespace

void buildCategoryChart(QChart* chart, const std::vector<BatchResultPtr>& sets)
{
    clearChart(chart);
    chart->setTitle(QObject::tr("AsC-Eval per category (bootstrapped median, 95% CI)"));
    std::set<std::string> names;
    for (const auto& s : sets)
        for (const auto& [name, r] : s->stats.categories)
            names.insert(name);
    const std::vector<std::string> cats(names.begin(), names.end());
    // A category with too few values in some set (its flag "too few") is marked on the axis: its bar is no
    // evidence either way.
    QStringList labels;
    bool anyTooFew = false;
    int64_t minN = kDefaultMinN;
    for (const auto& c : cats) {
        bool tooFew = false;
        for (const auto& s : sets) {
            const auto it = s->stats.categories.find(c);
            if (it != s->stats.categories.end() && thresholdFlag(it->second, s->stats.minN) == ThresholdFlag::TooFew) {
                tooFew = true;
                minN = s->stats.minN;
            }
        }
        anyTooFew = anyTooFew || tooFew;
        labels << toQString(c) + (tooFew ? QStringLiteral(" *") : QString());
    }
    if (anyTooFew)
        chart->setTitle(chart->title() + QObject::tr(" — * too few values (n < %1) in a model: no flag").arg(minN));

    auto* x = new QBarCategoryAxis;
    x->append(labels);
    // Category names are drawn in full, never "Functional Progr...": vertical labels, not truncated (QtCharts
    // otherwise cuts a label to the axis area), and the legend on the right leaves the height to the axis.
    x->setLabelsAngle(-90);
    x->setTruncateLabels(false);
    auto* y = unitAxis(QObject::tr("AsC-Eval"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    auto* bars = new QBarSeries;
    bars->setObjectName(QString::fromLatin1(kBarSeriesName));
    const double groupWidth = 0.5; // QBarSeries' default bar width (fraction of a category)
    bars->setBarWidth(groupWidth);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        auto* set = new QBarSet(sets[k]->label);
        set->setColor(paletteColor(k));
        set->setBorderColor(paletteColor(k).darker(130));
        for (const auto& c : cats) {
            const auto it = sets[k]->stats.categories.find(c);
            *set << (it == sets[k]->stats.categories.end() ? 0.0 : it->second.median);
        }
        bars->append(set);
    }
    chart->addSeries(bars);
    bars->attachAxis(x);
    bars->attachAxis(y);

    // Error bars: category i spans x in [i - 0.5, i + 0.5]; bar k of m is centred at
    // i - groupWidth/2 + (k + 0.5) * groupWidth/m.
    const double m = static_cast<double>(std::max<std::size_t>(1, sets.size()));
    const double cap = groupWidth / m * 0.25;
    for (std::size_t k = 0; k < sets.size(); ++k) {
        for (std::size_t i = 0; i < cats.size(); ++i) {
            const auto it = sets[k]->stats.categories.find(cats[i]);
            if (it == sets[k]->stats.categories.end())
                continue;
            const auto& r = it->second;
            const double cx = static_cast<double>(i) - groupWidth / 2 + (static_cast<double>(k) + 0.5) * groupWidth / m;
            auto* line = new QLineSeries;
            line->setObjectName(QString::fromLatin1(kErrorBarName));
            line->append(
                {{cx - cap, r.lo}, {cx + cap, r.lo}, {cx, r.lo}, {cx, r.hi}, {cx - cap, r.hi}, {cx + cap, r.hi}});
            QPen pen(QColor(0x20, 0x20, 0x20));
            pen.setWidthF(1.2);
            line->setPen(pen);
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
            hideFromLegend(chart, line);
        }
    }
    // Thresholds of the paper: 0.6 confident, 0.5 erroneous.
    const double right = cats.empty() ? 0.5 : static_cast<double>(cats.size()) - 0.5;
    for (const auto& [value, color] :
         {std::pair{0.6, QColor(0x2e, 0x7d, 0x32)}, std::pair{0.5, QColor(0xc6, 0x28, 0x28)}}) {
        auto* t = new QLineSeries;
        t->setObjectName(QString::fromLatin1(kThresholdName));
        t->setName(value > 0.55 ? QObject::tr("0.6 confident") : QObject::tr("0.5 erroneous"));
        t->append(-0.5, value);
        t->append(right, value);
        QPen pen(color);
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.0);
        t->setPen(pen);
        chart->addSeries(t);
        t->attachAxis(x);
        t->attachAxis(y);
    }
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignRight);
}

void buildDistributionChart(QChart* chart, const std::vector<BatchResultPtr>& sets)
{
    clearChart(chart);
    chart->setTitle(QObject::tr("Distribution of snippet AsC-Eval per model (box: quartiles; whiskers: 1.5 IQR)"));
    auto* series = new QBoxPlotSeries;
    series->setObjectName(QString::fromLatin1(kBoxSeriesName));
    series->setName(QObject::tr("snippets"));
    QStringList labels;
    for (std::size_t k = 0; k < sets.size(); ++k) {
        // The box the figure export draws (figure/charts.h); a set without values: an empty box, n=0.
        const auto values = snippetValues(*sets[k]);
        const BoxStats b = values.empty() ? BoxStats{} : boxStats(values);
        const QString label = QStringLiteral("%1 (n=%2)").arg(sets[k]->label).arg(b.n);
        auto* box = new QBoxSet(b.whiskerLo, b.q1, b.median, b.q3, b.whiskerHi, label);
        box->setBrush(paletteColor(k).lighter(140));
        box->setPen(QPen(paletteColor(k).darker(150), 1.2));
        series->append(box);
        labels << label;
    }
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(labels);
    auto* y = unitAxis(QObject::tr("snippet AsC-Eval (mean of node values)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->legend()->setVisible(false);
}

DistributionData batchDistributionData(const std::vector<BatchResultPtr>& sets, const QString& warning)
{
    DistributionData d;
    d.title = toUtf8(QObject::tr("Distribution of snippet AsC-Eval per model (one box per result set)"));
    d.axisLabel = toUtf8(QObject::tr("snippet AsC-Eval (mean of node values)"));
    d.rows = {toUtf8(QObject::tr("all snippets"))};
    d.values.resize(1);
    d.warning = toUtf8(warning);
    d.outliers = false; // the on-screen box plot (QBoxPlotSeries) draws none
    for (const auto& s : sets) {
        d.runs.push_back(toUtf8(s->label));
        d.values[0].push_back(snippetValues(*s));
    }
    return d;
}

bool exportBatchFigure(BatchChart chart, const std::vector<BatchResultPtr>& sets, const QString& file,
                       const QString& warning, QString* error, const FigureExportOptions& options)
{
    auto fail = [&](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    if (sets.empty())
        return fail(QObject::tr("There are no results to draw yet."));
    const QString caption = options.warning ? warning : QString();
    try {
        Figure f;
        if (chart == BatchChart::Categories) {
            std::vector<FigureRun> runs;
            for (const auto& s : sets)
                runs.push_back({toUtf8(s->label), &s->stats, nullptr});
            f = categoryBarsFigure(categoryBarsData(runs, toUtf8(caption)), options.style);
        } else {
            f = distributionFigure(batchDistributionData(sets, caption), options.style);
        }
        writeFigure(f, toUtf8(file), file.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive));
        return true;
    } catch (const std::exception& e) {
        return fail(toQString(e.what()));
    }
}

} // namespace ascviz::ui
