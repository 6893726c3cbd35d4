"""AsC-Viz from Python: the C++ core (model runtime, AsC-Eval, views, batch, analyses) as a thin binding whose
results are pandas objects. docs/python.md describes the API; every number equals `ascviz-cli`'s."""
from __future__ import annotations

import os as _os

# The bundled resources (model, languages, sample corpora) of an installed package; a source build finds the
# repository's own. ASCVIZ_RESOURCES set by the user wins.
_resources = _os.path.join(_os.path.dirname(__file__), "resources")
if _os.path.isdir(_os.path.join(_resources, "models")):
    _os.environ.setdefault("ASCVIZ_RESOURCES", _resources)

from . import _ascviz  # noqa: E402
from ._ascviz import Cancelled, Error, InputError, ModelError, TokenizerError  # noqa: E402
from ._analyses import calibration, heads, layers, treatments  # noqa: E402
from ._experts import experts  # noqa: E402
from ._corpus import Results, batch, causal, open_results, perplexed, report, report_frame  # noqa: E402
from ._model import DEVICES, DTYPES, WEIGHTS, Model, Result, Scores, load_model, parse  # noqa: E402

__version__ = "0.1.0"
torch_version = _ascviz.torch_version
torch_build = _ascviz.torch_build
cuda_available = _ascviz.cuda_available

__all__ = ["load_model", "parse", "Model", "Result", "Scores", "batch", "open_results", "Results", "report", "report_frame",
           "causal", "perplexed", "heads", "layers", "treatments", "calibration", "experts", "Error", "InputError", "ModelError",
           "TokenizerError", "Cancelled", "torch_version", "torch_build", "cuda_available", "DEVICES", "DTYPES",
           "WEIGHTS"]
