// The Experts view of the Inside panel (issue 42, method.md §15): for a mixture-of-experts model, the router's
// chosen experts per sparse layer of the token or node picked in the views — a token's experts in the router's
// order with their routing weights, a node's experts by the share of its aligned tokens routed to them (and their
// mean weight). The routing is computed by a JobTracker job (one scoring pass with the router observed,
// experts/experts.h); a dense model gets a note instead.
#pragma once
#include "common/analysis.h"

#include "ascviz/experts/experts.h"

#include <QGroupBox>

#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ascviz::ui {

class InteractiveState;
class ModelService;

// One row of the view: a sparse layer, its experts (in the order shown) and per expert a number (a token: the
// routing weight; a node: the share of its tokens routed there) and, for a node, the mean weight.
struct ExpertsRow {
    int layer = 0;
    std::vector<int> ids;
    std::vector<double> values;
    std::vector<double> meanProbs; // nodes only
};
// A node's rows from its aligned tokens' choices: per layer, every expert any of the tokens is routed to, by share
// of the tokens (descending; ties by id), with the mean routing weight over the tokens routed to it.
std::vector<ExpertsRow> nodeExpertRows(const std::vector<int>& tokens, const std::vector<TokenExperts>& experts);

class ExpertsView : public QGroupBox {
    Q_OBJECT
public:
    ExpertsView(InteractiveState* state, ModelService* models, QWidget* parent = nullptr);

    QPushButton* computeButton() const { return m_compute; }
    QTableWidget* table() const { return m_table; }
    QLabel* noteLabel() const { return m_note; }
    bool isRunning() const { return m_job != 0; }
    // The routing of the shown text (null before it is computed, after a new result, or for a dense model).
    const std::vector<TokenExperts>* routing() const { return m_result ? &m_result->tokens : nullptr; }

public Q_SLOTS:
    void compute();
    void cancel();
    // The rows of the page's selection (a node wins over a token); the note says what is shown.
    void showSelection();

Q_SIGNALS:
    void jobDone(bool ok);

private:
    struct Result {
        std::string text;
        std::vector<TokenExperts> tokens;
        int experts = 0, perToken = 0;
    };
    void showRows(const std::vector<ExpertsRow>& rows, bool node);
    void forget();

    InteractiveState* m_state;
    ModelService* m_models;
    QPushButton* m_compute;
    QPushButton* m_cancel;
    QTableWidget* m_table;
    QLabel* m_note;
    quint64 m_job = 0;
    std::shared_ptr<const Result> m_result;
};

} // namespace ascviz::ui
