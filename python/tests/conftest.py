"""Shared fixtures: the bundled model (loaded once) and the CLI built from the same checkout, whose JSON every
API result is compared with (ASCVIZ_CLI names it; else build-pytorch/ or build/ of the repository)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import ascviz

REPO = Path(__file__).resolve().parents[2]


def _find_cli():
    env = os.environ.get("ASCVIZ_CLI")
    if env:
        return Path(env)
    for d in ("build-pytorch", "build"):
        p = REPO / d / "app" / "ascviz-cli"
        if p.exists():
            return p
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs ascviz-cli with arguments; returns its stdout parsed as JSON (or text with json=False)."""
    exe = _find_cli()
    if exe is None or not exe.exists():
        pytest.skip("no ascviz-cli: set ASCVIZ_CLI or build build-pytorch/ (packaging/setup.sh test does)")
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True).stdout
    if ascviz.torch_version() not in version:
        pytest.skip(f"{exe} is not built with LibTorch {ascviz.torch_version()} (the numbers would differ): {version}")

    def run(*args, as_json=True, check=True):
        p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"ascviz-cli {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
        if not check:
            return p
        return json.loads(p.stdout) if as_json else p.stdout

    return run


@pytest.fixture(scope="session")
def model():
    return ascviz.load_model("default", device="cpu")
