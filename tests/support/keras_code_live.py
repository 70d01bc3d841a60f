"""Keras code run in real Keras 3 (torch backend) and read by derive: the comparison the code tests share."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras
import sympy
from keras import layers as kl

from derive.read import explain

__all__ = ["PRELUDE", "run_real", "agree", "refused_by_keras", "built", "same_as_keras"]

PRELUDE = {
    "keras": keras,
    "layers": kl,
    "Sequential": keras.Sequential,
    "Model": keras.Model,
    "Input": keras.Input,
    **{name: getattr(kl, name) for name in dir(kl) if name[:1].isupper()},
}


def run_real(code: str):
    """The model the code builds in real Keras: ``model`` if assigned, else the last expression."""
    namespace = dict(PRELUDE)
    lines = code.strip().splitlines()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras 2 spellings (input_shape=) warn in Keras 3
        exec("\n".join(lines), namespace)  # the test's own snippets
        if "model" in namespace and isinstance(namespace["model"], keras.Model):
            model = namespace["model"]
        else:
            model = eval(lines[-1], namespace)
        if not model.built:
            model.build(None)
    return model


def agree(code: str, sizes: dict | None = None, **options) -> None:
    """derive's rows equal real Keras' layers; ``sizes`` gives the values of size names the code leaves open."""

    def value(count):
        if not sizes:
            return count
        count = sympy.sympify(count)
        return int(count.subs({symbol: sizes[symbol.name] for symbol in count.free_symbols}))

    report = explain(code, **options)
    keras.backend.clear_session(free_memory=False)  # layer names restart at lstm, dense, ... as in a fresh session
    real = run_real(code)
    real_layers = [layer for layer in real.layers if not isinstance(layer, kl.InputLayer)]
    assert [r.name for r in report.rows] == [layer.name for layer in real_layers]
    assert [value(r.params) for r in report.rows] == [layer.count_params() for layer in real_layers]
    assert value(report.total) == real.count_params()
    for row, layer in zip(report.rows, real_layers, strict=True):
        if not isinstance(layer.output, (list, tuple)) and not sizes:
            assert row.output_shape == tuple(layer.output.shape), layer.name
        if not sizes:
            assert [s for _, s in row.tensors] == [tuple(w.shape) for w in layer.weights], layer.name
    if not sizes:  # the model's tensors under Keras' own paths (a Sequential's prefixed by its name)
        assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
            (w.path, tuple(w.shape)) for w in real.weights
        ]


def refused_by_keras(code: str) -> None:
    """Real Keras refuses ``code`` (ValueError, TypeError or IndexError)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_real(code)
    except (ValueError, TypeError, IndexError):
        return
    raise AssertionError(f"Keras accepted: {code}")


def built(code: str, expression: str = "model"):
    """The object ``expression`` names after ``code`` ran in real Keras 3, in a fresh session."""
    keras.backend.clear_session(free_memory=False)
    namespace = dict(PRELUDE, __name__="__main__")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)  # the test's own code
        return eval(expression, namespace)


def same_as_keras(code: str, expression: str = "model", **options):
    """derive's report of ``code`` equals real Keras' model: every weight path and shape, every layer's
    name and count, the total. Returns the report."""
    report = explain(code, framework="keras", **options)
    real = built(code, expression)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [(w.path, tuple(w.shape)) for w in real.weights]
    assert report.total == real.count_params()
    layers = [layer for layer in real.layers if not isinstance(layer, kl.InputLayer)]
    assert [(r.name, r.params) for r in report.rows if r.note != "its own weights"] == [
        (layer.name, layer.count_params() if layer.built else 0)
        for layer in layers  # never called: no weights
    ]
    assert not report.partial
    return report
