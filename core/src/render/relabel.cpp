// Value lines of an AST layout's labels rewritten for other node values (the layer lens's layers).
#include "ascviz/render/layout.h"

#include "render_util.h"

namespace ascviz {

GraphLayout relabelValues(const GraphLayout& layout, const EvalResult& r)
{
    GraphLayout out = layout;
    for (auto& n : out.nodes) {
        if (n.node < 0 || static_cast<std::size_t>(n.node) >= r.nodes.size())
            continue;
        const auto cut = n.label.rfind('\n');
        if (cut == std::string::npos)
            continue;
        n.label = n.label.substr(0, cut + 1) + detail::formatValue(r.nodes[static_cast<std::size_t>(n.node)].value);
    }
    return out;
}

} // namespace ascviz
