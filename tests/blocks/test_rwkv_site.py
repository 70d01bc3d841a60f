"""Every number of the RWKV page (``docs_src/pages/rwkv.py``) against the real libraries:
transformers' ``RwkvForCausalLM`` (meta device) for RWKV-4, flash-linear-attention 0.6.0
(``.venv-ssm``, slow) for RWKV-6/7 and the questions; BlinkDL's own (uncitable at run time) numbers
through fla configured to match."""

from __future__ import annotations

import pytest
import sympy
from blocks_live import fla, hf_model, ssm_python

from docs_src.pages.rwkv import PILE, V6_DEMO, V6_PAIRS, V7_DEMO, V7_PAIRS, _expand, pile_config, rwkv_context

CONTEXT = rwkv_context()
S = {
    n: sympy.Symbol(n, integer=True, positive=True)
    for n in ["V", "D", "A", "F", "L", "C", "N", "H", "R_w", "R_a", "R_v", "R_g"]
}
NORMS = ("model.layers.1.attn_norm.", "model.layers.1.ffn_norm.")  # the block's LayerNorms, outside the pairs
needs_fla = pytest.mark.skipif(ssm_python() is None, reason=".venv-ssm (flash-linear-attention 0.6.0) is missing")


def n(text: str) -> int:
    return int(text.replace(",", ""))


def shown(tex: str) -> sympy.Expr:
    """A closed form as the page prints it (``5 C^{2} + 458 C``, ``2 C R_{a}``), read back: our own
    LaTeX of sums of products, parsed by SymPy's parser with the page's letters (never user text)."""
    import re

    text = re.sub(r"_\{(\w+)\}", r"_\1", tex).replace("^{", "**(").replace("}", ")")
    text = text.replace("\\left(", "(").replace("\\right)", ")")
    text = re.sub(r"(\w|\)) (?=[\w(])", r"\1*", text)
    return sympy.parse_expr(text, local_dict=dict(S))


def numel(shape) -> int:
    out = 1
    for x in shape:
        out *= x
    return out


@pytest.mark.slow
def test_rwkv4_releases_live() -> None:
    for row, name in zip(CONTEXT["v4"]["releases"], PILE, strict=True):
        config = {k: v for k, v in pile_config(name).items() if k != "model_type"}
        assert n(row["total"]) == hf_model("rwkv", config)["total"]
    assert CONTEXT["v4"]["anchor"] == "169,342,464"


def test_rwkv4_table_and_closed_forms_live() -> None:
    config = {
        "vocab_size": 13,
        "hidden_size": 6,
        "attention_hidden_size": 5,
        "intermediate_size": 9,
        "num_hidden_layers": 3,
    }
    live = dict(hf_model("rwkv", config)["parameters"])
    block = {k[len("rwkv.blocks.1.") :]: s for k, s in live.items() if k.startswith("rwkv.blocks.1.")}
    assert [r["hf"] for r in CONTEXT["v4"]["tensors"]] == list(block)
    values = {S["V"]: 13, S["D"]: 6, S["A"]: 5, S["F"]: 9, S["L"]: 3}
    assert shown(CONTEXT["v4"]["block"]).subs(values) == sum(numel(s) for s in block.values())
    assert shown(CONTEXT["v4"]["general"]).subs(values) == sum(numel(s) for s in live.values())
    defaults = hf_model("rwkv", {"vocab_size": 13, "hidden_size": 6, "num_hidden_layers": 3})["total"]
    assert shown(CONTEXT["v4"]["model"]).subs(values) == defaults


def test_issue_207_arithmetic_with_torch() -> None:
    import torch

    q = CONTEXT["q"]["q207"]
    c = q["n_embd"]

    def ffn(width):
        return sum(p.numel() for m in (torch.nn.Linear(c, width, bias=False, device="meta"),
                                        torch.nn.Linear(width, c, bias=False, device="meta")) for p in m.parameters())  # fmt: skip

    assert n(q["per_layer"]) == ffn(q["model"]) - ffn(q["checkpoint"])
    assert q["rule"] == q["checkpoint"] and q["four"] == q["model"]


@pytest.mark.slow
@needs_fla
def test_rwkv6_numbers_live() -> None:
    v6 = CONTEXT["v6"]
    config = {"hidden_size": V6_DEMO["n_embd"], "num_hidden_layers": V6_DEMO["n_layer"], "vocab_size": V6_DEMO["vocab_size"],
              "expand_k": 1.0, "expand_v": 1.0, "num_heads": V6_DEMO["n_embd"] // 64, "hidden_ratio": 3.5}  # fmt: skip
    assert n(v6["demo"]) == fla({"kind": "model", "model_type": "rwkv6", "config": config})["total"]
    small = {"hidden_size": 128, "num_hidden_layers": 2, "vocab_size": 7, "expand_k": 1.0, "expand_v": 1.0, "num_heads": 2,
             "intermediate_size": 96}  # fmt: skip
    live = dict(fla({"kind": "model", "model_type": "rwkv6", "config": small})["parameters"])
    names = [x for _, right in V6_PAIRS for x in _expand(right)]
    assert sorted(names) == sorted(
        k[len("model.layers.1.") :] for k in live if k.startswith("model.layers.1.") and not k.startswith(NORMS)
    )
    values = {S["C"]: 128, S["A"]: 128, S["F"]: 96}
    attention = sum(numel(s) for k, s in live.items() if k.startswith("model.layers.1.attn."))
    ffn = sum(numel(s) for k, s in live.items() if k.startswith("model.layers.1.ffn."))
    assert shown(v6["fla_matched"]).subs(values) == attention
    assert shown(v6["v6_time_mix"]).subs(values) == attention
    assert shown(v6["channel_mix"]).subs(values) == ffn
    default = fla({"kind": "layer", "cls": "RWKV6Attention", "kwargs": {"hidden_size": 128, "num_heads": 2}})["total"]
    assert shown(v6["fla_default"]).subs(values) == default
    for c, (_, up) in v6["ffn_round"].items():
        got = dict(fla({"kind": "model", "model_type": "rwkv6", "config": {"hidden_size": c, "num_hidden_layers": 1,
                                                                           "vocab_size": 2, "num_heads": 1}})["parameters"])  # fmt: skip
        assert got["model.layers.0.ffn.value.weight"] == (c, up)


@pytest.mark.slow
@needs_fla
def test_rwkv7_numbers_live() -> None:
    v7, q = CONTEXT["v7"], CONTEXT["q"]["q285"]
    config = {"hidden_size": V7_DEMO["n_embd"], "num_hidden_layers": V7_DEMO["n_layer"], "vocab_size": V7_DEMO["vocab_size"],
              "head_dim": 64, "decay_low_rank_dim": 64, "a_low_rank_dim": 64, "v_low_rank_dim": 32, "gate_low_rank_dim": 128,
              "hidden_ratio": 4}  # fmt: skip
    live = fla({"kind": "model", "model_type": "rwkv7", "config": config})
    assert n(v7["released"]) == live["total"] == n(q["world"])
    shapes = dict(live["parameters"])
    value_lora = sum(numel(s) for k, s in shapes.items() if k.startswith("model.layers.1.attn.v_lora."))
    assert n(v7["layer0"]) == value_lora == n(q["v_lora"]) and n(v7["train"]) == live["total"] + value_lora
    pile = fla({"kind": "model", "model_type": "rwkv7", "config": {**config, "vocab_size": q["demo_vocab"]}})["total"]
    assert n(q["vocab_diff"]) == live["total"] - pile and n(q["demo"]) == pile + value_lora
    names = [x for _, right in V7_PAIRS for x in _expand(right)]
    assert sorted(names) == sorted(
        k[len("model.layers.1.") :] for k in shapes if k.startswith("model.layers.1.") and not k.startswith(NORMS)
    )
    ranks = {S["R_w"]: 64, S["R_a"]: 64, S["R_v"]: 32, S["R_g"]: 128, S["C"]: 768}
    block = sum(numel(s) for k, s in shapes.items() if k.startswith("model.layers.1."))
    assert shown(v7["block"]).subs(ranks) == block
    for row in v7["ranks"]:
        got = dict(
            fla({"kind": "layer", "cls": "RWKV7Attention", "kwargs": {"hidden_size": row["c"], "head_dim": 64}})[
                "parameters"
            ]
        )
        assert (got["w_lora.lora.0.weight"][0], got["a_lora.lora.0.weight"][0], got["v_lora.lora.0.weight"][0],
                got["g_lora.lora.0.weight"][0]) == (row["decay"], row["a"], row["v"], row["gate"])  # fmt: skip
