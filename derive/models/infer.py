"""Tensor names and shapes -> the recurrent constructor that made them (PyTorch naming).

``weight_ih_l{k}[_reverse]`` (G·H, I_k), ``weight_hh_l{k}`` (G·H, H_out), ``bias_ih_l{k}``,
``bias_hh_l{k}`` (G·H,), ``weight_hr_l{k}`` (P, H) — ``torch/nn/modules/rnn.py``. Every
(mode, H, P, D) consistent with the given shapes is enumerated; a constructor argument is reported
only when all candidates agree on it, otherwise it is ``"unknown"``. A *complete* state dict (read
from a file, or tensors from ``state_dict()``) also fixes what is absent: no ``bias_*`` means
``bias=False``, no ``_reverse`` means unidirectional, the highest ``l{k}`` gives ``num_layers``.

>>> report = explain_state_dict({"weight_hh_l0_reverse": (512, 128), "weight_ih_l1": (512, 256)})
>>> report.rows[0].config["mode"], report.rows[0].config["hidden_size"], report.rows[0].config["input_size"]
('LSTM', 128, 'unknown')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .base import numel
from .recurrent import TorchRecurrent
from .report import Report, Row
from .source import SourceError, clean

__all__ = ["explain_state_dict", "infer_torch", "shape_of", "UNKNOWN", "MAX_TENSORS"]

#: The value of a constructor argument a partial state dict cannot determine.
UNKNOWN = "unknown"
#: Most tensors read from one state dict or checkpoint; more is refused.
MAX_TENSORS = 1_000_000
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
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
    for mode, g in _GATES.items():
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


def infer_torch(tensors: Mapping[str, tuple], complete: bool) -> tuple[list[Row], dict[str, tuple]]:
    """The recurrent modules among named shapes, and the tensors left over.

    Parameters
    ----------
    tensors : Mapping of str to tuple of int
        Name -> shape.
    complete : bool
        Whether the mapping is a whole state dict (absent tensors then mean absent parameters).

    Returns
    -------
    tuple of (list of Row, dict)
        One row per recurrent module with ``config`` and (when fully determined) ``constructor``;
        the other tensors.

    Raises
    ------
    SourceError
        Shapes no ``torch.nn`` recurrent layer produces.
    """
    groups: dict[str, dict[tuple[str, int, bool], tuple]] = {}
    cells: set[str] = set()
    rest: dict[str, tuple] = {}
    for name, shape in tensors.items():
        match = _NAME.match(name.rsplit(".", 1)[-1]) if "." in name else _NAME.match(name)
        if not match:
            rest[name] = shape
            continue
        prefix = name[: len(name) - len(name.rsplit(".", 1)[-1])] if "." in name else ""
        if match["layer"] is None:
            if match["reverse"]:
                rest[name] = shape
                continue
            cells.add(prefix)
        groups.setdefault(prefix, {})[(match["kind"], int(match["layer"] or 0), bool(match["reverse"]))] = shape
    rows = []
    for prefix, group in groups.items():
        module = prefix.rstrip(".") or "(top level)"
        candidates = _candidates(group, complete)
        if not candidates:
            listing = ", ".join(
                f"{prefix}{k}{'' if prefix in cells else f'_l{lay}'}{'_reverse' if r else ''} {s}"
                for (k, lay, r), s in list(group.items())[:6]
            )
            raise SourceError(f"{clean(module, 80)}: no torch.nn RNN, LSTM or GRU has these shapes: {listing}")
        config: dict[str, Any] = {}
        for key in ("mode", "hidden_size", "proj_size", "bidirectional"):
            values = {c[key] for c in candidates}
            config[key] = values.pop() if len(values) == 1 else UNKNOWN
        layers = {lay for (_, lay, _) in group}
        ih0 = group.get(("weight_ih", 0, False), group.get(("weight_ih", 0, True)))
        config["input_size"] = ih0[1] if ih0 else UNKNOWN
        config["num_layers"] = max(layers) + 1 if complete or prefix in cells else UNKNOWN
        biases = any(k.startswith("bias") for (k, _, _) in group)
        config["bias"] = True if biases else (False if complete else UNKNOWN)
        cell = prefix in cells
        mode = config["mode"]
        kind = f"{mode}Cell" if cell and mode != UNKNOWN else mode
        row = Row(
            module,
            kind if kind != UNKNOWN else "RNN/GRU/LSTM?",
            None,
            config=config,
            tensors=[
                (f"{prefix}{k}{'' if cell else f'_l{lay}'}{'_reverse' if r else ''}", s)
                for (k, lay, r), s in group.items()
            ],
        )
        if UNKNOWN not in config.values():
            args = [config["input_size"], config["hidden_size"]]
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
            module_obj = TorchRecurrent(kind, args, kwargs)
            expected = dict(module_obj.shapes())
            given = {(k[len(prefix) :]): s for k, s in row.tensors}
            if complete and expected != given:
                raise SourceError(
                    f"{clean(module, 80)}: the tensors are not those of any one torch.nn.{kind} "
                    f"(e.g. a layer missing); got {sorted(given)}"
                )
            row.params = module_obj.count
            row.formula, row.values = module_obj.formula
            text = ", ".join([str(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()])
            row.constructor = f"nn.{kind}({text})"
        else:
            row.params = sum(numel(s) for _, s in row.tensors)
            row.note = (
                "from the given tensors only: " + ", ".join(k for k, v in config.items() if v == UNKNOWN) + " unknown"
            )
        rows.append(row)
    return rows, rest


def explain_state_dict(state: Mapping[str, Any], complete: bool | None = None, framework: str = "torch") -> Report:
    """The recurrent constructors, the other tensors by module, and the total of a state dict.

    Parameters
    ----------
    state : Mapping of str to tensor or shape
        ``model.state_dict()``, a checkpoint's contents, or names and shapes read off an error message.
    complete : bool, optional
        Whether absent tensors mean absent parameters; default: True when the values are tensors
        (have ``.shape``), False for bare shapes.
    framework : str
        Recorded in the report.

    Returns
    -------
    Report
        Rows for recurrent modules (``config``, ``constructor``) and for other modules (their
        tensors counted, "numeric, not derived"); ``constructors`` lists the constructor strings.

    Raises
    ------
    TypeError
        A value that is neither a tensor nor a shape; a key that is not a str.
    SourceError
        Recurrent tensor names whose shapes no torch.nn layer makes.
    """
    if len(state) > MAX_TENSORS:
        raise SourceError(f"more than {MAX_TENSORS:,} tensors")
    shapes: dict[str, tuple] = {}
    for key, value in state.items():
        if not isinstance(key, str):
            raise TypeError(f"state dict keys are str, got {type(key).__name__}")
        shapes[key] = shape_of(value)
    if complete is None:
        complete = bool(state) and all(hasattr(v, "shape") for v in state.values())
    rows, rest = infer_torch(shapes, complete)
    modules: dict[str, list[tuple[str, tuple]]] = {}
    for name, shape in rest.items():
        modules.setdefault(name.rsplit(".", 1)[0] if "." in name else name, []).append((name, shape))
    for module, tensors in modules.items():
        rows.append(
            Row(
                clean(module, 120),
                "tensors",
                sum(numel(s) for _, s in tensors),
                note="numeric, not derived: "
                + ", ".join(f"{clean(n.rsplit('.', 1)[-1], 40)} {s}" for n, s in tensors[:8]),
                tensors=tensors,
            )
        )
    notes = []
    if any(r.config and r.config.get("mode") == "RNN" for r in rows):
        notes.append(
            "an RNN's nonlinearity (tanh or relu) and any layer's dropout, batch_first do not show in "
            "shapes; the defaults are printed"
        )
    else:
        notes.append("dropout and batch_first do not show in shapes; the defaults are printed")
    if not complete:
        notes.append("partial tensor list: what the given tensors cannot fix is marked unknown")
    return Report(framework, rows, "state dict", None, notes, [r.constructor for r in rows if r.constructor])
