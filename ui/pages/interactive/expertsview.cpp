#include "pages/interactive/expertsview.h"

#include "common/textpos.h"
#include "pages/interactive/interactivestate.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/error.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace ascviz::ui {

std::vector<ExpertsRow> nodeExpertRows(const std::vector<int>& tokens, const std::vector<TokenExperts>& experts)
{
    struct Tally {
        int n = 0;        // tokens routed to the expert
        double probs = 0; // their routing weights summed
    };
    std::map<int, std::map<int, Tally>> byLayer; // layer -> expert -> tally
    std::map<int, int> tokensAt;                 // layer -> tokens with a choice there
    for (const int t : tokens) {
        if (t < 0 || std::size_t(t) >= experts.size())
            continue;
        for (const LayerExperts& le : experts[std::size_t(t)]) {
            ++tokensAt[le.layer];
            for (std::size_t k = 0; k < le.ids.size(); ++k) {
                Tally& c = byLayer[le.layer][le.ids[k]];
                ++c.n;
                c.probs += k < le.probs.size() ? le.probs[k] : 0.0;
            }
        }
    }
    std::vector<ExpertsRow> rows;
    for (const auto& [layer, perExpert] : byLayer) {
        std::vector<std::pair<int, Tally>> order(perExpert.begin(), perExpert.end());
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& a, const auto& b) { return a.second.n > b.second.n; });
        ExpertsRow row;
        row.layer = layer;
        const double n = double(tokensAt[layer]);
        for (const auto& [id, c] : order) {
            row.ids.push_back(id);
            row.values.push_back(double(c.n) / n);
            row.meanProbs.push_back(c.probs / double(c.n));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

ExpertsView::ExpertsView(InteractiveState* state, ModelService* models, QWidget* parent)
    : QGroupBox(tr("Experts (mixture of experts)"), parent), m_state(state), m_models(models)
{
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    m_compute = new QPushButton(tr("Route experts"), this);
    m_compute->setToolTip(tr("Which experts the router chooses for each token of the shown text, per sparse layer "
                             "(method.md §15); pick a token or a node to see its experts"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    buttons->addWidget(m_compute);
    buttons->addWidget(m_cancel);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Layer"), tr("Experts"), tr("Weights")});
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setMaximumHeight(200);
    layout->addWidget(m_table);
    m_note = new QLabel(tr("For a mixture-of-experts model: Route experts, then pick a token or a node."), this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);

    connect(m_compute, &QPushButton::clicked, this, &ExpertsView::compute);
    connect(m_cancel, &QPushButton::clicked, this, &ExpertsView::cancel);
    connect(state, &InteractiveState::selectionChanged, this, [this] { showSelection(); });
    connect(state, &InteractiveState::resultShown, this, [this] { forget(); });
    // Another model: the routing shown was the previous model's (issue 54: it stayed after a dense model loaded).
    connect(models, &ModelService::modelLoaded, this, [this] {
        if (!m_result)
            return;
        m_result.reset();
        m_table->setRowCount(0);
        m_note->setText(tr("Another model is loaded: Route experts again (for a mixture-of-experts model)."));
    });
}

void ExpertsView::forget()
{
    if (!m_result)
        return;
    m_result.reset();
    m_table->setRowCount(0);
    m_note->setText(tr("A new result is shown: Route experts again."));
}

void ExpertsView::cancel()
{
    if (m_job != 0)
        m_models->jobs()->cancel(m_job);
}

void ExpertsView::compute()
{
    if (m_job != 0)
        return;
    const auto model = m_models->model();
    const AnalysisPtr shown = m_state->shown();
    if (!model) {
        m_note->setText(tr("Load a model first."));
        Q_EMIT jobDone(false);
        return;
    }
    const ModelInfo& info = model->info();
    if (info.experts <= 0) {
        m_table->setRowCount(0);
        m_note->setText(tr("%1 (%2) is a dense model: every token goes through the same feed-forward block, there "
                           "is no router and so no experts to show. Load a mixture-of-experts model (e.g. "
                           "qwen3_moe, mixtral, deepseek_v2) to see them.")
                            .arg(toQString(info.name), toQString(info.architecture)));
        Q_EMIT jobDone(false);
        return;
    }
    if (!shown) {
        m_note->setText(tr("Score or generate a text first."));
        Q_EMIT jobDone(false);
        return;
    }
    auto out = std::make_shared<Result>();
    auto cancelled = std::make_shared<bool>(false);
    const ScoredText scored = shown->eval->scored; // routed as shown: its own tokens (issue 54)
    m_compute->setEnabled(false);
    m_cancel->setVisible(true);
    m_note->setText(tr("Routing…"));
    JobTracker::Callbacks cb;
    cb.finished = [this, out, cancelled, shown] {
        m_job = 0;
        m_compute->setEnabled(true);
        m_cancel->setVisible(false);
        if (*cancelled) {
            m_note->setText(tr("Routing cancelled."));
            Q_EMIT jobDone(false);
            return;
        }
        if (m_state->shown() != shown) {
            m_note->setText(tr("The views show another result now: Route experts again."));
            Q_EMIT jobDone(false);
            return;
        }
        m_result = out;
        showSelection();
        Q_EMIT jobDone(true);
    };
    cb.failed = [this](const QString& message) {
        m_job = 0;
        m_compute->setEnabled(true);
        m_cancel->setVisible(false);
        m_note->setText(tr("Failed: %1").arg(message));
        Q_EMIT jobDone(false);
    };
    m_job = m_models->jobs()->start(
        tr("Experts"), QStringLiteral("inside"),
        [model, scored, out, cancelled](JobContext& ctx) {
            // One forward pass over the result's own tokens (a generated text keeps the tokens it was generated
            // with, which need not be its text's encoding): cancel drops its result.
            ScoredExperts se = scoreExpertsOfTokens(*model, scored);
            if (ctx.isCancelled()) {
                *cancelled = true;
                return;
            }
            out->text = scored.text;
            out->tokens = std::move(se.tokens);
            out->experts = model->info().experts;
            out->perToken = model->info().expertsPerToken;
        },
        this, cb);
}

void ExpertsView::showSelection()
{
    if (!m_result)
        return;
    const AnalysisPtr shown = m_state->shown();
    if (!shown || shown->eval->scored.text != m_result->text)
        return;
    const int node = m_state->selectedNode(), token = m_state->selectedToken();
    if (node >= 0 && std::size_t(node) < shown->eval->nodes.size()) {
        const auto& tokens = shown->eval->nodes[std::size_t(node)].tokens;
        showRows(nodeExpertRows(tokens, m_result->tokens), true);
        const auto& n = shown->eval->tree.nodes()[std::size_t(node)];
        m_note->setText(tr("Node %1 (%2), %3 tokens: per sparse layer the experts its tokens are routed to, by the "
                           "share of its tokens (mean routing weight in brackets); %4 of %5 experts per token.")
                            .arg(node)
                            .arg(toQString(n.type))
                            .arg(tokens.size())
                            .arg(m_result->perToken)
                            .arg(m_result->experts));
        return;
    }
    if (token >= 0 && std::size_t(token) < m_result->tokens.size()) {
        std::vector<ExpertsRow> rows;
        for (const LayerExperts& le : m_result->tokens[std::size_t(token)])
            rows.push_back({le.layer, le.ids, le.probs, {}});
        showRows(rows, false);
        const auto& t = shown->eval->scored.tokens[std::size_t(token)];
        m_note->setText(tr("Token %1 %2: the router's choice per sparse layer in its order, with the routing "
                           "weights; %3 of %4 experts per token.")
                            .arg(token)
                            .arg(toQString(shown->eval->scored.text.substr(t.start, t.end - t.start)).toHtmlEscaped())
                            .arg(m_result->perToken)
                            .arg(m_result->experts));
        return;
    }
    m_table->setRowCount(0);
    m_note->setText(
        tr("Routed %1 tokens: pick a token or a node to see its experts per layer.").arg(m_result->tokens.size()));
}

void ExpertsView::showRows(const std::vector<ExpertsRow>& rows, bool node)
{
    m_table->setHorizontalHeaderLabels({tr("Layer"), tr("Experts"), node ? tr("Share (mean weight)") : tr("Weights")});
    m_table->setRowCount(int(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const ExpertsRow& row = rows[r];
        QStringList ids, values;
        for (std::size_t k = 0; k < row.ids.size(); ++k) {
            ids << QString::number(row.ids[k]);
            values << (node ? QStringLiteral("%1 (%2)")
                                  .arg(row.values[k], 0, 'f', 2)
                                  .arg(k < row.meanProbs.size() ? row.meanProbs[k] : 0.0, 0, 'f', 2)
                            : QString::number(row.values[k], 'f', 3));
        }
        m_table->setItem(int(r), 0, new QTableWidgetItem(QString::number(row.layer)));
        m_table->setItem(int(r), 1, new QTableWidgetItem(ids.join(QStringLiteral(", "))));
        m_table->setItem(int(r), 2, new QTableWidgetItem(values.join(QStringLiteral(", "))));
    }
    m_table->resizeColumnsToContents();
}

} // namespace ascviz::ui
