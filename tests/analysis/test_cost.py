"""The cost model (derive.cost) against what torch reports for the real modules."""

from __future__ import annotations

import doctest
import random

import pytest
import sympy
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

import derive.analysis.cost
import derive.torch as dt
from derive import H, I, L, P, T
from derive.analysis.cost import DTYPE_BYTES, N, cost, step_ops, stored_elements


def torch_flops(module: nn.Module, seq_len: int, batch: int) -> int:
    """FlopCounterMode's total for one forward on CPU, oneDNN off (its fused RNN kernels are not counted)."""
    input_size = module.input_size
    cell = isinstance(module, nn.RNNCellBase)
    x = torch.randn(batch, input_size) if cell else torch.randn(seq_len, batch, input_size)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        module(x)
    return counter.get_total_flops()


CONFIGS = [
    ("LSTM", (10, 20), {}),
    ("LSTM", (32, 128, 2), {"bidirectional": True}),
    ("LSTM", (20, 50, 3), {"bias": False}),
    ("LSTM", (10, 20, 2), {"proj_size": 5, "bidirectional": True}),
    ("GRU", (10, 20), {}),
    ("GRU", (10, 20, 3), {"bias": False, "bidirectional": True}),
    ("RNN", (25, 50, 4), {"bidirectional": True}),
    ("RNN", (10, 20, 2), {"nonlinearity": "relu"}),
]


def test_docstring_examples():
    assert doctest.testmod(derive.analysis.cost).failed == 0


@pytest.mark.parametrize("cls,args,kwargs", CONFIGS, ids=lambda v: str(v))
def test_matrix_products_match_flop_counter(cls, args, kwargs):
    seq_len, batch = 7, 3
    ours = cost(getattr(dt, cls)(*args, **kwargs), seq_len, batch)
    assert ours.matmul_flops == torch_flops(getattr(nn, cls)(*args, **kwargs), seq_len, batch)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_flop_counter(cls):
    ours = cost(getattr(dt, cls)(10, 20), 1, 5)
    assert ours.matmul_flops == torch_flops(getattr(nn, cls)(10, 20), 1, 5)


def test_random_configurations_match_flop_counter():
    rng = random.Random(11)
    for _ in range(12):
        cls = rng.choice(["LSTM", "GRU", "RNN"])
        args = (rng.randint(1, 40), rng.randint(2, 40), rng.randint(1, 3))
        kwargs = {"bidirectional": rng.random() < 0.5, "bias": rng.random() < 0.5}
        if cls == "LSTM" and rng.random() < 0.4:
            kwargs["proj_size"] = rng.randint(1, args[1] - 1)
        seq_len, batch = rng.randint(1, 6), rng.randint(1, 4)
        ours = cost(getattr(dt, cls)(*args, **kwargs), seq_len, batch)
        assert ours.matmul_flops == torch_flops(getattr(nn, cls)(*args, **kwargs), seq_len, batch), (cls, args, kwargs)


def test_onednn_lstm_is_invisible_to_the_flop_counter():
    """Why the tests switch oneDNN off: by default nn.LSTM on CPU runs a fused oneDNN kernel that
    FlopCounterMode does not count (it reports 0). If torch starts counting it, the page must change."""
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        nn.LSTM(10, 20)(torch.randn(7, 3, 10))
    assert counter.get_total_flops() in (0, cost(dt.LSTM(10, 20), 7, 3).matmul_flops)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_weight_bytes_match_torch(dtype):
    module = nn.LSTM(32, 128, 2, bidirectional=True).to(getattr(torch, dtype))
    expected = sum(p.numel() * p.element_size() for p in module.parameters())
    assert cost(dt.LSTM(32, 128, 2, bidirectional=True), dtype=dtype).weight_bytes == expected
    assert DTYPE_BYTES[dtype] == torch.empty(0, dtype=getattr(torch, dtype)).element_size()


def test_int8_is_one_byte():
    assert DTYPE_BYTES["int8"] == torch.empty(0, dtype=torch.int8).element_size()


def test_stored_values_are_the_equations_left_hand_sides():
    """The LSTM keeps i, f, g, o, c (H each) and h (H_out); GRU r, z, n, h; Elman h."""
    from derive.cells import elman, gru, lstm

    assert stored_elements(lstm(I, H)) == 6 * H
    assert stored_elements(lstm(I, H, True, P)) == 5 * H + P
    assert stored_elements(gru(I, H)) == 4 * H
    assert stored_elements(elman(I, H)) == H
    # and those left-hand sides are the outputs torch's LSTMCell computes: 4H gates + c + h
    cell = nn.LSTMCell(3, 5)
    h, c = cell(torch.randn(1, 3))
    gates = cell.weight_ih.shape[0]
    assert stored_elements(lstm(3, 5)) == gates + c.shape[1] + h.shape[1]


def test_elementwise_counts_by_hand():
    """Each element-wise count, read off the equations: LSTM gate pre-activations have 4 terms
    (3 adds), c_t = f*c + i*g (1 add, 2 products), h_t = o*tanh(c) (1 product)."""
    from derive.cells import gru, lstm

    ops = step_ops(lstm(I, H))
    assert ops == {"mac": 4 * H * I + 4 * H**2, "add": 13 * H, "mul": 3 * H, "sigmoid": 3 * H, "tanh": 2 * H, "relu": 0}
    ops = step_ops(gru(I, H))
    assert ops["add"] == 11 * H and ops["mul"] == 3 * H and ops["sigmoid"] == 2 * H and ops["tanh"] == H
    no_bias = step_ops(lstm(I, H, False))
    assert ops["mac"] == 3 * H * I + 3 * H**2 and no_bias["add"] == 5 * H


def test_symbolic_stack_cost():
    c = cost(dt.LSTM(I, H, L))
    assert c.macs == sympy.expand(T * N * (4 * H * I + 4 * H**2 + (L - 1) * 8 * H**2))
    assert c.activation_bytes == sympy.expand(4 * T * N * L * 6 * H)
    for layers in (1, 2, 5):
        numeric = cost(dt.LSTM(7, 9, layers), 3, 2)
        assert numeric.macs == c.macs.subs({I: 7, H: 9, L: layers, T: 3, N: 2})


def test_bad_arguments():
    stack = dt.LSTM(10, 20)
    with pytest.raises(ValueError, match="dtype must be one of"):
        cost(stack, dtype="float8")
    with pytest.raises(ValueError, match="seq_len must be >= 1"):
        cost(stack, 0)
    with pytest.raises(TypeError, match="batch must be a positive int"):
        cost(stack, 5, 2.5)


def _states_nbytes(module: nn.Module, batch: int, dtype: torch.dtype) -> int:
    """The bytes of what torch's layer hands back for its next call (h_n, c_n; a cell's h', c')."""
    module = module.to(dtype)
    cell = isinstance(module, nn.RNNCellBase)
    x = (
        torch.randn(batch, module.input_size, dtype=dtype)
        if cell
        else torch.randn(3, batch, module.input_size, dtype=dtype)
    )
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):  # oneDNN warns of projections
        out = module(x)
    states = (out if isinstance(out, tuple) else (out,)) if cell else out[1]
    states = states if isinstance(states, tuple) else (states,)
    return sum(s.numel() * s.element_size() for s in states)


@pytest.mark.parametrize(("cls", "args", "kwargs"), CONFIGS + [("LSTMCell", (10, 20), {}), ("GRUCell", (7, 9), {})])
@pytest.mark.parametrize("batch", [1, 3])
def test_a_layer_answers_what_a_language_model_answers(cls, args, kwargs, batch):
    """The fields a language model's cost gives, for one torch recurrent layer: its cache is the states it
    returns (``h_n``, ``c_n``: the bytes torch returns, float32 and bfloat16), constant in T, no KV; FLOPs per
    token are FlopCounterMode's for one more token of each sequence (oneDNN off), divided by the batch."""
    module = getattr(nn, cls)(*args, **kwargs)
    derived = getattr(dt, cls)(*args, **kwargs)
    for dtype, name in ((torch.float32, "float32"), (torch.bfloat16, "bfloat16")):
        c = cost(derived, 5, batch, name)
        assert c.cache_bytes == c.state_bytes == _states_nbytes(module, batch, dtype)
        assert c.kv_bytes_per_token == 0
    module = module.float()
    c = cost(derived, 5, batch)
    seq = 1 if isinstance(module, nn.RNNCellBase) else 5
    assert c.flops_per_token * batch * seq == torch_flops(module, seq, batch)
    assert c.active == c.parameters == sum(p.numel() for p in module.parameters())
    assert c.as_dict()["flops_per_token"] == c.flops_per_token


def test_a_layers_token_cost_in_symbols():
    """The closed forms of an LSTM's cache and token FLOPs: 2·L·H·N states of 4 bytes (h and c), and the
    matrix products of one step, the same as ``matmul_flops`` over T·N."""
    c = cost(dt.LSTM(I, H, L))
    assert sympy.expand(c.cache_bytes - 8 * H * L * N) == 0
    assert sympy.expand(c.flops_per_token * T * N - c.matmul_flops) == 0


def test_model_code_with_a_recurrent_layer_has_a_token_cost():
    """``nn.Sequential(nn.Embedding, nn.LSTM)`` read as code: its FLOPs per token (no longer "no rule for its
    class") and its cache, against FlopCounterMode and the states torch returns."""
    import derive

    code = "nn.Sequential(nn.Embedding(100, 10), nn.LSTM(10, 20, 2, bidirectional=True, proj_size=5))"
    real = nn.Sequential(nn.Embedding(100, 10), nn.LSTM(10, 20, 2, bidirectional=True, proj_size=5))
    c = cost(derive.explain(code), 4, 2)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        _, states = real(torch.zeros(4, 2, dtype=torch.long))
    assert c.flops_not_derived is None
    assert c.flops_per_token * 4 * 2 == counter.get_total_flops()
    assert c.cache_bytes == sum(s.numel() * s.element_size() for s in states)


@pytest.mark.parametrize(
    "layer",
    ["LSTM(20)", "GRU(20)", "GRU(20, reset_after=False)", "SimpleRNN(20)", "Bidirectional(LSTM(12))"],
)
def test_keras_layers_answer_the_same_fields(layer):
    """A Keras model read from its code: the cache is the states ``return_state=True`` gives back (both
    directions of a Bidirectional), and a token's matmul FLOPs are what FlopCounterMode adds for one more
    token of each sequence (Keras on torch; the difference of T + 1 and T tokens, as Keras' generic loop
    runs its first step twice; the Dense head, which a whole sequence runs once, runs at every step of a
    step-by-step run and is counted once per token)."""
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("keras not on the torch backend")
    import derive
    from derive.analysis.cost import model_cost

    code = f"Sequential([Input(shape=(None, 10)), {layer}, Dense(3)])"
    report = derive.explain(code, framework="keras")
    batch = 2
    names = dict(vars(keras.layers))

    def made(text: str):
        return eval(text, names)  # the test's own parameter, never user text

    model = keras.Sequential([keras.Input(shape=(None, 10)), made(layer), keras.layers.Dense(3)])

    def flops(layer, x) -> int:
        counter = FlopCounterMode(display=False)
        with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
            layer(x)
        return counter.get_total_flops()

    recurrent, head = model.layers
    one_more = flops(model, torch.zeros(batch, 6, 10)) - flops(model, torch.zeros(batch, 5, 10))
    c = model_cost(report.module, 6, batch)
    # a step of a step-by-step run (one token a call): the recurrent layer's step, and the head once
    assert c.flops_per_token * batch == one_more + flops(head, torch.zeros(batch, recurrent.output.shape[-1]))
    stateful = made(layer.replace(")", ", return_state=True)", 1))
    states = stateful(torch.zeros(batch, 4, 10))[1:]
    assert c.cache_bytes == sum(int(s.numel()) * s.element_size() for s in states)


def test_one_cost_for_a_stack_and_a_model():
    """derive.cost answers one class for a stack and a model: the same fields (JSON keys alike), a stack's compute
    fields None for a model, and with int sizes every figure an int (no SymPy in the numbers)."""
    import derive
    from derive.analysis.cost import Cost

    stack = cost(dt.LSTM(10, 20, 2), 5, 3)
    model = cost({"model_type": "llama", "vocab_size": 40, "hidden_size": 64, "intermediate_size": 24,
                  "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1}, 5, 3)  # fmt: skip
    assert type(stack) is type(model) is Cost
    a, b = stack.as_dict(), model.as_dict()
    assert set(a) == set(b)
    for name in ("per_step", "macs", "flops", "matmul_flops", "activation_bytes", "macs_per_step", "ops"):
        assert b[name] is None and a[name] is not None, name
    for data in (a, b):
        for key in ("cache_bytes", "kv_bytes", "state_bytes", "kv_bytes_per_token", "weights_bytes", "weight_bytes",
                    "flops_per_token", "parameters", "active"):  # fmt: skip
            assert type(data[key]) is int, key
    assert model.parameters == model.total == derive.explain({"model_type": "llama", "vocab_size": 40,
        "hidden_size": 64, "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1}).total  # fmt: skip
    assert stack.kv_bytes == 0 and stack.state_bytes == stack.cache_bytes
    assert set(stack.cache_kinds) == {"LSTM"} and stack.cache_kinds["LSTM"]["state_bytes"] == stack.state_bytes


def test_a_config_that_names_no_dtype_is_not_priced_as_stored_or_fitted_by_a_guess() -> None:
    """A config without ``torch_dtype``/``dtype`` (gpt-oss's, as OpenAI publishes it): what its checkpoint stores
    decides the weights as stored and what fits (transformers' ``from_pretrained(dtype="auto")`` reads the
    checkpoint's tensors; vLLM its safetensors header), so derive refuses those without ``dtype`` rather than
    take float32, ``from_config``'s default — which put gpt-oss-120b at 64.8 GiB. Given bfloat16 (gpt-oss keeps
    every tensor but the MXFP4 experts in bf16), it is the model card's 60.8 GiB checkpoint: the experts'
    36 · 128 · (2880 · 5760 + 2880 · 2880) = 114,661,785,600 weights at 4 bits plus one uint8 scale per 32
    (60,914,073,600 B), everything else, 2,167,371,072 parameters, in bf16 (4,334,742,144 B)."""
    import derive
    from derive.analysis.cost import NO_DTYPE
    from derive.families.family import release

    config = release("openai/gpt-oss-120b").config
    assert "torch_dtype" not in config and "dtype" not in config
    for asked in ({"memory": "80GB"}, {}):  # the budget, and the weights as stored of its quantization_config
        with pytest.raises(ValueError, match="the config names no dtype") as refused:
            derive.cost(config, 1, 1, **asked)
        assert str(refused.value) == NO_DTYPE
    stored = derive.cost(config, 1, 1, "bfloat16").weights_bytes
    assert stored == 60_914_073_600 + 2 * (116_829_156_672 - 114_661_785_600) == 65_248_815_744
    assert round(stored / 2**30, 1) == 60.8
    plain = {k: v for k, v in config.items() if k != "quantization_config"}
    flops = derive.cost(plain, 1, 1)  # no budget, nothing stored: FLOPs and a float32 build, as from_config's
    assert flops.dtype == "float32" and flops.weights_bytes == 4 * 116_829_156_672
    with pytest.raises(ValueError, match="the config names no dtype"):
        derive.cost(plain, 1, 1, memory="80GB")
    named = derive.cost({**config, "torch_dtype": "bfloat16"}, 1, 1, memory="80GB")  # a config that names it
    assert named.weights_bytes == stored and named.max_seq_len > 131072
