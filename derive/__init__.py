"""derive: exact parameter counts and tensor shapes of recurrent layers, derived with SymPy.

Each cell (Elman RNN, LSTM, LSTM with projection, GRU, ...) is written once as its update
equations (:mod:`derive.cells`); the tensors and counts of a layer stack follow from those
equations, a framework convention (:mod:`derive.frameworks`) and a wiring of layers and
directions (:mod:`derive.engine.wirings`).

>>> import derive.torch as dt
>>> dt.LSTM(32, 128, 2, bidirectional=True).count
561152
>>> from derive import I, H, L
>>> dt.LSTM(I, H, L).count
8*H**2*L - 4*H**2 + 4*H*I + 8*H*L

:func:`compare` subtracts two configurations and names the tensors that differ
(:mod:`derive.analysis.difference`): PyTorch's deep bidirectional LSTM minus two
independent stacks is the extra input columns of every layer above the first.

>>> from derive import PYTORCH, SIMPLE_CONCAT, Stack
>>> compare(dt.LSTM(I, H, L, bidirectional=True), Stack("LSTM", I, H, L, True, 0, PYTORCH, SIMPLE_CONCAT)).total
8*H**2*(L - 1)
"""

from . import _moved, blocks, cells, families, frameworks  # noqa: F401  (the registries: cells, frameworks, blocks, families and their constructors)
from .analysis.cost import cost
from .analysis.difference import compare
from .analysis.solving import solve
from .analysis.vectorize import vectorize
from .engine import conventions, stack, wirings
from .engine.stack import Stack
from .engine.symbols import H, I, L, P, T, size_symbols
from .engine.wirings import DEEP_BIDIRECTIONAL, SIMPLE_CONCAT, UNIDIRECTIONAL
from .frameworks import keras
from .frameworks import pytorch as torch
from .frameworks.pytorch import PYTORCH
from .read.live import objects as _objects  # noqa: F401  (the live-object readers: a first explain(model)
from .read.live import pytorch as _live_torch  # noqa: F401  imports nothing more)
from .render import display as _display  # noqa: F401  (registers the notebook display of stacks)

__all__ = [
    # size symbols
    "I",
    "H",
    "L",
    "P",
    "T",
    "size_symbols",
    # the model
    "Stack",
    "PYTORCH",
    "UNIDIRECTIONAL",
    "DEEP_BIDIRECTIONAL",
    "SIMPLE_CONCAT",
    # questions
    "solve",
    "compare",
    "cost",
    "vectorize",
    # modules
    "cells",
    "conventions",
    "wirings",
    "stack",
    "frameworks",
    "torch",
    "keras",
    "explain",
    "explain_error",
]

_moved.install()
#: The framework conventions (:mod:`derive.engine.conventions`; its old path ``derive.conventions``
#: still finds :data:`PYTORCH`, now defined in :mod:`derive.frameworks.pytorch`).
conventions = _moved.alias("derive.conventions")  # noqa: F811  (also finds the old derive.conventions.PYTORCH)


def explain(obj: object, **options: object) -> object:
    """Explain a whole model: code, a file, a state dict or a live model (see :func:`derive.read.explain`).

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or model object
    **options
        ``framework``, ``input_dim``, ``partial``.

    Returns
    -------
    derive.read.Report
    """
    from .read import explain as _explain

    return _explain(obj, **options)  # type: ignore[arg-type]


def explain_error(text: str) -> str:
    """Explain a framework error message about a recurrent layer (see :func:`derive.read.errors.messages.explain_error`).

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    from .read.errors.messages import explain_error as _explain_error

    return _explain_error(text)


def __getattr__(name: str) -> object:
    """``__version__`` (read from the installed metadata on first use) and the old module attributes
    (``derive.solving``, ``derive.display`` ...), imported on first use."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("derive-rnn")
        except PackageNotFoundError:  # running from a source tree that is not installed
            return "0.2.0.dev0"
    if f"derive.{name}" in _moved.MOVED:
        import importlib

        return importlib.import_module(f"derive.{name}")
    raise AttributeError(f"module 'derive' has no attribute {name!r}")
