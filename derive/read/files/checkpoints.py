"""Checkpoint files read back to the constructors that made them — shapes only, nothing executed.

* ``.pt`` / ``.pth`` / ``.bin``: ``torch.load(weights_only=True, mmap=True)`` (PyTorch's restricted
  unpickler: a pickle with code is refused, never run);
* ``.safetensors``: the header only (:mod:`derive.read.files.safetensors_format`; no NumPy, no framework);
* ``.keras``: ``config.json`` from the zip, as data (Sequential models);
* ``.onnx``: ``onnx.load(..., load_external_data=False)``; LSTM/GRU/RNN nodes' W, R, B.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

from ...tree import Param, named_parameters
from ..limits import MAX_CODE_BYTES, MAX_CONFIG_BYTES
from ..report import Report
from ..source import SourceError, clean
from .state_dict import explain_state_dict

__all__ = ["explain_file", "read_text", "MAX_CODE_BYTES", "MAX_CONFIG_BYTES"]


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
    if tensors or not data:  # an empty state dict: a model without parameters
        return tensors
    for key in ("state_dict", "model_state_dict", "model", "net", "module"):
        found = _find_state(data.get(key), depth + 1)
        if found is not None:
            return found
    return None


#: What a safetensors file cannot hold.
SAFETENSORS_NOTE = (
    "a safetensors file holds a tensor shared by several names once (transformers saves one name, e.g. "
    "not lm_head.weight when it is tied to the embeddings): tied weights are counted once, as "
    "model.parameters() counts them"
)


def _safetensors_file(path: str) -> Report:
    from .safetensors_format import read_header

    header = read_header(path)
    shapes = {name: shape for name, (_, shape) in header.items()}
    dtypes = {name: dtype for name, (dtype, _) in header.items()}
    return explain_state_dict(shapes, complete=True, ties={}, dtypes=dtypes, notes=[SAFETENSORS_NOTE])


def _keras_file(path: str) -> Report:
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("config.json")
            if info.file_size > MAX_CONFIG_BYTES:
                raise SourceError(f"{clean(path, 80)}: config.json larger than {MAX_CONFIG_BYTES:,} bytes")
            config = json.loads(archive.read(info))
            from ..configs.keras_functional import explain_keras_config

            report = explain_keras_config(config)
            if report.partial and report.module is not None and "model.weights.h5" in archive.namelist():
                with archive.open("model.weights.h5") as weights:
                    report = _from_weights(report, weights, _saved_names(config))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as error:
        raise SourceError(f"{clean(path, 80)}: not a readable .keras file ({clean(str(error), 160)})") from None
    return report


def _saved_names(config: dict) -> list[str]:
    """The group of each layer (but the inputs) in ``model.weights.h5``: its class in snake case,
    numbered within the model (``lstm``, ``dense``, ``dense_1``), as ``keras/src/saving/saving_lib.py``
    (``_save_container_state``) names them."""
    from ...frameworks.keras.base import snake

    inner = config.get("config", config)
    used: dict[str, int] = {}
    names = []
    for layer in inner.get("layers", []) if isinstance(inner, dict) else []:
        kind = layer.get("class_name") if isinstance(layer, dict) else None
        module = layer.get("module") if isinstance(layer, dict) else None
        if not isinstance(kind, str) or kind == "InputLayer" or str(module).startswith(("keras.src.ops", "keras.ops")):
            continue
        base = snake(kind)
        used[base] = used.get(base, -1) + 1
        names.append(base if used[base] == 0 else f"{base}_{used[base]}")
    return names


def _datasets(group: Any, dataset: type) -> list[tuple[str, tuple[int, ...]]]:
    """Every dataset below an HDF5 group: its path in the group and its shape."""
    out: list[tuple[str, tuple[int, ...]]] = []

    def visit(path: str, item: Any) -> None:
        if isinstance(item, dataset):
            out.append((path, tuple(int(d) for d in getattr(item, "shape", ()))))

    group.visititems(visit)
    return out


def _from_weights(report: Report, weights: Any, names: list[str]) -> Report:
    """``report`` with each layer it could not derive counted from the shapes in ``model.weights.h5``.

    Keras saves each layer's variables under ``layers/<group>/...`` (``vars/0``, ``cell/vars/1``),
    the group named by :func:`_saved_names`; their shapes are read from the HDF5 metadata (h5py,
    data only, nothing run). The groups are used only if every derived layer's shapes are its
    group's, so a layer is never counted from another's weights.
    """
    try:
        import h5py
    except ImportError:  # h5py comes with Keras; without it the layers stay not counted
        return report
    assert report.module is not None
    children = report.module.children
    if len(names) != len(children):
        return report
    with h5py.File(weights, "r") as h5:
        group = h5.get("layers")
        saved = []
        for name in names:
            found = group.get(name) if group is not None else None
            saved.append(_datasets(found, h5py.Dataset) if found is not None else [])
    for child, shapes in zip(children, saved, strict=True):
        mine = sorted(tuple(p.shape) for _, p in named_parameters(child.replace(name=""))) if child.counted else []
        if child.counted and sorted(s for _, s in shapes) != mine:
            return report
    filled = tuple(
        child
        if child.counted
        else child.replace(
            params=tuple(Param(path, shape) for path, shape in shapes),
            counted=True,
            note="numeric, not derived (model.weights.h5)",
        )
        for child, shapes in zip(children, saved, strict=True)
    )
    notes = [n for n in report.notes if not n.endswith("not counted")]
    notes.append("layers derive could not derive from the config are counted from model.weights.h5")
    return Report.from_module(
        report.module.replace(children=filled), report.framework, report.title, report.input_shape, notes
    )


def _onnx_file(path: str) -> Report:
    from .onnx_format import explain_onnx

    return explain_onnx(path)


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
            f"{clean(path, 80)}: unknown file type {clean(suffix, 20)!r}; expected one of {', '.join(readers)}, .py or .txt"
        )
    return readers[suffix](path)
