"""A state dict (names -> tensors or shapes) read into the module tree: the recurrent constructors
that made it, the other modules' tensors, buffers apart and tied tensors once.

The dotted names give the tree (``encoder.rnn.weight_ih_l0`` is ``weight_ih_l0`` of module
``rnn`` of module ``encoder``). Recurrent modules are recognised by torch's tensor names and remade
by the :mod:`derive.torch` mirror (:mod:`derive.read.files.infer`); the other modules' tensors are
counted from their shapes ("numeric, not derived"). A state dict holds buffers beside the
parameters and does not mark them: a tensor is taken as a buffer (listed, not counted) when its
module has BatchNorm's keys (``running_mean``, ``running_var``, ``num_batches_tracked``), when its
name is another well-known buffer's (``position_ids``, ``inv_freq``) or when its dtype is not
floating point (parameters are float or complex); the report says so. A tensor that shares its
storage with an earlier one (a tied weight saved twice) is a tie, counted once.

>>> report = explain_state_dict({"bn.weight": (8,), "bn.bias": (8,), "bn.running_mean": (8,),
...                              "bn.running_var": (8,), "bn.num_batches_tracked": ()})
>>> report.total, [t["name"] for t in report.buffers]
(16, ['bn.running_mean', 'bn.running_var', 'bn.num_batches_tracked'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...tree import Module, Param, named_modules, named_parameters
from ..report import Report
from ..source import SourceError, clean
from .infer import UNKNOWN, Recurrent, infer_torch, shape_of

__all__ = ["explain_state_dict", "state_tree", "BUFFER_NAMES", "running_stats", "MAX_TENSORS"]

#: Most tensors read from one state dict or checkpoint; more is refused.
MAX_TENSORS = 1_000_000

#: BatchNorm's (and InstanceNorm's with ``track_running_stats``) buffers (``torch/nn/modules/batchnorm.py``).
RUNNING_STATS = ("running_mean", "running_var", "num_batches_tracked")
#: Buffers that well-known models register under these names (transformers' ``position_ids``,
#: rotary embeddings' ``inv_freq``, GPT-2's ``masked_bias``).
BUFFER_NAMES = frozenset({"position_ids", "token_type_ids", "inv_freq", "masked_bias"})
_FLOATS = ("float", "bfloat", "half", "double", "complex", "F", "BF", "C")


def running_stats(keys: set[str]) -> bool:
    """Whether a module's own keys are a BatchNorm's (its running statistics).

    Parameters
    ----------
    keys : set of str
        The last parts of the module's tensor names.

    Returns
    -------
    bool
    """
    return {"running_mean", "running_var"} <= keys


def _floating(dtype: str | None) -> bool:
    return dtype is None or dtype.removeprefix("torch.").startswith(_FLOATS)


class _Node:
    """A module being assembled from dotted names."""

    def __init__(self) -> None:
        self.params: list[Param] = []
        self.children: dict[str, _Node] = {}
        self.recurrent: Recurrent | None = None


def _insert(root: _Node, name: str) -> tuple[_Node, str]:
    *path, last = name.split(".")
    node = root
    for part in path:
        node = node.children.setdefault(part, _Node())
    return node, last


def state_tree(
    shapes: Mapping[str, tuple],
    complete: bool,
    dtypes: Mapping[str, str] | None = None,
    ties: Mapping[str, str] | None = None,
) -> tuple[Module, list[Recurrent], list[str]]:
    """The tree of a state dict, the recurrent modules found in it, and what it could not tell.

    Parameters
    ----------
    shapes : Mapping of str to tuple of int
    complete : bool
        A whole state dict (see :func:`derive.read.files.infer.infer_torch`).
    dtypes : Mapping of str to str, optional
        Where known (``"float32"``, ``"int64"``, safetensors' ``"I64"``).
    ties : Mapping of str to str, optional
        Name -> the earlier name whose storage it shares.

    Returns
    -------
    tuple of (derive.tree.Module, list of Recurrent, list of str)
        The root (named ""), the recurrent modules, the notes.

    Raises
    ------
    SourceError
        Recurrent tensor names whose shapes no torch.nn layer makes.
    """
    dtypes, ties = dict(dtypes or {}), dict(ties or {})
    found, _ = infer_torch(shapes, complete)
    root = _Node()
    for name, shape in shapes.items():
        node, last = _insert(root, name)
        node.params.append(Param(last, shape, tied_to=ties.get(name), dtype=dtypes.get(name)))
    for rec in found:
        node = root
        for part in rec.prefix.rstrip(".").split(".") if rec.prefix else []:
            node = node.children[part]
        node.recurrent = rec
    tree = _module(root, "", "")
    if tree.type == "":
        tree = tree.replace(type="(top level)")
    notes = []
    buffers = [name for name, p in named_parameters(tree, buffers=True) if p.buffer]
    if buffers:
        shown = ", ".join(clean(b, 60) for b in buffers[:4]) + (", ..." if len(buffers) > 4 else "")
        notes.append(
            f"{len(buffers)} buffer{'s' if len(buffers) != 1 else ''} not counted ({shown}): BatchNorm's running "
            "statistics, well-known buffer names, or a dtype that is not floating point"
        )
    if any(m.type == "tensors" for _, m in named_modules(tree, expand=False)):
        notes.append(
            "a state dict does not mark buffers: the tensors of modules not recognised are counted as parameters"
        )
    if ties:
        notes.append(
            "tied tensors (one storage under several names) are counted once: "
            + ", ".join(f"{clean(a, 60)} = {clean(b, 60)}" for a, b in list(ties.items())[:4])
        )
    return tree, found, notes


def _module(node: _Node, name: str, path: str) -> Module:
    children = tuple(_module(child, key, f"{path}.{key}" if path else key) for key, child in node.children.items())
    rec = node.recurrent
    recurrent_names = {n.rsplit(".", 1)[-1] for n, _ in rec.tensors} if rec else set()
    own = [p for p in node.params if p.name not in recurrent_names]
    keys = {p.name for p in own}
    stats = running_stats(keys)
    marked = tuple(
        Param(p.name, p.shape, buffer=True, dtype=p.dtype)
        if (stats and p.name in RUNNING_STATS) or p.name in BUFFER_NAMES or not _floating(p.dtype)
        else p
        for p in own
    )
    if rec is not None:
        given = {p.name: p for p in node.params if p.name in recurrent_names}
        if rec.module is not None:  # the file's tensors, in the mirror's order (its layers' groups flattened)
            params = tuple(given[n] for n, _ in named_parameters(rec.module.replace(name="")))
            return Module(
                name,
                rec.module.type,
                params + marked,
                children,
                config=rec.module.config,
                formula=rec.module.formula,
                row=not children,
            )
        note = "from the given tensors only: " + ", ".join(rec.unknown) + " unknown"
        return Module(name, rec.kind, tuple(given.values()) + marked, children, note=note)
    counted = [p for p in marked if not p.buffer]
    listing = ", ".join(f"{clean(p.name, 40)} {p.shape}" for p in marked[:8])
    listing += "".join(f"; {clean(p.name, 40)} is {clean(p.tied_to, 80)} (counted there)" for p in marked if p.tied_to)
    if stats:
        return Module(name, "BatchNorm", marked, children, note=f"numeric, not derived: {listing}")
    if not counted and not marked:
        return Module(name, "", (), children)
    return Module(name, "tensors" if counted else "buffers", marked, children, note=f"numeric, not derived: {listing}")


def explain_state_dict(
    state: Mapping[str, Any],
    complete: bool = True,
    framework: str = "torch",
    *,
    ties: Mapping[str, str] | None = None,
    dtypes: Mapping[str, str] | None = None,
    title: str = "state dict",
    notes: list[str] | None = None,
) -> Report:
    """The recurrent constructors, the other tensors by module, and the total of a state dict.

    Parameters
    ----------
    state : Mapping of str to tensor or shape
        ``model.state_dict()``, a checkpoint's contents, or names and shapes read off an error message.
    complete : bool, default True
        Whether absent tensors mean absent parameters: a state dict is the model's every tensor,
        whether its values are tensors or shapes (the same answer for both). False for names and
        shapes read off an error message, which lists some of them.
    framework : str
        Recorded in the report.
    ties : Mapping of str to str, optional
        Name -> the earlier name whose storage it shares; default: found from the tensors' storage
        when they are real torch tensors (not on the meta device).
    dtypes : Mapping of str to str, optional
        Default: the tensors' own.
    title : str
    notes : list of str, optional
        Printed before derive's own.

    Returns
    -------
    Report
        Rows for recurrent modules (``config``, ``constructor``) and for the other modules (their
        tensors counted, "numeric, not derived"); ``constructors`` lists the constructor strings;
        buffers and ties listed in :attr:`Report.buffers` and :attr:`Report.ties`, not counted.

    Raises
    ------
    TypeError
        A value that is neither a tensor nor a shape; a key that is not a str.
    SourceError
        More than :data:`MAX_TENSORS` tensors; recurrent tensor names whose
        shapes no torch.nn layer makes.
    """
    if len(state) > MAX_TENSORS:
        raise SourceError(f"more than {MAX_TENSORS:,} tensors")
    shapes: dict[str, tuple] = {}
    for key, value in state.items():
        if not isinstance(key, str):
            raise TypeError(f"state dict keys are str, got {type(key).__name__}")
        shapes[key] = shape_of(value)
    if dtypes is None:
        dtypes = {k: str(v.dtype) for k, v in state.items() if hasattr(v, "dtype")}
    if ties is None:
        ties = storage_ties(state)
    # --- a block model's checkpoint: its config inferred from the shapes (derive.read.files.block_infer) ---
    block = ""
    if complete:
        from .block_infer import explain_block_state

        inferred = explain_block_state(shapes, ties)
        if isinstance(inferred, Report):
            return inferred
        block = inferred or ""
    # ---
    tree, found, found_notes = state_tree(shapes, complete, dtypes, ties)
    report = Report.from_module(
        tree, framework, title, None, [*(notes or []), *([block] if block else []), *found_notes]
    )
    by_name = {(r.prefix.rstrip(".") or tree.type): r for r in found}
    for row in report.rows:
        rec = by_name.get(row.name)
        if rec is not None:
            row.config = rec.config
            row.constructor = rec.constructor
    report.constructors = [r.constructor for r in found if r.constructor]
    if any(r.config.get("mode") == "RNN" for r in found):
        report.notes.append(
            "an RNN's nonlinearity (tanh or relu) and any layer's dropout, batch_first do not show in "
            "shapes; the defaults are printed"
        )
    else:
        report.notes.append("dropout and batch_first do not show in shapes; the defaults are printed")
    if not complete:
        report.notes.append("partial tensor list: what the given tensors cannot fix is marked unknown")
    return report


def storage_ties(state: Mapping[str, Any]) -> dict[str, str]:
    """Names whose tensor is an earlier name's tensor (one storage, same offset, shape and strides).

    A tied model's ``state_dict()`` (``decoder.weight = encoder.weight``) and the file
    ``torch.save`` writes of it hold the storage once under both names; loaded with
    ``torch.load(weights_only=True, mmap=True)`` they share it again.

    Parameters
    ----------
    state : Mapping of str to tensor

    Returns
    -------
    dict of str to str
        Later name -> first name. Empty tensors are never ties.
    """
    first: dict[tuple, str] = {}
    ties: dict[str, str] = {}
    for name, value in state.items():
        storage = getattr(value, "untyped_storage", None)
        if storage is None or value.numel() == 0:
            continue
        impl = storage()
        # the storage's own identity (its StorageImpl), which the meta device keeps too
        ident = getattr(impl, "_cdata", None) or impl.data_ptr()
        if not ident:
            continue
        key = (ident, value.storage_offset(), tuple(value.shape), tuple(value.stride()), value.dtype)
        if key in first:
            ties[name] = first[key]
        else:
            first[key] = name
    return ties


__all__ += ["storage_ties", "UNKNOWN"]
