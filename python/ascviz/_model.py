"""load_model, Model, Result and Scores: a loaded model and what it computes, as pandas objects."""
from __future__ import annotations

import html
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from . import _ascviz
from . import _check as check
from ._frames import NODE_COLUMNS, SCORE_TOKEN_COLUMNS, TOKEN_COLUMNS, frame

# The CLI's defaults (base/limits.h; docs/limits.md).
MAX_TEXT_BYTES = 32768
MAX_AST_DEPTH = 1000
MAX_AST_NODES = 200000
MAX_GRAPHVIZ_NODES = 1500

# core's one name table of the load options (model/loadoptions.h), as the CLI and the GUI list them.
_LOAD_OPTIONS = _ascviz.load_option_names()
DEVICES = tuple(_LOAD_OPTIONS["device"])
DTYPES = tuple(_LOAD_OPTIONS["dtype"])
WEIGHTS = tuple(_LOAD_OPTIONS["weights"])
VIEWS = ("complete", "partial", "sequence")


# render's figure options: Python name -> (CLI option, check).
_FIGURE_OPTIONS = {
    "width_mm": "--width-mm", "font_pt": "--font-pt", "legend": "--legend", "subtree": "--subtree",
    "max_depth": "--max-depth", "orientation": "--orientation", "whitespace": "--whitespace",
    "fold": "--fold", "auto_collapse": "--auto-collapse",
}


def _figure_argv(options: Dict[str, Any]) -> List[str]:
    """The figure options as the CLI's arguments (its own parser checks the values)."""
    argv: List[str] = []
    for name, value in options.items():
        if name == "title":
            if not check.flag(value, "title"):
                argv.append("--no-title")
        elif name in _FIGURE_OPTIONS:
            if name in ("width_mm", "font_pt"):
                value = check.number(value, name)
            elif name in ("subtree", "max_depth"):
                value = check.integer(value, name, 0)
            elif name == "fold":  # node ids: the folded subtrees
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise TypeError(f"fold must be a list of node ids, not {type(value).__name__}")
                value = ",".join(str(check.integer(v, "fold", 0)) for v in value)
                if not value:
                    continue
            elif name == "auto_collapse":
                value = "true" if check.flag(value, "auto_collapse") else "false"
            else:
                value = check.string(value, name)
            argv += [_FIGURE_OPTIONS[name], str(value)]
        else:
            raise TypeError(f"render() got an unknown figure option '{name}' (figure options: title, "
                            f"{', '.join(_FIGURE_OPTIONS)})")
    return argv


class Result:
    """An evaluated text: what `ascviz-cli eval --json` prints, as pandas objects.

    tokens      DataFrame, one row per token: id, start, end (UTF-8 byte offsets), ntp, generated, the uncertainty of
                the same pass (entropy, topk_entropy, p1, margin, rank; method.md §17), straddles
                (whether the token crosses an AST leaf boundary, method.md 14.4)
    nodes       DataFrame, one row per AST node: id, type, named, start, end, parent, depth, error, missing,
                category, asc_eval, tokens (the aligned token indices)
    summary     dict: asc_eval, ast_nodes, ast_levels, cyclomatic, tokens, categories
    categories  Series: the mean AsC-Eval of each category's nodes
    json        dict: the whole eval JSON (equal to the CLI's for the same model and text)
    """

    def __init__(self, native: Any, text: str, generation: Optional[str] = None):
        self._native = native
        self.text = text
        self.json: Dict[str, Any] = json.loads(native.json())
        self.generation: Optional[Dict[str, Any]] = json.loads(generation) if generation else None
        self.tokens = frame(self.json["tokens"], TOKEN_COLUMNS)
        self.nodes = frame(self.json["nodes"], NODE_COLUMNS)
        self.summary: Dict[str, Any] = self.json["summary"]
        self.categories = pd.Series(self.summary["categories"], dtype="float64", name="asc_eval")
        self.categories.index.name = "category"

    @property
    def stop(self) -> Optional[str]:
        """Why generation stopped (eos, length, cancelled, context); None for an evaluated text."""
        return self.generation["stop"] if self.generation else None

    @property
    def asc_eval(self) -> Optional[float]:
        return self.summary["asc_eval"]

    @property
    def cross_entropy(self) -> Optional[float]:
        return self.json["cross_entropy"]

    def render(self, view: str = "complete", path: Union[str, os.PathLike, None] = None, *,
               max_graphviz_nodes: int = MAX_GRAPHVIZ_NODES, format: Optional[str] = None,
               **figure_options: Any) -> Union[str, bytes]:
        """The view (complete, partial, sequence or figure5) drawn by core as `ascviz-cli render` draws it;
        written to `path` too when given. SVG (returns the text) or PDF (returns the bytes): `format` "svg" or
        "pdf", else from path's ending (.pdf), else SVG. figure_options are render's figure options (docs/cli.md):
        width_mm, font_pt, title (False = --no-title), legend (right | bottom | none), subtree (node id),
        max_depth, fold (node ids whose subtrees are folded into "…(n)", as the GUI folds them), auto_collapse
        (False: no deep levels collapsed to fit, the GUI's "as seen" export), orientation (td | lr), whitespace
        (faint | none | full); core's drawView decides, as for the
        CLI and the GUI: with any of them but whitespace, for figure5 and for PDF the paper figure, else the
        screen view."""
        view = check.choice(view, "view", VIEWS + ("figure5",))
        check.integer(max_graphviz_nodes, "max_graphviz_nodes", 0, check.INT32_MAX)
        if path is not None:
            path = check.path(path, "path")
        if format is None:
            format = "pdf" if path is not None and path.lower().endswith(".pdf") else "svg"
        format = check.choice(format, "format", ("svg", "pdf"))
        data = self._native.render(view, _figure_argv(figure_options), max_graphviz_nodes, format == "pdf")
        if path is not None:
            with open(path, "wb") as f:
                f.write(data)
        return data if format == "pdf" else data.decode("utf-8")

    def _repr_svg_(self) -> str:
        return self.render("complete")

    def to_html(self, path: Union[str, os.PathLike, None] = None, *, source: str = "ascviz.Result") -> str:
        """The result as one self-contained interactive HTML page (docs/share.md), as `ascviz-cli export-html`
        writes it: the code coloured by NtP, the AST views, θ switchable in the page; the data embedded as eval's
        JSON (this result's `json`). Returns the page; written to `path` too when given (through a temporary file
        renamed when complete: nothing half-written). `source` is what the page's header names as its origin."""
        source = check.string(source, "source")
        if path is not None:
            path = check.path(path, "path")
            self._native.write_html(path, source)
            with open(path, encoding="utf-8") as f:
                return f.read()
        return self._native.html(source)

    def _repr_html_(self) -> str:
        """The notebook's display: the interactive page (to_html) in a sandboxed frame of its own, so that its
        script and style do not mix with the notebook's."""
        return ("<iframe class='ascviz-result' sandbox='allow-scripts' style='width:100%;height:640px;border:0' "
                f"srcdoc=\"{html.escape(self.to_html(), quote=True)}\"></iframe>")

    def __repr__(self) -> str:
        s = self.summary
        return (f"<ascviz.Result {s['tokens']} tokens, {s['ast_nodes']} AST nodes, AsC-Eval {s['asc_eval']}, "
                f"language {self.json['language']}>")


class Scores:
    """A scored text: what `ascviz-cli score` prints. tokens: DataFrame (id, start, end, ntp, entropy, topk_entropy,
    p1, margin, rank)."""

    def __init__(self, text: str, raw: str):
        self.text = text
        self.json: Dict[str, Any] = json.loads(raw)
        self.tokens = frame(self.json["tokens"], SCORE_TOKEN_COLUMNS)
        self.cross_entropy: Optional[float] = self.json["cross_entropy"]

    def __repr__(self) -> str:
        return f"<ascviz.Scores {len(self.tokens)} tokens, cross-entropy {self.cross_entropy}>"


class Model:
    """A loaded model (it stays in memory while this object lives). Make one with load_model()."""

    def __init__(self, native: Any):
        self._native = native
        self.info: Dict[str, Any] = json.loads(native.info())

    @property
    def name(self) -> str:
        return self.info["name"]

    def __repr__(self) -> str:
        i = self.info
        return f"<ascviz.Model {i['name']} ({i['architecture']}, {i['device']}, {i['dtype']})>"

    def evaluate(self, code: Union[str, bytes], language: Optional[str] = None, prompt_bytes: Optional[int] = None,
                 aggregation: str = "median", *, max_text_bytes: int = MAX_TEXT_BYTES,
                 max_ast_depth: int = MAX_AST_DEPTH, max_ast_nodes: int = MAX_AST_NODES) -> Result:
        """AsC-Eval of `code` as `ascviz-cli eval --model M --text-file F` computes it.

        language: a registered language (id, name or alias); None = the default language (python).
        prompt_bytes: the first N bytes are the prompt, the rest counts as generated (None = all prompt).
        aggregation: θ, median | mean | max | min."""
        code = check.text(code, "code")
        language = "" if language is None else check.string(language, "language")
        if prompt_bytes is not None:
            check.integer(prompt_bytes, "prompt_bytes", 0)
        aggregation = check.choice(aggregation, "aggregation", check.AGGREGATIONS)
        check.integer(max_text_bytes, "max_text_bytes", 0)
        check.integer(max_ast_depth, "max_ast_depth", 0, check.INT32_MAX)
        check.integer(max_ast_nodes, "max_ast_nodes", 0)
        native = self._native.evaluate(code, language, prompt_bytes, aggregation, max_text_bytes, max_ast_depth,
                                       max_ast_nodes)
        return Result(native, code)

    def generate(self, prompt: Union[str, bytes], max_new_tokens: int = 64, *, greedy: Optional[bool] = None,
                 temperature: Optional[float] = None, top_p: Optional[float] = None, top_k: Optional[int] = None,
                 seed: Optional[int] = None, ignore_eos: bool = False, language: Optional[str] = None,
                 aggregation: str = "median", max_text_bytes: int = MAX_TEXT_BYTES,
                 max_ast_depth: int = MAX_AST_DEPTH, max_ast_nodes: int = MAX_AST_NODES) -> Result:
        """Completes `prompt` as `ascviz-cli generate` does (greedy unless temperature, top_p, top_k or seed is
        given) and returns the completed text evaluated; result.generation holds generate's JSON."""
        prompt = check.text(prompt, "prompt")
        check.integer(max_new_tokens, "max_new_tokens", 0, check.INT32_MAX)
        sampling = any(v is not None for v in (temperature, top_p, top_k, seed))
        if greedy is not None:
            check.flag(greedy, "greedy")
            if greedy and sampling:
                raise ValueError("greedy=True cannot be combined with temperature, top_p, top_k or seed")
        t = 1.0 if temperature is None else check.number(temperature, "temperature")
        p = 1.0 if top_p is None else check.number(top_p, "top_p")
        k = 0 if top_k is None else check.integer(top_k, "top_k", 0, check.INT32_MAX)
        s = 0 if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX)
        if sampling and not t > 0:
            raise ValueError(f"temperature must be > 0, got {t}")
        if not 0 < p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {p}")
        check.flag(ignore_eos, "ignore_eos")
        check.integer(max_text_bytes, "max_text_bytes", 0)
        check.integer(max_ast_depth, "max_ast_depth", 0, check.INT32_MAX)
        check.integer(max_ast_nodes, "max_ast_nodes", 0)
        language = "" if language is None else check.string(language, "language")
        aggregation = check.choice(aggregation, "aggregation", check.AGGREGATIONS)
        native, generation = self._native.generate(prompt, max_new_tokens, not sampling, t, p, k, s, not ignore_eos,
                                                   language, aggregation, max_text_bytes, max_ast_depth,
                                                   max_ast_nodes)
        return Result(native, json.loads(generation)["text"], generation)

    def score(self, texts: Union[str, bytes, Sequence[Union[str, bytes]]], batch_size: int = 1, *,
              max_text_bytes: int = MAX_TEXT_BYTES) -> Union[Scores, List[Scores]]:
        """NtP of every token, as `ascviz-cli score` prints it: one Scores for a text, a list for a list of
        texts (scored batch_size at a time; 1 = one by one, bit for bit the CLI's)."""
        single = isinstance(texts, (str, bytes, bytearray))
        if single:
            items = [check.text(texts, "texts")]
        else:
            if not isinstance(texts, Sequence):
                raise TypeError(f"texts must be str, bytes or a sequence of them, not {type(texts).__name__}")
            items = [check.text(t, f"texts[{i}]") for i, t in enumerate(texts)]
        check.integer(batch_size, "batch_size", 1, check.INT32_MAX)
        check.integer(max_text_bytes, "max_text_bytes", 0)
        out = [Scores(t, raw) for t, raw in zip(items, self._native.score(items, batch_size, max_text_bytes))]
        return out[0] if single else out


def load_model(name: Union[str, os.PathLike] = "default", device: str = "auto", dtype: str = "auto", *,
               threads: int = 0, weights: str = "auto") -> Model:
    """Loads a model as `ascviz-cli --model` does: "default" (the bundled ascviz-tiny-code), a folder, or
    "org/name" from the Hugging Face cache (nothing is downloaded). device: auto | cpu | cuda;
    dtype: auto | float32 | float16 | bfloat16 | bfloat16-matmul; threads: CPU threads (0 = one per core);
    weights (CPU, as `--weights`): auto | float32 | checkpoint — "checkpoint" keeps a bfloat16/float16
    checkpoint's weight matrices in its dtype (float32 arithmetic), "auto" does so when a float32 copy would not
    fit in memory. info["weights"] names what was chosen."""
    name = check.path(name, "name")
    device = check.choice(device, "device", DEVICES)
    dtype = check.choice(dtype, "dtype", DTYPES)
    check.integer(threads, "threads", 0, check.INT32_MAX)
    weights = check.choice(weights, "weights", WEIGHTS)
    return Model(_ascviz.load_model(name, device, dtype, threads, weights))


PARSE_COLUMNS = ("id", "type", "named", "start", "end", "parent", "depth", "error", "missing")


def parse(code: Union[str, bytes], language: Optional[str] = None, *, max_ast_nodes: int = MAX_AST_NODES
          ) -> pd.DataFrame:
    """The tree-sitter AST of `code` as `ascviz-cli parse` prints it, one row per node (pre-order): id, type,
    named, start, end, parent, depth, error, missing. df.attrs holds language, levels and syntax_errors."""
    code = check.text(code, "code")
    language = "" if language is None else check.string(language, "language")
    check.integer(max_ast_nodes, "max_ast_nodes", 0)
    j = json.loads(_ascviz.parse_json(code, language, max_ast_nodes))
    df = frame(j["nodes"], PARSE_COLUMNS)
    df.attrs.update({"language": j["language"], "levels": j["levels"], "syntax_errors": j["syntax_errors"]})
    return df
