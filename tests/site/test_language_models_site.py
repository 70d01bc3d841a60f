"""The "Language models" pages (docs_src/pages/language_models.py) against transformers 5.23.0.

Each released model the pages show is built by ``AutoModelForCausalLM.from_config`` on the ``meta``
device: every tensor's name and shape, the total and the active count (each fused ``experts`` tensor
at ``num_experts_per_tok`` of its experts) are read off it. It is then run there, in bf16, with
``use_cache=True`` on one token, then a second decoded as ``generate`` does: the bytes of every
tensor its cache holds (and every state a module keeps) after each give the state per sequence
(constant in T) and the keys and values per token. The attention-only models are run at every
context length of the memory page (a meta run
costs no memory). Nothing expected here is read off derive.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cache_live
import hf_live
import pytest

from derive.analysis.cost import cost
from docs_src.pages import language_models as lm

#: Models whose forward on the meta device does not loop over the tokens (attention only): run at every length.
ATTENTION_ONLY = ("llama-2-7b", "mistral-7b", "mixtral-8x7b")


@functools.cache
def _built(key: str, dtype: str = "bfloat16"):  # type: ignore[no-untyped-def]
    import torch

    config = dict(lm.RELEASED[key].config)
    model = hf_live.build(config.pop("model_type"), config)
    return model.to(getattr(torch, dtype))


@functools.cache
def _held(model, tokens: int) -> int:  # type: ignore[no-untyped-def]
    """The bytes the cache holds after a prefill of ``tokens`` tokens."""
    import torch
    import torch.fx.experimental._config as fx_config

    # Qwen4-Exp's indexer picks its blocks with torch.nonzero, which the meta device cannot size unless told to
    # take every element as non-zero: the blocks picked change no tensor the cache holds (tests/families/
    # test_qwen4_exp.py measures that cache on the CPU).
    with fx_config.patch(meta_nonzero_assume_all_nonzero=True), torch.device("meta"):
        return sum(cache_live.cache_bytes(model, 1, tokens).values())


@functools.cache
def _one_and_two(model) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The bytes the cache holds after one token and after a second, decoded as ``generate`` does (one run:
    the recurrent layers' chunked prefill, slow on the meta device, done once)."""
    import torch
    import torch.fx.experimental._config as fx_config

    with fx_config.patch(meta_nonzero_assume_all_nonzero=True), torch.device("meta"):
        one, two = cache_live.cache_bytes_each(model, 1, 1, 1)
    return sum(one.values()), sum(two.values())


@pytest.mark.parametrize("key", list(lm.RELEASED))
def test_released_model_as_transformers_builds_it(key: str) -> None:
    live = _built(key)
    report = lm.released(key)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(live)
    assert report.total == hf_live.total(live)
    assert report.active == hf_live.active(live)
    whole, used = hf_live.parts(live)
    assert {p["part"]: (p["parameters"], p["active"]) for p in report.parts} == {k: (whole[k], used[k]) for k in whole}


@pytest.mark.parametrize("key", list(lm.RELEASED))
def test_released_model_cache_as_transformers_holds_it(key: str) -> None:
    live = _built(key)
    one, two = _one_and_two(live)
    derived = cost(lm.released(key), 1, 1, "bfloat16")
    assert two - one == derived.kv_bytes_per_token
    assert 2 * one - two == derived.state_bytes


def test_family_pages_show_the_live_numbers() -> None:
    """Each family page's rows and example: total, active, state and KV per token, as measured above; the example's
    cache of one sequence at 32K and 256K tokens (a meta run of that length for the attention-only models, the
    state and the keys and values per token measured on 1 and 2 tokens for the others)."""
    for family in lm.FAMILIES:
        context = lm.family_context(family)
        for row in context["rows"]:
            live = _built(row["key"])
            one, two = _one_and_two(live)
            shown = {k: int(row[k].replace(",", "")) for k in ("total", "active", "state", "kv")}
            assert shown == {"total": hf_live.total(live), "active": hf_live.active(live),
                             "state": 2 * one - two, "kv": two - one}, (family.key, row["key"])  # fmt: skip
        example = context["example"]
        live = _built(example["key"])
        one, two = _one_and_two(live)
        for c in example["long"]:
            t = c["tokens"]
            held = _held(live, t) if example["key"] in ATTENTION_ONLY else 2 * one - two + (two - one) * t
            assert int(c["bytes"].replace(",", "")) == held, (family.key, t)
            assert c["gib"] == f"{held / 2**30:,.2f}"
        whole, used = hf_live.parts(_built(context["rows"][0]["key"]))
        assert {p["part"]: int(p["parameters"].replace(",", "")) for p in context["parts"]} == whole, family.key
        assert {p["part"]: int(p["active"].replace(",", "")) for p in context["parts"]} == used, family.key
        layers = [name for name, _ in hf_live.tensors(_built(context["rows"][0]["key"]))]
        for kind in context["kinds"]:
            prefix = kind["prefix"]
            assert prefix.endswith(f".{kind['first']}.")
            assert [t["name"] for t in kind["tensors"]] == [n[len(prefix) :] for n in layers if n.startswith(prefix)]


def test_layer_pattern_is_the_models() -> None:
    """Jamba-v0.1: attention at layers 4, 12, 20, 28; experts at every odd layer (transformers' classes)."""
    live = _built("jamba-v0.1")
    kinds = [(type(layer).__name__, type(layer.feed_forward).__name__) for layer in live.model.layers]
    context = lm.family_context(lm.FAMILIES[0])
    letters = {k["letter"]: k for k in context["kinds"]}
    for (cls, ff), letter in zip(kinds, context["pattern"], strict=True):
        kind = letters[letter]
        assert kind["type"] == cls and f"feed_forward ({ff})" in kind["parts"]


@pytest.mark.parametrize("key", ATTENTION_ONLY)
def test_memory_rows_at_every_context(key: str) -> None:
    """The attention-only rows at every length, Mistral's window included, against a meta run of that length."""
    live = _built(key)
    row = next(r for r in lm.memory_context()["rows"] if r["key"] == key)
    assert row["cache"] == [_held(live, t) for t in lm.CONTEXTS]


def test_memory_rows_of_the_recurrent_models() -> None:
    """The others: the state and per-token keys and values measured on 1 and 2 tokens, times the length."""
    rows = {r["key"]: r for r in lm.memory_context()["rows"]}
    for key in set(lm.MEMORY_MODELS) - set(ATTENTION_ONLY) - {"recurrentgemma-2b"}:
        live = _built(key)
        one, two = _one_and_two(live)
        assert rows[key]["cache"] == [2 * one - two + (two - one) * t for t in lm.CONTEXTS], key


def test_memory_page_reproduces_the_jamba_paper() -> None:
    """Jamba paper, Table 1: KV cache at 256K tokens, 16-bit: Jamba 4GB, Mixtral 32GB, Llama-2 7B 128GB (GiB exact)."""
    context = lm.memory_context()
    assert (context["jamba_kv"], context["mixtral"], context["llama"]) == ("4", "32", "128")
    # the paper's "GB" are GiB: the same bytes in 10^9 bytes, as the page gives them beside
    assert (context["jamba_gb"], context["mixtral_gb"], context["llama_gb"]) == tuple(
        f"{n * 2**30 / 1e9:.2f}" for n in (4, 32, 128)
    )
    assert context["svg"].startswith('<svg role="img" aria-label=') and "#000000" not in context["svg"]


def test_the_notes_hold_on_the_live_models() -> None:
    """What the pages' notes say of a published figure, on transformers' models: MiniMax-M1's 45.9B active
    is its active count less the embedding and the untied head; Kimi-Linear's card rounds 49.1B and 3.48B
    (2.73B without the embedding and the head)."""

    def embedding_and_head(live) -> int:  # type: ignore[no-untyped-def]
        return live.get_input_embeddings().weight.numel() + live.get_output_embeddings().weight.numel()

    minimax = _built("minimax-m1")
    assert round((hf_live.active(minimax) - embedding_and_head(minimax)) / 1e8) == 459
    assert round(embedding_and_head(minimax) / 1e7) == 246
    kimi = _built("kimi-linear-48b-a3b")
    assert round(hf_live.total(kimi) / 1e8) == 491
    assert round(hf_live.active(kimi) / 1e7) == 348
    assert round(embedding_and_head(kimi) / 1e7) == 75
    assert round((hf_live.active(kimi) - embedding_and_head(kimi)) / 1e7) == 273
    for key in ("minimax-m1", "kimi-linear-48b-a3b"):
        assert lm.RELEASED[key].note, key


def _live_need(key: str, tokens: int) -> int:
    """Weights (bf16, two bytes a parameter transformers builds) and the cache of one sequence of ``tokens``
    tokens: a meta run of that length for the attention-only models, the state and the per-token keys and
    values measured on 1 and 2 tokens for the others."""
    live = _built(key)
    weights = 2 * hf_live.total(live)
    if key in ATTENTION_ONLY:
        return weights + _held(live, tokens)
    one, two = _one_and_two(live)
    return weights + 2 * one - two + (two - one) * tokens


def test_memory_page_fit_table() -> None:
    """Weights + cache at 8K/32K/128K, and the longest context in 24/48/80 GiB: at that length the weights and the
    cache fit, one token more they do not — against transformers' models (RecurrentGemma, whose meta run loops
    over the tokens, is held by its family's tiny models)."""
    rows = {r["key"]: r for r in lm.memory_context()["rows"]}
    checked = 0
    for key in set(lm.MEMORY_MODELS) - {"recurrentgemma-2b"}:
        row = rows[key]
        assert row["weight_bytes"] == 2 * hf_live.total(_built(key))
        assert row["fit"] == [_live_need(key, t) for t in lm.FIT_CONTEXTS], key
        for shown, gib in zip(row["longest"], lm.BUDGETS, strict=True):
            budget = gib * 2**30
            if shown == "—":
                assert _live_need(key, 1) > budget
            elif shown == "any":  # the cache stops growing (Mistral-7B's window) and fits
                assert _live_need(key, 2**16) == _live_need(key, 2**18) <= budget, (key, gib)
            else:
                t = int(shown.replace(",", ""))
                assert _live_need(key, t) <= budget < _live_need(key, t + 1), (key, gib, t)
                checked += 1
    assert checked >= 3  # Llama-2-7B in each budget; the MoE and hybrid models need more than 80 GiB in bf16


def test_memory_page_names_the_budgets_unit_it_computed() -> None:
    """The fit table's budgets are GiB (``lm.longest`` gives derive ``gib * 2**30`` bytes), and its headers say so:
    "24 GB" there would read as 24 * 10**9 bytes, as ``--memory 24GB`` does (the page once said GB)."""
    root = Path(__file__).resolve().parents[2]
    template = (root / "templates" / "language-models-memory.md.j2").read_text(encoding="utf-8")
    headers = [line for line in template.splitlines() if "longest context in" in line]
    assert headers and all("GiB |" in line and " GB |" not in line for line in headers)
    assert "80 GB budgets" not in template and "80 GiB dashed" in template  # the plot's caption


def test_a_shipped_release_has_one_published_size() -> None:
    """A release derive ships gives the family page its data's published size and source (the "Released
    models" page reads the same data), and a second copy given on the page is refused."""
    from derive.families.family import release
    from docs_src.pages.released import rows

    listed = {r["name"]: r["published"] for r in rows()}
    shipped = [r for r in lm.RELEASED.values() if r.name in listed and r.config == release(r.name).config]
    assert len(shipped) >= 7
    for r in shipped:
        assert r.published == release(r.name).published == listed[r.name], r.name
        assert r.source.endswith(f"({release(r.name).published_source.split()[0]})"), r.source
    with pytest.raises(ValueError, match="published size and source are its data's"):
        lm.Released("mistralai/Mistral-7B-v0.1", lm.SHIPPED, "7.3B", "[card](https://example.org)")
