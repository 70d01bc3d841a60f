"""The inference cache of the recurrent models derive builds from configs (Mamba, FalconMamba, Mamba-2,
RWKV, RecurrentGemma) and of torch's recurrent layers, held against the real thing.

Each expected number is measured: a tiny model built by transformers 5.23.0 runs on the CPU with
``use_cache=True`` (a prefill, then decoding steps) and every tensor its cache holds — and every
state a module keeps on itself — is summed in bytes by dtype (``tests/support/cache_live.py``);
torch's ``nn.LSTM``/``GRU``/``RNN`` run and return ``h_n`` (and ``c_n``). derive's answer is
:func:`derive.tree.cache_elements` of the module it builds, times each dtype's size.
"""

from __future__ import annotations

import cache_live
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from derive.blocks import config_model
from derive.engine.constructors import lookup
from derive.tree import cache_elements, named_states

MATRIX = settings(max_examples=12, deadline=None)

#: One small config per model type (the fast loop's cases).
SMALL = {
    "mamba": {"vocab_size": 40, "hidden_size": 12, "num_hidden_layers": 2, "state_size": 3, "conv_kernel": 3},
    "falcon_mamba": {"vocab_size": 40, "hidden_size": 8, "num_hidden_layers": 2, "state_size": 5, "expand": 3},
    "mamba2": {
        "vocab_size": 40,
        "hidden_size": 16,
        "num_hidden_layers": 2,
        "state_size": 4,
        "num_heads": 4,
        "head_dim": 8,
        "n_groups": 2,
        "conv_kernel": 2,
    },
    "rwkv": {"vocab_size": 40, "hidden_size": 12, "num_hidden_layers": 3, "intermediate_size": 20},
    "recurrent_gemma": {
        "vocab_size": 40,
        "hidden_size": 16,
        "intermediate_size": 24,
        "num_hidden_layers": 4,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "lru_width": 12,
        "attention_window_size": 5,
        "conv1d_width": 3,
    },
}


def check(model_type: str, config: dict, runs: list[tuple[str, int, int, int]], drawn: bool = False) -> None:
    """derive's cache bytes of ``config`` against the model's, for each (dtype, batch, prefill, steps).

    A drawn case transformers itself cannot run (RecurrentGemma decoding a one-token prefill with
    ``lru_width`` != ``hidden_size``, or a stack without attention: its ``get_seq_length`` fails) is
    rejected, not counted.
    """
    module = config_model(model_type).build(config)
    built: dict[str, object] = {}
    for dtype, batch, prefill, steps in runs:
        if dtype not in built:
            built[dtype] = cache_live.model(model_type, config, dtype)
        try:
            measured = cache_live.cache_bytes(built[dtype], batch, prefill, steps)
        except (RuntimeError, ValueError):
            if not drawn:
                raise
            reject()
        assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured, (dtype, batch, prefill)


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_small_models(model_type: str) -> None:
    """float32 and bfloat16, a prefill shorter and longer than the kernel (and the window), decoding steps."""
    check(model_type, SMALL[model_type], [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])


def test_which_states_stay_float32() -> None:
    """In a bf16 model, the recurrent states transformers keeps in float32, by name (read off a run)."""
    floats = {
        model_type: sorted({s.name for _, s in named_states(config_model(model_type).build(config)) if s.dtype})
        for model_type, config in SMALL.items()
    }
    assert floats == {
        "falcon_mamba": ["recurrent_states"],
        "mamba": ["recurrent_states"],
        "mamba2": ["recurrent_states"],
        "recurrent_gemma": ["_sliding_window_tensor", "recurrent_states"],
        "rwkv": ["state[2]", "state[3]", "state[4]"],
    }


def test_recurrent_gemma_window_of_one_keeps_every_token() -> None:
    """``attention_window_size`` 1: transformers' slice ``[-1 + 1:]`` keeps every token (measured)."""
    config = {**SMALL["recurrent_gemma"], "attention_window_size": 1, "num_hidden_layers": 3}
    check("recurrent_gemma", config, [("float32", 2, 6, 2)])


def test_symbolic_sizes() -> None:
    """The closed form in B and T: a sliding window's min, a state's product."""
    import sympy

    B, T = sympy.symbols("B T", integer=True, positive=True)
    module = config_model("recurrent_gemma").build(SMALL["recurrent_gemma"])
    entries = cache_elements(module, B, T)
    assert entries[None].subs({B: 2, T: 9}) == cache_elements(module, 2, 9)[None]
    assert entries[None].has(sympy.Min)


# --------------------------------------------------------------------------- drawn configs (slow)

layers = st.integers(1, 3)
dtypes = st.sampled_from(["float32", "bfloat16"])
runs = st.lists(st.tuples(dtypes, st.integers(1, 3), st.integers(1, 9), st.integers(0, 3)), min_size=1, max_size=3)


@st.composite
def mamba_configs(draw: st.DrawFn) -> dict:
    return {
        "vocab_size": 30,
        "hidden_size": draw(st.integers(2, 20)),
        "num_hidden_layers": draw(layers),
        "state_size": draw(st.integers(1, 6)),
        "conv_kernel": draw(st.integers(1, 5)),
        "expand": draw(st.integers(1, 3)),
        "use_conv_bias": draw(st.booleans()),
    }


@st.composite
def mamba2_configs(draw: st.DrawFn) -> dict:
    heads, head_dim, expand = draw(st.integers(1, 4)), draw(st.integers(1, 6)), draw(st.sampled_from([1, 2]))
    if heads * head_dim % expand:
        expand = 1
    groups = draw(st.sampled_from([g for g in range(1, heads + 1) if heads % g == 0]))
    return {
        "vocab_size": 30,
        "hidden_size": heads * head_dim // expand,
        "expand": expand,
        "num_heads": heads,
        "head_dim": head_dim,
        "n_groups": groups,
        "num_hidden_layers": draw(layers),
        "state_size": draw(st.integers(1, 6)),
        "conv_kernel": draw(st.integers(1, 5)),
    }


@st.composite
def rwkv_configs(draw: st.DrawFn) -> dict:
    return {
        "vocab_size": 30,
        "hidden_size": draw(st.integers(2, 20)),
        "num_hidden_layers": draw(st.integers(2, 3)),  # 1 fails in transformers' init (layer_id / (L - 1))
        "intermediate_size": draw(st.integers(1, 30)),
    }


@st.composite
def recurrent_gemma_configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 3))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    return {
        "vocab_size": 30,
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": 2 * draw(st.integers(1, 12)),
        "num_hidden_layers": draw(st.integers(1, 5)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "lru_width": heads * draw(st.integers(1, 5)),
        "attention_window_size": draw(st.integers(1, 8)),
        "conv1d_width": draw(st.integers(1, 5)),
        "block_types": draw(st.lists(st.sampled_from(["recurrent", "attention"]), min_size=1, max_size=3)),
    }


DRAWN = {
    "mamba": mamba_configs(),
    "falcon_mamba": mamba_configs(),
    "mamba2": mamba2_configs(),
    "rwkv": rwkv_configs(),
    "recurrent_gemma": recurrent_gemma_configs(),
}


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(DRAWN))
@MATRIX
@given(data=st.data())
def test_drawn_configs(model_type: str, data: st.DataObject) -> None:
    """Hypothesis-drawn configs, batch sizes, prefill lengths, decoding steps and dtypes."""
    config = data.draw(DRAWN[model_type], label="config")
    check(model_type, config, data.draw(runs, label="runs"), drawn=True)


# --------------------------------------------------------------------------- torch's recurrent layers


@settings(max_examples=40, deadline=None)
@given(
    mode=st.sampled_from(["LSTM", "GRU", "RNN"]),
    input_size=st.integers(1, 6),
    hidden_size=st.integers(2, 8),
    num_layers=st.integers(1, 3),
    bidirectional=st.booleans(),
    proj=st.integers(0, 7),
    batch=st.integers(1, 3),
    steps=st.integers(1, 4),
    dtype=st.sampled_from(["float32", "float64", "bfloat16"]),
)
def test_torch_stacks(
    mode: str,
    input_size: int,
    hidden_size: int,
    num_layers: int,
    bidirectional: bool,
    proj: int,
    batch: int,
    steps: int,
    dtype: str,
) -> None:
    """``h_n`` (and ``c_n``) as torch returns them, against derive's States (both trees: constructor and stack)."""
    import torch

    from derive import torch as dt

    kwargs: dict = {"num_layers": num_layers, "bidirectional": bidirectional}
    if mode == "LSTM" and proj < hidden_size:
        kwargs["proj_size"] = proj
    import warnings

    layer = getattr(torch.nn, mode)(input_size, hidden_size, **kwargs).to(getattr(torch, dtype))
    with warnings.catch_warnings():  # torch warns once per process that oneDNN skips projected LSTMs
        warnings.simplefilter("ignore", UserWarning)
        _, state = layer(torch.randn(steps, batch, input_size, dtype=getattr(torch, dtype)))
    tensors = state if isinstance(state, tuple) else (state,)
    measured = {dtype: sum(t.numel() * t.element_size() for t in tensors)}
    for module in (
        lookup("torch", mode).make(input_size, hidden_size, **kwargs),
        getattr(dt, mode)(input_size, hidden_size, **kwargs).module(),
    ):
        assert cache_live.derived_bytes(module, batch, steps, dtype) == measured
        assert [s.name for s in module.cache] == (["h_n", "c_n"] if mode == "LSTM" else ["h_n"])


@pytest.mark.parametrize("mode", ["LSTMCell", "GRUCell", "RNNCell"])
def test_torch_cells(mode: str) -> None:
    """A cell's ``h'`` (and ``c'``): what it returns for the next step."""
    import torch

    cell = getattr(torch.nn, mode)(5, 7)
    out = cell(torch.randn(3, 5))
    tensors = out if isinstance(out, tuple) else (out,)
    measured = {"float32": sum(t.numel() * t.element_size() for t in tensors)}
    assert cache_live.derived_bytes(lookup("torch", mode).make(5, 7), 3, 1, "float32") == measured
