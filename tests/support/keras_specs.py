"""Keras 3 layers and Sequential models as hypothesis strategies, as specs (kind, args, kwargs)
that :func:`make` builds in real Keras and :func:`text` writes as code (not a test module)."""

from __future__ import annotations

from hypothesis import strategies as st
from keras import layers as kl

small = st.integers(1, 12)


def src(kind, args=(), kwargs=None) -> str:
    kwargs = kwargs or {}
    parts = [a if isinstance(a, str) and a.endswith(")") else repr(a) for a in args]
    parts += [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{kind}({', '.join(parts)})"


def make(spec):
    kind, args, kwargs = spec
    args = [make(a) if isinstance(a, tuple) and len(a) == 3 and isinstance(a[0], str) else a for a in args]
    return getattr(kl, kind)(*args, **kwargs)


def text(spec) -> str:
    kind, args, kwargs = spec
    args = [text(a) if isinstance(a, tuple) and len(a) == 3 and isinstance(a[0], str) else repr(a) for a in args]
    return f"{kind}({', '.join(list(args) + [f'{k}={v!r}' for k, v in kwargs.items()])})"


@st.composite
def recurrent(draw, sequences: bool):
    kind = draw(st.sampled_from(["LSTM", "GRU", "SimpleRNN"]))
    kwargs = {"return_sequences": sequences, "use_bias": draw(st.booleans())}
    if kind == "GRU":
        kwargs["reset_after"] = draw(st.booleans())
    layer = (kind, (draw(small),), kwargs)
    if draw(st.booleans()):
        return ("Bidirectional", (layer,), {"merge_mode": draw(st.sampled_from(["concat", "sum", "ave", "mul"]))})
    return layer


@st.composite
def step_layer(draw):
    """A layer from (T, F) to (T, F')."""
    choice = draw(st.sampled_from(["rnn", "dense", "dropout", "ln", "bn", "conv", "td", "masking", "act"]))
    if choice == "rnn":
        return draw(recurrent(True))
    if choice == "dense":
        return ("Dense", (draw(small),), {"use_bias": draw(st.booleans())})
    if choice == "dropout":
        return ("Dropout", (0.2,), {})
    if choice == "ln":
        return ("LayerNormalization", (), {"center": draw(st.booleans())})
    if choice == "bn":
        return ("BatchNormalization", (), {"scale": draw(st.booleans())})
    if choice == "conv":
        return ("Conv1D", (draw(small), draw(st.integers(1, 3))), {"padding": "same"})
    if choice == "td":
        return ("TimeDistributed", (("Dense", (draw(small),), {}),), {})
    if choice == "masking":
        return ("Masking", (), {"mask_value": 0.0})
    return ("Activation", ("relu",), {})


@st.composite
def model(draw):
    body = draw(st.lists(step_layer(), max_size=4))
    head = []
    if draw(st.booleans()):
        head.append(draw(recurrent(False)))
        if draw(st.booleans()):
            head.append(("RepeatVector", (draw(st.integers(1, 4)),), {}))
            head.append(draw(recurrent(True)))
    head.append(("Dense", (draw(small),), {}))
    embed = draw(st.booleans())
    return embed, draw(st.integers(2, 10)), draw(small), body + head
