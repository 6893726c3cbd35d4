"""Every API result equals the CLI's JSON for the same model and input (exactly: the same core code, the same
LibTorch)."""
from __future__ import annotations

import html
import json
import math
import os

import pytest

import ascviz
from ascviz._frames import records

PY = "def add(a, b):\n    # sum\n    return a + b  # é\n\nprint(add(1, 2))\n"
JAVA = "class A {\n  int f(int x) {\n    if (x > 0) { return x; }\n    return -x;\n  }\n}\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("code,name,kwargs,cli_args", [
    (PY, "f.py", {}, []),
    (PY, "f.py", {"aggregation": "max", "prompt_bytes": 15}, ["--aggregation", "max", "--prompt-bytes", "15"]),
    (JAVA, "A.java", {"language": "java", "aggregation": "mean"}, ["--language", "java", "--aggregation", "mean"]),
])
def test_evaluate_equals_cli_eval(model, cli, tmp_path, code, name, kwargs, cli_args):
    f = write(tmp_path, name, code)
    expected = cli("eval", "--model", "default", "--device", "cpu", "--text-file", f, *cli_args)
    r = model.evaluate(code, **kwargs)
    assert r.json == expected
    # the DataFrames have the JSON's columns (in docs/cli.md's order) and the same values
    assert sorted(r.tokens.columns) == sorted(expected["tokens"][0].keys())
    assert sorted(r.nodes.columns) == sorted(expected["nodes"][0].keys())
    assert records(r.tokens) == expected["tokens"]
    assert records(r.nodes) == expected["nodes"]
    assert r.summary == expected["summary"]
    assert r.categories.to_dict() == expected["summary"]["categories"]
    assert r.asc_eval == expected["summary"]["asc_eval"] and 0 < r.asc_eval < 1


def test_tokens_frame_types_and_null_ntp(model):
    r = model.evaluate(PY)
    assert str(r.tokens["ntp"].dtype) == "float64" and str(r.nodes["parent"].dtype) == "Int64"
    # the root has no parent; node 1's parent is the root
    assert r.nodes["parent"].isna().iloc[0] and r.nodes["parent"].iloc[1] == 0
    assert r.tokens["end"].iloc[-1] == len(PY.encode("utf-8"))


def test_parse_equals_cli_parse(cli, tmp_path):
    f = write(tmp_path, "f.py", PY)
    expected = cli("parse", "--language", "python", "--text-file", f)
    df = ascviz.parse(PY, "python")
    assert records(df) == expected["nodes"]
    assert df.attrs["levels"] == expected["levels"] and df.attrs["syntax_errors"] == expected["syntax_errors"]


@pytest.mark.parametrize("batch_size", [1, 2])
def test_score_equals_cli_score(model, cli, tmp_path, batch_size):
    texts = [PY, "x = 1\n", JAVA]
    expected = [cli("score", "--model", "default", "--device", "cpu", "--text-file", write(tmp_path, f"t{i}", t))
                for i, t in enumerate(texts)]
    got = model.score(texts, batch_size=batch_size)
    assert len(got) == 3
    for g, e in zip(got, expected):
        if batch_size == 1:
            assert g.json == e  # one by one: bit for bit the CLI's
        else:  # batched scoring equals one-by-one scoring to rounding
            assert [(t["id"], t["start"], t["end"]) for t in g.json["tokens"]] == \
                [(t["id"], t["start"], t["end"]) for t in e["tokens"]]
            for a, b in zip(g.json["tokens"], e["tokens"]):
                assert (a["ntp"] is None) == (b["ntp"] is None)
                assert a["ntp"] is None or math.isclose(a["ntp"], b["ntp"], rel_tol=1e-4, abs_tol=1e-6)
        assert records(g.tokens) == g.json["tokens"]
    single = model.score(texts[1])
    assert isinstance(single, ascviz.Scores) and single.json == expected[1]


def test_generate_equals_cli_generate_and_eval(model, cli, tmp_path):
    prompt = "def fib(n):\n"
    p = write(tmp_path, "prompt.py", prompt)
    gen = cli("generate", "--model", "default", "--device", "cpu", "--prompt-file", p, "--max-new-tokens", "12",
              "--greedy")
    r = model.generate(prompt, max_new_tokens=12)
    assert r.generation == gen
    assert r.text == gen["text"] and r.text.startswith(prompt) and r.stop in ("eos", "length")
    scores = write(tmp_path, "gen.json", __import__("json").dumps(gen))
    evaluated = cli("eval", "--scores", scores)
    assert r.json["tokens"] == evaluated["tokens"]
    assert r.json["nodes"] == evaluated["nodes"]
    assert r.json["summary"] == evaluated["summary"]
    assert r.tokens["generated"].sum() == sum(t["generated"] for t in gen["tokens"]) > 0


def test_sampling_is_seeded_like_the_cli(model, cli, tmp_path):
    p = write(tmp_path, "prompt.py", "import os\n")
    gen = cli("generate", "--model", "default", "--device", "cpu", "--prompt-file", p, "--max-new-tokens", "8",
              "--temperature", "0.8", "--top-k", "20", "--seed", "7")
    r = model.generate("import os\n", max_new_tokens=8, temperature=0.8, top_k=20, seed=7)
    assert r.generation == gen


@pytest.mark.parametrize("view", ["complete", "partial", "sequence"])
def test_render_equals_cli_render(model, cli, tmp_path, view):
    f = write(tmp_path, "f.py", PY)
    out = tmp_path / f"{view}.svg"
    cli("render", "--model", "default", "--device", "cpu", "--text-file", f, "--view", view, "--svg", out,
        as_json=False)
    r = model.evaluate(PY)
    written = tmp_path / f"api-{view}.svg"
    svg = r.render(view, written)
    assert svg == out.read_text(encoding="utf-8")
    assert written.read_text(encoding="utf-8") == svg


def _embedded(page):
    """The JSON document a shared page embeds (docs/share.md)."""
    start = page.index('<script type="application/json" id="ascviz-data">')
    start = page.index(">", start) + 1
    return json.loads(page[start:page.index("</script>", start)])


def test_to_html_is_the_cli_export(model, cli, tmp_path):
    """Result.to_html embeds what `ascviz-cli export-html` embeds for the same text (issue 46): eval's document,
    the text and the version; nothing is fetched (no http URL in the page); a path gets the same page."""
    f = write(tmp_path, "f.py", PY)
    out = tmp_path / "cli.html"
    cli("export-html", "--model", "default", "--device", "cpu", "--text-file", f, "--out", out, as_json=False)
    r = model.evaluate(PY)
    page = r.to_html()
    ours, theirs = _embedded(page), _embedded(out.read_text(encoding="utf-8"))
    # the CLI's page names the file without the sender's folders (issue 54)
    assert ours["share"]["source"] == "ascviz.Result" and theirs["share"]["source"] == os.path.basename(str(f))
    assert ours["share"]["model_fingerprint"] == theirs["share"]["model_fingerprint"] is not None
    del ours["share"]["source"], theirs["share"]["source"]
    assert ours == theirs
    assert ours["text"] == PY
    # nothing fetched: the only URL is the SVG namespace the page's script creates its elements in
    assert "https://" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    written = tmp_path / "api.html"
    assert r.to_html(written, source="mine") == written.read_text(encoding="utf-8")
    assert _embedded(written.read_text(encoding="utf-8"))["share"]["source"] == "mine"
    with pytest.raises(ascviz.InputError, match="no-such-folder"):
        r.to_html(tmp_path / "no-such-folder" / "x.html")


def test_notebook_display_is_the_shared_page(model):
    r = model.evaluate(PY)
    frame = r._repr_html_()
    assert frame.startswith("<iframe") and "sandbox='allow-scripts'" in frame
    page = html.unescape(frame[frame.index('srcdoc="') + 8:frame.rindex('"')])
    assert _embedded(page) == _embedded(r.to_html())
    assert r._repr_svg_() == r.render("complete")
