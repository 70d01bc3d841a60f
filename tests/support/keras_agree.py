"""Keras code read by derive against the same code run in real Keras 3 (not a test module):
:func:`run_real` runs a test's own snippet, :func:`agree` compares it with :func:`derive.explain`."""

from __future__ import annotations

import warnings

import keras
import pytest
import sympy
from keras import layers as kl

from derive.models import explain

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
    keras.backend.clear_session()  # layer names restart at lstm, dense, ... as in a fresh session
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


def refused_by_keras(code: str) -> None:
    with pytest.raises((ValueError, TypeError, IndexError)), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_real(code)
