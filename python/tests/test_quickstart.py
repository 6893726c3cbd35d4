"""docs/python-quickstart.py (the notebook of the README's CLI examples) runs as a script and does what it says."""
from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import ascviz

REPO = Path(__file__).resolve().parents[2]


def test_quickstart_runs_and_shows_the_ast_view(tmp_path):
    p = subprocess.run([sys.executable, str(REPO / "docs" / "python-quickstart.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout
    assert "parse: " in lines and "eval: AsC-Eval 0." in lines and "batch: stored 12, errors 0" in lines
    assert "report: global AsC-Eval" in lines and "causal: rho" in lines
    page = (tmp_path / "cell.html").read_text(encoding="utf-8")
    # the notebook's display: the shared page (Result.to_html) in a sandboxed frame, its data embedded
    assert page.count("<iframe") == 1 and 'id="ascviz-data"' in html.unescape(page)
    assert (tmp_path / "f-partial.svg").read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))
    assert len(ascviz.open_results(tmp_path / "run.db").snippets) == 12
