// The details panel next to the views: the selected node (type, category, value, aligned tokens with
// their NtP) or the selected token (text, id, NtP, CE, alternatives, the nodes it belongs to), or the
// snippet's summary when nothing is selected. Rows of its tables can be clicked to follow links.
#pragma once
#include "common/analysis.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace ascviz::ui {

class TokenTableModel;
class NodeTableModel;

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Empty, Summary, Node, Token };
    explicit DetailsPanel(QWidget* parent = nullptr);

    void showSummary(AnalysisPtr a);
    void showNode(AnalysisPtr a, int node);
    void showToken(AnalysisPtr a, int token);
    // While a new result is being made (Generate, Score): no values of the previous one, `what` says why.
    void showPending(const QString& what);

    Mode mode() const { return m_mode; }
    int shownNode() const { return m_node; }
    int shownToken() const { return m_token; }
    QString headerText() const;
    TokenTableModel* tokenModel() const { return m_tokens; }
    NodeTableModel* nodeModel() const { return m_nodes; }
    QTableView* table() const { return m_table; }

Q_SIGNALS:
    void nodeActivated(int node);
    void tokenActivated(int token);

private:
    void rowClicked(const QModelIndex& index);
    void fitColumns();

    QLabel* m_header;
    QTableView* m_table;
    TokenTableModel* m_tokens;
    NodeTableModel* m_nodes;
    Mode m_mode = Mode::Empty;
    int m_node = -1;
    int m_token = -1;
};

} // namespace ascviz::ui
