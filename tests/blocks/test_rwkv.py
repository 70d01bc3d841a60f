"""RWKV-4 as transformers' ``RwkvForCausalLM``, held live against transformers 5.23.0 on the meta
device: every tensor's name, shape and order, the total and the closed form, for hypothesis-drawn
``RwkvConfig`` s and the released RWKV-4 Pile configs; BlinkDL's spelling and the refusals."""

from __future__ import annotations

import pytest
from blocks_live import hf_model, same, tensors
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.blocks import CONFIG_MODELS, config_model
from derive.blocks.rwkv import ffn_width, rwkv4_blinkdl, rwkv_for_causal_lm
from derive.read.report import Report
from derive.tree import count

PROPERTY = settings(max_examples=40, deadline=None)

#: RWKV/rwkv-4-*-pile: vocab 50277 and the sizes of transformers' convert_rwkv_checkpoint_to_hf.py 30-46, 88.
PILE = {"169M": (768, 12), "430M": (1024, 24), "1B5": (2048, 24), "3B": (2560, 32), "7B": (4096, 32), "14B": (5120, 40)}


def test_registered() -> None:
    model = config_model("rwkv")
    assert model.architecture == "RwkvForCausalLM" and CONFIG_MODELS["rwkv"].build is rwkv_for_causal_lm


def test_the_169m_anchor_live() -> None:
    config = {"vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12}
    live = hf_model("rwkv", config)
    assert live["total"] == 169_342_464 and live["type"] == "RwkvForCausalLM"
    same(rwkv_for_causal_lm(config), live)
    assert tensors(rwkv_for_causal_lm(config))[:2] == [
        ("rwkv.embeddings.weight", (50277, 768)),
        ("rwkv.blocks.0.pre_ln.weight", (768,)),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PILE))
def test_released_pile_models_live(name: str) -> None:
    d, layers = PILE[name]
    config = {"vocab_size": 50277, "hidden_size": d, "num_hidden_layers": layers}
    live = hf_model("rwkv", config)
    model = rwkv_for_causal_lm(config)
    assert count(model) == live["total"]
    assert tensors(model) == live["parameters"]
    assert rwkv4_blinkdl(50277, d, layers).count == live["total"]  # BlinkDL's .pth: the same tensors, renamed


@pytest.mark.slow
@PROPERTY
@given(
    vocab=st.integers(1, 300),
    hidden=st.integers(1, 40),
    layers=st.integers(0, 4),
    att=st.none() | st.integers(1, 40),
    inter=st.none() | st.integers(1, 90),
    tie=st.booleans(),
)
def test_random_configs_live(vocab, hidden, layers, att, inter, tie) -> None:
    config = {"vocab_size": vocab, "hidden_size": hidden, "num_hidden_layers": layers, "tie_word_embeddings": tie}
    if att is not None:
        config["attention_hidden_size"] = att
    if inter is not None:
        config["intermediate_size"] = inter
    live = hf_model("rwkv", config)
    same(rwkv_for_causal_lm(config), live, buffers=True)
    same(rwkv_for_causal_lm(live["config"].to_dict()), live)  # the config object's own keys


def test_closed_form_and_report() -> None:
    model = rwkv_for_causal_lm({"vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12})
    assert str(model.formula.expr) == "13*D**2*L + 11*D*L + 2*D*V + 4*D"
    report = Report.from_module(model, "torch", "rwkv-4-169m")
    assert report.total == 169_342_464 and not report.partial
    assert [r.name for r in report.rows][:3] == ["rwkv.embeddings", "rwkv.blocks.0", "rwkv.blocks.1"]
    assert report.to_dict()["tensors"][0] == {
        "name": "rwkv.embeddings.weight",
        "shape": [50277, 768],
        "parameters": 38612736,
    }
    block = model.children[0].children[1].children[1]
    assert str(block.formula.expr) == "4*A*D + 2*A + D**2 + 2*D*F + 9*D"


def test_symbolic_layers_and_sizes() -> None:
    import sympy

    v, d, n = sympy.symbols("V D L", integer=True, positive=True)
    model = rwkv_for_causal_lm({"vocab_size": v, "hidden_size": d, "num_hidden_layers": n})
    assert sympy.expand(count(model) - (13 * d**2 * n + 11 * d * n + 2 * d * v + 4 * d)) == 0
    with pytest.raises(ValueError, match="symbolic"):
        tensors(model)


def test_no_layers_and_ties_live() -> None:
    for config in (
        {"vocab_size": 7, "hidden_size": 5, "num_hidden_layers": 0},
        {"vocab_size": 7, "hidden_size": 5, "num_hidden_layers": 1},
    ):
        live = hf_model("rwkv", config)
        same(rwkv_for_causal_lm(config), live)


@pytest.mark.parametrize(
    ("key", "bad", "match"),
    [
        ("hidden_size", "768", "'hidden_size' must be an integer"),
        ("hidden_size", 7.5, "'hidden_size' must be an integer"),
        ("vocab_size", 0, "'vocab_size' must be at least 1"),
        ("num_hidden_layers", -1, "'num_hidden_layers' must be at least 0"),
        ("tie_word_embeddings", "yes", "'tie_word_embeddings' must be true or false"),
        ("intermediate_size", True, "'intermediate_size' must be an integer"),
    ],
)
def test_refusals_name_the_key(key, bad, match) -> None:
    with pytest.raises(ValueError, match=match):
        rwkv_for_causal_lm({key: bad})


def test_unknown_model_type_refused() -> None:
    with pytest.raises(ValueError, match="not one derive builds"):
        config_model("rwkv99")


def test_blinkdl_names() -> None:
    names = [n for n, _ in tensors(rwkv4_blinkdl(10, 32, 2))]
    # BlinkDL's Block registers ln1, ln2 and then ln0 (RWKV-v4neo/src/model.py 633-637)
    assert names[:9] == ["emb.weight", "blocks.0.ln1.weight", "blocks.0.ln1.bias", "blocks.0.ln2.weight",
                         "blocks.0.ln2.bias", "blocks.0.ln0.weight", "blocks.0.ln0.bias", "blocks.0.att.time_decay",
                         "blocks.0.att.time_first"]  # fmt: skip
    assert "blocks.1.ffn.time_mix_r" in names and names[-1] == "head.weight"


def test_ffn_width_rule() -> None:
    # BlinkDL/RWKV-LM#207: RWKV-5-World-3B (n_embd 2560) holds ffn.value (2560, 8960); the v4neo trainer built 10240
    assert ffn_width(2560, "3.5") == 8960 and ffn_width(2560, "4") == 10240
    assert ffn_width(768, "3.5") == 2688 and ffn_width(1000, "3.5") == 3488
    import sympy

    with pytest.raises(ValueError, match="integer n_embd"):
        ffn_width(sympy.Symbol("C", integer=True, positive=True), "3.5")


def test_rwkv_config_constructor() -> None:
    import derive.blocks  # noqa: F401  (the blocks register their constructors when imported)
    from derive.engine.constructors import lookup

    make = lookup("transformers", "RwkvConfig").make
    config = {"vocab_size": 30, "hidden_size": 16, "num_hidden_layers": 2}
    assert count(make(**config)) == hf_model("rwkv", config)["total"]
    with pytest.raises(TypeError, match="only keyword arguments"):
        make(30)
