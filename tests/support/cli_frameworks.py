"""The real object of a constructor line as its users write it (not a test module).

:data:`RUNNERS` maps a framework key to a function ``run(text, input_dim)`` that evaluates the
*same text* the command line is given, in the real package (test code, trusted text), applies the
object to an input of ``input_dim`` features where the framework makes its weights then, and
returns ``[(name, shape, trainable)]`` as the package names them — or raises the package's own
exception. MXNet and TF 1 run in their subprocess workers (``mxnet_worker.py``, ``tf_worker.py``).
"""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# Imports Paddle (with JAX, Flax, Equinox, ONNX) while this module is collected: Paddle imported
# after TensorFlow is loaded in the process (Keras 3 loads it when it builds a layer) crashes
# the interpreter (a segmentation fault in paddle/base/core.py).
import frameworks_live  # noqa: F401

BATCH = 2


def _jax_names(tree) -> list[tuple[str, tuple, bool]]:
    import jax
    from frameworks_live import _path

    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [("/".join(_path(p)), tuple(leaf.shape), True) for p, leaf in leaves]


def haiku_run(text: str, input_dim: int):
    import haiku as hk
    import jax
    import jax.numpy as jnp

    def forward():
        core = eval(text, {"hk": hk, "haiku": hk, "jnp": jnp, "jax": jax})
        spatial = tuple(getattr(core, "input_shape", ()))
        x = jnp.zeros((BATCH, *spatial, input_dim))
        return core(x, core.initial_state(BATCH))[0]

    params = hk.transform(forward).init(jax.random.PRNGKey(0))
    return [(f"{module}/{name}", tuple(v.shape), True) for module, d in params.items() for name, v in d.items()]


def mlx_run(text: str, input_dim: int | None):
    import mlx
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_flatten

    layer = eval(text, {"mlx": mlx, "nn": nn})
    width = layer.Wx.shape[-1] if hasattr(layer, "Wx") else layer.Wxh.shape[-1]
    layer(mx.zeros((BATCH, 3, width)))
    return [(k, tuple(v.shape), True) for k, v in tree_flatten(layer.parameters())]


def linen_run(text: str, input_dim: int):
    import flax
    import flax.linen as nn
    import jax
    import jax.numpy as jnp

    cell = eval(text, {"flax": flax, "nn": nn, "linen": nn, "jax": jax, "jnp": jnp})
    spatial = (5,) * len(cell.kernel_size) if hasattr(cell, "kernel_size") else ()
    x = jnp.zeros((BATCH, *spatial, input_dim))
    key = jax.random.key(0)
    variables = jax.eval_shape(lambda: cell.init(key, cell.initialize_carry(key, x.shape), x))
    return _jax_names(variables["params"])


def nnx_run(text: str, input_dim: int | None):
    import flax
    import jax
    from flax import nnx

    module = nnx.eval_shape(lambda: eval(text, {"flax": flax, "nnx": nnx, "jax": jax}))
    return _jax_names(nnx.state(module, nnx.Param))


def equinox_run(text: str, input_dim: int | None):
    import equinox as eqx
    import jax

    tree = eqx.filter_eval_shape(lambda: eval(text, {"eqx": eqx, "equinox": eqx, "jax": jax}))
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [(jax.tree_util.keystr(p).lstrip("."), tuple(leaf.shape), True) for p, leaf in leaves]


def paddle_run(text: str, input_dim: int | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle

    module = eval(text, {"paddle": paddle, "nn": paddle.nn})
    layered = any(k[0].isdigit() for k in module.state_dict())
    items = [(k, v) for k, v in module.state_dict().items() if k[0].isdigit()] if layered else module.named_parameters()
    return [(k, tuple(v.shape), not v.stop_gradient) for k, v in items]


def _torch_rows(module) -> list[tuple[str, tuple, bool]]:
    return [(name, tuple(p.shape), p.requires_grad) for name, p in module.named_parameters()]


def sru_run(text: str, input_dim: int | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import sru

        return _torch_rows(eval(text, {"sru": sru, "SRU": sru.SRU, "SRUCell": sru.SRUCell}))


def mingru_run(text: str, input_dim: int | None):
    import minGRU_pytorch
    from minGRU_pytorch import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    return _torch_rows(eval(text, {"minGRU_pytorch": minGRU_pytorch, "minGRU": minGRU, "minLSTM": minLSTM}))


def xlstm_run(text: str, input_dim: int | None):
    import xlstm

    names = {n: getattr(xlstm, n) for n in ("sLSTMLayer", "sLSTMLayerConfig", "mLSTMLayer", "mLSTMLayerConfig")}
    return _torch_rows(eval(text, {"xlstm": xlstm, **names}))


def mxnet_run(text: str, input_dim: int | None):
    from frameworks_live_extra import mxnet_python, worker_request

    python = mxnet_python()
    assert python, ".venv-mxnet is missing: run scripts/bootstrap --test"
    rows = worker_request("mxnet", python, {"text": text, "input_size": input_dim})
    return [(name, tuple(shape), trainable) for name, shape, trainable in rows]


def tf1_run(text: str, input_dim: int):
    from frameworks_live_extra import tf_request

    rows = tf_request({"kind": "tf1_text", "text": text, "input_size": input_dim})
    return [(name, tuple(shape), trainable) for name, shape, trainable in rows]


#: framework key -> run(text, input_dim) -> [(name, shape, trainable)] of the real object.
RUNNERS = {
    "haiku": haiku_run,
    "mlx": mlx_run,
    "flax.linen": linen_run,
    "flax.nnx": nnx_run,
    "equinox": equinox_run,
    "paddle": paddle_run,
    "sru": sru_run,
    "mingru": mingru_run,
    "xlstm": xlstm_run,
    "mxnet": mxnet_run,
    "tf1": tf1_run,
}

#: Frameworks whose parameters are a dict of dicts with no order of their own (JAX's tree flattening
#: sorts the keys): compared as sets of (name, shape, trainable).
UNORDERED = ("flax.linen", "flax.nnx")

#: Frameworks whose runner is a subprocess worker (slow to start).
WORKERS = ("mxnet", "tf1")
