"""ascviz.experts (issue 42, method.md §15): the DataFrame equals `ascviz-cli analyze experts --json` on a tiny
mixture-of-experts fixture, over a corpus and over a results database; the refusals."""
from __future__ import annotations

import json

import pytest

import ascviz

from conftest import REPO

MOE = REPO / "tests" / "data" / "fixtures" / "models" / "tiny-qwen2_moe"  # layers 0 and 2 sparse, 4 experts, top-2
CODE = ["def f(a):\n    return a + 1\n", "for i in range(3):\n    print(i)\n", "class A:\n    x = 'y'\n"]


@pytest.fixture(scope="module")
def moe():
    return ascviz.load_model(str(MOE), device="cpu")


@pytest.fixture()
def corpus(tmp_path):
    p = tmp_path / "experts.jsonl"
    p.write_text("".join(json.dumps({"code": c}) + "\n" for c in CODE), encoding="utf-8")
    return p


def _check_equal(df, j):
    assert df.attrs["json"] == j
    assert list(df.columns) == ["category", "layer", "expert", "share", "n", "kl_bits"]
    assert len(df) == len(j["rows"]) > 0
    kl = {(s["category"], s["layer"]): s["kl_bits"] for s in j["specialisation"]}
    for row, ref in zip(df.to_dict("records"), j["rows"]):
        for c in ("category", "layer", "expert", "share", "n"):
            assert row[c] == ref[c], (c, row, ref)
        assert row["kl_bits"] == kl[(ref["category"], ref["layer"])]
    assert sorted(set(df["layer"])) == [0, 2]
    assert sorted(set(df["expert"])) == [0, 1, 2, 3]
    # top-2 routing: a category's shares at a layer sum to 2
    sums = df.groupby(["category", "layer"])["share"].sum()
    assert ((sums - 2.0).abs() < 1e-9).all()


def test_experts_of_a_corpus_equal_cli(moe, cli, corpus):
    df = ascviz.experts(moe, corpus=corpus)
    j = cli("analyze", "experts", "--corpus", corpus, "--model", MOE, "--device", "cpu", "--json")
    _check_equal(df, j)
    assert df.attrs["json"]["snippets"] == 3


def test_experts_of_a_db_equal_cli(moe, cli, corpus, tmp_path):
    db = tmp_path / "experts.db"
    cli("batch", "--model", MOE, "--device", "cpu", "--quiet", "--corpus", corpus, "--db", db, as_json=False)
    df = ascviz.experts(moe, db=db, limit=2)
    j = cli("analyze", "experts", "--db", db, "--device", "cpu", "--limit", "2", "--json")
    _check_equal(df, j)
    assert df.attrs["json"]["snippets"] == 2


def test_experts_refusals(moe, model, corpus):
    with pytest.raises(ValueError):
        ascviz.experts(moe)
    with pytest.raises(ValueError):
        ascviz.experts(moe, corpus=corpus, db=corpus)
    with pytest.raises(TypeError):
        ascviz.experts("tiny", corpus=corpus)
    with pytest.raises(ascviz.ModelError, match="is dense"):
        ascviz.experts(model, corpus=corpus)  # the bundled GPT-2 model
    with pytest.raises(ascviz.InputError):
        ascviz.experts(moe, corpus=corpus, max_text_bytes=5)  # every text over the size limit
