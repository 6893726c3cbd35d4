"""Result.render's PDF and figure options, and the analyses bound this round (heads --from, layers, treatments):
each equal to the CLI's output for the same input and options."""
from __future__ import annotations

import json
import re

import pytest

import ascviz

PY = "def add(a, b):\n    c = a + b\n    if c > 1:\n        return c\n    return 0\n"
FIGURE = {"width_mm": 85, "font_pt": 8, "title": False, "legend": "bottom", "orientation": "lr", "max_depth": 3}
FIGURE_CLI = ["--width-mm", "85.0", "--font-pt", "8.0", "--no-title", "--legend", "bottom", "--orientation", "lr",
              "--max-depth", "3"]
HEADS_CORPUS = [
    "def f(x):\n    if x > 1:\n        return x\n    return 0\n",
    "def g(y):\n    if y:\n        y = y + 1\n    return y\n",
]
GALERAS_RECORDS = [
    "def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n    c = a + b\n    d = c * 2\n    return d\n",
    "def count(xs):\n    \"\"\"Count the true items.\"\"\"\n    n = 0\n    for x in xs:\n        if x:\n"
    "            n += 1\n    return n\n",
    "def name(p):\n    \"\"\"The file name.\"\"\"\n    parts = p.split('/')\n    last = parts[-1]\n    return last\n",
]


def undated(pdf):
    """A PDF without its creation time (the one byte range two runs a second apart differ in)."""
    return re.sub(rb"/CreationDate \(D:\d+Z\)", b"/CreationDate (D:0Z)", pdf)


def jsonl(path, texts):
    path.write_text("".join(json.dumps({"id": f"t{i}", "code": t}) + "\n" for i, t in enumerate(texts)),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("view,options,cli_options", [
    ("partial", FIGURE, FIGURE_CLI),
    ("sequence", {}, []),
    ("figure5", {"width_mm": 120}, ["--width-mm", "120.0"]),
])
def test_render_pdf_equals_cli_render(model, cli, tmp_path, view, options, cli_options):
    f = tmp_path / "f.py"
    f.write_text(PY, encoding="utf-8")
    out = tmp_path / "cli.pdf"
    cli("render", "--model", "default", "--device", "cpu", "--text-file", f, "--view", view, "--pdf", out,
        *cli_options, as_json=False)
    r = model.evaluate(PY)
    written = tmp_path / "api.pdf"
    pdf = r.render(view, written, **options)
    assert pdf.startswith(b"%PDF") and undated(pdf) == undated(out.read_bytes())
    assert written.read_bytes() == pdf
    assert undated(r.render(view, format="pdf", **options)) == undated(pdf)  # no path: the bytes only


def test_render_svg_with_figure_options_equals_cli(model, cli, tmp_path):
    f = tmp_path / "f.py"
    f.write_text(PY, encoding="utf-8")
    out = tmp_path / "cli.svg"
    cli("render", "--model", "default", "--device", "cpu", "--text-file", f, "--view", "partial", "--svg", out,
        *FIGURE_CLI, as_json=False)
    svg = model.evaluate(PY).render("partial", **FIGURE)
    assert svg.startswith("<") and svg == out.read_text(encoding="utf-8")


def test_render_fold_as_the_gui_exports_equals_cli(model, cli, tmp_path):
    # Issue 54: the view as seen (folded subtrees, no collapsing to fit) through render and Python alike.
    f = tmp_path / "f.py"
    f.write_text(PY, encoding="utf-8")
    r = model.evaluate(PY)
    folded = [int(n) for n in r.nodes[r.nodes["type"] == "parameters"]["id"]][:1]
    assert folded, "the snippet has a parameter list"
    out = tmp_path / "cli.svg"
    cli("render", "--model", "default", "--device", "cpu", "--text-file", f, "--view", "complete", "--svg", out,
        "--width-mm", "85", "--fold", ",".join(map(str, folded)), "--auto-collapse", "false", as_json=False)
    svg = r.render("complete", width_mm=85, fold=folded, auto_collapse=False)
    assert svg == out.read_text(encoding="utf-8")
    assert "\u2026(" in svg and "depth \u2264" not in svg
    with pytest.raises(ascviz.InputError, match="fold: node 99999 is not in the tree"):
        r.render("complete", width_mm=85, fold=[99999])
    with pytest.raises(TypeError, match="fold must be a list of node ids"):
        r.render("complete", fold="3")


def test_render_figure_options_are_checked(model):
    r = model.evaluate(PY)
    with pytest.raises(TypeError, match="unknown figure option 'colour'"):
        r.render("partial", colour="red")
    with pytest.raises(ascviz.InputError, match="--orientation must be td or lr"):
        r.render("partial", format="pdf", orientation="up")
    with pytest.raises(ValueError, match="subtree must be >= 0"):
        r.render("partial", subtree=-1)


def test_heads_from_partials_equals_cli(cli, tmp_path):
    corpus = jsonl(tmp_path / "heads.jsonl", HEADS_CORPUS)
    part = tmp_path / "p.jsonl"
    cli("analyze", "heads", "--model", "default", "--device", "cpu", "--corpus", corpus, "--language", "python",
        "--top-k", "1,3", "--partial", part, as_json=False)
    expected = cli("analyze", "heads", "--from", part, "--top-k", "1,3", "--min-count", "1", "--json")
    df = ascviz.heads([part], top_k=[1, 3], min_count=1)
    assert df.attrs["json"] == expected
    assert list(df["relation"]) == list(expected["relations"].keys()) and len(df) > 0
    for _, row in df.iterrows():
        r = expected["relations"][row["relation"]]
        assert row["count"] == r["count"] and (row["layer"], row["head"]) == (r["best_head"]["layer"],
                                                                             r["best_head"]["head"])
        assert [row["head_top1"], row["head_top3"]] == r["best_head"]["scores"]
        assert [row["diff_top1"], row["diff_top3"]] == r["diff"]
    with pytest.raises(ascviz.InputError, match="--top-k 20 is more than the partial files kept"):
        ascviz.heads([part], top_k=[20])


def test_layers_equals_cli(cli, tmp_path):
    db = tmp_path / "r.db"
    cli("batch", "--model", "default", "--device", "cpu", "--corpus", "default", "--db", db, "--limit", "3",
        "--quiet", as_json=False)
    expected = cli("analyze", "layers", "--db", db, "--resamples", "20", "--quiet", "--json")
    df = ascviz.layers(db, resamples=20)
    assert df.attrs["json"] == expected
    g = df[df["kind"] == "global"]
    assert list(g["median"]) == expected["global"] and list(g["layer"]) == list(range(len(expected["global"])))
    cats = df[df["kind"] == "category"]
    for name, c in expected["categories"].items():
        rows = cats[cats["name"] == name]
        assert list(rows["median"]) == c["median"] and list(rows["n"]) == c["n"]


def test_calibration_equals_cli(cli, tmp_path):
    # Issue 59: ascviz.calibration(db=...) returns the numbers of `analyze calibration --json`.
    db = tmp_path / "r.db"
    cli("batch", "--model", "default", "--device", "cpu", "--corpus", "default", "--db", db, "--limit", "3",
        "--quiet", as_json=False)
    for confidence, by in (("p1", "category"), ("topk_entropy", "global"), ("asc-eval", "concept")):
        expected = cli("analyze", "calibration", "--db", db, "--confidence", confidence, "--by", by, "--resamples",
                       "50", "--json")
        df = ascviz.calibration(db, confidence=confidence, by=by, resamples=50)
        assert df.attrs["json"] == expected
        assert list(df["group"]) == [g["group"] for g in expected["groups"]] and df["group"][0] == "global"
        assert list(df["n"]) == [g["n"] for g in expected["groups"]] and df["n"][0] > 0
        assert [None if v != v else v for v in df["auroc"]] == [g["auroc"] for g in expected["groups"]]
    with pytest.raises(ValueError, match="confidence"):
        ascviz.calibration(db, confidence="certainty")


def test_treatments_equals_cli(cli, tmp_path):
    recs = jsonl(tmp_path / "records.jsonl", GALERAS_RECORDS)
    db = tmp_path / "runs.db"
    cli("galeras", "run", "--records", recs, "--testbed", "withdocstring", "--db", db, "--max-new-tokens", "8",
        "--stop-at-function-end", "--quiet", as_json=False)
    for kwargs, args in (({}, []), ({"outcome": "bleu4", "confounders": ["nloc"]},
                                    ["--outcome", "bleu4", "--confounders", "nloc"])):
        expected = cli("analyze", "treatments", "--db", db, *args, "--json")
        df = ascviz.treatments(db, **kwargs)
        assert df.attrs["json"] == expected
        assert list(df["treatment"]) == [t["name"] for t in expected["treatments"]]
        assert list(df["n"]) == [t["n"] for t in expected["treatments"]]
    assert df["ate"].tolist() == [t["ate"] for t in expected["treatments"]]  # with one confounder: estimated
    with pytest.raises(ascviz.InputError):
        ascviz.treatments(db, outcome="speed")


def test_heads_of_one_shard_of_two_warns(tmp_path):
    # Issue 39: one shard of two gave a report over half the texts with no warning.
    p = tmp_path / "s0.jsonl"
    p.write_text('{"kind":"ascviz-heads-partial","version":1,"model":"m","language":"python","metric":"first",'
                 '"corpus":"c","layers":1,"max_k":3,"shard":"0/2"}\n'
                 '{"id":"a","edges":[{"type":"t","offset":1,"ranks":"00","hits":[1]}],"outside":{}}\n')
    with pytest.warns(UserWarning, match=r"the partial files hold 1 of 2 shards \(missing: 1\)"):
        df = ascviz.heads([p], top_k=[1], min_count=1)
    assert len(df) == 1 and df.attrs["json"]["warnings"]
