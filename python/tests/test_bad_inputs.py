"""Bad inputs: TypeError / ValueError at the boundary, core's errors as ascviz exceptions with core's messages."""
from __future__ import annotations

import pytest

import ascviz


def test_non_utf8_bytes_name_the_byte(model):
    with pytest.raises(ValueError, match=r"code is not valid UTF-8: byte 4 \(0xff\)"):
        model.evaluate(b"x = \xff\n")
    assert model.evaluate(b"x = 1\n").json == model.evaluate("x = 1\n").json


def test_lone_surrogate_is_refused(model):
    with pytest.raises(ValueError, match="cannot be encoded as UTF-8"):
        model.evaluate("x = '\ud800'\n")


@pytest.mark.parametrize("call,match", [
    (lambda m: m.evaluate(42), "code must be str or UTF-8 bytes, not int"),
    (lambda m: m.evaluate("x", language=3), "language must be str"),
    (lambda m: m.evaluate("x", prompt_bytes="1"), "prompt_bytes must be int"),
    (lambda m: m.evaluate("x", prompt_bytes=True), "prompt_bytes must be int"),
    (lambda m: m.score([b"ok", 5]), r"texts\[1\] must be str"),
    (lambda m: m.score(7), "texts must be str, bytes or a sequence"),
    (lambda m: ascviz.batch("not a model", "default", "x.db"), "model must be an ascviz.Model"),
])
def test_wrong_types_raise_type_error(model, call, match):
    with pytest.raises(TypeError, match=match):
        call(model)


@pytest.mark.parametrize("call,match", [
    (lambda m: m.evaluate("x", aggregation="avg"), "aggregation must be one of median, mean, max, min"),
    (lambda m: m.evaluate("x", prompt_bytes=-1), "prompt_bytes must be >= 0"),
    # Too large for the C++ side (size_t, int): the argument's name, not nanobind's signature dump (issue 39).
    (lambda m: m.evaluate("x", prompt_bytes=10**20), "prompt_bytes must be <= 9223372036854775807, got 10+"),
    (lambda m: m.evaluate("x", max_ast_depth=2**31), "max_ast_depth must be <= 2147483647"),
    (lambda m: m.generate("x", seed=2**64), "seed must be <= 18446744073709551615"),
    (lambda m: ascviz.report("x.db", resamples=2_000_000_000), "resamples must be <= 100000"),
    (lambda m: m.score(["a"], batch_size=0), "batch_size must be >= 1"),
    (lambda m: m.generate("x", greedy=True, temperature=0.5), "greedy=True cannot be combined"),
    (lambda m: m.generate("x", top_p=1.5), r"top_p must be in \(0, 1\]"),
    (lambda m: m.evaluate("x").render("tree"), "view must be one of complete, partial, sequence"),
    (lambda m: ascviz.load_model(device="tpu"), "device must be one of auto, cpu, cuda"),
])
def test_bad_values_raise_value_error(model, call, match):
    with pytest.raises(ValueError, match=match):
        call(model)


def test_core_errors_keep_core_messages(model, tmp_path):
    with pytest.raises(ascviz.InputError, match=r"language must be one of: .*python.*\(got 'cobol'\)"):
        model.evaluate("x", language="cobol")
    with pytest.raises(ascviz.InputError, match=r"prompt_bytes 99 is beyond the end of the text \(2 bytes\)"):
        model.evaluate("x\n", prompt_bytes=99)
    with pytest.raises(ascviz.InputError, match="over the limit of 10 bytes"):
        model.evaluate("x = 1234567890\n", max_text_bytes=10)
    with pytest.raises(ascviz.InputError, match="syntax tree has .* nodes, over the limit"):
        model.evaluate("x = [1, 2, 3]\n", max_ast_nodes=3)
    # InputError is both an ascviz.Error and a ValueError
    assert issubclass(ascviz.InputError, ascviz.Error) and issubclass(ascviz.InputError, ValueError)


def test_model_folder_errors_name_the_folder(tmp_path):
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ascviz.Error, match=str(tmp_path)):
        ascviz.load_model(tmp_path, device="cpu")
    with pytest.raises(ascviz.Error):
        ascviz.load_model(tmp_path / "missing", device="cpu")


def test_open_results_refuses_what_is_not_a_results_database(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ascviz.open_results(tmp_path / "none.db")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not SQLite at all, just text" * 10)
    with pytest.raises(ascviz.InputError, match="bad.db"):
        ascviz.open_results(bad)
    with pytest.raises(ascviz.InputError):
        ascviz.causal(bad)
