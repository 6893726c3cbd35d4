// What the Interactive tab shows, apart from its widgets (issue 40): the shown result (the text, its evaluation and
// layouts), a derived copy of it (the layer lens's values at a layer) and the linked selection (a node, a token or
// none). InteractivePage owns one and draws from its signals; the Inside panel and the Experts view read it and
// select through it, and colour the views through ResultCanvas (resultcanvas.h): none of them sees the page's
// widgets.
#pragma once
#include "common/analysis.h"

#include <QObject>
#include <QString>

namespace ascviz::ui {

class InteractiveState : public QObject {
    Q_OBJECT
public:
    explicit InteractiveState(QObject* parent = nullptr) : QObject(parent) {}

    // The result the views show (null before the first one).
    AnalysisPtr shown() const { return m_shown; }
    // A copy of the shown result with other values (showDerived), null when the views show the result itself.
    AnalysisPtr derived() const { return m_derived; }
    // What the views, the details and the summary show: the derived copy while there is one, else shown().
    AnalysisPtr displayed() const { return m_derived ? m_derived : m_shown; }
    QString derivedDescription() const { return m_derived ? m_what : QString(); }

    int selectedNode() const { return m_node; }
    int selectedToken() const { return m_token; }

    // A new result: no derived copy; the selection stays when the text is the same, else none. Emits nothing: the
    // page draws it and then calls announceResult.
    void setResult(AnalysisPtr result);
    // resultShown, once the views show the result set last.
    void announceResult() { Q_EMIT resultShown(); }
    // Shows `derived` (null: the result itself) described as `what` ("layer 3 of 8"); displayedChanged. Ignored
    // while no result is shown.
    void showDerived(AnalysisPtr derived, const QString& what);

    // The linked selection: a node or a token of the shown result (out of range: none). Each emits
    // selectionChanged, also when the selection is the same (the views that redrew show it again).
    void selectNode(int node);
    void selectToken(int token);
    void clearSelection();
    // selectionChanged with the current selection (after the views were given another result to draw).
    void reselect() { Q_EMIT selectionChanged(m_node, m_token); }

Q_SIGNALS:
    // The views show a new result (after generation, scoring, a settings change or opening a session).
    void resultShown();
    // The derived copy changed (showDerived): the views show displayed().
    void displayedChanged();
    // The linked selection (a node, a token or none: -1).
    void selectionChanged(int node, int token);

private:
    AnalysisPtr m_shown;
    AnalysisPtr m_derived;
    QString m_what;
    int m_node = -1;
    int m_token = -1;
};

} // namespace ascviz::ui
