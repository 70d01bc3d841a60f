"""Tensor names and shapes -> the recurrent constructor that made them (PyTorch naming).

``weight_ih_l{k}[_reverse]`` (G·H, I_k), ``weight_hh_l{k}`` (G·H, H_out), ``bias_ih_l{k}``,
``bias_hh_l{k}`` (G·H,), ``weight_hr_l{k}`` (P, H) — ``torch/nn/modules/rnn.py``. Every
(mode, H, P, D) consistent with the given shapes is enumerated; a constructor argument is reported
only when all candidates agree on it, otherwise it is ``"unknown"``. A *complete* state dict (read
from a file, or tensors from ``state_dict()``) also fixes what is absent: no ``bias_*`` means
``bias=False``, no ``_reverse`` means unidirectional, the highest ``l{k}`` gives ``num_layers``.

The gate blocks of each cell are the registered cells' own (:func:`derive.read.torch_recurrent.gates`)
and a fully determined module is remade by the :mod:`derive.torch` mirror, whose tensors must be
exactly those given.

>>> (found,), rest = infer_torch({"lstm.weight_hh_l0_reverse": (512, 128), "lstm.weight_ih_l1": (512, 256)}, False)
>>> found.config["mode"], found.config["hidden_size"], found.config["input_size"]
('LSTM', 128, 'unknown')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ...tree import Module, closed_form, named_parameters
from ..source import SourceError, clean
from ..torch_recurrent import constructor_text, gates, recurrent_module

__all__ = ["Recurrent", "infer_torch", "shape_of", "UNKNOWN", "KINDS"]

#: The value of a constructor argument a partial state dict cannot determine.
UNKNOWN = "unknown"
#: The ``torch.nn`` recurrent layers a state dict is matched against, in this order.
KINDS = ("RNN", "GRU", "LSTM")
_NAME = re.compile(
    r"^(?P<prefix>.*?)(?P<kind>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)"
    r"(?:_l(?P<layer>\d+))?(?P<reverse>_reverse)?$"
)


def shape_of(value: Any) -> tuple[int, ...]:
    """A tensor's or a shape's dimensions as a tuple of ints.

    Parameters
    ----------
    value : tensor, array or sequence of int
        Anything with ``.shape``, or the shape itself.

    Returns
    -------
    tuple of int

    Raises
    ------
    TypeError
        Not a shape (a dimension that is not a non-negative int).
    """
    if type(value) is tuple and all(type(d) is int and d >= 0 for d in value):  # a shape already
        return value
    shape = getattr(value, "shape", value)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"expected a tensor or a shape, got {type(value).__name__}") from None
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int) and not hasattr(d, "__index__") or int(d) < 0:
            raise TypeError(f"a shape holds non-negative ints, got {clean(repr(d), 40)}")
    return tuple(int(d) for d in dims)


def _candidates(group: dict[tuple[str, int, bool], tuple], complete: bool) -> list[dict]:
    """Every (mode, H, P, D) that gives exactly the group's shapes."""
    gh = {s[0] for (k, _, _), s in group.items() if k != "weight_hr"}
    if len(gh) != 1:
        return []
    (rows,) = gh
    has_reverse = any(r for (_, _, r) in group)
    hr = [s for (k, _, _), s in group.items() if k == "weight_hr"]
    found = []
    for mode in KINDS:
        g = gates(mode)
        if rows % g:
            continue
        h = rows // g
        proj_options = (
            [hr[0][0]]
            if hr
            else (
                [0]
                if complete or mode != "LSTM"
                else sorted({0} | {s[1] for (k, _, _), s in group.items() if k == "weight_hh" and s[1] < h})
            )
        )
        if hr and (mode != "LSTM" or hr[0][1] != h):
            continue
        for p in proj_options:
            out = p or h
            for d in [2] if has_reverse else [1] if complete else [1, 2]:
                ok = True
                for (kind, layer, _), shape in group.items():
                    if (
                        kind == "weight_hh"
                        and shape != (rows, out)
                        or kind == "weight_ih"
                        and (len(shape) != 2 or layer >= 1 and shape[1] != d * out)
                        or kind in ("bias_ih", "bias_hh")
                        and shape != (rows,)
                        or kind == "weight_hr"
                        and shape != (p, h)
                    ):
                        ok = False
                if ok:
                    found.append({"mode": mode, "hidden_size": h, "proj_size": p, "bidirectional": d == 2})
    return found


@dataclass
class Recurrent:
    """A recurrent module found among named tensors.

    Attributes
    ----------
    prefix : str
        Its path with the trailing dot (``"encoder.rnn."``; ``""`` at the top level).
    cell : bool
        A cell (``weight_ih`` without a layer suffix: ``nn.LSTMCell``).
    config : dict
        ``mode``, ``hidden_size``, ``proj_size``, ``bidirectional``, ``input_size``,
        ``num_layers``, ``bias``: each a value, or :data:`UNKNOWN` when the tensors given cannot fix it.
    tensors : list of (str, tuple)
        Full names and shapes, as given.
    module : derive.tree.Module or None
        The module the :mod:`derive.torch` mirror makes of ``config`` (named by the last part of
        ``prefix``), when every argument is known and its tensors are exactly those given.
    constructor : str or None
        ``nn.LSTM(100, 128, num_layers=2)``, with ``module``.
    """

    prefix: str
    cell: bool
    config: dict[str, Any]
    tensors: list[tuple[str, tuple]] = field(default_factory=list)
    module: Module | None = None
    constructor: str | None = None

    @property
    def name(self) -> str:
        """Its path (``"encoder.rnn"``), ``"(top level)"`` for a state dict of one module."""
        return self.prefix.rstrip(".") or "(top level)"

    @property
    def kind(self) -> str:
        """The class (``"LSTM"``, ``"GRUCell"``), ``"RNN/GRU/LSTM?"`` when the shapes cannot tell."""
        mode = self.config["mode"]
        if mode == UNKNOWN:
            return "RNN/GRU/LSTM?"
        return f"{mode}Cell" if self.cell else mode

    @property
    def unknown(self) -> list[str]:
        """The arguments the tensors given cannot fix."""
        return [k for k, v in self.config.items() if v == UNKNOWN]


def _split(tensors: Mapping[str, tuple]) -> tuple[dict[str, dict], set[str], dict[str, tuple]]:
    """The recurrent tensors by module prefix, the prefixes of cells, and the other tensors."""
    groups: dict[str, dict[tuple[str, int, bool], tuple]] = {}
    cells: set[str] = set()
    rest: dict[str, tuple] = {}
    for name, shape in tensors.items():
        last = name.rsplit(".", 1)[-1]
        match = _NAME.match(last)
        if not match:
            rest[name] = shape
            continue
        prefix = name[: len(name) - len(last)]
        if match["layer"] is None:
            if match["reverse"]:
                rest[name] = shape
                continue
            cells.add(prefix)
        groups.setdefault(prefix, {})[(match["kind"], int(match["layer"] or 0), bool(match["reverse"]))] = shape
    return groups, cells, rest


def _arguments(config: dict[str, Any], cell: bool) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The constructor arguments of a fully known ``config``, defaults left out."""
    kwargs: dict[str, Any] = {}
    if not cell:
        if config["num_layers"] != 1:
            kwargs["num_layers"] = config["num_layers"]
        if config["bidirectional"]:
            kwargs["bidirectional"] = True
        if config["proj_size"]:
            kwargs["proj_size"] = config["proj_size"]
    if not config["bias"]:
        kwargs["bias"] = False
    return (config["input_size"], config["hidden_size"]), kwargs


def infer_torch(tensors: Mapping[str, tuple], complete: bool) -> tuple[list[Recurrent], dict[str, tuple]]:
    """The recurrent modules among named shapes, and the tensors left over.

    Parameters
    ----------
    tensors : Mapping of str to tuple of int
        Name -> shape.
    complete : bool
        Whether the mapping is a whole state dict (absent tensors then mean absent parameters).

    Returns
    -------
    tuple of (list of Recurrent, dict)
        The recurrent modules, in the order they first appear; the other tensors.

    Raises
    ------
    SourceError
        Shapes no ``torch.nn`` recurrent layer produces; a complete state dict whose tensors are
        not those of any one module (a layer missing, or a size they do not fix).
    """
    groups, cells, rest = _split(tensors)
    found = []
    for prefix, group in groups.items():
        cell = prefix in cells
        signature = ("state dict candidates", complete, tuple(group.items()))
        candidates: list[dict] = closed_form(signature, partial(_candidates, group, complete))
        if not candidates:
            listing = ", ".join(
                f"{prefix}{k}{'' if cell else f'_l{lay}'}{'_reverse' if r else ''} {s}"
                for (k, lay, r), s in list(group.items())[:6]
            )
            raise SourceError(
                f"{clean(prefix.rstrip('.') or '(top level)', 80)}: no torch.nn RNN, LSTM or GRU has these shapes: {listing}"
            )
        config: dict[str, Any] = {}
        for key in ("mode", "hidden_size", "proj_size", "bidirectional"):
            values = {c[key] for c in candidates}
            config[key] = values.pop() if len(values) == 1 else UNKNOWN
        ih0 = group.get(("weight_ih", 0, False), group.get(("weight_ih", 0, True)))
        config["input_size"] = ih0[1] if ih0 else UNKNOWN
        config["num_layers"] = max(lay for (_, lay, _) in group) + 1 if complete or cell else UNKNOWN
        if cell:  # a cell has one direction
            config["bidirectional"] = False
        biases = any(k.startswith("bias") for (k, _, _) in group)
        config["bias"] = True if biases else (False if complete else UNKNOWN)
        given = [
            (f"{prefix}{k}{'' if cell else f'_l{lay}'}{'_reverse' if r else ''}", s) for (k, lay, r), s in group.items()
        ]
        recurrent = Recurrent(prefix, cell, config, given)
        if complete and recurrent.unknown:  # a whole state dict: every tensor of the module is there
            raise SourceError(
                f"{clean(recurrent.name, 80)}: the tensors are not those of any one torch.nn.{recurrent.kind} "
                f"({', '.join(recurrent.unknown)} not fixed by them: a layer's tensors missing); got "
                f"{sorted(clean(n, 80) for n, _ in given)[:8]} (pass partial=True for part of a state dict)"
            )
        found.append(_remade(recurrent))
    return found, rest


def _remade(found: Recurrent) -> Recurrent:
    """``found`` with the module the mirror makes of its configuration, when it is fully known."""
    if found.unknown:
        return found
    args, kwargs = _arguments(found.config, found.cell)
    name = found.prefix.rstrip(".").rsplit(".", 1)[-1]
    module = recurrent_module(found.kind, args, kwargs, name=name)
    expected = {n: tuple(p.shape) for n, p in named_parameters(module.replace(name=""))}
    given = {n[len(found.prefix) :]: s for n, s in found.tensors}
    if expected != given:  # a fully determined module is a complete one's: the tensors must be its own
        raise SourceError(
            f"{clean(found.name, 80)}: the tensors are not those of any one torch.nn.{found.kind} "
            f"(e.g. a layer missing); got {sorted(given)}"
        )
    found.module = module
    found.constructor = constructor_text(found.kind, args, kwargs)
    return found
