// Table models of the Analysis page: AsC-Causal estimates (Table II layout) and PERPLEXED's ranked CE
// groups. Numeric columns return the raw number for Qt::UserRole (the proxies sort by it).
#pragma once
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"
#include "models/tablemodel.h"

#include <memory>

namespace ascviz::ui {

class CausalTableModel : public TableModel {
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

private:
    int rows() const override { return int(m_rows.size()); }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    std::shared_ptr<const CausalReport> m_report;
    std::vector<std::pair<QString, const CausalEstimate*>> m_rows;
};

// Rows of (name, mean CE, std, count): one of PERPLEXED's lists.
class CeTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Name, MeanCe, StdCe, Count, ColumnCount };
    // quoteNames: show names as quoted one-line text (token strings, whose spaces matter).
    CeTableModel(const QString& nameHeader, bool quoteNames, QObject* parent = nullptr);
    void setRows(std::vector<std::pair<std::string, CeStat>> rows);

private:
    int rows() const override { return int(m_rows.size()); }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    QString m_nameHeader;
    bool m_quote = true;
    std::vector<std::pair<std::string, CeStat>> m_rows;
};

} // namespace ascviz::ui
