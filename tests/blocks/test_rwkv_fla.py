"""RWKV-6 and RWKV-7 held live against flash-linear-attention 0.6.0 in ``.venv-ssm`` (through
``tests/support/fla_worker.py``): ``RWKV6Attention`` / ``RWKV7Attention`` with hypothesis-drawn
arguments and fla's ``RWKV6ForCausalLM`` / ``RWKV7ForCausalLM`` from hypothesis-drawn configs — every
name, shape, the order and the total, and fla's refusals; BlinkDL's counts (RWKV-LM, which cannot run
here) against fla configured to match them."""

from __future__ import annotations

import pytest
from blocks_live import fla, same, ssm_python
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.blocks.rwkv6 import rwkv6_blinkdl
from derive.blocks.rwkv6_fla import rwkv6_attention, rwkv6_for_causal_lm
from derive.blocks.rwkv7 import lora_rank, rwkv7_blinkdl
from derive.blocks.rwkv7_fla import rwkv7_attention, rwkv7_for_causal_lm
from derive.engine.constructors import lookup

if ssm_python() is None:
    pytest.skip(".venv-ssm (flash-linear-attention 0.6.0) is missing", allow_module_level=True)

pytestmark = pytest.mark.slow
PROPERTY = settings(max_examples=25, deadline=None)


def layer(cls: str, kwargs: dict) -> dict | None:
    try:
        return fla({"kind": "layer", "cls": cls, "kwargs": kwargs})
    except RuntimeError:
        return None


def model(model_type: str, config: dict) -> dict | None:
    try:
        return fla({"kind": "model", "model_type": model_type, "config": config})
    except RuntimeError:
        return None


@PROPERTY
@given(
    heads=st.integers(1, 4),
    per_head=st.integers(1, 12),
    expand_k=st.sampled_from([0.5, 1.0, 0.25, 1.5, 0.3]),
    expand_v=st.sampled_from([1.0, 0.5, 2.0]),
    r=st.integers(1, 8),
    g=st.integers(1, 8),
    affine=st.booleans(),
)
def test_rwkv6_attention_live(heads, per_head, expand_k, expand_v, r, g, affine) -> None:
    kwargs = {"hidden_size": heads * per_head, "num_heads": heads, "expand_k": expand_k, "expand_v": expand_v,
              "proj_low_rank_dim": r, "gate_low_rank_dim": g, "elementwise_affine": affine}  # fmt: skip
    live = layer("RWKV6Attention", kwargs)
    if live is None:  # fla asserts (a fractional width, heads that do not divide): derive refuses
        with pytest.raises(ValueError):
            rwkv6_attention(**kwargs)
        return
    same(rwkv6_attention(**kwargs), live)


@PROPERTY
@given(
    heads=st.integers(1, 4),
    head_dim=st.integers(1, 40),
    by_heads=st.booleans(),
    ranks=st.lists(st.none() | st.integers(1, 40), min_size=4, max_size=4),
    where=st.sampled_from([(None, None), (0, 2), (1, 3), (2, 5), (0, None), (1, 1)]),
    value_mult=st.none() | st.integers(1, 3),
    affine=st.booleans(),
    fuse=st.booleans(),
)
def test_rwkv7_attention_live(heads, head_dim, by_heads, ranks, where, value_mult, affine, fuse) -> None:
    d = heads * head_dim
    kwargs = {"hidden_size": d, "decay_low_rank_dim": ranks[0], "gate_low_rank_dim": ranks[1], "a_low_rank_dim": ranks[2],
              "v_low_rank_dim": ranks[3], "layer_idx": where[0], "num_hidden_layers": where[1],
              "elementwise_affine": affine, "fuse_norm": fuse}  # fmt: skip
    kwargs |= {"head_dim": None, "num_heads": heads} if by_heads else {"head_dim": head_dim}
    if value_mult is not None:
        kwargs["value_dim"] = d * value_mult
    live = layer("RWKV7Attention", kwargs)
    if live is None:
        with pytest.raises(ValueError):
            rwkv7_attention(**kwargs)
        return
    same(rwkv7_attention(**kwargs), live)


@PROPERTY
@given(
    heads=st.integers(1, 3),
    per_head=st.integers(1, 16),
    layers=st.integers(0, 3),
    vocab=st.integers(1, 60),
    expand_k=st.sampled_from([0.5, 1.0]),
    ratio=st.none() | st.sampled_from([3.5, 4, 2.5]),
    inter=st.none() | st.integers(1, 70),
    norm=st.tuples(st.booleans(), st.booleans()),
    tie=st.booleans(),
)
def test_rwkv6_models_live(heads, per_head, layers, vocab, expand_k, ratio, inter, norm, tie) -> None:
    config = {"hidden_size": heads * per_head * 2, "num_heads": heads, "num_hidden_layers": layers, "vocab_size": vocab,
              "expand_k": expand_k, "proj_low_rank_dim": 4, "gate_low_rank_dim": 8, "norm_first": norm[0],
              "norm_bias": norm[1], "tie_word_embeddings": tie, "hidden_ratio": ratio, "intermediate_size": inter}  # fmt: skip
    live = model("rwkv6", config)
    assert live is not None and live["type"] == "RWKV6ForCausalLM"
    same(rwkv6_for_causal_lm(config), live)


@PROPERTY
@given(
    heads=st.integers(1, 3),
    head_dim=st.sampled_from([8, 16, 64, 128]),
    layers=st.sampled_from([0, 2, 3]),
    vocab=st.integers(1, 60),
    ranks=st.lists(st.none() | st.integers(1, 24), min_size=4, max_size=4),
    ratio=st.none() | st.sampled_from([4, 3.5]),
    value_dim=st.sampled_from(["none", "int", "list"]),
    norm=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    tie=st.booleans(),
)
def test_rwkv7_models_live(heads, head_dim, layers, vocab, ranks, ratio, value_dim, norm, tie) -> None:
    d = heads * head_dim
    config = {"hidden_size": d, "head_dim": head_dim, "num_hidden_layers": layers, "vocab_size": vocab,
              "decay_low_rank_dim": ranks[0], "gate_low_rank_dim": ranks[1], "a_low_rank_dim": ranks[2],
              "v_low_rank_dim": ranks[3], "hidden_ratio": ratio, "norm_first": norm[0], "norm_bias": norm[1],
              "fuse_norm": norm[2], "tie_word_embeddings": tie}  # fmt: skip
    if value_dim == "int":
        config["value_dim"] = 2 * d
    elif value_dim == "list":
        config["value_dim"] = [d * (1 + k % 2) for k in range(layers)]
    live = model("rwkv7", config)
    if live is None:  # fla's initialisation fails (a value width beyond D past layer 0): derive refuses
        with pytest.raises(ValueError, match="value_dim must equal hidden_size"):
            rwkv7_for_causal_lm(config)
        return
    assert live["type"] == "RWKV7ForCausalLM"
    same(rwkv7_for_causal_lm(config), live)


def test_one_layer_rwkv7_is_refused_as_fla_fails() -> None:
    config = {"hidden_size": 64, "num_hidden_layers": 1, "vocab_size": 10}
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fla({"kind": "model", "model_type": "rwkv7", "config": config})
    with pytest.raises(ValueError, match="num_hidden_layers - 1"):
        rwkv7_for_causal_lm(config)


def test_hybrid_attention_layers_refused() -> None:
    config = {"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10, "attn": {"layers": [1], "num_heads": 2}}
    # fla would put its own Attention at layer 1 (fla/models/modeling_utils.py get_attention; it needs flash-attn)
    with pytest.raises(ValueError, match="'attn'"):
        rwkv6_for_causal_lm(config)
    with pytest.raises(ValueError, match="'attn'"):
        rwkv7_for_causal_lm(config)


def test_blinkdl_rwkv6_is_fla_configured_to_match() -> None:
    # RWKV-v5/rwkv_v6_demo.py 256-259 (L 24, C 2048, V 65536); fla with K = V = C, heads of 64,
    # 3.5·C (a multiple of 32 here: fla rounds up, BlinkDL down) and ranks 32, 64
    config = {"hidden_size": 2048, "num_hidden_layers": 24, "vocab_size": 65536, "expand_k": 1.0, "expand_v": 1.0,
              "num_heads": 32, "hidden_ratio": 3.5}  # fmt: skip
    live = model("rwkv6", config)
    assert live["total"] == rwkv6_blinkdl(65536, 2048, 24).count == 1_599_873_024


def test_blinkdl_rwkv7_is_fla_configured_to_match() -> None:
    # RWKV-v7/rwkv_v7_demo.py 25-35: RWKV-x070-World-0.1B (L 12, C 768, V 65536, ranks 64, 64, 32, 128);
    # fla has no value LoRA in layer 0, as the released checkpoint (BlinkDL/RWKV-LM#285)
    config = {"hidden_size": 768, "num_hidden_layers": 12, "vocab_size": 65536, "head_dim": 64, "decay_low_rank_dim": 64,
              "a_low_rank_dim": 64, "v_low_rank_dim": 32, "gate_low_rank_dim": 128, "hidden_ratio": 4}  # fmt: skip
    live = model("rwkv7", config)
    assert live["total"] == rwkv7_blinkdl(65536, 768, 12, layer0_value_lora=False).count == 191_034_624
    assert rwkv7_blinkdl(65536, 768, 12).count - live["total"] == 2 * 768 * 32 + 768  # blocks.0.att.v0/v1/v2
    names = {n for n, _ in live["parameters"]}
    assert (
        "model.layers.0.attn.v_lora.lora.0.weight" not in names and "model.layers.1.attn.v_lora.lora.0.weight" in names
    )


@pytest.mark.parametrize("c", [768, 1024, 2048, 2560, 4096])
def test_lora_rank_rule_is_fla_s(c: int) -> None:
    # fla computes the ranks from the same rule when not given (head_dim 64: factor 1)
    live = layer("RWKV7Attention", {"hidden_size": c, "head_dim": 64})
    shapes = dict(live["parameters"])
    assert shapes["w_lora.lora.0.weight"][0] == lora_rank(c, 2.5)
    assert shapes["v_lora.lora.0.weight"][0] == lora_rank(c, 1.7)
    assert shapes["g_lora.lora.0.weight"][0] == lora_rank(c, 5)


def test_constructors_are_fla_s_signatures() -> None:
    six = lookup("fla", "RWKV6Attention")
    assert six.make("chunk", 64, 1.0, 1.0, 2).count == layer("RWKV6Attention", {"hidden_size": 64, "expand_k": 1.0,
                                                                                 "num_heads": 2})["total"]  # fmt: skip
    seven = lookup("fla", "RWKV7Attention")
    assert (
        seven.make(hidden_size=128, head_dim=32).count
        == layer("RWKV7Attention", {"hidden_size": 128, "head_dim": 32})["total"]
    )


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (
            "RWKV6Attention",
            {"hidden_size": 96, "expand_k": 1.0, "num_heads": 3, "proj_low_rank_dim": 4, "elementwise_affine": False},
        ),
        (
            "RWKV7Attention",
            {"hidden_size": 128, "head_dim": 32, "layer_idx": 0, "num_hidden_layers": 3, "v_low_rank_dim": 8},
        ),
        ("RWKV7Attention", {"hidden_size": 64, "head_dim": None, "num_heads": 2, "value_dim": 128, "fuse_norm": True}),
    ],
)
def test_read_remakes_live_layers(cls: str, kwargs: dict) -> None:
    # the live-object reader: the constructor's arguments read off the real layer remake its tensors
    from types import SimpleNamespace

    constructor = lookup("fla", cls)
    keys = {"RWKV6Attention": ["mode", "hidden_size", "expand_k", "expand_v", "num_heads", "proj_low_rank_dim",
                               "gate_low_rank_dim", "layer_idx"],
            "RWKV7Attention": ["mode", "hidden_size", "head_dim", "decay_low_rank_dim", "gate_low_rank_dim",
                               "a_low_rank_dim", "v_low_rank_dim", "layer_idx", "fuse_norm", "value_dim",
                               "num_hidden_layers"]}[cls]  # fmt: skip
    live = fla({"kind": "layer", "cls": cls, "kwargs": kwargs, "attributes": keys})
    obj = SimpleNamespace(**live["attributes"], g_norm=SimpleNamespace(**live["g_norm"]))
    args, read = constructor.read(obj)
    same(constructor.make(*args, **read), live)


@pytest.mark.parametrize("cls", ["RWKV6Config", "RWKV7Config"])
def test_fla_config_constructors(cls: str) -> None:
    config = {"hidden_size": 128, "num_hidden_layers": 2, "vocab_size": 50}
    live = model(cls[:5].lower(), config)
    assert lookup("fla", cls).make(**config).count == live["total"]
