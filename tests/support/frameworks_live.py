"""Real framework objects for the checks of ``derive.frameworks`` (not a test module).

Each ``*_tensors`` function builds the real cell or stack in the installed package and returns
its parameters as ``[(name, shape, trainable)]`` — the names, shapes and counts are read from the
framework, never from ``derive``. JAX runs on CPU; Flax linen and Equinox parameters are only
shape-evaluated (``jax.eval_shape``), nothing is computed.
"""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import onnx
import onnxruntime
from flax import nnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import paddle

onnxruntime.set_default_logger_severity(4)  # refusals are expected in the tests: no error log

BATCH, STEPS = 2, 3


def _path(keys) -> list[str]:
    out = []
    for k in keys:
        if isinstance(k, jax.tree_util.DictKey):
            out.append(str(k.key))
        elif isinstance(k, jax.tree_util.SequenceKey):
            out.append(str(k.idx))
    return out


# --------------------------------------------------------------------------- Flax linen


def linen_cell(name: str, hidden: int, *, bias=True, reset_gate=True, kernel_size=None):
    cls = getattr(nn, name)
    if name == "ConvLSTMCell":
        return cls(features=hidden, kernel_size=kernel_size, use_bias=bias)
    if name == "MGUCell":
        return cls(features=hidden, reset_gate=reset_gate)
    return cls(features=hidden)


def _linen_input(name, input_size, kernel_size, steps=None):
    spatial = (5,) * len(kernel_size) if name == "ConvLSTMCell" else ()
    time = (steps,) if steps else ()
    return jnp.zeros((BATCH, *time, *spatial, input_size))


def linen_tensors(name, input_size, hidden, *, num_layers=1, bidirectional=False, **options):
    """A single cell's params, or ``nn.Sequential`` of ``nn.RNN`` / ``nn.Bidirectional`` layers."""
    kernel_size = options.get("kernel_size") or ()
    key = jax.random.key(0)
    if num_layers == 1 and not bidirectional:
        cell = linen_cell(name, hidden, **options)
        x = _linen_input(name, input_size, kernel_size)
        variables = jax.eval_shape(lambda: cell.init(key, cell.initialize_carry(key, x.shape), x))
    else:
        layers = []
        for _ in range(num_layers):
            if bidirectional:
                layers.append(
                    nn.Bidirectional(
                        nn.RNN(linen_cell(name, hidden, **options)), nn.RNN(linen_cell(name, hidden, **options))
                    )
                )
            else:
                layers.append(nn.RNN(linen_cell(name, hidden, **options)))
        model = nn.Sequential(layers)
        x = _linen_input(name, input_size, kernel_size, STEPS)
        variables = jax.eval_shape(lambda: model.init(key, x))
    leaves = jax.tree_util.tree_flatten_with_path(variables["params"])[0]
    return [("/".join(_path(p)), tuple(leaf.shape), True) for p, leaf in leaves]


# --------------------------------------------------------------------------- Flax nnx


def nnx_tensors(name, input_size, hidden, *, num_layers=1, bidirectional=False):
    """A single nnx cell's ``nnx.Param`` state, or an ``nnx.Sequential`` stack's."""
    cls = getattr(nnx, name)

    def build():
        rngs = nnx.Rngs(0)

        def cell(width):
            return cls(width, hidden, rngs=rngs)

        if num_layers == 1 and not bidirectional:
            return cell(input_size)
        layers, width = [], input_size
        for _ in range(num_layers):
            if bidirectional:
                layers.append(nnx.Bidirectional(nnx.RNN(cell(width)), nnx.RNN(cell(width))))
            else:
                layers.append(nnx.RNN(cell(width)))
            width = hidden * (2 if bidirectional else 1)
        return nnx.Sequential(*layers)

    module = nnx.eval_shape(build)
    leaves = jax.tree_util.tree_flatten_with_path(nnx.state(module, nnx.Param))[0]
    return [("/".join(_path(p)), tuple(leaf.shape), True) for p, leaf in leaves]


# --------------------------------------------------------------------------- Equinox


def equinox_tensors(name, input_size, hidden, *, num_layers=1, bidirectional=False, bias=True):
    """A single Equinox cell, or a list of cells (or of [forward, backward] pairs) per layer."""
    cls = getattr(eqx.nn, name)
    key = jax.random.key(0)

    def cell(width):
        return eqx.filter_eval_shape(cls, width, hidden, use_bias=bias, key=key)

    if num_layers == 1 and not bidirectional:
        tree = cell(input_size)
    else:
        tree, width = [], input_size
        for _ in range(num_layers):
            tree.append([cell(width), cell(width)] if bidirectional else cell(width))
            width = hidden * (2 if bidirectional else 1)
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]  # ShapeDtypeStruct leaves; static fields are not leaves
    return [(jax.tree_util.keystr(p).lstrip("."), tuple(leaf.shape), True) for p, leaf in leaves]


# --------------------------------------------------------------------------- Paddle

_PADDLE_LAYERS = {"SimpleRNN", "LSTM", "GRU"}


def paddle_module(name, input_size, hidden, *, num_layers=1, bidirectional=False, bias=True, proj_size=0):
    cls = getattr(paddle.nn, name)
    kwargs = {} if bias else {"bias_ih_attr": False, "bias_hh_attr": False}
    if proj_size:
        kwargs["proj_size"] = proj_size
    if name in _PADDLE_LAYERS:
        return cls(input_size, hidden, num_layers, direction="bidirect" if bidirectional else "forward", **kwargs)
    if num_layers == 1 and not bidirectional:
        return cls(input_size, hidden, **kwargs)
    # a stack of cells, as Paddle's own layers build it: RNN(cell) or BiRNN(cell_fw, cell_bw) per layer
    layers, width = [], input_size
    for _ in range(num_layers):
        if bidirectional:
            layers.append(paddle.nn.BiRNN(cls(width, hidden, **kwargs), cls(width, hidden, **kwargs)))
        else:
            layers.append(paddle.nn.RNN(cls(width, hidden, **kwargs)))
        width = (proj_size or hidden) * (2 if bidirectional else 1)
    return paddle.nn.LayerList(layers)


def paddle_tensors(name, input_size, hidden, **options):
    """Paddle's parameters: a layer's per-cell names (``state_dict`` keys of its sublayers), a cell's
    own, or those of a ``LayerList`` of cells."""
    module = paddle_module(name, input_size, hidden, **options)
    if name in _PADDLE_LAYERS or isinstance(module, paddle.nn.LayerList):
        items = [(k, v) for k, v in module.state_dict().items() if k[0].isdigit()]
    else:
        items = list(module.named_parameters())
    return [(k, tuple(v.shape), not v.stop_gradient) for k, v in items]


def paddle_count(name, input_size, hidden, **options) -> int:
    return sum(int(p.numel()) for p in paddle_module(name, input_size, hidden, **options).parameters())


# --------------------------------------------------------------------------- ONNX


def onnx_model(op, input_size, hidden, rows, *, num_layers=1, num_directions=1, attributes=None):
    """A chain of ``num_layers`` ONNX ``op`` nodes whose weight inputs are the given (name, shape) rows.

    Node k >= 1 reads node k - 1's output Y [T, D, N, H] transposed to [T, N, D, H] and reshaped to
    [T, N, D·H], as exporters wire stacked layers. Weight names: ``W``, ``R``, ``B``, ``P`` for one
    node, ``node<k>.W`` ... for a chain (only the rows present are wired; the rest are left empty).
    """
    attributes = dict(attributes or {})
    if num_directions == 2:
        attributes["direction"] = "bidirectional"
    shapes = dict(rows)
    rng = np.random.default_rng(0)
    inits, nodes = [], []
    x = "X"
    for k in range(num_layers):
        prefix = "" if num_layers == 1 else f"node{k}."
        names = [f"{prefix}{n}" for n in ("W", "R", "B", "P")]
        present = [n if n in shapes else "" for n in names]
        for n in present:
            if n:
                inits.append(numpy_helper.from_array((0.1 * rng.standard_normal(shapes[n])).astype(np.float32), n))
        inputs = [x, present[0], present[1], present[2]]
        if op == "LSTM" and present[3]:
            inputs += ["", "", "", present[3]]
        y = f"Y{k}"
        nodes.append(helper.make_node(op, inputs, [y], hidden_size=hidden, **attributes))
        if k + 1 < num_layers:
            inits.append(
                numpy_helper.from_array(np.array([STEPS, BATCH, num_directions * hidden], np.int64), f"shape{k}")
            )
            nodes.append(helper.make_node("Transpose", [y], [f"T{k}"], perm=[0, 2, 1, 3]))
            nodes.append(helper.make_node("Reshape", [f"T{k}", f"shape{k}"], [f"X{k + 1}"]))
            x = f"X{k + 1}"
    graph = helper.make_graph(
        nodes,
        "stack",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [STEPS, BATCH, input_size])],
        [
            helper.make_tensor_value_info(
                f"Y{num_layers - 1}", TensorProto.FLOAT, [STEPS, num_directions, BATCH, hidden]
            )
        ],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)


def onnx_run(model, input_size) -> tuple:
    """Check the model (full check: shape inference), run it with onnx.reference and with ONNX
    Runtime (which refuses any weight input of the wrong shape); Y's shape (both agree)."""
    onnx.checker.check_model(model, full_check=True)
    x = np.random.default_rng(1).standard_normal((STEPS, BATCH, input_size)).astype(np.float32)
    reference = ReferenceEvaluator(model).run(None, {"X": x})[0]
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runtime = session.run(None, {"X": x})[0]
    assert reference.shape == runtime.shape
    np.testing.assert_allclose(reference, runtime, rtol=1e-3, atol=1e-4)
    return runtime.shape


def onnx_refused(model, input_size) -> bool:
    """True if ONNX Runtime refuses to run the model (as it does for a weight of the wrong shape)."""
    x = np.zeros((STEPS, BATCH, input_size), np.float32)
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"X": x})
    except Exception:
        return True
    return False


def onnx_weight_count(model) -> int:
    """Scalars in the model's float initializers (the weights; Reshape's shapes are int64)."""
    return sum(int(np.prod(t.dims)) for t in model.graph.initializer if t.data_type == TensorProto.FLOAT)
