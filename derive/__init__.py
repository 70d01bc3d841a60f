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

``.count`` is the count on every object that has one — a stack (:mod:`derive.torch`), a module
tree (:class:`derive.tree.Module`), a Keras layer given its input as Keras layers take it
(:mod:`derive.keras`), a report (:func:`explain`; ``total`` is the report's and the JSON's name for
it): an ``int`` when every size is an int, else a SymPy closed form.

>>> import derive.keras as dk
>>> dk.Bidirectional(dk.LSTM(128), input_dim=28).count
160768
>>> explain("nn.LSTM(32, 128, 2, bidirectional=True)").count
561152

:func:`compare` subtracts two configurations and names the tensors that differ
(:mod:`derive.analysis.difference`): PyTorch's deep bidirectional LSTM minus two
independent stacks is the extra input columns of every layer above the first.

>>> from derive import PYTORCH, SIMPLE_CONCAT, Stack
>>> compare(dt.LSTM(I, H, L, bidirectional=True), Stack("LSTM", I, H, L, True, 0, PYTORCH, SIMPLE_CONCAT)).total
8*H**2*(L - 1)

``import derive`` imports none of the cells, frameworks, blocks or language-model families, nor
SymPy: every name below is imported when first used (:mod:`derive.engine.lazy`), and SymPy arrives
with the first formula — a count with int sizes never needs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names __getattr__ gives, for type checkers and editors
    from .analysis.cost import Cost
    from .analysis.difference import Difference
    from .analysis.solving import Solution
    from .engine.stack import Stack
    from .engine.wirings import DEEP_BIDIRECTIONAL, SIMPLE_CONCAT, UNIDIRECTIONAL
    from .frameworks.pytorch import PYTORCH
    from .read.report import Report

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
    "explain",
    "explain_error",
    "cost",
    "solve",
    "compare",
    "vectorize",
    # what they return
    "Report",
]

#: The names ``derive`` gives, each imported from its module on first use.
_LAZY = {
    "I": "derive.engine.symbols",
    "H": "derive.engine.symbols",
    "L": "derive.engine.symbols",
    "P": "derive.engine.symbols",
    "T": "derive.engine.symbols",
    "size_symbols": "derive.engine.symbols",
    "Stack": "derive.engine.stack",
    "PYTORCH": "derive.frameworks.pytorch",
    "UNIDIRECTIONAL": "derive.engine.wirings",
    "DEEP_BIDIRECTIONAL": "derive.engine.wirings",
    "SIMPLE_CONCAT": "derive.engine.wirings",
    "Report": "derive.read.report",
}
#: The subpackages and the two short paths users type (``import derive.torch as dt``), as attributes.
_SUBMODULES = ("torch", "keras", "cells", "frameworks", "blocks", "families", "layers", "tree", "engine", "read")


def explain(obj: Any, framework: str | None = None, input_dim: Any = None, partial: bool = False) -> Report:
    """Explain a model: model code, a file, a config, a state dict or a live model object.

    Every way in ends in one module tree (:mod:`derive.tree`), reported by :class:`Report`: each
    tensor named as its framework names it, the total, the closed form (see
    :func:`derive.read.explain`, which this is).

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or model object
        Model code or one constructor line (PyTorch, Keras, TF1 and every framework derive knows,
        read with :mod:`ast`, never run); a path (``.py``, ``.txt``, ``.json`` config, ``.pt``,
        ``.pth``, ``.bin``, ``.safetensors``, ``.keras``, ``.onnx``); a ``config.json``'s dict or a
        live ``PretrainedConfig``; a state dict (names -> tensors or shapes); a live
        ``torch.nn.Module`` or Keras model.
    framework : str, optional
        The framework of code or of a constructor (``"torch"``, ``"keras"``, ``"haiku"`` ...).
    input_dim : int, optional
        Features per step of the input, for layers that make their weights when first applied
        (Keras, Haiku, Flax linen, TF1 cells).
    partial : bool, default False
        Count the parts derive knows and list the rest as not counted (the total then a lower
        bound) instead of refusing.

    Returns
    -------
    Report
        ``count`` (parameters, an int when every size is: the spelling every object of derive
        shares), ``total`` (the same value, the report's and the JSON's name for it), ``tensors``,
        ``module`` (the tree), ``partial``, ``active`` (a language model's parameters per token).

    Raises
    ------
    derive.read.SourceError
        Input derive refuses, with the reason (a ValueError).
    ValueError
        A config or an argument derive cannot use, naming the key or argument.
    TypeError
        An object of a kind derive does not read.
    FileNotFoundError
        A path that does not exist.
    """
    from .read import explain as _explain

    return _explain(obj, framework, input_dim, partial)


def explain_error(text: str) -> str:
    """Explain a framework's error message about a recurrent layer (:func:`derive.read.errors.messages.explain_error`).

    Parameters
    ----------
    text : str
        The message as printed (``size mismatch for lstm.weight_ih_l0: ...``).

    Returns
    -------
    str
        The explanation: which constructor argument differs, and its value in each model.

    Raises
    ------
    ValueError
        Text that is no error message derive reads.
    """
    from .read.errors.messages import explain_error as _explain_error

    return _explain_error(text)


def cost(
    stack: Any,
    seq_len: Any = None,
    batch: Any = None,
    dtype: str | None = None,
    *,
    kv_dtype: str | None = None,
    state_dtype: str | None = None,
    quantization_config: Any = None,
    memory: int | str | None = None,
    reserve: int | str = 0,
) -> Cost:
    """Compute and memory: a stack's MACs and FLOPs, a model's weights as stored, its cache as served, what fits.

    See :func:`derive.analysis.cost.cost`, which this is.

    Parameters
    ----------
    stack : derive.engine.stack.Stack, derive.read.Report, derive.tree.Module or mapping
        A recurrent stack (``derive.torch.LSTM(...)``), or a whole model (``derive.explain(config)``, or the
        config as a mapping: its ``quantization_config`` and ``torch_dtype`` read).
    seq_len, batch : int or sympy.Expr, optional
        T tokens (time steps) and N sequences; absent: the symbols T and N (closed forms).
    dtype : str, optional
        The dtype of the weights and of the states that follow the model's dtype; default the config's
        ``torch_dtype``, else float32 (as ``from_config`` builds it) — for a config that names no dtype, the
        weights as stored and a ``memory`` budget's answer are refused without it (the checkpoint's dtype decides
        them: :data:`derive.analysis.cost.NO_DTYPE`).
    kv_dtype, state_dtype : str, optional
        Keys and values, and recurrent states, as served (``"fp8"``, ``"q8_0"``, ``"bfloat16"`` ...).
    quantization_config : mapping, optional
        The weights' quantization (default: a config mapping's own).
    memory, reserve : int or str, optional
        A memory budget and what it holds back (``"24GB"``, ``"80GiB"``, bytes).

    Returns
    -------
    derive.analysis.cost.Cost
        MACs, FLOPs, bytes of weights, cache and states, the largest context and batch (units in each
        field's docstring).

    Raises
    ------
    TypeError, ValueError
        An object derive cannot price, a size that is not a positive int, an unknown format or
        ``quant_method`` (named), a budget that is not a size; a ``quantization_config`` or ``memory`` without
        ``dtype`` for a config that names no dtype.
    """
    from .analysis import cost as _cost

    if isinstance(stack, Mapping) and "model_type" in stack:
        from .read.measured import config_tree

        # the model the config builds: its family's tree, or what transformers builds where derive has no family
        config = stack
        stack = config_tree(config)
        quantization_config = (
            quantization_config if quantization_config is not None else config.get("quantization_config")
        )
    else:
        config = None
    return _cost.cost(
        stack,
        _cost.SYMBOLIC_T if seq_len is None else seq_len,
        _cost.SYMBOLIC_N if batch is None else batch,
        dtype,
        kv_dtype=kv_dtype,
        state_dtype=state_dtype,
        quantization_config=quantization_config,
        memory=memory,
        reserve=reserve,
        config=config,
    )


def solve(count: Any, budget: int, symbol: Any = None, *, minimum: int = 1) -> Solution:
    """The largest size n >= ``minimum`` whose parameter count is at most ``budget`` (:func:`derive.analysis.solving.solve`).

    Parameters
    ----------
    count : callable (int or sympy.Symbol) -> object with ``.count``, or sympy.Expr
        A function of the size returning a configuration
        (``lambda h: derive.torch.LSTM(32, h, 2, bidirectional=True)``), or a count expression.
    budget : int
        The budget, in parameters (>= 0).
    symbol : sympy.Symbol, optional
        The size solved for when ``count`` is an expression of several symbols.
    minimum : int, default 1
        The smallest size allowed.

    Returns
    -------
    derive.analysis.solving.Solution
        ``n``, the exact ``root``, the counts at n and n + 1.

    Raises
    ------
    TypeError
        ``budget`` not an int; ``count`` of the wrong type.
    ValueError
        The count does not depend on the size, is not increasing, or exceeds ``budget`` at ``minimum``.
    RuntimeError
        The configuration's counts disagree with its polynomial.
    """
    from .analysis.solving import solve as _solve

    return _solve(count, budget, symbol, minimum=minimum)


def compare(first: Any, second: Any) -> Difference:
    """The difference of two configurations, tensor by tensor (:func:`derive.analysis.difference.compare`).

    Parameters
    ----------
    first, second : derive.engine.stack.Stack
        The two stacks (``first`` minus ``second``).

    Returns
    -------
    derive.analysis.difference.Difference
        ``total`` (parameters), and the tensors that differ.

    Raises
    ------
    TypeError
        Not stacks.
    """
    from .analysis.difference import compare as _compare

    return _compare(first, second)


def vectorize(expr: Any, symbols: Any = None, *, overflow: str = "object") -> Any:
    """A count or cost compiled for exact evaluation over NumPy arrays of sizes (:func:`derive.analysis.vectorize.vectorize`).

    Parameters
    ----------
    expr : sympy.Expr, or an object with ``.count``
        An integer polynomial in the size symbols (a stack with symbolic sizes).
    symbols : sequence of sympy.Symbol, optional
        Argument order; default the free symbols sorted by name.
    overflow : {"object", "raise"}, default "object"
        Entries that could exceed int64: computed exactly with Python ints, or :class:`OverflowError`.

    Returns
    -------
    derive.analysis.vectorize.Vectorized
        Called with arrays (or ints), positionally or by symbol name.

    Raises
    ------
    TypeError
        ``expr`` is not an integer polynomial in ``symbols``.
    ValueError
        Unknown ``overflow``; ``symbols`` misses a free symbol of ``expr``.
    """
    from .analysis.vectorize import vectorize as _vectorize

    return _vectorize(expr, symbols, overflow=overflow)


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY` and the subpackages, imported on first use; ``__version__``."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("derive-rnn")
        except PackageNotFoundError:  # running from a source tree that is not installed
            return "0.2.0.dev0"
    raise AttributeError(f"module 'derive' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})
