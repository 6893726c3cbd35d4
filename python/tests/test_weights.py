"""load_model(weights=...): a bfloat16 copy of the bundled model, its weights kept bfloat16 ("checkpoint") or
widened ("float32"), scored through the API and the CLI (--weights) alike."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

import ascviz

from test_api_vs_cli import PY, write

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "resources" / "models" / "ascviz-tiny-code"


@pytest.fixture(scope="module")
def bf16_model(tmp_path_factory):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    out = tmp_path_factory.mktemp("bf16")
    index = json.loads((BUNDLED / "model.safetensors.index.json").read_text())
    tensors = {}
    for shard in sorted(set(index["weight_map"].values())):
        tensors.update(st.load_file(str(BUNDLED / shard)))
    st.save_file({k: v.to(torch.bfloat16).contiguous() for k, v in tensors.items()}, str(out / "model.safetensors"),
                 metadata={"format": "pt"})
    config = json.loads((BUNDLED / "config.json").read_text())
    config["torch_dtype"] = "bfloat16"
    (out / "config.json").write_text(json.dumps(config))
    for f in ("tokenizer.json", "generation_config.json"):
        if (BUNDLED / f).exists():
            shutil.copy(BUNDLED / f, out / f)
    return out


def test_weights_is_checked():
    with pytest.raises(ValueError, match="weights must be one of auto, float32, checkpoint"):
        ascviz.load_model("default", device="cpu", weights="int4")


def test_load_options_are_cores_table(cli):
    """Issue 55: Python refused bfloat16-matmul, which the CLI accepts. The values come from core's one table."""
    assert ascviz.DEVICES == ("auto", "cpu", "cuda")
    assert ascviz.DTYPES == ("auto", "float32", "float16", "bfloat16", "bfloat16-matmul")
    assert ascviz.WEIGHTS == ("auto", "float32", "checkpoint")
    with pytest.raises(ValueError, match="dtype must be one of auto, float32, float16, bfloat16, bfloat16-matmul"):
        ascviz.load_model("default", device="cpu", dtype="int8")


def test_checkpoint_weights_stay_bfloat16_and_equal_the_cli(bf16_model, cli, tmp_path):
    kept = ascviz.load_model(bf16_model, device="cpu", dtype="float32", weights="checkpoint")
    widened = ascviz.load_model(bf16_model, device="cpu", dtype="float32", weights="float32")
    assert kept.info["weights"] == "bfloat16"
    assert widened.info["weights"] == "float32"
    got = kept.score(PY)
    expected = cli("score", "--model", bf16_model, "--device", "cpu", "--dtype", "float32", "--weights", "checkpoint",
                   "--text-file", write(tmp_path, "t", PY))
    assert got.json == expected  # the same runtime: bit for bit the CLI's
    # The same bfloat16 values either way (widening is exact); only the summation order differs.
    ref = widened.score(PY).json["tokens"]
    assert [t["id"] for t in got.json["tokens"]] == [t["id"] for t in ref]
    diffs = [abs(a["ntp"] - b["ntp"]) for a, b in zip(got.json["tokens"], ref) if a["ntp"] is not None]
    assert diffs and max(diffs) < 1e-4
    assert not math.isnan(sum(diffs))
