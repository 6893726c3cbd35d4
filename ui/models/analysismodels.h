// Table models of the Analysis page: AsC-Causal estimates (Table II layout) and PERPLEXED's ranked CE
// groups. Numeric columns return the raw number for Qt::UserRole (the proxies sort by it).
#pragma once
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"

#include <QAbstractTableModel>

#include <memory>

namespace ascviz::ui {

class CausalTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Treatment,
        N,
        RhoY,
        RhoTokens,
        RhoNodes,
        RhoLevels,
        RhoCyclomatic,
        Effect,
        SE,
        CiLow,
        CiHigh,
        Placebo,
        CommonCause,
        Subset,
        Note,
        ColumnCount
    };
    explicit CausalTableModel(QObject* parent = nullptr);
    void setReport(std::shared_ptr<const CausalReport> report);
    std::shared_ptr<const CausalReport> report() const { return m_report; }
    // The group key of a row ("" = global).
    QString key(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CausalReport> m_report;
    std::vector<std::pair<QString, const CausalEstimate*>> m_rows;
};

// Rows of (name, mean CE, std, count): one of PERPLEXED's lists.
class CeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, MeanCe, StdCe, Count, ColumnCount };
    // quoteNames: show names as quoted one-line text (token strings, whose spaces matter).
    CeTableModel(const QString& nameHeader, bool quoteNames, QObject* parent = nullptr);
    void setRows(std::vector<std::pair<std::string, CeStat>> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QString m_nameHeader;
    bool m_quote = true;
    std::vector<std::pair<std::string, CeStat>> m_rows;
};

} // namespace ascviz::ui
