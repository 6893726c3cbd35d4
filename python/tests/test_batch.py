"""batch: the same database as `ascviz-cli batch`, interrupted (KeyboardInterrupt, a real SIGINT) and resumed;
open_results, report and the analyses equal the CLI's JSON."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import ascviz

LIMIT = 8
# The columns that record when and how fast, not what was computed.
CLOCK_COLUMNS = ["created", "seconds"]


def assert_same_content(a, b):
    pd.testing.assert_frame_equal(a.snippets.drop(columns=CLOCK_COLUMNS), b.snippets.drop(columns=CLOCK_COLUMNS))
    pd.testing.assert_frame_equal(a.tokens, b.tokens, check_exact=True)
    pd.testing.assert_frame_equal(a.nodes, b.nodes, check_exact=True)


@pytest.fixture(scope="module")
def cli_db(cli, tmp_path_factory):
    db = tmp_path_factory.mktemp("cli") / "cli.db"
    cli("batch", "--model", "default", "--device", "cpu", "--corpus", "default", "--db", db, "--limit", LIMIT,
        "--quiet", as_json=False)
    return db


def test_batch_interrupted_and_resumed_equals_cli_batch(model, cli, cli_db, tmp_path):
    db = tmp_path / "api.db"
    seen = []

    def stop_after_three(p):
        seen.append(p["done"])
        if p["done"] == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt, match="after 3 of 8 snippets.*resume=True"):
        ascviz.batch(model, "default", db, limit=LIMIT, progress=False, on_progress=stop_after_three)
    partial = ascviz.open_results(db)
    assert len(partial.snippets) == 3 and partial.run["status"] != "complete"
    assert seen == [0, 1, 2, 3]

    summary = ascviz.batch(model, "default", db, limit=LIMIT, progress=False)
    assert summary["resumed"] == 3 and summary["stored"] == LIMIT - 3 and summary["complete"]
    assert not summary["cancelled"]

    api, ref = ascviz.open_results(db), ascviz.open_results(cli_db)
    assert len(api.snippets) == LIMIT and api.run["status"] == "complete"
    assert_same_content(api, ref)
    assert set(api.nodes.columns) >= {"snippet", "node", "type", "category", "asc_eval"}


def test_report_and_analyses_equal_cli(cli, cli_db):
    res = ascviz.open_results(cli_db)
    assert res.report_json == cli("report", "--db", cli_db, "--json")
    df = res.report
    assert set(df["kind"]) == {"category", "concept"}
    cat = df[df["kind"] == "category"].set_index("name")
    for name, v in res.report_json["categories"].items():
        assert cat.loc[name, "median"] == v["median"] and cat.loc[name, "n"] == v["n"]

    c = ascviz.causal(cli_db, by="category")
    expected = cli("analyze", "causal", "--db", cli_db, "--by", "category", "--json")
    assert c.attrs["json"] == expected
    assert c["group"].iloc[0] == "global" and c["n"].iloc[0] == expected["n"] == LIMIT
    assert list(c["group"].iloc[1:]) == list(expected["by"].keys())
    assert c["rho"].iloc[0] == expected["rho"]["treatment"]

    p = ascviz.perplexed(cli_db, min_count=2, top=5)
    expected = cli("analyze", "perplexed", "--db", cli_db, "--min-count", "2", "--top", "5", "--json")
    assert p.attrs["json"] == expected
    worst = p[(p["kind"] == "token") & (p["rank"] == "worst")]
    assert list(worst["text"]) == [e["text"] for e in expected["tokens"]["worst"]]
    assert list(worst["mean_ce"]) == [e["mean_ce"] for e in expected["tokens"]["worst"]]


def test_batch_refuses_an_existing_db_without_resume_and_another_aggregation(model, cli_db, tmp_path):
    with pytest.raises(ascviz.InputError, match="already exists"):
        ascviz.batch(model, "default", cli_db, resume=False, limit=LIMIT, progress=False)
    copy = tmp_path / "copy.db"
    copy.write_bytes(cli_db.read_bytes())
    with pytest.raises(ascviz.InputError, match="aggregation"):
        ascviz.batch(model, "default", copy, limit=LIMIT, aggregation="max", progress=False)


def test_ctrl_c_leaves_a_resumable_database(tmp_path):
    """A real SIGINT to a Python process running batch: KeyboardInterrupt, a consistent database, resumed."""
    db = tmp_path / "sigint.db"
    script = textwrap.dedent(f"""
        import sys, time, ascviz
        m = ascviz.load_model("default", device="cpu")
        def hook(p):
            print("done", p["done"], flush=True)
            if p["done"] == 2:
                time.sleep(30)  # the parent sends SIGINT now
        try:
            ascviz.batch(m, "default", {str(db)!r}, limit={LIMIT}, progress=False, on_progress=hook)
        except KeyboardInterrupt as e:
            print("interrupted:", e, flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        for line in child.stdout:
            if line.strip() == "done 2":
                child.send_signal(signal.SIGINT)
                break
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 3, err
    assert "interrupted: batch interrupted after 2 of 8 snippets" in out
    res = ascviz.open_results(db)
    assert len(res.snippets) == 2 and res.run["status"] != "complete"
    m = ascviz.load_model("default", device="cpu")
    s = ascviz.batch(m, "default", db, limit=LIMIT, progress=False)
    assert s["resumed"] == 2 and s["complete"] and len(ascviz.open_results(db).snippets) == LIMIT


def test_progress_without_tqdm_prints_tenths(model, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    ascviz.batch(model, "default", tmp_path / "p.db", limit=4, progress=True)
    err = capsys.readouterr().err
    assert "batch: 0/4" in err and "batch: 4/4" in err
