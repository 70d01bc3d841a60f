"""The RWKV page: RWKV-4 as transformers builds it, RWKV-5/6/7 as BlinkDL's RWKV-LM declares them and
flash-linear-attention builds them; tensors in each library's names, closed forms, released models
and the questions users ask (BlinkDL/RWKV-LM#207, #285).

Every number is computed by :mod:`derive.blocks.rwkv`, :mod:`~derive.blocks.rwkv6` and
:mod:`~derive.blocks.rwkv7` when the site is built; ``tests/blocks/test_rwkv_site.py`` holds each
against transformers (meta device) and fla 0.6.0 (``.venv-ssm``).
"""

from __future__ import annotations

from typing import Any

import sympy

from derive.blocks import rwkv, rwkv6, rwkv6_fla, rwkv7, rwkv7_fla
from derive.render.latex import shape_latex
from derive.tree import Module, count, named_parameters

from ..site import Page, number
from .worked import worked

__all__ = ["PILE", "PILE_SOURCE", "V6_DEMO", "V7_DEMO", "V6_PAIRS", "V7_PAIRS", "ISSUE_207", "ISSUE_285",
           "pile_config", "pairs_table", "rwkv_context"]  # fmt: skip

#: RWKV/rwkv-4-*-pile: (hidden_size, num_hidden_layers); vocab_size 50277, the rest RwkvConfig's defaults.
PILE = {"169m": (768, 12), "430m": (1024, 24), "1b5": (2048, 24), "3b": (2560, 32), "7b": (4096, 32), "14b": (5120, 40)}
PILE_SOURCE = (
    "huggingface/transformers `src/transformers/models/rwkv/convert_rwkv_checkpoint_to_hf.py` (commit 0851a87: "
    "`NUM_HIDDEN_LAYERS_MAPPING` and `HIDEN_SIZE_MAPPING`, lines 30–46; `vocab_size = 50277` and the `RwkvConfig` "
    "built from them in `convert_rmkv_checkpoint_to_hf_format`), the sizes of BlinkDL/RWKV-LM `RWKV-v4neo/run.py` 41–63"
)

#: The model of BlinkDL/RWKV-LM ``RWKV-v5/rwkv_v6_demo.py`` 256–259 (RWKV-6 World 1.6B's sizes).
V6_DEMO = {"vocab_size": 65536, "n_embd": 2048, "n_layer": 24}
#: RWKV-x070-World-0.1B: ``RWKV-v7/rwkv_v7_demo.py`` 25–35 (ranks 64, 64, 32, 128 = the rule of C 768).
V7_DEMO = {"vocab_size": 65536, "n_embd": 768, "n_layer": 12}

#: BlinkDL/RWKV-LM#207: RWKV-5-World-3B loaded by RWKV-v4neo's trainer (n_embd 2560).
ISSUE_207 = {"n_embd": 2560, "checkpoint": 8960, "model": 10240}
#: BlinkDL/RWKV-LM#285: rwkv_v7_demo.py set vocab_size 50304; RWKV-x070-World-0.1B holds 65536.
ISSUE_285 = {"n_embd": 768, "n_layer": 12, "demo_vocab": 50304, "world_vocab": 65536, "pile_vocab": 50277}

#: BlinkDL's RWKV-6 tensors (block k >= 1) and fla's that hold the same numbers.
V6_PAIRS = (
    ("att.time_maa_x", "attn.x_proj.0.mu"),
    ("att.time_maa_w, …_k, …_v, …_r, …_g", "attn.x_bias"),
    ("att.time_maa_w1", "attn.x_proj.0.linear.weight"),
    ("att.time_maa_w2", "attn.x_proj.2.weight"),
    ("att.time_decay", "attn.w_proj.linear.lora.2.bias"),
    ("att.time_decay_w1", "attn.w_proj.linear.lora.0.weight"),
    ("att.time_decay_w2", "attn.w_proj.linear.lora.2.weight"),
    ("att.time_faaaa", "attn.bonus"),
    ("att.receptance.weight", "attn.r_proj.linear.weight"),
    ("att.key.weight", "attn.k_proj.linear.weight"),
    ("att.value.weight", "attn.v_proj.linear.weight"),
    ("att.gate.weight", "attn.g_proj.linear.weight"),
    ("att.output.weight", "attn.o_proj.weight"),
    ("att.ln_x.weight, att.ln_x.bias", "attn.g_norm.weight, attn.g_norm.bias"),
    ("ffn.time_maa_k", "ffn.key.mu"),
    ("ffn.time_maa_r", "ffn.receptance.mu"),
    ("ffn.key.weight", "ffn.key.linear.weight"),
    ("ffn.receptance.weight", "ffn.receptance.linear.weight"),
    ("ffn.value.weight", "ffn.value.weight"),
)

#: BlinkDL's RWKV-7 tensors (block k >= 1) and fla's.
V7_PAIRS = (
    ("att.x_r, …_w, …_k, …_v, …_a, …_g", "attn.x_r, …_w, …_k, …_v, …_a, …_g"),
    *((f"att.{s}1, att.{s}2, att.{s}0", f"attn.{s}_lora.lora.0.weight, attn.{s}_lora.lora.2.weight, attn.{s}_lora.lora.2.bias")
      for s in ("w", "a", "v")),
    ("att.g1, att.g2", "attn.g_lora.lora.0.weight, attn.g_lora.lora.2.weight"),
    ("att.k_k, att.k_a, att.r_k", "attn.k_k, attn.k_a, attn.r_k"),
    ("att.receptance.weight, att.key.weight, att.value.weight, att.output.weight",
     "attn.r_proj.weight, attn.k_proj.weight, attn.v_proj.weight, attn.o_proj.weight"),
    ("att.ln_x.weight, att.ln_x.bias", "attn.g_norm.weight, attn.g_norm.bias"),
    ("ffn.x_k, ffn.key.weight, ffn.value.weight", "ffn.x_k, ffn.key.weight, ffn.value.weight"),
)  # fmt: skip

_S = {
    name: sympy.Symbol(name, integer=True, positive=True)
    for name in ["V", "D", "A", "F", "L", "C", "N", "H", "R_w", "R_a", "R_v", "R_g"]
}


def pile_config(name: str) -> dict[str, Any]:
    """The ``config.json`` keys of ``RWKV/rwkv-4-<name>-pile`` that shape the model.

    Parameters
    ----------
    name : str
        A key of :data:`PILE`.

    Returns
    -------
    dict
    """
    d, layers = PILE[name]
    return {"model_type": "rwkv", "vocab_size": 50277, "hidden_size": d, "num_hidden_layers": layers}


def _tensors(module: Module) -> dict[str, Any]:
    return dict(named_parameters(module))


def pairs_table(pairs: tuple[tuple[str, str], ...], ours: Module, theirs: Module) -> list[dict]:
    """One row per pair of names: both names, the shapes, and the parameters of each side.

    Parameters
    ----------
    pairs : tuple of (str, str)
        BlinkDL's names and fla's, comma-separated where several tensors pair up; ``…_x`` repeats
        the first name's stem with another suffix.
    ours, theirs : derive.tree.Module
        BlinkDL's block and fla's block (names relative to the block).

    Returns
    -------
    list of dict
        ``blinkdl``, ``fla``, ``shape``, ``fla_shape`` (LaTeX), ``numel`` (equal on both sides).

    Raises
    ------
    AssertionError
        A pair whose sides hold different numbers of parameters.
    """
    a, b = _tensors(ours), _tensors(theirs)
    rows = []
    for left, right in pairs:
        ln, rn = _expand(left), _expand(right)
        total_l, total_r = sum(a[n].numel for n in ln), sum(b[n].numel for n in rn)
        assert sympy.expand(total_l - total_r) == 0, (left, right)
        rows.append(
            {
                "blinkdl": left,
                "fla": right,
                "shape": _shapes([a[n].shape for n in ln]),
                "fla_shape": _shapes([b[n].shape for n in rn]),
                "numel": sympy.latex(sympy.factor(total_l)),
            }
        )
    return rows


def _shapes(shapes: list[tuple]) -> str:
    """Shapes in LaTeX, a run of equal ones written once with its count: ``(1, 1, C) \\times 5``."""
    parts: list[list[Any]] = []
    for shape in shapes:
        if parts and parts[-1][0] == shape:
            parts[-1][1] += 1
        else:
            parts.append([shape, 1])
    return ", ".join(shape_latex(shape) + (rf" \times {n}" if n > 1 else "") for shape, n in parts)


def _expand(names: str) -> list[str]:
    """``"att.x_r, …_w"`` -> ``["att.x_r", "att.x_w"]``."""
    out: list[str] = []
    for part in (p.strip() for p in names.split(",")):
        if part.startswith("…"):
            stem = out[0].rsplit("_", 1)[0]
            out.append(stem + part[1:])
        else:
            out.append(part)
    return out


def _v4() -> dict:
    d, a, f = _S["D"], _S["A"], _S["F"]
    hf = rwkv.rwkv4_block(d, a, f, name="")
    blink = rwkv.rwkv4_block(d, a, f, spelling="blinkdl", name="")
    rows = [
        {"hf": n, "blinkdl": m, "shape": shape_latex(p.shape), "numel": sympy.latex(p.numel)}
        for (n, p), (m, _) in zip(named_parameters(hf), named_parameters(blink), strict=True)
    ]
    model = rwkv.rwkv_for_causal_lm({"vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12})
    releases = []
    for name in PILE:
        built = rwkv.rwkv_for_causal_lm(pile_config(name))
        releases.append(
            {"name": f"rwkv-4-{name}-pile", "d": PILE[name][0], "layers": PILE[name][1], "total": number(count(built))}
        )
    general = rwkv.rwkv_for_causal_lm({"vocab_size": _S["V"], "hidden_size": d, "num_hidden_layers": _S["L"],
                                       "attention_hidden_size": a, "intermediate_size": f})  # fmt: skip
    return {
        "equations": rwkv.EQUATIONS,
        "tensors": rows,
        "block": sympy.latex(count(hf)),
        "general": sympy.latex(sympy.collect(sympy.expand(count(general)), _S["L"])),
        "model": sympy.latex(model.formula.expr),
        "anchor": number(count(model)),
        "releases": releases,
        "source": PILE_SOURCE,
    }


def _v6() -> dict:
    c, a = _S["C"], _S["A"]
    h = sympy.Symbol("H", integer=True, positive=True)
    blink = rwkv.block_frame(c, rwkv6.rwkv6_time_mix(c, c), rwkv6.channel_mix(c, _S["F"]), first=False, name="")
    fla_att = rwkv6_fla.rwkv6_attention(hidden_size=c, expand_k=1.0, expand_v=1.0, num_heads=h)
    theirs = Module("", "RWKV6Block", children=(fla_att.replace(name="attn"), rwkv6_fla.rwkv6_feed_forward(c, _S["F"])))
    demo = rwkv6.rwkv6_blinkdl(V6_DEMO["vocab_size"], V6_DEMO["n_embd"], V6_DEMO["n_layer"])
    return {
        "equations": rwkv6.EQUATIONS,
        "pairs": pairs_table(V6_PAIRS, blink, theirs),
        "v5_time_mix": sympy.latex(count(rwkv6.rwkv5_time_mix(c, a))),
        "v6_time_mix": sympy.latex(count(rwkv6.rwkv6_time_mix(c, a))),
        "channel_mix": sympy.latex(count(rwkv6.channel_mix(c, _S["F"]))),
        "fla_default": sympy.latex(count(rwkv6_fla.rwkv6_attention(hidden_size=c, num_heads=h))),
        "fla_matched": sympy.latex(count(fla_att)),
        "demo": number(count(demo)),
        "demo_config": V6_DEMO,
        "ffn_round": {c_: (rwkv.ffn_width(c_, "3.5"), 32 * ((int(c_ * 3.5) + 31) // 32)) for c_ in (768, 1000, 2048, 2560, 4000)},
    }  # fmt: skip


def _v7() -> dict:
    c, ranks = (
        _S["C"],
        {k: _S[f"R_{s}"] for k, s in (("decay_rank", "w"), ("a_rank", "a"), ("v_rank", "v"), ("gate_rank", "g"))},
    )
    blink = rwkv.block_frame(c, rwkv7.rwkv7_time_mix(c, **ranks), rwkv7.rwkv7_channel_mix(c), first=False, name="")
    fla_att = rwkv7_fla.rwkv7_attention(hidden_size=c, decay_low_rank_dim=_S["R_w"], a_low_rank_dim=_S["R_a"],
                                    v_low_rank_dim=_S["R_v"], gate_low_rank_dim=_S["R_g"], layer_idx=1, num_hidden_layers=2)  # fmt: skip
    theirs = Module("", "RWKV7Block", children=(fla_att.replace(name="attn"), rwkv7_fla.rwkv7_feed_forward(c, 4 * c)))
    n = V7_DEMO
    train, released = rwkv7.rwkv7_blinkdl(n["vocab_size"], n["n_embd"], n["n_layer"]), rwkv7.rwkv7_blinkdl(
        n["vocab_size"], n["n_embd"], n["n_layer"], layer0_value_lora=False)  # fmt: skip
    ranks_table = [
        {"c": c_, **{k: rwkv7.lora_rank(c_, f) for k, f in rwkv7.RANK_FACTORS.items()}}
        for c_ in (768, 1024, 2048, 2560, 4096)
    ]
    block = count(
        rwkv.block_frame(c, rwkv7.rwkv7_time_mix(c, **ranks), rwkv7.rwkv7_channel_mix(c), first=False, name="")
    )
    return {
        "equations": rwkv7.EQUATIONS,
        "pairs": pairs_table(V7_PAIRS, blink, theirs),
        "block": sympy.latex(block),
        "ranks": ranks_table,
        "train": number(count(train)),
        "released": number(count(released)),
        "layer0": number(count(train) - count(released)),
        "demo_config": n,
    }


def _questions() -> dict:
    q207, q285 = ISSUE_207, ISSUE_285
    c = q207["n_embd"]
    per_layer = 2 * c * (q207["model"] - q207["checkpoint"])
    world = rwkv7.rwkv7_blinkdl(q285["world_vocab"], q285["n_embd"], q285["n_layer"], layer0_value_lora=False)
    demo = rwkv7.rwkv7_blinkdl(q285["demo_vocab"], q285["n_embd"], q285["n_layer"])
    return {
        "q207": {
            **q207,
            "rule": rwkv.ffn_width(c, "3.5"),
            "four": rwkv.ffn_width(c, "4"),
            "per_layer": number(per_layer),
        },
        "q285": {
            **q285,
            "world": number(count(world)),
            "demo": number(count(demo)),
            "vocab_diff": number(2 * q285["n_embd"] * (q285["world_vocab"] - q285["demo_vocab"])),
            "v_lora": number(2 * q285["n_embd"] * rwkv7.lora_rank(q285["n_embd"], 1.7) + q285["n_embd"]),
            "v_rank": rwkv7.lora_rank(q285["n_embd"], 1.7),
        },  # fmt: skip
    }


def rwkv_context() -> dict:
    """Everything the RWKV page shows.

    Returns
    -------
    dict
        ``v4``, ``v6``, ``v7`` (equations, tensor tables, closed forms, released models) and ``q``
        (the two questions' numbers), ``worked`` (RWKV-4 169m's block, :mod:`docs_src.pages.worked`).
    """
    return {"v4": _v4(), "v6": _v6(), "v7": _v7(), "q": _questions(), "worked": worked("blocks/rwkv.md")}


ORDER = 16
PAGES = [Page("blocks/rwkv.md", "RWKV (v4 to v7)", "block-rwkv.md.j2", rwkv_context, (), "Blocks")]
