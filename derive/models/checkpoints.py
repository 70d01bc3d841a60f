"""Checkpoint files read back to the constructors that made them — shapes only, nothing executed.

* ``.pt`` / ``.pth`` / ``.bin``: ``torch.load(weights_only=True, mmap=True)`` (PyTorch's restricted
  unpickler: a pickle with code is refused, never run);
* ``.safetensors``: the header only (:mod:`derive.models.safetensors_format`; no NumPy, no framework);
* ``.keras``: ``config.json`` from the zip, as data (Sequential models);
* ``.onnx``: ``onnx.load(..., load_external_data=False)``; LSTM/GRU/RNN nodes' W, R, B.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

from .infer import explain_state_dict
from .report import Report, Row
from .source import SourceError, clean

__all__ = ["explain_file", "read_text", "MAX_CODE_BYTES", "MAX_CONFIG_BYTES"]

#: Largest model-code file read (bytes); larger files are refused.
MAX_CODE_BYTES = 1_000_000
MAX_CONFIG_BYTES = 20_000_000


def read_text(path: str) -> str:
    """A code file's text (UTF-8), refused beyond :data:`MAX_CODE_BYTES`.

    Parameters
    ----------
    path : str

    Returns
    -------
    str

    Raises
    ------
    SourceError
        Too large or not UTF-8.
    FileNotFoundError
        No such file.
    """
    if os.path.getsize(path) > MAX_CODE_BYTES:
        raise SourceError(f"{clean(path, 80)}: larger than {MAX_CODE_BYTES:,} bytes; not model code")
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise SourceError(f"{clean(path, 80)}: not UTF-8 text") from None


def _torch_file(path: str) -> Report:
    import pickle

    import torch

    try:
        try:
            data = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as error:
            if "mmap" not in str(error):
                raise
            data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise SourceError(
            f"{clean(path, 80)}: refused by torch.load(weights_only=True) — the file holds objects "
            f"other than tensors ({clean(str(error).splitlines()[0], 160)}); it was not executed"
        ) from None
    except (RuntimeError, EOFError, ValueError, OSError, zipfile.BadZipFile) as error:
        raise SourceError(f"{clean(path, 80)}: not a readable torch checkpoint ({clean(str(error), 160)})") from None
    state = _find_state(data)
    if state is None:
        raise SourceError(f"{clean(path, 80)}: no mapping of names to tensors found in the checkpoint")
    return explain_state_dict(state, complete=True)


def _find_state(data: Any, depth: int = 0) -> dict | None:
    if not isinstance(data, dict) or depth > 3:
        return None
    tensors = {k: v for k, v in data.items() if isinstance(k, str) and hasattr(v, "shape")}
    if tensors:
        return tensors
    for key in ("state_dict", "model_state_dict", "model", "net", "module"):
        found = _find_state(data.get(key), depth + 1)
        if found is not None:
            return found
    return None


def _safetensors_file(path: str) -> Report:
    from .safetensors_format import read_shapes

    return explain_state_dict(read_shapes(path), complete=True)


def _keras_file(path: str) -> Report:
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("config.json")
            if info.file_size > MAX_CONFIG_BYTES:
                raise SourceError(f"{clean(path, 80)}: config.json larger than {MAX_CONFIG_BYTES:,} bytes")
            config = json.loads(archive.read(info))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as error:
        raise SourceError(f"{clean(path, 80)}: not a readable .keras file ({clean(str(error), 160)})") from None
    from .keras_functional import explain_keras_config

    return explain_keras_config(config)


def _onnx_file(path: str) -> Report:
    import onnx
    from onnx import numpy_helper  # noqa: F401  (kept: onnx's own reader)

    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as error:  # onnx raises DecodeError and others for corrupt files
        raise SourceError(f"{clean(path, 80)}: not a readable ONNX model ({clean(str(error), 160)})") from None
    dims = {t.name: tuple(int(d) for d in t.dims) for t in model.graph.initializer}
    rows: list[Row] = []
    used: set[str] = set()
    constructors: list[str] = []
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}
    for node in model.graph.node:
        if node.op_type not in gates:
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        w, r = dims.get(node.input[1]), dims.get(node.input[2])
        b = dims.get(node.input[3]) if len(node.input) > 3 and node.input[3] else None
        if w is None or r is None:
            raise SourceError(f"ONNX node {clean(node.name, 60)}: W or R is not an initializer")
        d, gh, i = w
        h = r[2]
        direction = attrs.get("direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else direction
        used.update(n for n in node.input[1:4] if n)
        args = f"{i}, {h}" + (", bidirectional=True" if d == 2 else "") + ("" if b else ", bias=False")
        constructor = f"nn.{node.op_type}({args})"
        count = sum(int(__import__("math").prod(s)) for s in (w, r, b) if s)
        config = {
            "mode": node.op_type,
            "input_size": i,
            "hidden_size": h,
            "direction": direction,
            "bias": b is not None,
            "linear_before_reset": attrs.get("linear_before_reset", 0),
        }
        if gh != gates[node.op_type] * h:
            raise SourceError(f"ONNX node {clean(node.name, 60)}: W has {gh} rows, not {gates[node.op_type]}·{h}")
        rows.append(
            Row(
                clean(node.name or node.op_type, 80),
                node.op_type,
                count,
                config=config,
                constructor=constructor,
                tensors=[("W", w), ("R", r)] + ([("B", b)] if b else []),
            )
        )
        constructors.append(constructor)
    import math

    for name, shape in dims.items():
        if name not in used:
            rows.append(
                Row(
                    clean(name, 80),
                    "initializer",
                    math.prod(shape),
                    note="numeric, not derived",
                    tensors=[(name, shape)],
                )
            )
    notes = [
        "one ONNX node is one layer (one direction pair); torch.onnx.export writes num_layers nodes",
        "ONNX B holds both biases (Wb, Rb), as torch's bias_ih and bias_hh",
    ]
    return Report("onnx", rows, "ONNX graph", None, notes, constructors)


def explain_file(path: str) -> Report:
    """Read a checkpoint (by its suffix) into a report of constructors and tensors.

    Parameters
    ----------
    path : str
        ``.pt``, ``.pth``, ``.bin``, ``.safetensors``, ``.keras`` or ``.onnx``.

    Returns
    -------
    Report

    Raises
    ------
    FileNotFoundError
        No such file.
    SourceError
        An unknown suffix, a corrupt or truncated file, a pickle with code (refused, not run).
    """
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {clean(path, 200)}")
    suffix = os.path.splitext(path)[1].lower()
    readers = {
        ".pt": _torch_file,
        ".pth": _torch_file,
        ".bin": _torch_file,
        ".safetensors": _safetensors_file,
        ".keras": _keras_file,
        ".onnx": _onnx_file,
    }
    if suffix not in readers:
        raise SourceError(
            f"{clean(path, 80)}: unknown file type {clean(suffix, 20)!r}; expected one of {', '.join(readers)} or .py"
        )
    return readers[suffix](path)
