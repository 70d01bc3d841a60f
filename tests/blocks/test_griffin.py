"""Griffin / RecurrentGemma as transformers' ``RecurrentGemmaForCausalLM``, held live against
transformers 5.23.0 on the meta device: names, shapes, order, buffers, total and closed form for
hypothesis-drawn ``RecurrentGemmaConfig`` s (block patterns, grouped K/V heads, widths the heads do not
divide, biases, ties) and the released 2b config; DeepMind's spelling and presets against the same
models built by transformers; the refusals."""

from __future__ import annotations

import pytest
from blocks_live import hf_model, same, tensors
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.blocks import config_model
from derive.blocks.griffin import (
    RECURRENTGEMMA_2B,
    attention_block,
    floordiv,
    layer_types,
    recurrent_block,
    recurrent_gemma_for_causal_lm,
    rg_lru,
)
from derive.blocks.griffin_deepmind import PRESETS, griffin
from derive.engine.constructors import lookup
from derive.tree import count

PROPERTY = settings(max_examples=40, deadline=None)
KINDS = st.sampled_from(["recurrent", "attention"])


def test_registered() -> None:
    assert config_model("recurrent_gemma").architecture == "RecurrentGemmaForCausalLM"


def test_the_2b_anchor_live() -> None:
    config = {k: v for k, v in RECURRENTGEMMA_2B.items() if k != "model_type"}
    live = hf_model("recurrent_gemma", config)
    assert live["total"] == 2_682_862_080 and live["type"] == "RecurrentGemmaForCausalLM"
    same(recurrent_gemma_for_causal_lm(config), live, buffers=True)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")  # an MLP or gate of width 0
@PROPERTY
@given(
    vocab=st.integers(1, 200),
    heads=st.integers(1, 4),
    per_head=st.integers(1, 8),
    kv=st.integers(1, 4),
    lru=st.none() | st.integers(1, 40),
    inter=st.integers(1, 60),
    layers=st.integers(1, 7),
    pattern=st.lists(KINDS, min_size=1, max_size=3),
    conv=st.integers(1, 5),
    head_dim=st.none() | st.integers(1, 12),
    bias=st.booleans(),
    tie=st.booleans(),
    rotary=st.sampled_from([None, 0.25, 1.0]),
)
def test_random_configs_live(
    vocab, heads, per_head, kv, lru, inter, layers, pattern, conv, head_dim, bias, tie, rotary
) -> None:
    config = {
        "vocab_size": vocab,
        "hidden_size": heads * per_head,
        "num_attention_heads": heads,
        "num_key_value_heads": min(kv, heads),
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "block_types": pattern,
        "conv1d_width": conv,
        "attention_bias": bias,
        "tie_word_embeddings": tie,
    }
    if lru is not None:
        config["lru_width"] = lru  # not always a multiple of the heads: both floor the block width
    if head_dim is not None:
        config["head_dim"] = head_dim
    if rotary is not None:
        config["partial_rotary_factor"] = rotary
    try:
        live = hf_model("recurrent_gemma", config)
    except Exception as refused:  # transformers refuses: so must derive
        with pytest.raises(ValueError):
            recurrent_gemma_for_causal_lm(config)
        assert "rotary" in str(refused)
        return
    same(recurrent_gemma_for_causal_lm(config), live, buffers=True)


def test_hf_defaults_live() -> None:
    # an empty config: transformers' defaults (intermediate_size 7680: half the released 2b's MLP; full K/V heads)
    live = hf_model("recurrent_gemma", {"num_hidden_layers": 3})
    same(recurrent_gemma_for_causal_lm({"num_hidden_layers": 3}), live, buffers=True)
    assert ("model.layers.2.temporal_block.k_proj.weight", (2560, 2560)) in live["parameters"]
    assert ("model.layers.0.mlp_block.gate_proj.weight", (3840, 2560)) in live["parameters"]


def test_rope_parameters_live() -> None:
    config = {"num_hidden_layers": 3, "hidden_size": 16, "num_attention_heads": 2, "vocab_size": 5,
              "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.75}}  # fmt: skip
    same(recurrent_gemma_for_causal_lm(config), hf_model("recurrent_gemma", config), buffers=True)


def test_block_diagonal_gates() -> None:
    # 2W^2/H, not 2W^2: the recurrentgemma-2b gates (W 2560, H 10)
    lru = rg_lru(2560, 10, name="")
    assert count(lru) == 2560 + 2 * 2560**2 // 10 + 2 * 2560
    assert dict(tensors(lru))["input_gate_weight"] == (10, 256, 256)
    assert recurrent_block(2560, 10, 2560, 4).count == 3 * 2560 * 2560 + 2 * 2560**2 // 10 + 2560 * 10 + 2560
    assert attention_block(2560, 10, 1).count == 2 * 2560 * 2560 + 2 * 2560 * 256 + 2560


def test_closed_form() -> None:
    import sympy

    block = recurrent_block(2560, 10, 2560, 4)
    w, h, d, k = sympy.symbols("W H D K", integer=True, positive=True)
    expr = block.formula.expr.subs(sympy.floor(w / h), w / h)
    assert sympy.expand(expr - (3 * d * w + 2 * w**2 / h + w * (k + 6) + d)) == 0
    model = recurrent_gemma_for_causal_lm(RECURRENTGEMMA_2B)
    values = {sympy.Symbol(a, integer=True, positive=True): b for a, b in model.formula.values}
    assert model.formula.expr.subs(values) == 2_682_862_080


def test_symbolic_layer_count() -> None:
    import sympy

    n = sympy.Symbol("L", integer=True, positive=True)
    counts = layer_types(["recurrent", "recurrent", "attention"], n)
    for layers in range(0, 40):
        kinds = layer_types(["recurrent", "recurrent", "attention"], layers)
        assert [counts[j].subs(n, layers) for j in range(3)] == [kinds[j::3].__len__() for j in range(3)]
    config = dict(RECURRENTGEMMA_2B, num_hidden_layers=n)
    model = recurrent_gemma_for_causal_lm(config)
    assert count(model).subs(n, 26) == 2_682_862_080
    with pytest.raises(ValueError, match="symbolic"):
        tensors(model)


def test_floordiv() -> None:
    import sympy

    assert floordiv(66, 5) == 13
    w, h = sympy.symbols("W H", integer=True, positive=True)
    assert floordiv(w, h) == sympy.floor(w / h)


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({"block_types": ["recurrent", "mlp"]}, "'block_types' holds 'mlp'"),
        ({"block_types": []}, "'block_types' is empty"),
        ({"block_types": "recurrent"}, "'block_types' must be a list"),
        ({"block_types": ["attention"], "num_hidden_layers": 101}, "exceeds 100 repeats"),
        ({"num_key_value_heads": 11}, "smaller than `num_attention_heads`"),
        ({"rope_parameters": {"rope_type": "linear", "factor": 2.0}}, "rope_type 'default' only"),
        ({"rope_parameters": [1]}, "must be a mapping"),
        ({"hidden_size": 2560.0}, "'hidden_size' must be an integer"),
        ({"attention_bias": 1}, "'attention_bias' must be true or false"),
        ({"num_hidden_layers": 0}, "'num_hidden_layers' must be at least 1"),
        ({"head_dim": 5, "partial_rotary_factor": 1.0}, "even rotary dimension"),
    ],
)
def test_refusals(config, match) -> None:
    with pytest.raises(ValueError, match=match):
        recurrent_gemma_for_causal_lm(config)


def test_transformers_refuses_too() -> None:
    # what derive refuses, transformers cannot build (or builds attention for a word that is not a type)
    with pytest.raises(Exception, match="num_key_value_heads"):
        hf_model("recurrent_gemma", {"num_key_value_heads": 11})
    with pytest.raises(Exception, match="must be equal to the number of `layer_types`"):
        hf_model("recurrent_gemma", {"block_types": ["attention"], "num_hidden_layers": 101, "hidden_size": 8,
                                     "num_attention_heads": 2, "vocab_size": 3})  # fmt: skip
    with pytest.raises(Exception, match="even rotary dimension"):
        hf_model("recurrent_gemma", {"head_dim": 5, "partial_rotary_factor": 1.0, "num_hidden_layers": 1})
    with pytest.raises(ValueError, match="RoPE types other than `default`"):
        hf_model("recurrent_gemma", {"rope_parameters": {"rope_type": "linear", "rope_theta": 1e4, "factor": 2.0},
                                     "num_hidden_layers": 3, "hidden_size": 8, "num_attention_heads": 2})  # fmt: skip
    # without an attention layer there is no rotary embedding to refuse the scaling: both build
    config = {"rope_parameters": {"rope_type": "linear", "rope_theta": 1e4, "factor": 2.0}, "num_hidden_layers": 2,
              "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 3}  # fmt: skip
    same(recurrent_gemma_for_causal_lm(config), hf_model("recurrent_gemma", config), buffers=True)


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_deepmind_presets_against_transformers(preset: str) -> None:
    # DeepMind's Griffin (common.py presets) has one K/V head and an MLP of mlp_expanded_width: the model
    # transformers builds with num_key_value_heads=1 and intermediate_size = 2 * mlp_expanded_width.
    p = PRESETS[preset]
    kinds = [p["block_types"][i % len(p["block_types"])] for i in range(p["num_layers"])]
    ours = griffin(256000, p["width"], p["mlp_expanded_width"], p["num_heads"], kinds, p["lru_width"])
    config = {"vocab_size": 256000, "hidden_size": p["width"], "intermediate_size": 2 * p["mlp_expanded_width"],
              "num_attention_heads": p["num_heads"], "num_key_value_heads": 1, "lru_width": p["lru_width"],
              "num_hidden_layers": p["num_layers"], "block_types": list(p["block_types"])}  # fmt: skip
    assert ours.count == hf_model("recurrent_gemma", config)["total"]


def test_deepmind_names() -> None:
    model = griffin(11, 8, 12, 2, ["recurrent", "attention"])
    names = dict(tensors(model))
    assert names["embedder.input_embedding"] == (11, 8)
    assert names["blocks.0.recurrent_block.conv_1d.w"] == (4, 8)
    assert names["blocks.0.recurrent_block.rg_lru.a_gate.w"] == (2, 4, 4)
    assert names["blocks.1.attention_block.proj_k.weight"] == (4, 8)
    assert names["blocks.1.mlp_block.ffw_up.b"] == (2, 1, 1, 12)
    assert names["final_norm.scale"] == (8,)


def test_deepmind_constructors() -> None:
    make = lookup("recurrentgemma", "RGLRU").make
    assert count(make(2560, 10, device="meta")) == rg_lru(2560, 10).count
    block = lookup("recurrentgemma", "RecurrentBlock").make(
        width=64, num_heads=4, lru_width=32, final_w_init_variance_scale=0.1
    )
    assert block.count == recurrent_block(64, 4, 32, 4).count
    assert lookup("recurrentgemma", "LocalAttentionBlock").make(64, 4, 2048).count == 2 * 64 * 64 + 2 * 64 * 16 + 64
    assert lookup("recurrentgemma", "MLPBlock").make(64, 96).count == 3 * 64 * 96 + 2 * 96 + 64


def test_recurrent_gemma_config_constructor() -> None:
    make = lookup("transformers", "RecurrentGemmaConfig").make
    config = {
        "vocab_size": 30,
        "hidden_size": 16,
        "num_attention_heads": 2,
        "num_hidden_layers": 3,
        "intermediate_size": 24,
    }
    assert count(make(**config)) == hf_model("recurrent_gemma", config)["total"]
    with pytest.raises(TypeError, match="only keyword arguments"):
        make(30)
