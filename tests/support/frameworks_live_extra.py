"""Real objects of Haiku, MLX, sru, mingru-pytorch, and torch modules built as the papers describe
(not a test module).

Each ``*_tensors`` function builds the real cell or stack in the installed package and returns its
parameters as ``[(name, shape, trainable)]`` in the package's order — names, shapes and counts read
from the framework, never from ``derive``. A stack is built as the convention states: layer k >= 1
reads the output of layer k - 1 (both directions concatenated), the modules created layer by
layer, forward before backward, and run once on zeros so that every width is exercised.
"""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")

BATCH = 2


# --------------------------------------------------------------------------- Haiku


def _haiku_core(hk, cls: str, hidden: int, options: dict, spatial: tuple):
    if cls == "VanillaRNN":
        return hk.VanillaRNN(hidden, double_bias=options.get("double_bias", True))
    if cls.startswith("Conv"):
        return getattr(hk, cls)(input_shape=spatial, output_channels=hidden, kernel_shape=options["kernel_size"])
    return getattr(hk, cls)(hidden)


def haiku_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """``hk.transform(...).init`` of one core, or of cores stacked as ``hk.DeepRNN`` stacks them."""
    import haiku as hk
    import jax
    import jax.numpy as jnp

    spatial = (4,) * len(options.get("kernel_size", ()))

    def forward(x):
        if num_layers == 1 and not bidirectional:
            core = _haiku_core(hk, cls, hidden, options, spatial)
            return core(x, core.initial_state(BATCH))[0]
        for _ in range(num_layers):
            cores = [_haiku_core(hk, cls, hidden, options, spatial) for _ in range(2 if bidirectional else 1)]
            outs = [core(x, core.initial_state(BATCH))[0] for core in cores]
            x = jnp.concatenate(outs, axis=-1)
        return x

    params = hk.transform(forward).init(jax.random.PRNGKey(0), jnp.zeros((BATCH, *spatial, input_size)))
    return [(f"{module}/{name}", tuple(v.shape), True) for module, d in params.items() for name, v in d.items()]


def haiku_deep_tensors(cls: str, input_size: int, hidden: int, num_layers: int, skip: bool, **options):
    """``hk.DeepRNN`` (``skip=False``) or ``hk.deep_rnn_with_skip_connections`` (``skip=True``) of
    ``num_layers`` cores, one step on zeros: (``[(path, shape, True)]``, output width)."""
    import haiku as hk
    import jax
    import jax.numpy as jnp

    spatial = (4,) * len(options.get("kernel_size", ()))
    width = []

    def forward(x):
        cores = [_haiku_core(hk, cls, hidden, options, spatial) for _ in range(num_layers)]
        deep = hk.deep_rnn_with_skip_connections(cores) if skip else hk.DeepRNN(cores)
        out, _ = deep(x, deep.initial_state(BATCH))
        width.append(out.shape[-1])
        return out

    params = hk.transform(forward).init(jax.random.PRNGKey(0), jnp.zeros((BATCH, *spatial, input_size)))
    rows = [(f"{module}/{name}", tuple(v.shape), True) for module, d in params.items() for name, v in d.items()]
    return rows, width[0]


# --------------------------------------------------------------------------- MLX


def mlx_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, bias=True):
    """``tree_flatten(parameters())`` of one ``mlx.nn`` layer or of ``nn.Sequential`` of them."""
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_flatten

    make = getattr(nn, cls)
    if num_layers == 1 and not bidirectional:
        layer = make(input_size, hidden, bias=bias)
        layer(mx.zeros((BATCH, 3, input_size)))
        return [(k, tuple(v.shape), True) for k, v in tree_flatten(layer.parameters())]
    directions = 2 if bidirectional else 1
    layers, width = [], input_size
    for _ in range(num_layers):
        layers += [make(width, hidden, bias=bias) for _ in range(directions)]
        width = directions * hidden
    x = mx.zeros((BATCH, 3, input_size))
    for k in range(num_layers):
        outs = [layers[k * directions + d](x if d == 0 else x[:, ::-1]) for d in range(directions)]
        x = mx.concatenate([o[0] if isinstance(o, tuple) else o for o in outs], axis=-1)
    return [(k, tuple(v.shape), True) for k, v in tree_flatten(nn.Sequential(*layers).parameters())]


# --------------------------------------------------------------------------- torch packages


def _torch_rows(module) -> list:
    return [(name, tuple(p.shape), p.requires_grad) for name, p in module.named_parameters()]


def sru_module(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """``sru.SRU`` (or ``sru.SRUCell``; a stack of cells is an ``nn.ModuleList``), run once."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import sru

        skip = options.get("has_skip_term", True)
        if cls == "SRU":
            module = sru.SRU(input_size, hidden, num_layers=num_layers, bidirectional=bidirectional, has_skip_term=skip)
            module(torch.zeros(3, BATCH, input_size))
            return module
        cells, width = [], input_size
        for _ in range(num_layers):
            cells.append(sru.SRUCell(width, hidden, bidirectional=bidirectional, has_skip_term=skip))
            width = hidden * (2 if bidirectional else 1)
        return cells[0] if num_layers == 1 else torch.nn.ModuleList(cells)


def sru_tensors(cls: str, input_size: int, hidden: int, **options) -> list:
    return _torch_rows(sru_module(cls, input_size, hidden, **options))


def mingru_module(
    cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, proj_size: int = 0
):
    """``minGRU``/``minLSTM`` (``expansion_factor`` giving ``hidden``), or an ``nn.ModuleList`` of them."""
    import torch
    from minGRU_pytorch import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    make = minGRU if cls == "minGRU" else minLSTM
    directions = 2 if bidirectional else 1
    modules, width = [], input_size
    for _ in range(num_layers):
        for _ in range(directions):
            module = make(width, expansion_factor=(hidden + 0.5) / width, proj_out=bool(proj_size))  # int(w·e) = H
            assert module(torch.zeros(BATCH, 3, width)).shape[-1] == (width if proj_size else hidden)
            modules.append(module)
        width = directions * (proj_size or hidden)
    return modules[0] if len(modules) == 1 else torch.nn.ModuleList(modules)


def mingru_tensors(cls: str, input_size: int, hidden: int, **options) -> list:
    return _torch_rows(mingru_module(cls, input_size, hidden, **options))


def xlstm_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """``xlstm``'s ``sLSTMLayer`` (vanilla backend) or ``mLSTMLayer``; a stack is an ``nn.ModuleList``."""
    import torch
    import xlstm

    assert input_size == hidden and not bidirectional, "xlstm's layers read and write one embedding_dim"
    if cls == "sLSTMLayer":
        make = lambda: xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(embedding_dim=hidden, backend="vanilla", **options))  # noqa: E731
    else:
        make = lambda: xlstm.mLSTMLayer(xlstm.mLSTMLayerConfig(embedding_dim=hidden, context_length=2, **options))  # noqa: E731
    modules = [make() for _ in range(num_layers)]
    return _torch_rows(modules[0] if num_layers == 1 else torch.nn.ModuleList(modules))


# --------------------------------------------------------------------------- papers, built with torch.nn


def paper_module(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """A torch module holding the parameters each paper describes, built from ``torch.nn`` layers
    (``nn.Linear``, ``nn.LayerNorm``): the count is torch's, the structure the paper's."""
    import torch
    from torch import nn

    bias = options.get("bias", True)
    proj = options.get("proj_size", 0)

    def one(width: int) -> nn.Module:
        m = nn.Module()
        if cls in ("minGRU", "minLSTM"):  # Feng et al. 2024: Linear_dh(x) per block, with bias
            m.linear = nn.Linear(width, (2 if cls == "minGRU" else 3) * hidden, bias=bias)
            if proj:
                m.out = nn.Linear(hidden, proj, bias=False)
        elif cls == "IndRNN":  # Li et al. 2018: W x + u * h + b
            m.linear = nn.Linear(width, hidden, bias=bias)
            m.u = nn.Parameter(torch.zeros(hidden))
        elif cls == "QRNN":  # Salesforce pytorch-qrnn QRNNLayer: Linear(window * I, G * H)
            gates = {"f": 2, "fo": 3, "ifo": 4}[options.get("pooling", "fo")]
            m.linear = nn.Linear(options.get("window", 2) * width, gates * hidden, bias=bias)
        elif cls == "LayerNormLSTM":  # Ba et al. 2016, eqs. (20)-(22)
            m.wx = nn.Linear(width, 4 * hidden, bias=bias)
            m.wh = nn.Linear(hidden, 4 * hidden, bias=False)
            m.ln_x, m.ln_h, m.ln_c = nn.LayerNorm(4 * hidden), nn.LayerNorm(4 * hidden), nn.LayerNorm(hidden)
        else:
            raise AssertionError(cls)
        return m

    directions = 2 if bidirectional else 1
    modules, width = [], input_size
    for _ in range(num_layers):
        modules += [one(width) for _ in range(directions)]
        width = directions * (proj or hidden)
    return nn.ModuleList(modules)


def paper_count(cls: str, input_size: int, hidden: int, **options) -> int:
    return sum(p.numel() for p in paper_module(cls, input_size, hidden, **options).parameters())


# --------------------------------------------------------------------------- TensorFlow (a subprocess)

_WORKERS: dict = {}


def worker_request(name: str, python: str, request: dict) -> list:
    """Send ``request`` to the subprocess ``tests/<name>_worker.py`` run by ``python`` (started once)."""
    import json
    import subprocess
    from pathlib import Path

    if name not in _WORKERS:
        script = Path(__file__).with_name(f"{name}_worker.py")
        _WORKERS[name] = subprocess.Popen(
            [python, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    process = _WORKERS[name]
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer["ok"]


def tf_request(request: dict) -> list:
    """Send ``request`` to the TensorFlow subprocess (``tests/support/tf_worker.py``, this Python)."""
    import sys

    return worker_request("tf", sys.executable, request)


def mxnet_python() -> str | None:
    """The Python of MXNet's own environment: ``$DERIVE_MXNET_PYTHON`` or ``.venv-mxnet/bin/python``."""
    from pathlib import Path

    python = os.environ.get("DERIVE_MXNET_PYTHON") or str(
        Path(__file__).resolve().parents[2] / ".venv-mxnet/bin/python"
    )
    return python if Path(python).exists() else None


def mxnet_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """MXNet Gluon's parameters of a fused layer or of cells (``tests/support/mxnet_worker.py``)."""
    python = mxnet_python()
    assert python, ".venv-mxnet is missing: run scripts/bootstrap --test"
    request = {"cls": cls, "input_size": input_size, "hidden_size": hidden, "num_layers": num_layers}
    request |= {"bidirectional": bidirectional, "proj_size": options.get("proj_size", 0)}
    return [(name, tuple(shape), True) for name, shape in worker_request("mxnet", python, request)]


def tf1_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """TF 1 variables of ``cls`` under ``dynamic_rnn`` (a ``MultiRNNCell`` for a stack) or the
    scopes of ``stack_bidirectional_dynamic_rnn``."""
    cells = [[cls, hidden, options] for _ in range(num_layers)]
    rows = tf_request({"kind": "tf1", "cells": cells, "input_size": input_size, "bidirectional": bidirectional})
    return [(name, tuple(shape), True) for name, shape in rows]


def keras2_tensors(cls: str, input_size: int, hidden: int, num_layers: int = 1, bidirectional: bool = False, **options):
    """Keras 2 (tf-keras) weights of a ``Sequential`` of ``num_layers`` layers ``cls`` (``CuDNNLSTM``,
    ``CuDNNGRU`` from ``tf.compat.v1.keras.layers``), each wrapped in ``Bidirectional`` if asked."""
    kwargs = {}
    if "bias" in options:
        kwargs["use_bias"] = options["bias"]
    if "reset_after" in options:
        kwargs["reset_after"] = options["reset_after"]
    layers = [[cls, hidden, kwargs] for _ in range(num_layers)]
    request = {"kind": "keras2", "layers": layers, "input_size": input_size, "bidirectional": bidirectional}
    return [(name, tuple(shape), True) for name, shape in tf_request(request)]
