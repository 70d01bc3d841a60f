"""Every framework's real object, by framework key: one registry for the tests that sweep frameworks
(not a test module).

:data:`TENSORS` maps a key of :data:`derive.frameworks.FRAMEWORKS` to the function that builds the
real cell or stack in the installed package and lists its ``[(name, shape, trainable)]``;
:data:`COUNTS` maps the frameworks counted another way (ONNX by ONNX Runtime on derive's shapes,
cuDNN by torch's own layers, the papers' cells by their torch.nn structure, Paddle by its
``parameters()``). :func:`tensors` and :func:`count` dispatch; a new framework adds one entry.
"""

from __future__ import annotations

import math

import frameworks_live as live
import frameworks_live_extra as extra

from derive import frameworks


def _nnx(cell: str, i: int, h: int, num_layers: int = 1, bidirectional: bool = False, **options):
    assert not options, f"flax.nnx cells take no options here, got {options}"
    return live.nnx_tensors(cell, i, h, num_layers=num_layers, bidirectional=bidirectional)


#: framework key -> tensors(cell, i, h, num_layers=1, bidirectional=False, **options) -> [(name, shape, trainable)]
TENSORS = {
    "flax.linen": live.linen_tensors,
    "flax.nnx": _nnx,
    "equinox": live.equinox_tensors,
    "paddle": live.paddle_tensors,
    "haiku": extra.haiku_tensors,
    "mlx": extra.mlx_tensors,
    "sru": extra.sru_tensors,
    "mingru": extra.mingru_tensors,
    "xlstm": extra.xlstm_tensors,
    "tf1": extra.tf1_tensors,
    "mxnet": extra.mxnet_tensors,
    "keras2": extra.keras2_tensors,
    "tf.keras": extra.keras2_tensors,
}


def _onnx(cell: str, i: int, h: int, num_layers: int = 1, bidirectional: bool = False, **options) -> int:
    """ONNX Runtime runs the nodes on derive's shapes (it refuses a wrong one) and the weights are counted."""
    rows = [
        (r.name, r.shape)
        for r in frameworks.tensors("onnx", cell, i, h, num_layers=num_layers, bidirectional=bidirectional, **options)
    ]
    attributes = {"linear_before_reset": 1} if options.get("reset_after") else {}
    model = live.onnx_model(
        cell, i, h, rows, num_layers=num_layers, num_directions=2 if bidirectional else 1, attributes=attributes
    )
    assert live.onnx_run(model, i)[3] == h
    return live.onnx_weight_count(model)


def _cudnn(cell: str, i: int, h: int, num_layers: int = 1, bidirectional: bool = False, **options) -> int:
    """No cuDNN here: torch.nn's layers hold cuDNN's weights (same tensors, same count)."""
    from torch_live import torch_count, torch_module

    torch_class = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU"}[frameworks.FRAMEWORKS["cudnn"].cell(cell).generic]
    kwargs = {"proj_size": options["proj_size"]} if options.get("proj_size") else {}
    bias = options.get("bias", True)
    return torch_count(torch_module(torch_class, i, h, num_layers, bias=bias, bidirectional=bidirectional, **kwargs))


def _reference(cell: str, i: int, h: int, num_layers: int = 1, bidirectional: bool = False, **options) -> int:
    return extra.paper_count(cell, i, h, num_layers=num_layers, bidirectional=bidirectional, **options)


def _paddle(cell: str, i: int, h: int, num_layers: int = 1, bidirectional: bool = False, **options) -> int:
    return live.paddle_count(cell, i, h, num_layers=num_layers, bidirectional=bidirectional, **options)


#: framework key -> count(cell, i, h, num_layers=1, bidirectional=False, **options) -> int, where the
#: count is read otherwise than from a listing of the real object's tensors.
COUNTS = {"onnx": _onnx, "cudnn": _cudnn, "reference": _reference, "paddle": _paddle}


def tensors(framework: str, cell: str, i: int, h: int, **options) -> list:
    """``[(name, shape, trainable)]`` of the real object of ``cell`` in ``framework``."""
    return TENSORS[framework](cell, i, h, **options)


def count(framework: str, cell: str, i: int, h: int, **options) -> int:
    """The real object's parameter count (for a framework read from source, its live equivalent's)."""
    if framework in COUNTS:
        return COUNTS[framework](cell, i, h, **options)
    return sum(math.prod(shape) for _, shape, _ in tensors(framework, cell, i, h, **options))
