// Text for LaTeX documents: the one escaper every LaTeX writer of the project uses (the comparison and
// AsC-Causal tables, Tables I and II, the layer matrix, the heads' Tables 3 and 6, the Galeras treatments).
#pragma once
#include <string>
#include <string_view>

namespace ascviz {

// `s` as LaTeX text: the ten specials escaped (\ as \textbackslash{}, ~ as \textasciitilde{}, ^ as
// \textasciicircum{}, & % $ # _ { } with a backslash), < > | as \textless{} \textgreater{} \textbar{} (the OT1
// font encoding, pdflatex's default, has no glyphs for them), and the few symbols the project's labels use in
// math mode so that pdflatex needs no Unicode set-up: θ $\theta$, δ $\delta$, ℓ $\ell$, × $\times$, ± $\pm$,
// ≤ $\leq$, ≥ $\geq$, → $\rightarrow$. Every other byte, other UTF-8 included, is kept.
std::string latexEscape(std::string_view s);

} // namespace ascviz
