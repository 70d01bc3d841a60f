"""The Griffin / RecurrentGemma page: the RG-LRU recurrent block, local attention and the gated MLP in
transformers' and DeepMind's names, the closed form with the block pattern, released models, pitfalls.

Every number is computed by :mod:`derive.blocks.griffin` when the site is built;
``tests/blocks/test_griffin_site.py`` holds each against transformers' ``RecurrentGemmaForCausalLM``
built on the meta device.
"""

from __future__ import annotations

from typing import Any

import sympy

from derive.blocks import griffin
from derive.blocks.griffin_deepmind import PRESETS
from derive.render.latex import shape_latex
from derive.tree import Module, count, named_parameters

from ..site import Page, number
from .worked import worked

__all__ = ["RELEASES", "preset_config", "layer_formulas", "griffin_context"]

_S = {
    name: sympy.Symbol(name, integer=True, positive=True) for name in ("V", "D", "W", "H", "K", "F", "L", "d", "H_kv")
}

#: The released checkpoints: google/recurrentgemma-2b's config.json (as transformers reads it) and
#: DeepMind's presets (``recurrentgemma/common.py`` 46–114; vocab_size 256000, ``from_preset``).
RELEASES = ("recurrentgemma-2b", "RECURRENT_GEMMA_2B_V1", "RECURRENT_GEMMA_9B_V1", "GRIFFIN_PAPER_7B", "HAWK_PAPER_7B")


def preset_config(name: str) -> dict[str, Any]:
    """The transformers config that builds DeepMind's preset ``name`` (one K/V head, the MLP of
    ``mlp_expanded_width`` = ``intermediate_size // 2``), or the 2b's config.json.

    Parameters
    ----------
    name : str
        ``"recurrentgemma-2b"`` or a key of :data:`derive.blocks.griffin_deepmind.PRESETS`.

    Returns
    -------
    dict
    """
    if name == "recurrentgemma-2b":
        return dict(griffin.RECURRENTGEMMA_2B)
    p = PRESETS[name]
    return {"model_type": "recurrent_gemma", "vocab_size": 256000, "hidden_size": p["width"],
            "intermediate_size": 2 * p["mlp_expanded_width"], "num_attention_heads": p["num_heads"],
            "num_key_value_heads": 1, "lru_width": p["lru_width"], "num_hidden_layers": p["num_layers"],
            "block_types": list(p["block_types"])}  # fmt: skip


def _pairs(hf: Module, deepmind: Module) -> list[dict]:
    """transformers' and DeepMind's names of the same tensors, in order (equal numbers, checked)."""
    rows = []
    for (n, p), (m, q) in zip(named_parameters(hf), named_parameters(deepmind), strict=True):
        assert _w_over_h(p.numel - q.numel) == 0, (n, m)  # H dividing D and W
        rows.append({"hf": n, "deepmind": m, "shape": _shape(p.shape), "dm_shape": _shape(q.shape),
                     "numel": sympy.latex(sympy.factor(_w_over_h(p.numel)))})  # fmt: skip
    return rows


def _shape(shape: tuple) -> str:
    return shape_latex(tuple(_w_over_h(x) if isinstance(x, sympy.Basic) else x for x in shape))


def _w_over_h(expr: Any) -> Any:
    """``floor(W/H)`` and ``floor(D/H)`` written as ``W/H`` and ``D/H`` (H dividing both, as in every
    released model)."""
    w, d, h = _S["W"], _S["D"], _S["H"]
    return sympy.expand(sympy.sympify(expr).subs({sympy.floor(w / h): w / h, sympy.floor(d / h): d / h}))


def layer_formulas() -> dict[str, Any]:
    """One recurrent layer and one attention layer (their two RMSNorms and MLP included), in D, W, H,
    H_kv, d, K and F (the MLP width: ``intermediate_size // 2``).

    Returns
    -------
    dict
        ``recurrent``, ``attention``, ``mlp``, ``rg_lru`` (SymPy expressions, H dividing W).
    """
    s = _S
    mlp = count(griffin.mlp_block(s["D"], s["F"]))
    norms = 2 * s["D"]
    return {
        "recurrent": _w_over_h(count(griffin.recurrent_block(s["D"], s["H"], s["W"], s["K"])) + mlp + norms),
        "attention": sympy.expand(count(griffin.attention_block(s["D"], s["H"], s["H_kv"], s["d"])) + mlp + norms),
        "mlp": mlp,
        "rg_lru": _w_over_h(count(griffin.rg_lru(s["W"], s["H"]))),
        "recurrent_block": _w_over_h(count(griffin.recurrent_block(s["D"], s["H"], s["W"], s["K"]))),
    }


def griffin_context() -> dict:
    """Everything the Griffin page shows.

    Returns
    -------
    dict
    """
    s = _S
    rec_hf = griffin.recurrent_block(s["D"], s["H"], s["W"], s["K"], name="")
    rec_dm = griffin.recurrent_block(s["D"], s["H"], s["W"], s["K"], spelling="deepmind", name="")
    att_hf = griffin.attention_block(s["D"], s["H"], 1, name="")
    att_dm = griffin.attention_block(s["D"], s["H"], spelling="deepmind", name="")
    mlp = [{"name": n, "shape": shape_latex(p.shape), "numel": sympy.latex(p.numel)}
           for n, p in named_parameters(griffin.mlp_block(s["D"], s["F"], name=""))]  # fmt: skip
    mlp_dm = [{"name": n, "shape": shape_latex(p.shape), "numel": sympy.latex(p.numel)}
              for n, p in named_parameters(griffin.mlp_block(s["D"], s["F"], spelling="deepmind", name=""))]  # fmt: skip
    f = layer_formulas()
    releases = []
    for name in RELEASES:
        config = preset_config(name)
        model = griffin.recurrent_gemma_for_causal_lm(config)
        kinds = griffin.layer_types(config["block_types"], config["num_hidden_layers"])
        assert isinstance(kinds, list)
        releases.append({"name": name, "config": config, "total": number(count(model)), "recurrent": kinds.count("recurrent"),
                         "attention": kinds.count("attention"), "mlp": config["intermediate_size"] // 2})  # fmt: skip
    two_b = griffin.recurrent_gemma_for_causal_lm(griffin.RECURRENTGEMMA_2B)
    default = griffin.recurrent_gemma_for_causal_lm({})
    full_kv = griffin.recurrent_gemma_for_causal_lm({**griffin.RECURRENTGEMMA_2B, "num_key_value_heads": 10})
    half_mlp = griffin.recurrent_gemma_for_causal_lm({**griffin.RECURRENTGEMMA_2B, "intermediate_size": 7680})
    untied = griffin.recurrent_gemma_for_causal_lm({**griffin.RECURRENTGEMMA_2B, "tie_word_embeddings": False})
    dense = 2 * 2560 * 2560 + 2 * 2560  # the two gates as dense W x W maps with bias, for the 2b's W = 2560
    n = sympy.Symbol("L", integer=True, positive=True)
    counts = griffin.layer_types(["recurrent", "recurrent", "attention"], n)
    assert isinstance(counts, dict)
    return {
        "worked": worked("blocks/griffin.md"),
        "equations": griffin.EQUATIONS,
        "recurrent": _pairs(rec_hf, rec_dm),
        "attention": _pairs(att_hf, att_dm),
        "mlp": mlp,
        "mlp_dm": mlp_dm,
        "f": {k: sympy.latex(v) for k, v in f.items()},
        "l_rec": sympy.latex(counts[0] + counts[1]),
        "l_att": sympy.latex(counts[2]),
        "releases": releases,
        "two_b": number(count(two_b)),
        "default": number(count(default)),
        "full_kv": number(count(full_kv) - count(two_b)),
        "half_mlp": number(count(two_b) - count(half_mlp)),
        "untied": number(count(untied)),
        "gates": number(count(griffin.rg_lru(2560, 10)) - 2560),
        "dense_gates": number(dense),
    }


ORDER = 17
PAGES = [Page("blocks/griffin.md", "Griffin / RecurrentGemma", "block-griffin.md.j2", griffin_context, (), "Blocks")]
