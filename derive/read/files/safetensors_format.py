"""The header of a ``.safetensors`` file, read as data: tensor names, dtypes and shapes.

The format (https://github.com/huggingface/safetensors#format): 8 bytes, a little-endian
unsigned length ``N``; ``N`` bytes of UTF-8 JSON mapping each tensor name to ``{"dtype",
"shape", "data_offsets": [begin, end]}`` (and an optional ``"__metadata__"`` of strings); then
the tensors' bytes. Only the header is read — a 1 GB file costs one small read — and it is
checked as the safetensors library checks it: offsets inside the file, each tensor's byte
length equal to its shape times its dtype's size. No NumPy or framework import.
"""

from __future__ import annotations

import json
import os

from ..source import SourceError, clean

__all__ = ["read_shapes", "read_header", "DTYPE_BYTES", "MAX_HEADER_BYTES"]

#: Bytes per element of each safetensors dtype.
DTYPE_BYTES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8, "C64": 8,
}  # fmt: skip

#: Largest header read (bytes), as the safetensors library's limit.
MAX_HEADER_BYTES = 100_000_000


def read_shapes(path: str) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape, in the header's order, from a ``.safetensors`` file.

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    dict of str to tuple of int

    Raises
    ------
    SourceError, FileNotFoundError
        See :func:`read_header`.
    """
    return {name: shape for name, (_, shape) in read_header(path).items()}


def read_header(path: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Tensor name -> (dtype, shape), in the header's order, from a ``.safetensors`` file.

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    dict of str to (str, tuple of int)
        The dtype as the format spells it (``"F32"``, ``"BF16"``, ``"I64"``).

    Raises
    ------
    SourceError
        Not a safetensors file: too short, a header length beyond the file or
        :data:`MAX_HEADER_BYTES`, a header that is not a JSON object of tensor entries, an unknown
        dtype, offsets outside the data, or a byte length that does not match the shape.
    FileNotFoundError
        No such file.
    """
    name = clean(path, 80)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        prefix = handle.read(8)
        if len(prefix) < 8:
            raise SourceError(f"{name}: not a safetensors file (shorter than 8 bytes)")
        length = int.from_bytes(prefix, "little")
        if length > MAX_HEADER_BYTES or length > size - 8:
            raise SourceError(f"{name}: not a safetensors file (header length {length:,} beyond the file)")
        raw = handle.read(length)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SourceError(f"{name}: not a safetensors file (the header is not JSON)") from None
    if not isinstance(header, dict):
        raise SourceError(f"{name}: not a safetensors file (the header is not a JSON object)")
    data = size - 8 - length
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        tensors[key] = _entry(name, key, entry, data)
    return tensors


def _entry(name: str, key: str, entry: object, data: int) -> tuple[str, tuple[int, ...]]:
    where = f"{name}: tensor {clean(key, 80)}"
    if not isinstance(entry, dict):
        raise SourceError(f"{where}: not a tensor entry")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPE_BYTES:
        raise SourceError(f"{where}: unknown dtype {clean(repr(dtype), 40)}")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise SourceError(f"{where}: the shape is not a list of non-negative integers")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(type(o) is int for o in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= data
    ):
        raise SourceError(f"{where}: data offsets outside the file")
    count = 1
    for d in shape:
        count *= d
    if count * DTYPE_BYTES[dtype] != offsets[1] - offsets[0]:
        raise SourceError(
            f"{where}: {offsets[1] - offsets[0]:,} bytes do not hold a {dtype} tensor of shape {tuple(shape)}"
        )
    return str(dtype), tuple(shape)
