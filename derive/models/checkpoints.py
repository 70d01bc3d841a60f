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

from .report import Report
from .source import SourceError, clean
from .state_dict import explain_state_dict

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
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as error:
        raise SourceError(f"{clean(path, 80)}: not a readable .keras file ({clean(str(error), 160)})") from None
    from .keras_functional import explain_keras_config

    return explain_keras_config(config)


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
            f"{clean(path, 80)}: unknown file type {clean(suffix, 20)!r}; expected one of {', '.join(readers)} or .py"
        )
    return readers[suffix](path)
