// Table models over an Analysis: tokens (all or a subset, e.g. the tokens aligned to a node) and AST
// nodes (all or a subset, e.g. the nodes a token belongs to). Read-only; reset when the analysis changes.
#pragma once
#include "common/analysis.h"
#include "models/tablemodel.h"

namespace ascviz::ui {

class TokenTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Index, Text, NtP, CE, Id, Source, ColumnCount };
    static constexpr int TokenRole = Qt::UserRole + 1; // the token index of a row

    explicit TokenTableModel(QObject* parent = nullptr);
    // `rows` = token indices to show; all tokens when `all` is true.
    void setTokens(AnalysisPtr a, const QVector<int>& rows, bool all = false);
    int tokenAt(int row) const { return m_rows.value(row, -1); }

private:
    int rows() const override { return int(m_rows.size()); }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    AnalysisPtr m_analysis;
    QVector<int> m_rows;
};

class NodeTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Id, Type, Value, Category, Tokens, Depth, ColumnCount };
    static constexpr int NodeRole = Qt::UserRole + 1;

    explicit NodeTableModel(QObject* parent = nullptr);
    void setNodes(AnalysisPtr a, const QVector<int>& rows, bool all = false);
    int nodeAt(int row) const { return m_rows.value(row, -1); }

private:
    int rows() const override { return int(m_rows.size()); }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    AnalysisPtr m_analysis;
    QVector<int> m_rows;
};

} // namespace ascviz::ui
