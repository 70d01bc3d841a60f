"""The tree's active count and inference-cache walk, held against torch where torch has the answer.

A fused experts tensor of shape (E, ...) holds one slice per expert: a token visiting top_k of them
uses top_k slices, which is what ``active`` counts; the KV cache's keys and values of a GQA layer are
(batch, kv_heads, tokens, head_dim) tensors, as transformers' DynamicLayer holds them.
"""

from __future__ import annotations

import pytest
import sympy

from derive.tree import Module, Param, State, active, cache_elements, count, named_states

torch = pytest.importorskip("torch")


def _experts(e: int, d: int, f: int, top_k: int) -> Module:
    return Module(
        "experts",
        "Experts",
        (Param("gate_up_proj", (e, 2 * f, d)), Param("down_proj", (e, d, f))),
        routed=(top_k, e),
    )


def test_active_counts_top_k_slices_of_fused_experts() -> None:
    e, d, f, k = 8, 16, 24, 2
    gate_up = torch.empty(e, 2 * f, d, device="meta")
    down = torch.empty(e, d, f, device="meta")
    visited = gate_up[:k].numel() + down[:k].numel()  # the slices a token's top_k experts read
    router = torch.nn.Linear(d, e, bias=False, device="meta")
    layer = Module(
        "mlp", "SparseMoeBlock", children=(Module("gate", "Router", (Param("weight", (e, d)),)), _experts(e, d, f, k))
    )
    assert count(layer) == router.weight.numel() + gate_up.numel() + down.numel()
    assert active(layer) == router.weight.numel() + visited


def test_active_equals_count_without_experts_and_ties_once() -> None:
    emb = Module("embed_tokens", "Embedding", (Param("weight", (100, 8)),))
    head = Module("lm_head", "Linear", (Param("weight", (100, 8), tied_to="embed_tokens.weight"),))
    model = Module("", "Model", children=(emb, head, _experts(4, 8, 8, 1).with_repeat(3)))
    tied = torch.nn.Embedding(100, 8, device="meta")
    expert_slice = torch.empty(1, 16, 8, device="meta").numel() + torch.empty(1, 8, 8, device="meta").numel()
    assert active(model) == tied.weight.numel() + 3 * expert_slice
    dense = Module("", "Model", children=(emb, head))
    assert active(dense) == count(dense) == 800


def test_active_symbolic_and_refusal() -> None:
    e, k, d = sympy.symbols("E k d", positive=True, integer=True)
    experts = Module("experts", "Experts", (Param("down_proj", (e, d, d)),), routed=(k, e))
    assert sympy.simplify(active(experts) - k * d**2) == 0
    odd = Module("experts", "Experts", (Param("w", (7,)),), routed=(1, 2))
    with pytest.raises(ValueError, match="not 2 equal experts"):
        active(odd)
    assert active(odd.replace(counted=False)) == 0


def test_cache_elements_match_the_tensors_a_cache_holds() -> None:
    batch, tokens, kv_heads, head_dim, window = 3, 50, 2, 4, 16
    keys = torch.empty(batch, kv_heads, tokens, head_dim, device="meta")
    kept = torch.empty(batch, kv_heads, window - 1, head_dim, device="meta")
    full = Module(
        "self_attn",
        "Attention",
        cache=(
            State("keys", ("batch", kv_heads, "tokens", head_dim)),
            State("values", ("batch", kv_heads, "tokens", head_dim)),
        ),
    )
    sliding = full.replace(cache=tuple(State(s.name, s.shape, window=window - 1) for s in full.cache))
    conv = Module("mixer", "Mixer", cache=(State("recurrent_states", ("batch", 4, 8), dtype="float32"),))
    model = Module(
        "",
        "Model",
        children=(
            Module("layers.{k}", "Layer", children=(full,), repeat=2),
            Module("layers.{k}", "Layer", children=(sliding,), repeat=1, start=2),
            Module("layers.{k}", "Layer", children=(conv,), repeat=1, start=3),
        ),
    )
    got = cache_elements(model, batch, tokens)
    assert got == {None: 2 * 2 * keys.numel() + 2 * kept.numel(), "float32": torch.empty(batch, 4, 8).numel()}
    paths = [(p, s.name) for p, s in named_states(model)]
    assert paths[0] == ("layers.0.self_attn", "keys") and paths[-1] == ("layers.3.mixer", "recurrent_states")
    assert len(paths) == 7
    assert State("keys", ("batch", 2, "tokens", 4), window=window - 1).elements(1, 5) == 40
    assert not State("h", ("batch", 8)).per_token and State("k", ("tokens",)).per_token


def test_cache_elements_symbolic() -> None:
    b, t, w = sympy.symbols("B T W", positive=True, integer=True)
    state = State("keys", ("batch", 8, "tokens", 128), window=w)
    model = Module("layers.{k}", "Layer", cache=(state,), repeat=4)
    assert cache_elements(model, b, t)[None] == 4096 * b * sympy.Min(t, w)


def test_a_tree_that_says_its_active_count_is_not_known_has_none() -> None:
    """A measured model that routes experts (derive.read.measured) marks its root: its active count is None, never
    its total in place of one, and so are its parts' active counts; the total is still known."""
    from derive.analysis.cost import cost
    from derive.read.report import Report
    from derive.tree import Module, Param, State, active, count, parts

    attn = Module("self_attn", "Attention", (Param("q_proj.weight", (8, 8)),), part="attention",
                  cache=(State("keys", ("batch", 2, "tokens", 4)),))  # fmt: skip
    experts = Module("experts", "Experts", (Param("down_proj", (4, 8, 8)),))
    model = Module("", "Model", children=(attn, experts), unknown=frozenset({"active"}))
    assert count(model) == 64 + 256
    assert active(model) is None
    assert active(Module("", "Outer", children=(model,))) is None  # a marked child makes the whole unknown
    with pytest.raises(ValueError, match="active parameters of this model are not known"):
        parts(model, used=True)
    report = Report.from_module(model, "transformers")
    assert report.total == 320 and report.active is None and report.parts is None
    assert cost(model, seq_len=3, batch=1).active is None
    assert active(model.replace(unknown=frozenset())) == 320


def test_a_tree_that_says_its_cache_is_not_known_is_refused_a_cache() -> None:
    """A measured model whose cache could not be read: every cache figure refused, with the reason, never 0."""
    from derive.analysis.cost import cost
    from derive.tree import Module, Param, cache_elements

    model = Module("", "Model", (Param("w", (4, 4)),), unknown=frozenset({"cache"}), note="cache not measured (why)")
    with pytest.raises(ValueError, match=r"not known: its cache not measured \(why\)"):
        cache_elements(model, 1, 10)
    with pytest.raises(ValueError, match="cost of this model is not known"):
        cost(Module("", "Outer", children=(model,)), seq_len=3, batch=1)
