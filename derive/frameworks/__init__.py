"""``derive.frameworks``: every other framework's recurrent weights, one convention each.

One documented way to ask any framework for a parameter count and a tensor table::

    >>> from derive import frameworks
    >>> frameworks.count("onnx", "LSTM", 32, 128, num_layers=2, bidirectional=True)
    561152
    >>> frameworks.count("flax.linen", "LSTMCell", 32, 128)
    82432
    >>> [tuple(r) for r in frameworks.tensors("onnx", "GRU", 10, 20)]
    [('W', (1, 60, 10), 600, True), ('R', (1, 60, 20), 1200, True), ('B', (1, 120), 120, True)]
    >>> from derive import H, I
    >>> frameworks.count("equinox", "GRUCell", I, H)
    3*H**2 + 3*H*I + 4*H

:data:`FRAMEWORKS` lists what exists (framework key -> :class:`Framework`, each with its cells).
Each framework's layout is one :class:`derive.engine.conventions.Convention` value (a few frameworks lay
out one cell class differently, and have one per such class); the cells are the equations of
:mod:`derive.cells`; a stack of ``num_layers`` layers, ``bidirectional`` or not, is wired as
PyTorch wires it (:data:`derive.engine.wirings.DEEP_BIDIRECTIONAL`: layers >= 1 read both directions of
the layer below). For frameworks whose classes are single cells (Flax, Equinox, TF1 cells), that
stack is the composition each framework documents (``RNN``, ``Bidirectional``,
``Sequential`` for Flax; a list of cells for Equinox; ``MultiRNNCell`` and
``stack_bidirectional_rnn`` for TF1); its tensor names are given in :attr:`Framework.stacking`.

Which frameworks are checked against installed packages by the test suite (:attr:`Framework.packages`)
and which are read from source only (:attr:`Framework.source`) is :attr:`Framework.status`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import tree
from ..cells import CELLS
from ..engine import validate
from ..engine.stack import Stack
from ..engine.symbols import Size, equal, plain, product
from ..engine.wirings import DEEP_BIDIRECTIONAL, SKIP_CONNECTIONS, UNIDIRECTIONAL
from . import registry
from .registry import FRAMEWORKS, POSITIVE_NUMBER, SIZE_OR_ZERO, CellSpec, Framework

if TYPE_CHECKING:
    from .registry import GENERIC_CELLS

#: The conventions re-exported here, and the module of each (imported when first asked).
_CONVENTIONS = {
    "CUDNN": "cudnn",
    "EQUINOX": "equinox",
    "FLAX_LINEN": "flax",
    "FLAX_LINEN_CONV": "flax",
    "FLAX_NNX": "flax",
    "FLAX_NNX_LSTM": "flax",
    "MXNET": "mxnet",
    "ONNX": "onnx",
    "PADDLE": "paddle",
    "TF1": "tf1",
    "TF_KERAS_CUDNN": "tf_keras",
}


def __getattr__(name: str) -> Any:
    """The conventions of :data:`_CONVENTIONS`, from their framework's module (imported on first use)."""
    if name in _CONVENTIONS:
        return getattr(importlib.import_module(f"{__name__}.{_CONVENTIONS[name]}"), name)
    if name == "GENERIC_CELLS":  # every cell's generic name: reading it imports every cell
        return registry.GENERIC_CELLS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ONNX",
    "CUDNN",
    "TF_KERAS_CUDNN",
    "TF1",
    "FLAX_LINEN",
    "FLAX_LINEN_CONV",
    "FLAX_NNX",
    "FLAX_NNX_LSTM",
    "EQUINOX",
    "MXNET",
    "PADDLE",
    "CellSpec",
    "Framework",
    "FRAMEWORKS",
    "GENERIC_CELLS",
    "TensorRow",
    "stack",
    "count",
    "tensors",
]


# --------------------------------------------------------------------------- API


class TensorRow(NamedTuple):
    """One row of a tensor table: the framework's name, shape, size and whether it is trained."""

    name: str
    shape: tuple[Size, ...]
    count: Size  # type: ignore[assignment]
    trainable: bool


def _allowed(spec: CellSpec, framework: Framework, option: str, value: object, default: object) -> None:
    allowed = spec.options.get(option, (default,))
    if value not in allowed:
        raise ValueError(f"{option} must be one of {list(allowed)} for {framework.key} {spec.name}, got {value!r}")


def stack(
    framework: str,
    cell: str,
    input_size: Size,
    hidden_size: Size,
    *,
    num_layers: Size = 1,
    bidirectional: bool = False,
    bias: bool | None = None,
    proj_size: Size = 0,
    peepholes: bool = False,
    reset_after: bool | None = None,
    reset_gate: bool = True,
    kernel_size: Sequence[Size] | None = None,
    double_bias: bool = True,
    skip_connections: bool = False,
    **class_options: Any,
) -> Stack:
    """The :class:`derive.engine.stack.Stack` of ``cell`` in ``framework``: tensors, counts, cells.

    Parameters
    ----------
    framework : str
        A key of :data:`FRAMEWORKS`: ``"onnx"``, ``"cudnn"``, ``"tf.keras"``, ``"tf1"``,
        ``"flax.linen"``, ``"flax.nnx"``, ``"equinox"``, ``"mxnet"``, ``"paddle"``.
    cell : str
        The framework's class (``"LSTMCell"``, ``"GRU"``, ``"CUDNN_LSTM"`` ...) or a generic cell
        name (:data:`GENERIC_CELLS`: ``"rnn"``, ``"lstm"``, ``"gru"``, ``"mgu"``, ``"convlstm"``)
        for the framework's class of that cell.
    input_size, hidden_size : int or sympy.Expr
        I (features per time step; ConvLSTM: input channels C) and H (ConvLSTM: features F).
    num_layers : int or sympy.Expr, default 1
        L; layers >= 1 read the output of the layer below (both directions of it).
    bidirectional : bool, default False
        D = 2 (deep bidirectional wiring).
    bias : bool or None, default None
        False removes the biases (ONNX: no ``B``; Paddle keeps them frozen, see :data:`PADDLE`);
        only for classes that can. None: the class's default (True, but False for xlstm's
        ``mLSTMLayer``).
    proj_size : int or sympy.Expr, default 0
        P, an LSTM projection, where the class has one (cuDNN, TF1 ``num_proj``, MXNet
        ``projection_size``, Paddle).
    peepholes : bool, default False
        LSTM peepholes (ONNX ``P``, TF1 ``use_peepholes``).
    reset_after : bool or None, default None
        GRU: where the reset gate is applied (ONNX ``linear_before_reset``); None for the class's
        default, the only value most classes allow.
    reset_gate : bool, default True
        Flax ``MGUCell``'s option.
    kernel_size : tuple of int or sympy.Expr
        ConvLSTM only (required there): the kernel's spatial size.
    double_bias : bool, default True
        Haiku ``VanillaRNN``'s option: a bias on the recurrent ``Linear`` too.
    skip_connections : bool, default False
        Haiku: the stack of ``hk.deep_rnn_with_skip_connections`` (:data:`derive.engine.wirings.SKIP_CONNECTIONS`):
        layer k >= 1 reads the input beside layer k - 1's output, I + H features; one direction only.
    **class_options
        Options of a class's own cell (its :attr:`CellSpec.options`): QRNN ``window`` and
        ``pooling``, SRU ``has_skip_term``, IndRNN ``nonlinearity``; TF1 ``LSTMCell``'s
        ``num_unit_shards`` and ``num_proj_shards`` (positive ints or None: they change the names
        :func:`tensors` lists, ``kernel/part_<k>``, not the counts).

    Returns
    -------
    derive.engine.stack.Stack

    Raises
    ------
    ValueError
        Unknown ``framework`` or ``cell``; an option the class does not have or a value it does not
        accept (the message names the argument and the allowed values); a size <= 0; ``proj_size``
        >= ``hidden_size`` where the class refuses it.
    TypeError
        A size that is not an integer; a flag that is not a bool.
    """
    if not isinstance(framework, str) or framework not in FRAMEWORKS:
        raise ValueError(f"framework must be one of {list(FRAMEWORKS)}, got {framework!r}")
    fw = FRAMEWORKS[framework]
    if not isinstance(cell, str):
        raise ValueError(f"cell must be a str naming one of {[s.name for s in fw.cells]}, got {cell!r}")
    spec = fw.cell(cell)
    input_size = validate.size("input_size", input_size)
    hidden_size = validate.size("hidden_size", hidden_size)
    num_layers = validate.size("num_layers", num_layers)
    proj_size = validate.size("proj_size", proj_size, minimum=0)
    if bias is None:
        bias = spec.options.get("bias", (True,))[0]
    for name, value in (
        ("bidirectional", bidirectional),
        ("bias", bias),
        ("peepholes", peepholes),
        ("reset_gate", reset_gate),
        ("double_bias", double_bias),
        ("skip_connections", skip_connections),
    ):
        validate.flag(name, value)
    if reset_after is not None:
        validate.flag("reset_after", reset_after)
    _allowed(spec, fw, "bias", bias, True)
    _allowed(spec, fw, "peepholes", peepholes, False)
    _allowed(spec, fw, "reset_gate", reset_gate, True)
    _allowed(spec, fw, "double_bias", double_bias, True)
    _allowed(spec, fw, "skip_connections", skip_connections, False)
    if skip_connections and bidirectional:
        raise ValueError(
            "skip_connections stacks cores in one direction (hk.deep_rnn_with_skip_connections): "
            "bidirectional must be False"
        )
    default_reset = spec.options.get("reset_after", (True,))[0]
    reset_after = default_reset if reset_after is None else reset_after
    _allowed(spec, fw, "reset_after", reset_after, True)
    if proj_size != 0:
        if "proj_size" not in spec.options:
            have = [f"{f.key} {s.name}" for f in FRAMEWORKS.values() for s in f.cells if "proj_size" in s.options]
            raise ValueError(
                f"proj_size must be 0 for {fw.key} {spec.name}: it has no projection (projections: {', '.join(have)})"
            )
        if spec.proj_below_hidden and (proj_size >= hidden_size) == True:  # noqa: E712  (SymPy: provably)
            raise ValueError("proj_size has to be smaller than hidden_size")
    options: dict[str, object] = {}
    if spec.mode == "LSTM" and peepholes:
        options["peepholes"] = True
    if spec.mode == "MGU":
        options["reset_gate"] = reset_gate
    if "kernel_size" in spec.options:
        if kernel_size is None:
            raise ValueError(f"kernel_size is required for {fw.key} {spec.name}: a tuple of 1 to 3 sizes")
        if not isinstance(kernel_size, (tuple, list)) or not 1 <= len(kernel_size) <= 3:
            raise ValueError(f"kernel_size must be a tuple of 1 to 3 sizes, got {kernel_size!r}")
        dims = spec.options["kernel_size"]
        if dims and len(kernel_size) not in dims:
            raise ValueError(
                f"kernel_size must be a tuple of {dims[0]} sizes for {fw.key} {spec.name}, got {tuple(kernel_size)!r}"
            )
        options["kernel_size"] = tuple(validate.size("kernel_size", k) for k in kernel_size)
    elif kernel_size is not None:
        raise ValueError(f"kernel_size must be None for {fw.key} {spec.name}: only a ConvLSTM has a kernel")
    for name, value in sorted(class_options.items()):
        if name in spec.partitioned and value is None:  # TF1's default: one unpartitioned variable
            continue
        if name not in spec.options:
            raise TypeError(f"{fw.key} {spec.name} got an unexpected keyword argument {name!r}")
        allowed = spec.options[name]
        if allowed is SIZE_OR_ZERO:
            value = validate.size(name, value, minimum=0)
        elif allowed is POSITIVE_NUMBER:
            value = validate.positive_number(name, value)
        elif allowed:
            if isinstance(allowed[0], bool):
                validate.flag(name, value)
            _allowed(spec, fw, name, value, allowed[0])
        else:
            value = validate.size(name, value)
        options[name] = value
    for name in spec.partitioned:  # row blocks of a tensor, not the cell's: see tensors()
        options.pop(name, None)
    if "num_directions" in CELLS[spec.mode].options:  # SRU: its layers' structure depends on D·H vs I
        options["num_directions"] = 2 if bidirectional else 1
        options["square_input"] = equal(input_size, options["num_directions"] * hidden_size)  # type: ignore[operator]
    if spec.check is not None:
        spec.check(
            input_size=input_size,
            hidden_size=hidden_size,
            proj_size=proj_size,
            num_layers=num_layers,
            bidirectional=bidirectional,
            **options,
        )
    convention = spec.convention
    for (option, wanted), variant in spec.variants.items():
        if {"double_bias": double_bias}.get(option) == wanted:
            convention = variant
    wiring = SKIP_CONNECTIONS if skip_connections else DEEP_BIDIRECTIONAL if bidirectional else UNIDIRECTIONAL
    single = {"layer": False, "node": num_layers == 1, "cell": num_layers == 1 and not bidirectional}[spec.kind]
    return Stack(
        spec.mode,
        input_size,
        hidden_size,
        num_layers,
        bias,
        proj_size,
        convention,
        wiring,
        single_cell=single,
        reset_after=reset_after,
        cell_options=tuple(sorted(options.items())),
    )


def count(
    framework: str, cell: str, input_size: Size, hidden_size: Size, *, trainable_only: bool = False, **options: Any
) -> Size:
    """Number of parameters of ``cell`` in ``framework`` (all layers and directions).

    Parameters
    ----------
    framework, cell, input_size, hidden_size, **options
        As for :func:`stack` (``num_layers``, ``bidirectional``, ``bias``, ``proj_size``,
        ``peepholes``, ``reset_after``, ``reset_gate``, ``kernel_size``).
    trainable_only : bool, default False
        Leave out frozen tensors (Paddle's disabled biases). By default every tensor the framework
        creates is counted, as ``sum(p.numel() for p in model.parameters())`` does.

    Returns
    -------
    int or sympy.Expr
        An int when every size is an int; otherwise a closed form (for a symbolic ``num_layers``
        L, valid for every L >= 1).

    Raises
    ------
    ValueError, TypeError
        See :func:`stack`.

    Examples
    --------
    >>> count("paddle", "GRU", 3, 5, bias=False)
    150
    >>> count("paddle", "GRU", 3, 5, bias=False, trainable_only=True)
    120
    """
    validate.flag("trainable_only", trainable_only)
    s = stack(framework, cell, input_size, hidden_size, **options)
    if not trainable_only:
        return plain(s.count)
    return tree.count(s.module(), trainable_only=True)


def tensors(framework: str, cell: str, input_size: Size, hidden_size: Size, **options: Any) -> list[TensorRow]:
    """The tensor table of ``cell`` in ``framework``: one row per tensor, in the framework's names.

    Parameters
    ----------
    framework, cell, input_size, hidden_size, **options
        As for :func:`stack`; ``num_layers`` must be an int.

    Returns
    -------
    list of TensorRow
        ``(name, shape, count, trainable)``: shapes are tuples of ints when every size is an int
        (else of SymPy expressions), ``count`` the tensor's size.

    Raises
    ------
    ValueError, TypeError
        See :func:`stack`; a symbolic ``num_layers``.
    """
    s = stack(framework, cell, input_size, hidden_size, **options)
    rows = [
        TensorRow(t.name, tuple(plain(d) for d in t.shape), plain(t.numel), t.trainable)
        for t in s.tensors  # read from the module tree (Stack.module)
    ]
    spec = FRAMEWORKS[framework].cell(cell)
    for option, base in spec.partitioned.items():
        if options.get(option) is not None:
            rows = _partition(rows, base, option, options[option])
    return rows


def _partition(rows: list[TensorRow], base: str, option: str, shards: Any) -> list[TensorRow]:
    """Split every ``.../<base>`` tensor into ``<base>/part_<k>`` row blocks, as TF1's
    ``fixed_size_partitioner(shards)`` does (``tensorflow/python/ops/partitioned_variables.py``):
    min(shards, rows) parts, the first ``rows % parts`` of them one row longer.

    Parameters
    ----------
    rows : list of TensorRow
    base : str
        The tensor's last name components (``"kernel"``, ``"projection/kernel"``).
    option, shards : str, int
        The option's name (for messages) and value.

    Returns
    -------
    list of TensorRow

    Raises
    ------
    ValueError
        A symbolic row count (the parts' sizes depend on its value).
    """
    out = []
    for row in rows:
        if not row.name.endswith("/" + base) or (base == "kernel" and row.name.endswith("projection/kernel")):
            out.append(row)
            continue
        height, rest = row.shape[0], tuple(row.shape[1:])
        if not isinstance(height, int):
            raise ValueError(f"{option} needs int sizes: the parts of {row.name} depend on its {height} rows")
        if not isinstance(shards, int):
            raise ValueError(f"{option} must be an int (a number of variable parts), got {shards}")
        parts = min(shards, height)
        for k in range(parts):
            rows_k = height // parts + (1 if k < height % parts else 0)
            shape = (rows_k, *rest)
            out.append(TensorRow(f"{row.name}/part_{k}", shape, plain(product(shape)), row.trainable))
    return out
