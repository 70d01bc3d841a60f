"""A TensorFlow subprocess for the tests (not a test module): TF 1 cells built in graphs.

TensorFlow is imported only here, in its own process (``TF_USE_LEGACY_KERAS=1``, so that
``tf.compat.v1.nn.rnn_cell`` is served by ``tf_keras`` beside Keras 3), never in the pytest
process, which holds torch, JAX and Keras 3. Protocol: one JSON request per line on stdin,
one JSON answer per line on stdout: ``[[name, shape], ...]``, the global variables in creation
order, named as TensorFlow prints them without the ``:0``.

Requests: ``{"kind": "tf1", "cells": [[cls, units, options], ...], "input_size": I,
"bidirectional": bool}`` — one cell under ``dynamic_rnn``; several under ``dynamic_rnn`` over a
``MultiRNNCell``; bidirectional: the scopes of ``stack_bidirectional_dynamic_rnn``
(``stack_bidirectional_rnn/cell_<k>/`` around ``bidirectional_dynamic_rnn``; with
``"wiring": "simple"``, ``bidirectional_dynamic_rnn`` over two ``MultiRNNCell``).
``{"kind": "keras2", "layers": [[cls, units, options], ...], "input_size": I, "bidirectional":
bool}`` — a Keras 2 (``tf_keras``) ``Sequential`` of those layers (``tf.compat.v1.keras.layers``
for ``CuDNNLSTM``/``CuDNNGRU`` and with ``"compat_v1": true``).
``{"kind": "tf1_text", "text": ..., "input_size": I}`` — a cell written as its users write it
(``tf``, ``rnn_cell`` in scope; test text, trusted) under ``dynamic_rnn``: ``[[name, shape,
trainable], ...]``.
``{"kind": "tf1_line", "text": ..., "input_size": I, "compat": bool}`` — a whole line as its users
write it (``tf`` is ``tensorflow``, or ``tensorflow.compat.v1`` with ``compat``; ``rnn_cell``,
``rnn`` the cells' module; the cells, wrappers and ``dynamic_rnn``/``static_rnn``/
``bidirectional_dynamic_rnn``/``static_bidirectional_rnn`` bare, as ``from ... import`` gives them;
``inputs``/``x`` a placeholder of I features, a list of steps for the static functions):
``[[name, shape, trainable], ...]``.
``{"kind": "keras2_line", "text": ..., "input_size": I}`` — a Keras 2 layer line (``tf.keras``,
``tf.compat.v1.keras``, ``keras``/``layers`` and the bare classes of ``tf_keras``; or a list of them)
built in a ``Sequential`` on inputs of I features (or on its own ``input_shape``): ``[[name, shape,
trainable], ...]``.
``{"kind": "cudnn_params_size", "num_layers": L, "num_units": H, "input_size": I, "rnn_mode": ...,
"input_mode": ..., "direction": ...}`` — ``[[size]]`` from ``tf.raw_ops.CudnnRNNParamsSize`` (a GPU
kernel only: without a GPU, TensorFlow's refusal).
``{"kind": "signature", "cls": cls}`` — the constructor's parameters of ``tf.compat.v1.keras.layers.<cls>``.
``{"kind": "tf1_code", "code": ..., "input_size": I}`` — TF 1 code as its users wrote it (``tf`` is
``tf.compat.v1``, ``rnn_cell`` its cells; test text, trusted) that leaves a cell in ``cell``, run under
``dynamic_rnn``: ``[[name, shape, trainable], ...]``.
``{"kind": "tf1_program", "code": ..., "input_size": I}`` — TF 1 code as its users write it, names in
scope as for ``tf1_line`` (``tf`` is ``tensorflow.compat.v1``; ``inputs``/``x`` a placeholder of I
features, a list of steps where the code names a static function), run as it is: the cells it
applies make their variables; where it applies none, the cell it leaves in ``cell`` is applied by
``dynamic_rnn``: ``[[name, shape, trainable], ...]``.
``{"kind": "keras2_code", "code": ...}`` — Keras 2 code (``tf_keras``; ``tensorflow.keras`` is
``tf_keras`` here) that leaves a model in ``model``: ``[[name, shape, trainable], ...]`` of its weights.
"""

from __future__ import annotations

import json
import os
import sys
import types
import warnings

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.simplefilter("ignore")

import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
v1.logging.set_verbosity(v1.logging.ERROR)
rc = v1.nn.rnn_cell


def _cell(cls: str, units: int, options: dict):
    if cls == "LSTMCell":
        return rc.LSTMCell(
            units,
            use_peepholes=options.get("peepholes", False),
            num_proj=options.get("proj_size") or None,
            num_unit_shards=options.get("num_unit_shards"),
            num_proj_shards=options.get("num_proj_shards"),
        )
    return getattr(rc, cls)(units)


def tf1(request: dict) -> list:
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3, request["input_size"]])
        specs = request["cells"]
        if not request.get("bidirectional"):
            cells = [_cell(*s) for s in specs]
            v1.nn.dynamic_rnn(cells[0] if len(cells) == 1 else rc.MultiRNNCell(cells), x, dtype=tf.float32)
        elif request.get("wiring") == "simple":
            fw, bw = rc.MultiRNNCell([_cell(*s) for s in specs]), rc.MultiRNNCell([_cell(*s) for s in specs])
            v1.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32)
        else:
            with v1.variable_scope("stack_bidirectional_rnn"):
                for k, s in enumerate(specs):
                    with v1.variable_scope(f"cell_{k}"):
                        out, _ = v1.nn.bidirectional_dynamic_rnn(_cell(*s), _cell(*s), x, dtype=tf.float32)
                        x = tf.concat(out, 2)
        return [[v.op.name, v.shape.as_list()] for v in v1.global_variables()]


def tf1_text(request: dict) -> list:
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3, request["input_size"]])
        cell = eval(request["text"], {"tf": tf, "rnn_cell": rc})
        v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        trained = {v.op.name for v in v1.trainable_variables()}
        return [[v.op.name, v.shape.as_list(), v.op.name in trained] for v in v1.global_variables()]


_TF1_NAMES = (
    "LSTMCell",
    "GRUCell",
    "BasicLSTMCell",
    "BasicRNNCell",
    "MultiRNNCell",
    "DropoutWrapper",
    "ResidualWrapper",
    "DeviceWrapper",
)
_TF1_FUNCTIONS = ("dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn")


def tf1_line(request: dict) -> list:
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3, request["input_size"]])
        inputs = tf.unstack(x, axis=1) if "static_" in request["text"] else x
        # ``rnn``: TF 1's ``from tensorflow.contrib import rnn`` — the rnn_cell classes and
        # static_rnn / static_bidirectional_rnn (tensorflow/contrib/rnn/__init__.py, TF 1.15)
        contrib = types.SimpleNamespace(**{n: getattr(rc, n) for n in _TF1_NAMES})
        contrib.static_rnn, contrib.static_bidirectional_rnn = v1.nn.static_rnn, v1.nn.static_bidirectional_rnn
        scope = {
            "tf": v1 if request.get("compat") else tf,
            "rnn_cell": rc,
            "rnn": contrib,
            "inputs": inputs,
            "x": inputs,
        }
        scope.update({n: getattr(rc, n) for n in _TF1_NAMES})
        scope.update({n: getattr(v1.nn, n) for n in _TF1_FUNCTIONS})
        made = eval(request["text"], scope)
        if isinstance(made, rc.RNNCell):  # a cell alone: applied as dynamic_rnn applies it
            v1.nn.dynamic_rnn(made, x, dtype=tf.float32)
        trained = {v.op.name for v in v1.trainable_variables()}
        return [[v.op.name, v.shape.as_list(), v.op.name in trained] for v in v1.global_variables()]


def keras2_line(request: dict) -> list:
    import tf_keras as k

    k.backend.clear_session()
    with tf.Graph().as_default():
        scope = {"tf": tf, "keras": k, "layers": k.layers}
        scope.update({n: getattr(k.layers, n) for n in dir(k.layers) if n[:1].isupper()})
        scope.update({n: getattr(v1.keras.layers, n) for n in ("CuDNNLSTM", "CuDNNGRU")})
        layer = eval(request["text"], scope)
        # a list of layers: the Sequential of them
        made = layer if isinstance(layer, k.Sequential) else k.Sequential(layer if isinstance(layer, list) else [layer])
        if not made.built:
            made.build((None, 3, request["input_size"]))
        return [[w.name.removesuffix(":0"), w.shape.as_list(), w.trainable] for w in made.weights]


def tf1_code(request: dict) -> list:
    """The variables of the cell ``request["code"]`` leaves in ``cell``, applied by ``dynamic_rnn``."""
    graph = tf.Graph()
    with graph.as_default():
        scope = {"tf": v1, "rnn_cell": rc}
        exec(request["code"], scope)
        x = v1.placeholder(tf.float32, [2, 3, request["input_size"]])
        v1.nn.dynamic_rnn(scope["cell"], x, dtype=tf.float32)
        trained = {v.op.name for v in v1.trainable_variables()}
        return [[v.op.name, v.shape.as_list(), v.op.name in trained] for v in v1.global_variables()]


def tf1_program(request: dict) -> list:
    """The variables the TF 1 code ``request["code"]`` makes (see the module's docstring)."""
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3, request["input_size"]])
        inputs = tf.unstack(x, axis=1) if "static_" in request["code"] else x
        contrib = types.SimpleNamespace(**{n: getattr(rc, n) for n in _TF1_NAMES})
        contrib.static_rnn, contrib.static_bidirectional_rnn = v1.nn.static_rnn, v1.nn.static_bidirectional_rnn
        scope = {"tf": v1, "rnn_cell": rc, "rnn": contrib, "inputs": inputs, "x": inputs}
        scope.update({n: getattr(rc, n) for n in _TF1_NAMES})
        scope.update({n: getattr(v1.nn, n) for n in _TF1_FUNCTIONS})
        exec(request["code"], scope)
        if not v1.global_variables():
            v1.nn.dynamic_rnn(scope["cell"], x, dtype=tf.float32)
        trained = {v.op.name for v in v1.trainable_variables()}
        return [[v.op.name, v.shape.as_list(), v.op.name in trained] for v in v1.global_variables()]


def keras2_code(request: dict) -> list:
    """The weights of the model ``request["code"]`` leaves in ``model`` (Keras 2, a fresh session)."""
    import tf_keras as k

    k.backend.clear_session()
    with tf.Graph().as_default():
        scope: dict = {}
        exec(request["code"], scope)
        model = scope["model"]
        trained = {id(w) for w in model.trainable_weights}
        return [[w.name.removesuffix(":0"), w.shape.as_list(), id(w) in trained] for w in model.weights]


def keras2(request: dict) -> list:
    """A Keras 2 (tf_keras) ``Sequential`` of ``request["layers"]`` ([cls, units, options]), each
    wrapped in ``Bidirectional`` if asked, in a fresh session (so names count from 0)."""
    import tf_keras as k

    k.backend.clear_session()
    with tf.Graph().as_default():
        layers = []
        for cls, units, options in request["layers"]:
            if cls.startswith("CuDNN") or options.pop("compat_v1", False):
                make = getattr(v1.keras.layers, cls)
            else:
                make = getattr(k.layers, cls)
            layer = make(units, return_sequences=True, **options)
            layers.append(k.layers.Bidirectional(layer) if request.get("bidirectional") else layer)
        model = k.Sequential([k.Input((3, request["input_size"])), *layers])
        return [[w.name.removesuffix(":0"), w.shape.as_list()] for w in model.weights]


def signature(request: dict) -> list:
    """``[[name, kind, repr(default)], ...]`` of ``tf.compat.v1.keras.layers.<cls>``'s constructor."""
    import inspect

    cls = getattr(v1.keras.layers, request["cls"])
    return [[p.name, str(p.kind), repr(p.default)] for p in inspect.signature(cls).parameters.values()]


def cudnn_params_size(request: dict) -> list:
    """``[[size]]``: TensorFlow's own length of cuDNN's weight buffer, ``tf.raw_ops.CudnnRNNParamsSize``
    (``num_layers``, ``num_units``, ``input_size``, ``rnn_mode``, ``input_mode``, ``direction``; float32).
    TensorFlow registers this op's kernels for GPUs only: without one, the answer is its refusal."""
    with tf.Graph().as_default():
        size = tf.raw_ops.CudnnRNNParamsSize(
            num_layers=request["num_layers"],
            num_units=request["num_units"],
            input_size=request["input_size"],
            T=tf.float32,
            S=tf.int32,
            rnn_mode=request["rnn_mode"],
            input_mode=request.get("input_mode", "linear_input"),
            direction=request.get("direction", "unidirectional"),
        )
        with v1.Session() as session:
            return [[int(session.run(size)[0])]]


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {
                "ok": {
                    "tf1": tf1,
                    "tf1_text": tf1_text,
                    "keras2": keras2,
                    "signature": signature,
                    "tf1_line": tf1_line,
                    "tf1_code": tf1_code,
                    "tf1_program": tf1_program,
                    "keras2_code": keras2_code,
                    "keras2_line": keras2_line,
                    "cudnn_params_size": cudnn_params_size,
                }[request["kind"]](request)
            }
        except Exception as error:  # reported to the test, which fails with it
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
