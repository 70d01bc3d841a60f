"""A random stack of known Keras layers, written as code in four styles, read by derive and run by Keras 3.

The same stack is written as ``Sequential([...])``, as ``model.add`` in a loop over a list, as the
functional API, and as a subclassed ``keras.Model`` holding its layers in a list; each is given to
derive (read, never run) and executed by real Keras 3 (torch backend) in a fresh session. Every
weight path and shape of ``model.weights`` and ``count_params()`` must be derive's.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras_specs import model, text  # noqa: E402

from derive.read import explain  # noqa: E402

_PRELUDE = "import keras\nfrom keras import layers\nfrom keras.layers import *  # noqa: F403\n"


def _code(style: str, spec) -> str:
    embed, steps, features, specs = spec
    shape = f"({steps},)" if embed else f"({steps}, {features})"
    if embed:
        specs = [("Embedding", (50, features), {})] + specs
    written = [f"layers.{text(s)}" for s in specs]
    if style == "sequential":
        return _PRELUDE + f"model = keras.Sequential([keras.Input({shape}), " + ", ".join(written) + "])\n"
    if style == "add":
        lines = [f"stack = [{', '.join(written)}]", "model = keras.Sequential()", f"model.add(keras.Input({shape}))"]
        lines += ["for layer in stack:", "    model.add(layer)"]
        return _PRELUDE + "\n".join(lines) + "\n"
    if style == "functional":
        lines = [f"inputs = keras.Input({shape})", "x = inputs"]
        lines += [f"x = {w}(x)" for w in written]
        lines.append("model = keras.Model(inputs, x)")
        return _PRELUDE + "\n".join(lines) + "\n"
    lines = [
        "class Net(keras.Model):",
        "    def __init__(self, **kwargs):",
        "        super().__init__(**kwargs)",
        f"        self.blocks = [{', '.join(written)}]",
        "",
        "    def call(self, x):",
        "        for block in self.blocks:",
        "            x = block(x)",
        "        return x",
        "",
        "model = Net()",
        f"model(keras.Input({shape}))",
    ]
    return _PRELUDE + "\n".join(lines) + "\n"


def _real(code: str):
    keras.backend.clear_session(free_memory=False)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)  # the test's own code
    return namespace["model"]


# Keras warns when the real model passes a Masking mask to a layer that drops it.
@pytest.mark.filterwarnings("ignore:Layer '.*' \\(of type .*\\) was passed an input with a mask:UserWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(["sequential", "add", "functional", "subclassed"]), model())
def test_code_in_every_style_is_keras(style, spec):
    code = _code(style, spec)
    report = explain(code, framework="keras")
    real = _real(code)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [(w.path, tuple(w.shape)) for w in real.weights]
    assert report.total == real.count_params()
    layers = [layer for layer in real.layers if type(layer).__name__ != "InputLayer"]
    assert [(r.name, r.params) for r in report.rows] == [(layer.name, layer.count_params()) for layer in layers]
