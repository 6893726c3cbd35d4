#include "pages/interactive/interactivestate.h"

namespace ascviz::ui {

void InteractiveState::setResult(AnalysisPtr result)
{
    const bool sameText =
        m_shown && result && m_shown->eval && result->eval && m_shown->eval->scored.text == result->eval->scored.text;
    m_shown = std::move(result);
    m_derived.reset(); // the lens's values were of the previous result
    m_what.clear();
    if (!sameText) {
        m_node = -1;
        m_token = -1;
    }
}

void InteractiveState::showDerived(AnalysisPtr derived, const QString& what)
{
    if (!m_shown)
        return;
    m_derived = std::move(derived);
    m_what = m_derived ? what : QString();
    Q_EMIT displayedChanged();
}

void InteractiveState::selectNode(int node)
{
    if (!m_shown || !m_shown->eval || node < 0 || std::size_t(node) >= m_shown->eval->tree.nodes().size()) {
        clearSelection();
        return;
    }
    m_node = node;
    m_token = -1;
    reselect();
}

void InteractiveState::selectToken(int token)
{
    if (!m_shown || !m_shown->eval || token < 0 || std::size_t(token) >= m_shown->eval->scored.tokens.size()) {
        clearSelection();
        return;
    }
    m_token = token;
    m_node = -1;
    reselect();
}

void InteractiveState::clearSelection()
{
    m_node = -1;
    m_token = -1;
    reselect();
}

} // namespace ascviz::ui
