"""Haiku (dm-haiku, JAX): ``hk.VanillaRNN``, ``hk.LSTM``, ``hk.GRU``, ``hk.Conv1DLSTM`` ... ``Conv3DLSTM``.

Every class is an ``hk.RNNCore`` (one time step of one layer); its parameters live under the
module's name, which Haiku derives from the class (``vanilla_rnn``, ``lstm``, ``gru``,
``conv2_dlstm``) and makes unique with ``_1``, ``_2`` ... in order of creation. Source:
``haiku/_src/recurrent.py`` (dm-haiku 0.0.17).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, YES_NO, CellSpec, Framework, register

__all__ = ["HAIKU_VANILLA", "HAIKU_VANILLA_ONE_BIAS", "HAIKU_LSTM", "HAIKU_GRU", "HAIKU_CONV_LSTM", "haiku_name"]

_SOURCE = "haiku/_src/recurrent.py (dm-haiku 0.0.17)"
#: D -> the labels ``layer_name`` receives: they tell it D as well as the direction.
_DIRECTIONS = {1: ("",), 2: ("forward", "backward")}


def haiku_name(module: str) -> Callable[[str, object, str], str]:
    """The tensor names of Haiku module ``module``, created once per layer and direction, in order.

    A single cell is ``<module>/<base>``; in a stack the cores are created layer by layer,
    forward before backward, so core n = layer·D + direction is named ``<module>_<n>`` (``n = 0``:
    ``<module>``), as ``hk.DeepRNN([hk.LSTM(H), hk.LSTM(H)])`` names them ``lstm``, ``lstm_1``.

    Parameters
    ----------
    module : str
        Haiku's module name of the class (``"lstm"``).

    Returns
    -------
    callable
        ``(base, layer, label) -> str``, ``label`` one of :data:`_DIRECTIONS`.

    Examples
    --------
    >>> haiku_name("lstm")("linear/w", 1, "backward")
    'lstm_3/linear/w'
    """

    def name(base: str, layer: Any, label: str) -> str:
        if layer is None:
            return f"{module}/{base}"
        directions = 2 if label else 1
        n = layer * directions + int(label == "backward")
        return f"{module}/{base}" if n == 0 else f"{module}_{n}/{base}"

    return name


#: ``hk.VanillaRNN(hidden_size, double_bias=True)``: two ``hk.Linear`` modules, ``linear`` on the
#: input (w (I, H), b (H,)) and ``linear_1`` on the state (w (H, H), b (H,)) — two biases.
HAIKU_VANILLA = Convention(
    name="Haiku VanillaRNN",
    tensors=(
        TensorLayout("linear/w", "weight", ("ih",), transpose=True),
        TensorLayout("linear/b", "bias", ("ih",)),
        TensorLayout("linear_1/w", "weight", ("hh",), transpose=True),
        TensorLayout("linear_1/b", "bias", ("hh",)),
    ),
    layer_name=haiku_name("vanilla_rnn"),
    source=f"{_SOURCE}, VanillaRNN.__call__",
    direction_names=_DIRECTIONS,
)

#: ``hk.VanillaRNN(hidden_size, double_bias=False)``: the state's ``Linear`` has no bias.
HAIKU_VANILLA_ONE_BIAS = Convention(
    name="Haiku VanillaRNN(double_bias=False)",
    tensors=HAIKU_VANILLA.tensors,
    layer_name=haiku_name("vanilla_rnn"),
    source=HAIKU_VANILLA.source,
    biases={"RNN_TANH": "input"},
    direction_names=_DIRECTIONS,
)

#: ``hk.LSTM(hidden_size)``: one ``hk.Linear(4H)`` on [x_t; h_{t-1}] — w (I + H, 4H), b (4H,), gate
#: order i, g, f, o (TF1 ``LSTMCell``'s); the forget bias 1 is a constant added at call time.
HAIKU_LSTM = Convention(
    name="Haiku LSTM",
    tensors=(
        TensorLayout("linear/w", "weight", ("ih", "hh"), transpose=True, join="columns"),
        TensorLayout("linear/b", "bias", ("ih",)),
    ),
    layer_name=haiku_name("lstm"),
    source=f"{_SOURCE}, LSTM.__call__",
    biases={"LSTM": "input"},
    gate_order={"LSTM": ("i", "g", "f", "o")},
    direction_names=_DIRECTIONS,
)

#: ``hk.GRU(hidden_size)``: ``w_i`` (I, 3H), ``w_h`` (H, 3H), one ``b`` (3H,); gate order z, r, a
#: (a = the candidate, this site's n); the reset gate multiplies the state before the product
#: (``a_h = (r * state) @ w_h_a``), so ``reset_after=False``.
HAIKU_GRU = Convention(
    name="Haiku GRU",
    tensors=(
        TensorLayout("w_i", "weight", ("ih",), transpose=True),
        TensorLayout("w_h", "weight", ("hh",), transpose=True),
        TensorLayout("b", "bias", ("ih",)),
    ),
    layer_name=haiku_name("gru"),
    source=f"{_SOURCE}, GRU.__call__",
    biases={"GRU": "input"},
    gate_order={"GRU": ("z", "r", "n")},
    gate_labels={"GRU": {"n": "a"}},
    direction_names=_DIRECTIONS,
)


def _conv(n: int) -> Convention:
    return Convention(
        name=f"Haiku Conv{n}DLSTM",
        tensors=(
            TensorLayout("input_to_hidden/w", "weight", ("ih",), transpose=True),
            TensorLayout("input_to_hidden/b", "bias", ("ih",)),
            TensorLayout("hidden_to_hidden/w", "weight", ("hh",), transpose=True),
            TensorLayout("hidden_to_hidden/b", "bias", ("hh",)),
        ),
        layer_name=haiku_name(f"conv{n}_dlstm"),
        source=f"{_SOURCE}, ConvNDLSTM.__call__",
        gate_order={"CONVLSTM": ("i", "g", "f", "o")},
        direction_names=_DIRECTIONS,
    )


#: ``hk.Conv1DLSTM``, ``hk.Conv2DLSTM``, ``hk.Conv3DLSTM`` (``ConvNDLSTM``): two ``hk.ConvND``,
#: ``input_to_hidden`` (w (k..., C, 4F), b (4F,)) and ``hidden_to_hidden`` (w (k..., F, 4F), b (4F,))
#: — two biases; gate order i, g, f, o. By number of spatial dimensions.
HAIKU_CONV_LSTM = {n: _conv(n) for n in (1, 2, 3)}


register(
    Framework(
        "haiku",
        "Haiku",
        (
            CellSpec(
                "VanillaRNN",
                "RNN_TANH",
                "rnn",
                HAIKU_VANILLA,
                "cell",
                {"double_bias": YES_NO, "skip_connections": ON_OFF},
                variants={("double_bias", False): HAIKU_VANILLA_ONE_BIAS},
            ),
            CellSpec("LSTM", "LSTM", "lstm", HAIKU_LSTM, "cell", {"skip_connections": ON_OFF}),
            CellSpec("GRU", "GRU", "gru", HAIKU_GRU, "cell", {"reset_after": (False,), "skip_connections": ON_OFF}),
            *(
                CellSpec(
                    f"Conv{n}DLSTM",
                    "CONVLSTM",
                    "convlstm",
                    HAIKU_CONV_LSTM[n],
                    "cell",
                    {"kernel_size": (n,), "skip_connections": ON_OFF},
                )
                for n in (1, 2, 3)
            ),
        ),
        ("dm-haiku", "jax"),
        _SOURCE,
        order=55,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``hk.LSTM(128)``: Haiku makes the weights when the core is first applied, so the input width
# comes from the input (``--input-dim`` on the command line). Signatures of haiku/_src/recurrent.py.

from dataclasses import dataclass, replace  # noqa: E402

from ..engine import validate  # noqa: E402
from ..tree import Module  # noqa: E402
from .mirror import Deferred, constructor, stack_module  # noqa: E402

_PREFIXES = ("hk.", "haiku.")
_MODULE_NAMES = {"VanillaRNN": "vanilla_rnn", "LSTM": "lstm", "GRU": "gru"}


def _haiku_module(cls: str, name: Any) -> tuple[str, str] | None:
    """The renaming of the default module name to ``name`` (None keeps Haiku's default)."""
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise TypeError(f"name should be a non-empty str or None, got: {name!r}")
    default = _MODULE_NAMES.get(cls) or f"conv{cls[4]}_dlstm"
    return (default, name)


@dataclass(frozen=True)
class Core(Deferred):
    """A Haiku recurrent core: :class:`Deferred`, with its module name and the width of its output.

    Attributes
    ----------
    make : callable
        ``make(input_width) -> Module`` (:class:`Deferred`).
    name : str
        Its module name (``"lstm"``, or the ``name`` given).
    output : int or sympy.Expr
        The features of its output (``hidden_size``; ``output_channels`` of a convolutional core).
    """

    name: str = ""
    output: Any = None


def _core(cls: str, hidden_size: Any, name: Any, **options: Any) -> Core:
    rename = _haiku_module(cls, name)
    return Core(
        lambda width: stack_module("haiku", cls, width, hidden_size, type=cls, sep="/", rename=rename, **options),
        rename[1] if rename else (_MODULE_NAMES.get(cls) or f"conv{cls[4]}_dlstm"),
        hidden_size,
    )


@constructor("haiku", "VanillaRNN", prefixes=_PREFIXES, letters={"hidden_size": "H"}, deferred=True, source=_SOURCE)
def _vanilla_rnn(hidden_size: Any, double_bias: Any = True, name: Any = None) -> Core:
    return _core("VanillaRNN", hidden_size, name, double_bias=double_bias)


@constructor("haiku", "LSTM", prefixes=_PREFIXES, letters={"hidden_size": "H"}, deferred=True, source=_SOURCE)
def _lstm(hidden_size: Any, name: Any = None) -> Core:
    return _core("LSTM", hidden_size, name)


@constructor("haiku", "GRU", prefixes=_PREFIXES, letters={"hidden_size": "H"}, deferred=True, source=_SOURCE)
def _gru(hidden_size: Any, w_i_init: Any = None, w_h_init: Any = None, b_init: Any = None, name: Any = None) -> Core:
    return _core("GRU", hidden_size, name)


def _conv_lstm(n: int) -> None:
    cls = f"Conv{n}DLSTM"

    def make(input_shape: Any, output_channels: Any, kernel_shape: Any, name: Any = None) -> Core:
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != n:
            raise ValueError(
                f"input_shape must be the {n} spatial dimensions of the input (no channels), got {input_shape!r}"
            )
        kernel = tuple(kernel_shape) if isinstance(kernel_shape, (tuple, list)) else (kernel_shape,) * n
        if len(kernel) != n:
            raise ValueError(f"kernel_shape must be an int or {n} ints, got {kernel_shape!r}")
        return _core(cls, output_channels, name, kernel_size=kernel)

    constructor("haiku", cls, prefixes=_PREFIXES, letters={"output_channels": "H"}, deferred=True, source=_SOURCE)(make)


for _n in (1, 2, 3):
    _conv_lstm(_n)


#: Functions a ``DeepRNN`` may hold between its cores (no parameters; the width unchanged).
_FUNCTIONS = ("jax.nn.", "jnp.", "jax.numpy.")
_CORES = "hk.LSTM, hk.GRU, hk.VanillaRNN, hk.Conv*DLSTM"


def _deep(layers: Any, skip: bool) -> Deferred:
    """The cores of ``hk.DeepRNN(layers)`` (``skip=False``) or ``hk.deep_rnn_with_skip_connections(layers)``
    (``skip=True``), made for the input width when applied.

    Core k reads the width its wiring gives (:meth:`derive.engine.wirings.Wiring.layer_input_size`:
    :data:`~derive.engine.wirings.UNIDIRECTIONAL`, the output of core k - 1;
    :data:`~derive.engine.wirings.SKIP_CONNECTIONS`, the input beside it, ``_DeepRNN.__call__``); the
    cores, made before the deep RNN as its argument, keep their own module names, made unique by Haiku
    in the order they are made (``lstm``, ``lstm_1``, ...); neither adds parameters.

    Parameters
    ----------
    layers : list
        The cores (:class:`Core`) and, without ``skip``, functions of ``jax.nn`` / ``jnp`` between them.
    skip : bool

    Returns
    -------
    Deferred

    Raises
    ------
    TypeError
        ``layers`` is not a non-empty list; an item that is no Haiku core derive knows (nor, without
        ``skip``, a function of ``jax.nn`` / ``jnp``).
    ValueError
        ``skip`` and a function among the cores (Haiku's own refusal).
    """
    from ..engine.wirings import SKIP_CONNECTIONS, UNIDIRECTIONAL

    if not isinstance(layers, (list, tuple)) or not layers:
        what = "cores" if skip else "cores and functions"
        raise TypeError(f"layers must be a non-empty list of {what}, got {validate.shown(layers)}")
    for item in layers:
        source = getattr(item, "source", None)
        function = isinstance(source, str) and source.startswith(_FUNCTIONS)
        written = getattr(item, "unread_source", None) or validate.shown(item)
        if skip and function:
            raise ValueError(  # haiku/_src/recurrent.py, _DeepRNN.__init__
                f"skip_connections requires for all layers to be `hk.RNNCore`s: {written} is a function"
            )
        if not isinstance(item, Core) and not function:
            raise TypeError(
                f"{written} is not a Haiku core derive knows ({_CORES}){'' if skip else ' nor a function of jax.nn / jnp'}"
            )
    wiring = SKIP_CONNECTIONS if skip else UNIDIRECTIONAL

    def make(width: Any) -> Module:
        seen: dict[str, int] = {}
        children: list[Module] = []
        below = width
        for item in layers:
            if not isinstance(item, Core):
                continue
            k = seen.get(item.name, 0)
            seen[item.name] = k + 1
            module = item.make(wiring.layer_input_size(len(children), width, below))
            if k:  # Haiku's unique name for the k-th module of that name
                unique = f"{item.name}_{k}"
                params = tuple(replace(p, name=unique + p.name[len(item.name) :]) for p in module.params)
                module = module.replace(params=params)
            children.append(module)
            below = item.output
        return Module("", "DeepRNN", children=tuple(children), sep="/")

    return Deferred(make)


@constructor("haiku", "DeepRNN", prefixes=_PREFIXES, deferred=True, source=_SOURCE)
def _deep_rnn(layers: Any, name: Any = None) -> Deferred:
    """``hk.DeepRNN(layers, name=None)`` (haiku/_src/recurrent.py): each core reads the output of the
    one before (:func:`_deep`)."""
    return _deep(layers, skip=False)


@constructor("haiku", "deep_rnn_with_skip_connections", prefixes=_PREFIXES, deferred=True, source=_SOURCE)
def _deep_rnn_with_skip_connections(layers: Any, name: Any = None) -> Deferred:
    """``hk.deep_rnn_with_skip_connections(layers, name=None)`` (haiku/_src/recurrent.py): core k >= 1 reads
    the input beside the output of core k - 1 (:func:`_deep`); every core must be an ``hk.RNNCore``."""
    return _deep(layers, skip=True)
