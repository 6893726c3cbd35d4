# %% [markdown]
# # AsC-Viz from Python: the README's CLI examples
#
# A notebook in the percent format (Jupyter opens it through jupytext; VS Code runs its cells). CI runs it as
# a plain script (python/tests/test_quickstart.py): `python docs/python-quickstart.py OUT_DIR`.
# Each cell does from Python what one of the README's `ascviz-cli` lines does, with the same numbers.

# %%
import os
import sys
import tempfile

import ascviz

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="quickstart-")
code = "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n"
print("LibTorch", ascviz.torch_version(), "-", ascviz.torch_build())

# %% [markdown]
# `ascviz-cli parse --language python --text-file f.py`

# %%
ast = ascviz.parse(code, "python")
print(f"parse: {len(ast)} nodes, {ast.attrs['levels']} levels, root {ast['type'][0]}")
ast.head()

# %% [markdown]
# `ascviz-cli eval --model default --text-file f.py --aggregation median --out f.json`

# %%
m = ascviz.load_model("default")  # the bundled ascviz-tiny-code; a folder or "org/name" (HF cache) too
r = m.evaluate(code, aggregation="median")
print(f"eval: AsC-Eval {r.asc_eval:.4f}, {len(r.tokens)} tokens, cross-entropy {r.cross_entropy:.4f}")
print(r.categories.round(3).to_string())
r.nodes[["type", "category", "asc_eval"]].head(8)

# %% [markdown]
# The result shows itself inline: the sequence view and the complete AST view, coloured by NtP / AsC-Eval.

# %%
r  # in a notebook: the interactive page (r.to_html()); as a script, the same HTML is written to OUT_DIR/cell.html
with open(os.path.join(out, "cell.html"), "w", encoding="utf-8") as f:
    f.write("<!doctype html><meta charset='utf-8'><title>AsC-Viz cell</title>" + r._repr_html_())

# %% [markdown]
# `ascviz-cli render --model default --text-file f.py --view partial --svg f-partial.svg`

# %%
svg = r.render("partial", os.path.join(out, "f-partial.svg"))
print(f"render: f-partial.svg, {len(svg)} bytes")

# %% [markdown]
# `ascviz-cli batch --model default --corpus default --db run.db` (here the first 12 snippets; Ctrl-C stops
# after the current snippet and `resume=True`, the default, continues), then `ascviz-cli report --db run.db
# --json` and the analyses.

# %%
db = os.path.join(out, "run.db")
summary = ascviz.batch(m, "default", db, limit=12, progress=False)
print(f"batch: stored {summary['stored']}, errors {summary['errors']}, complete {summary['complete']}")
res = ascviz.open_results(db)
print(f"report: global AsC-Eval {res.report_json['global_asc_eval']:.4f} over {len(res.snippets)} snippets")
res.report.head()

# %%
causal = ascviz.causal(db)
perplexed = ascviz.perplexed(db, min_count=2, top=3)
print(f"causal: rho {causal['rho'][0]:.3f} over n = {causal['n'][0]}")
print("perplexed: worst token", repr(perplexed["text"][0]), f"(mean CE {perplexed['mean_ce'][0]:.3f})")
