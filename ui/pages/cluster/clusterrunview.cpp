#include "pages/cluster/clusterrunview.h"

#include "common/textpos.h"

#include "ascviz/cluster/slurm.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace ascviz::ui {

namespace {
enum Column { Shard, Done, Planned, Percent, Status, Job, Columns };
}

ClusterRunView::ClusterRunView(QWidget* parent) : QWidget(parent)
{
    m_folder = new QLabel(tr("No run folder"), this);
    m_folder->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new QStandardItemModel(0, Columns, this);
    m_model->setHorizontalHeaderLabels(
        {tr("Shard"), tr("Done"), tr("Planned"), tr("%"), tr("Status"), tr("Slurm task")});
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary = new QLabel(this);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_openMerged = new QPushButton(tr("Open merged results"), this);
    m_openMerged->setEnabled(false);
    connect(m_openMerged, &QPushButton::clicked, this, [this] {
        if (m_merged)
            Q_EMIT openResultsRequested(mergedDb());
    });
    auto* refresh = new QPushButton(tr("Refresh"), this);
    connect(refresh, &QPushButton::clicked, this, &ClusterRunView::refreshNow);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(refresh);
    bar->addWidget(m_openMerged);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_folder);
    layout->addWidget(m_table, 1);
    layout->addLayout(bar);
    layout->addWidget(m_hint);

    m_timer = new QTimer(this);
    m_timer->setInterval(2000);
    connect(m_timer, &QTimer::timeout, this, &ClusterRunView::refreshNow);
}

ClusterRunView::~ClusterRunView() = default;

bool ClusterRunView::openRunFolder(const QString& dir, QString* error)
{
    try {
        auto run = std::make_unique<SlurmRun>(readSlurmRun(toUtf8(dir)));
        m_run = std::move(run);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    ++m_generation;
    m_merged = false;
    m_openMerged->setEnabled(false);
    m_model->setRowCount(0);
    m_folder->setText(tr("Run folder: %1 (%2 shards, %3 snippets)")
                          .arg(toQString(m_run->dir.string()))
                          .arg(m_run->shards)
                          .arg(m_run->runPlanned));
    m_summary->setText(tr("Reading…"));
    m_hint->clear();
    refreshNow();
    m_timer->start();
    return true;
}

void ClusterRunView::setRefreshInterval(int ms)
{
    m_timer->setInterval(ms);
}

void ClusterRunView::setAskQueue(bool ask)
{
    m_askQueue = ask;
}

QString ClusterRunView::summaryText() const
{
    return m_summary->text();
}

QString ClusterRunView::hintText() const
{
    return m_hint->text();
}

QString ClusterRunView::mergedDb() const
{
    return m_run ? toQString(m_run->mergedDb().string()) : QString();
}

void ClusterRunView::refreshNow()
{
    if (!m_run || m_reading)
        return;
    m_reading = true;
    const SlurmRun run = *m_run;
    const bool ask = m_askQueue;
    const quint64 gen = m_generation;
    auto* watcher = new QFutureWatcher<SlurmRunStatus>(this);
    connect(watcher, &QFutureWatcher<SlurmRunStatus>::finished, this, [this, watcher, gen] {
        watcher->deleteLater();
        m_reading = false;
        if (gen != m_generation)
            return;
        try {
            apply(watcher->result());
        } catch (const std::exception& e) {
            m_hint->setText(tr("Cannot read the run: %1").arg(toQString(e.what())));
        }
        Q_EMIT statusUpdated();
    });
    watcher->setFuture(QtConcurrent::run([run, ask] { return readSlurmStatus(run, ask); }));
}

void ClusterRunView::apply(const SlurmRunStatus& st)
{
    m_model->setRowCount(static_cast<int>(st.shards.size()));
    for (int r = 0; r < static_cast<int>(st.shards.size()); ++r) {
        const ShardProgress& s = st.shards[static_cast<std::size_t>(r)];
        auto set = [&](int c, const QVariant& v) {
            auto* item = m_model->item(r, c);
            if (!item) {
                item = new QStandardItem;
                m_model->setItem(r, c, item);
            }
            item->setData(v, Qt::DisplayRole);
        };
        set(Shard, s.shard);
        set(Done, static_cast<qlonglong>(s.done));
        set(Planned, static_cast<qlonglong>(s.planned));
        set(Percent, s.planned > 0 ? qRound(100.0 * static_cast<double>(s.done) / static_cast<double>(s.planned)) : 0);
        set(Status, toQString(toString(s.status)));
        set(Job, toQString(s.job + (s.jobState ? " " + toString(*s.jobState) : "")));
    }
    QString summary = tr("%1 of %2 snippets").arg(st.done).arg(st.planned);
    if (!st.mergeJob.empty())
        summary += tr("; merge job %1%2")
                       .arg(toQString(st.mergeJob),
                            st.mergeState ? QStringLiteral(" ") + toQString(toString(*st.mergeState)) : QString());
    if (st.merged)
        summary += tr("; merged (%1 snippets)").arg(st.mergedSnippets);
    if (!st.queueKnown)
        summary += tr(" (job states unknown: squeue did not answer)");
    m_summary->setText(summary);
    m_hint->setText(toQString(st.hint));
    m_merged = st.merged;
    m_openMerged->setEnabled(st.merged);
    if (st.merged)
        m_timer->stop(); // nothing changes any more
}

} // namespace ascviz::ui
