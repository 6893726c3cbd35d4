// render's options (render_figure.h).
#include "render_figure.h"

#include "figure_args.h"

#include "ascviz/base/error.h"

namespace ascviz::cli {

ViewRequest readRenderRequest(Args& args, const LayoutOptions& layout)
{
    ViewRequest q;
    q.options.layout = layout;
    q.style = readFigureStyle(args, &q.paper);
    // The layout options are checked by core (setViewOption), the message naming the command-line option.
    auto set = [&](const char* flag, const char* name) {
        const auto v = args.value(flag);
        if (!v)
            return;
        usageOf("", [&] { setViewOption(q, name, *v, flag); });
    };
    set("--subtree", "subtree");
    set("--max-depth", "max_depth");
    set("--fold", "fold");
    set("--auto-collapse", "auto_collapse");
    set("--orientation", "orientation");
    set("--whitespace", "whitespace");
    return q;
}

} // namespace ascviz::cli
