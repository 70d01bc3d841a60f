"""derive.torch binds positional and keyword arguments exactly as torch.nn does (issue 13, item 1).

Every call below is made on the real ``torch.nn`` class (on the meta device, nothing allocated)
and on derive's: where torch builds a layer derive gives its count and tensor shapes; where
torch raises, derive raises the same exception type. The one deliberate difference is a
positional ``proj_size`` > 0 for RNN and GRU, which torch accepts and turns into parameters no
forward pass can use (``got an incorrect number of RNN parameters``): derive refuses it, naming
``proj_size``, and the test shows that torch's layer indeed cannot run.
"""

from __future__ import annotations

import inspect
import itertools
import warnings

import pytest
import torch
from torch import nn

import derive.torch as dt

# One value per position of RNNBase.__init__ after ``mode`` (and RNN's nonlinearity), chosen to be
# accepted there and refused, or read differently, at any other position.
POSITIONAL = {
    "LSTM": [5, 7, 2, False, True, 0.25, True, 3],
    "GRU": [5, 7, 2, False, True, 0.25, True, 0],
    "RNN": [5, 7, 2, "relu", False, True, 0.25, True, 0],
}


def build(cls: str, args: tuple, kwargs: dict):
    """(torch outcome, derive outcome): ("ok", named shapes) or ("error", exception type)."""
    outcomes = []
    for make in (lambda: _torch(cls, args, kwargs), lambda: getattr(dt, cls)(*args, **kwargs).shapes):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outcomes.append(("ok", make()))
        except (TypeError, ValueError) as error:
            outcomes.append(("error", type(error)))
    return outcomes


def _torch(cls: str, args: tuple, kwargs: dict):
    # device is passed by keyword unless the call gives one: positional device stays as the user wrote it
    extra = {} if len(args) >= _device_position(cls) + 1 or "device" in kwargs else {"device": "meta"}
    module = getattr(nn, cls)(*args, **kwargs, **extra)
    return {n: tuple(p.shape) for n, p in module.named_parameters()}


def _device_position(cls: str) -> int:
    if cls.endswith("Cell"):
        return 3 + (cls == "RNNCell")
    return 8 + (cls == "RNN")


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("length", range(0, 12))
def test_positional_prefixes_bind_as_in_torch(cls, length):
    values = POSITIONAL[cls]
    args = tuple(values[:length]) + (("meta", None, None)[: max(0, length - len(values))])
    got_torch, got_derive = build(cls, args, {})
    assert got_derive == got_torch, (cls, args)


@pytest.mark.parametrize("cls", ["GRU", "RNN"])
def test_positional_proj_size_of_gru_and_rnn_is_refused(cls):
    args = (5, 7, 1) + (("tanh",) if cls == "RNN" else ()) + (True, False, 0.0, False, 3)
    with pytest.raises(ValueError, match="proj_size"):
        getattr(dt, cls)(*args)
    module = getattr(nn, cls)(*args)  # torch builds it ...
    with pytest.raises(RuntimeError):  # ... and cannot run it
        module(torch.zeros(2, 1, 5), torch.zeros(1, 1, 3))
    with pytest.raises(RuntimeError):
        module(torch.zeros(2, 1, 5))


@pytest.mark.parametrize(
    "cls,args,kwargs",
    [
        ("RNN", (5, 7, 1, "relu"), {"nonlinearity": "tanh"}),
        ("RNN", (5, 7, 1, True), {}),
        ("RNN", (5, 7), {"nonlinearity": "relu", "num_layers": 2}),
        ("RNN", (5, 7, 2), {"input_size": 5}),
        ("GRU", (5, 7), {"proj_size": 0}),
        ("GRU", (5, 7), {"foo": 1}),
        ("LSTM", (5,), {}),
        ("LSTM", (), {"input_size": 5, "hidden_size": 7, "proj_size": 3, "num_layers": 3}),
        ("LSTM", (5, 7, 1, True, False, 0.0, True, 3, "meta", None, 1), {}),
        ("LSTMCell", (5, 7, True, "meta", None, 1), {}),
        ("RNNCell", (5, 7, False, "relu"), {}),
        ("RNNCell", (5, 7, True, "relu", "meta"), {}),
        ("GRUCell", (5,), {"hidden_size": 7, "bias": False}),
    ],
)
def test_keyword_and_mixed_calls_bind_as_in_torch(cls, args, kwargs):
    got_torch, got_derive = build(cls, args, kwargs)
    assert got_derive == got_torch, (cls, args, kwargs)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_signatures_are_torchs(cls):
    assert list(inspect.signature(getattr(dt, cls)).parameters) == list(inspect.signature(getattr(nn, cls)).parameters)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_layer_classes_take_args_and_kwargs_like_torch(cls):
    ours = inspect.signature(getattr(dt, cls)).parameters
    theirs = inspect.signature(getattr(nn, cls)).parameters
    assert [p.kind for p in ours.values()] == [p.kind for p in theirs.values()]
    base = list(inspect.signature(nn.modules.rnn.RNNBase.__init__).parameters)
    assert base[:2] == ["self", "mode"]
    assert base[2:] == [name for name, _ in itertools.islice(_base_parameters(), None)], (
        "derive's RNNBase order (torch_arguments) differs from torch's"
    )


def _base_parameters():
    where = dt.torch_arguments("LSTM", tuple(range(10)), {})
    return sorted(((n, k) for n, (_, k) in where.items()), key=lambda item: item[1])


KERAS_CLASSES = ["SimpleRNN", "LSTM", "GRU", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "Bidirectional"]


@pytest.mark.parametrize("cls", KERAS_CLASSES + ["Sequential"])
def test_keras_adapters_take_keras_positional_order(cls):
    """derive.keras' classes bind positional arguments in keras' order, with keras' defaults."""
    import os
    import tempfile

    os.environ.setdefault("KERAS_BACKEND", "torch")
    os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
    keras = pytest.importorskip("keras")
    import derive.keras as dk

    real = getattr(keras, cls) if cls == "Sequential" else getattr(keras.layers, cls)
    signature = inspect.signature(real.__init__ if cls == "Sequential" else real)
    theirs = [
        (p.name, repr(p.default))
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    ours = [
        (p.name, repr(p.default))
        for p in inspect.signature(getattr(dk, cls)).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    assert ours == theirs
