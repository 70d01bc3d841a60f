"""derive's safetensors header reader against the safetensors library: same shapes, same refusals."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
safetensors = pytest.importorskip("safetensors")
from safetensors import safe_open  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

from derive.read.files.safetensors_format import read_shapes  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.uint8, torch.int64, torch.bool]


def library_shapes(path) -> dict:
    with safe_open(str(path), framework="pt") as handle:
        return {k: tuple(handle.get_slice(k).get_shape()) for k in handle.keys()}  # noqa: SIM118


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_shapes_match_the_library(tmp_path, dtype):
    tensors = {
        "lstm.weight_ih_l0": torch.zeros(12, 5, dtype=dtype),
        "scalar": torch.zeros((), dtype=dtype),
        "empty": torch.zeros(0, 3, dtype=dtype),
        "embedding.weight": torch.zeros(7, 2, 3, dtype=dtype),
    }
    path = tmp_path / "m.safetensors"
    save_file(tensors, str(path), metadata={"format": "pt"})
    assert read_shapes(str(path)) == library_shapes(path)


def _write(path, header: bytes, data: bytes = b"", length: int | None = None) -> None:
    path.write_bytes((len(header) if length is None else length).to_bytes(8, "little") + header + data)


def _header(entries: dict) -> bytes:
    return json.dumps(entries).encode()


CORRUPT = {
    "short": lambda p: p.write_bytes(b"\x01\x00"),
    "length beyond file": lambda p: _write(p, b"{}", length=10_000),
    "not json": lambda p: _write(p, b"{not json"),
    "not an object": lambda p: _write(p, b"[1, 2]"),
    "unknown dtype": lambda p: _write(
        p, _header({"w": {"dtype": "F7", "shape": [2], "data_offsets": [0, 8]}}), bytes(8)
    ),
    "bytes do not fit shape": lambda p: _write(
        p, _header({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}), bytes(8)
    ),
    "offsets outside": lambda p: _write(
        p, _header({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}), bytes(8)
    ),
    "negative dim": lambda p: _write(
        p, _header({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}), bytes(8)
    ),
}


@pytest.mark.parametrize("kind", list(CORRUPT))
def test_refused_where_the_library_refuses(tmp_path, kind):
    path = tmp_path / "bad.safetensors"
    CORRUPT[kind](path)
    with pytest.raises(Exception):  # the library's own error types differ by case
        library_shapes(path)
    with pytest.raises(SourceError):
        read_shapes(str(path))
