"""minGRU and minLSTM as ``mingru-pytorch`` (0.2.1) builds them: one bias-free ``Linear`` each."""

from __future__ import annotations

from typing import Any

from ..engine.conventions import Convention, TensorLayout
from ..engine.symbols import Size
from .registry import CellSpec, Framework, register

__all__ = ["MINGRU_PYTORCH", "MINLSTM_PYTORCH", "check_proj_out"]

_SOURCE = "minGRU_pytorch/minGRU.py, minGRU_pytorch/minLSTM.py (mingru-pytorch 0.2.1, __init__)"
_DIRECTIONS = {1: ("",), 2: ("forward", "backward")}


def _name(base: str, layer: Any, label: str) -> str:
    if layer is None:
        return base
    n = layer * (2 if label else 1) + int(label == "backward")
    return f"{n}.{base}"


def _convention(name: str, weight: str) -> Convention:
    return Convention(
        name=f"mingru-pytorch {name}",
        tensors=(TensorLayout(weight, "weight", ("ih",)), TensorLayout("to_out.weight", "weight", ("hr",))),
        layer_name=_name,
        source=_SOURCE,
        biases={"MINGRU": "none", "MINLSTM": "none"},
        direction_names=_DIRECTIONS,
    )


#: ``minGRU(dim, expansion_factor=1., proj_out=None)``: ``to_hidden_and_gate.weight`` (2H, I),
#: H = int(dim·expansion_factor), blocks hidden then gate, no bias; ``to_out.weight`` (dim, H)
#: when ``proj_out`` (by default when ``expansion_factor != 1``). A stack is an ``nn.ModuleList``
#: (``<n>.``, n = layer·D + direction).
MINGRU_PYTORCH = _convention("minGRU", "to_hidden_and_gate.weight")

#: ``minLSTM(dim, expansion_factor=1., proj_out=None)``: ``to_hidden_and_f_i_gate.weight``
#: (3H, I), blocks hidden, f, i; ``to_out.weight`` as :data:`MINGRU_PYTORCH`.
MINLSTM_PYTORCH = _convention("minLSTM", "to_hidden_and_f_i_gate.weight")


def check_proj_out(
    *,
    input_size: Size,
    hidden_size: Size,
    proj_size: Size,
    num_layers: Size = 1,
    bidirectional: bool = False,
    **options: Any,
) -> None:
    """``to_out`` maps the hidden state back to ``dim``: ``proj_size`` is 0 or ``input_size``.

    In a deep bidirectional stack the layers above read 2·P features, so their ``to_out`` would
    map back to 2·P, not P: no stack of ``mingru-pytorch`` modules has one ``proj_size``, and
    derive refuses it rather than count a stack nobody can build.

    Parameters
    ----------
    input_size, hidden_size, proj_size : int or sympy.Expr
        I (``dim``), H (``dim * expansion_factor``) and P (0, or I for ``to_out``).
    num_layers : int or sympy.Expr, default 1
        L.
    bidirectional : bool, default False
        Deep bidirectional wiring.
    **options
        The class's other options (not read).

    Raises
    ------
    ValueError
        Another ``proj_size``; ``proj_size`` in a bidirectional stack of more than one layer (or
        of a symbolic number of layers).

    Examples
    --------
    >>> check_proj_out(input_size=8, hidden_size=16, proj_size=8, num_layers=2)
    >>> check_proj_out(input_size=8, hidden_size=16, proj_size=8, num_layers=2, bidirectional=True)
    Traceback (most recent call last):
    ...
    ValueError: proj_size must be 0 for a bidirectional mingru-pytorch stack of more than one layer: layers >= 1 read 2*proj_size features and their to_out maps back to that width, got 8
    """
    if proj_size != 0 and proj_size != input_size:
        raise ValueError(
            f"proj_size must be 0 or input_size ({input_size}) for mingru-pytorch: to_out maps the "
            f"hidden state back to dim, got {proj_size}"
        )
    if proj_size != 0 and bidirectional and num_layers != 1:
        raise ValueError(
            "proj_size must be 0 for a bidirectional mingru-pytorch stack of more than one layer: layers >= 1 "
            f"read 2*proj_size features and their to_out maps back to that width, got {proj_size}"
        )


register(
    Framework(
        "mingru",
        "minGRU-pytorch",
        tuple(
            CellSpec(
                name,
                mode,
                mode.lower(),
                convention,
                "cell",
                {"proj_size": ()},
                proj_below_hidden=False,
                check=check_proj_out,
            )
            for name, mode, convention in (
                ("minGRU", "MINGRU", MINGRU_PYTORCH),
                ("minLSTM", "MINLSTM", MINLSTM_PYTORCH),
            )
        ),
        ("mingru-pytorch", "torch"),
        _SOURCE,
        order=81,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``minGRU(512)``, ``minLSTM(512, expansion_factor=1.5)`` (``from minGRU_pytorch import minGRU``):
# ``dim_inner = int(dim * expansion_factor)``, ``proj_out`` by default when ``expansion_factor != 1``
# (minGRU_pytorch/minGRU.py and minLSTM.py, mingru-pytorch 0.2.1, ``__init__``).

from ..engine import validate  # noqa: E402
from .mirror import constructor, stack_module  # noqa: E402


def _min_rnn(cls: str, dim: Any, expansion_factor: Any, proj_out: Any) -> Any:
    dim = validate.size("dim", dim)
    if isinstance(expansion_factor, bool) or not isinstance(expansion_factor, (int, float)):
        raise TypeError(f"expansion_factor should be a number, got: {validate.shown(expansion_factor)}")
    if proj_out is None:
        proj_out = expansion_factor != 1.0
    validate.flag("proj_out", proj_out)
    if expansion_factor == 1:
        inner = dim
    elif isinstance(dim, int):
        inner = int(dim * expansion_factor)
    else:
        raise ValueError(
            f"expansion_factor={expansion_factor} needs an int dim (dim_inner = int(dim * expansion_factor))"
        )
    return stack_module("mingru", cls, dim, inner, proj_size=dim if proj_out else 0)


@constructor("mingru", "minGRU", prefixes=("", "minGRU_pytorch."), letters={"dim": "I"}, source=_SOURCE)
def _mingru(dim: Any, expansion_factor: Any = 1.0, proj_out: Any = None) -> Any:
    return _min_rnn("minGRU", dim, expansion_factor, proj_out)


@constructor("mingru", "minLSTM", prefixes=("", "minGRU_pytorch.minLSTM."), letters={"dim": "I"}, source=_SOURCE)
def _minlstm(dim: Any, expansion_factor: Any = 1.0, proj_out: Any = None) -> Any:
    return _min_rnn("minLSTM", dim, expansion_factor, proj_out)
