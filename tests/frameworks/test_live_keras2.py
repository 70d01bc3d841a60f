"""``derive.frameworks`` "keras2" (Keras 2: ``tf_keras`` 2.21) and "tf.keras" (``CuDNNLSTM``,
``CuDNNGRU``) held against tf-keras, in the TensorFlow subprocess (``tests/support/tf_worker.py``).

``Sequential`` models in a fresh session, layers stacked (each wrapped in ``Bidirectional`` for
D = 2); weight names as Keras 2 prints them (``lstm_1/lstm_cell/kernel``), shapes and order against
``derive.frameworks.tensors``. ``tf.compat.v1.keras.layers.GRU`` defaults to ``reset_after=False``.
"""

from __future__ import annotations

import importlib.util
import math

import frameworks_live_extra as extra
import live_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive import frameworks

if importlib.util.find_spec("tf_keras") is None:  # never imported here: TF runs in tests/support/tf_worker.py
    pytest.skip("tf-keras is not installed", allow_module_level=True)

PROPERTY = settings(max_examples=15, deadline=None)


def check(framework: str, cls: str, i: int, h: int, **kwargs) -> None:
    got = [(name, shape) for name, shape, _ in extra.keras2_tensors(cls, i, h, **kwargs)]
    assert [(r.name, r.shape) for r in frameworks.tensors(framework, cls, i, h, **kwargs)] == got
    assert frameworks.count(framework, cls, i, h, **kwargs) == sum(math.prod(s) for _, s in got)
    live_record.checked(framework, cls)


def test_the_recorded_names() -> None:
    assert [n for n, _, _ in extra.keras2_tensors("LSTM", 4, 5, num_layers=2)] == [
        "lstm/lstm_cell/kernel",
        "lstm/lstm_cell/recurrent_kernel",
        "lstm/lstm_cell/bias",
        "lstm_1/lstm_cell/kernel",
        "lstm_1/lstm_cell/recurrent_kernel",
        "lstm_1/lstm_cell/bias",
    ]
    assert extra.keras2_tensors("CuDNNLSTM", 4, 5)[-1] == ("cu_dnnlstm/bias", (40,), True)
    check("keras2", "GRU", 4, 5)
    check("tf.keras", "CuDNNGRU", 4, 5, num_layers=2, bidirectional=True)


def test_compat_v1_gru_defaults_to_reset_before() -> None:
    """tensorflow#43960: 150 parameters from ``tf.compat.v1.keras.layers.GRU(5)`` on 4 features,
    165 from ``tf_keras.layers.GRU(5)``."""
    request = {"kind": "keras2", "layers": [["GRU", 5, {"compat_v1": True}]], "input_size": 4}
    got = extra.tf_request(request)
    assert [tuple(s) for _, s in got] == [r.shape for r in frameworks.tensors("keras2", "GRU", 4, 5, reset_after=False)]
    assert frameworks.count("keras2", "GRU", 4, 5, reset_after=False) == sum(math.prod(s) for _, s in got) == 150
    assert frameworks.count("keras2", "GRU", 4, 5) == 165


@PROPERTY
@given(
    cls=st.sampled_from(["SimpleRNN", "LSTM", "GRU"]),
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    bias=st.booleans(),
    reset_after=st.booleans(),
)
def test_random_keras2_stacks(cls, i, h, layers, bi, bias, reset_after) -> None:
    options = {"bias": bias} | ({"reset_after": reset_after} if cls == "GRU" else {})
    check("keras2", cls, i, h, num_layers=layers, bidirectional=bi, **options)


@PROPERTY
@given(
    cls=st.sampled_from(["CuDNNLSTM", "CuDNNGRU"]),
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
)
def test_random_cudnn_stacks(cls, i, h, layers, bi) -> None:
    check("tf.keras", cls, i, h, num_layers=layers, bidirectional=bi)


# --- derive.keras: CuDNNLSTM / CuDNNGRU (the --keras path) and the Keras-version defaults -------


@pytest.mark.parametrize("cls", ["CuDNNLSTM", "CuDNNGRU"])
def test_derive_keras_cudnn_signature_is_tf_keras(cls) -> None:
    import inspect

    import derive.keras as dk

    ours = [[p.name, str(p.kind), repr(p.default)] for p in inspect.signature(getattr(dk, cls)).parameters.values()]
    assert ours == extra.tf_request({"kind": "signature", "cls": cls})


@PROPERTY
@given(cls=st.sampled_from(["CuDNNLSTM", "CuDNNGRU"]), i=st.integers(1, 9), h=st.integers(1, 9), bi=st.booleans())
def test_derive_keras_cudnn_layers(cls, i, h, bi) -> None:
    """derive.keras.CuDNNLSTM/CuDNNGRU: the paths and shapes tf-keras prints for the layer on its own
    (or in Bidirectional), the count ``count_params()`` gives."""
    import derive.keras as dk

    got = extra.tf_request({"kind": "keras2", "layers": [[cls, h, {}]], "input_size": i, "bidirectional": bi})
    layer = getattr(dk, cls)(h, return_sequences=True)
    ours = dk.Bidirectional(layer) if bi else layer
    assert [[w.path, list(w.shape)] for w in dk.tensors(ours, i)] == got
    assert dk.count(ours, i) == sum(math.prod(s) for _, s in got)
    live_record.checked("tf.keras", cls)


def test_keras_version_defaults_match_compat_v1_gru() -> None:
    """``--keras-version 2.2``: GRU's reset_after=False, the count of ``tf.compat.v1.keras.layers.GRU``
    (which keeps Keras 2.0-2.3's default); Keras 3's default gives tf_keras.layers.GRU's."""
    from derive.cli.app import describe

    old = describe("GRU(5)", keras=True, input_dim=4, keras_version="2.2")
    new = describe("GRU(5)", keras=True, input_dim=4, keras_version="2.4")
    v1_gru = extra.tf_request({"kind": "keras2", "layers": [["GRU", 5, {"compat_v1": True}]], "input_size": 4})
    v2_gru = extra.tf_request({"kind": "keras2", "layers": [["GRU", 5, {}]], "input_size": 4})
    assert old["count"] == sum(math.prod(s) for _, s in v1_gru) == 150
    assert new["count"] == sum(math.prod(s) for _, s in v2_gru) == 165
    assert "reset_after=True from Keras 2.4" in old["notes"][0]
    assert describe("GRU(5, reset_after=True)", keras=True, input_dim=4, keras_version="2.2")["count"] == 165
