#pragma once
#include <QString>
#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace ascviz {
struct SlurmRun;
struct SlurmRunStatus;
} // namespace ascviz

namespace ascviz::ui {

// A Slurm run folder (ascviz-cli slurm submit; core/cluster/slurm.h), watched live: per shard the snippets
// stored of those planned, its status and Slurm task; the totals, the merge job and what to do next — the
// same as `ascviz-cli slurm status DIR`. The shard databases (and squeue) are read off the GUI thread every
// few seconds until the run is merged; "Open merged results" hands all.db to the Batch page.
class ClusterRunView : public QWidget {
    Q_OBJECT
public:
    explicit ClusterRunView(QWidget* parent = nullptr);
    ~ClusterRunView() override;

    // Reads DIR/run.json; false with a message when DIR is not a run folder. Starts watching.
    bool openRunFolder(const QString& dir, QString* error = nullptr);
    void setRefreshInterval(int ms); // default 2000
    void setAskQueue(bool ask);      // ask squeue for the jobs' states (default true)
    void refreshNow();               // one read now (off the GUI thread); statusUpdated() when in

    QStandardItemModel* shardModel() const { return m_model; }
    QString summaryText() const;
    QString hintText() const;
    bool isMerged() const { return m_merged; }
    QString mergedDb() const;
    QPushButton* openMergedButton() const { return m_openMerged; }

Q_SIGNALS:
    void statusUpdated();
    void openResultsRequested(const QString& db);

private:
    void apply(const ascviz::SlurmRunStatus& st);

    std::unique_ptr<ascviz::SlurmRun> m_run;
    QStandardItemModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_folder = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_hint = nullptr;
    QPushButton* m_openMerged = nullptr;
    QTimer* m_timer = nullptr;
    bool m_askQueue = true;
    bool m_reading = false;
    bool m_merged = false;
    quint64 m_generation = 0; // a result of an earlier folder is dropped
};

} // namespace ascviz::ui
