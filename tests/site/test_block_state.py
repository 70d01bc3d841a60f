"""The block pages' "state per sequence and KV cache per token" (docs_src/pages/worked.py, ``kept``) against
transformers 5.23.0.

Each model a block page names (Mamba's five sizes, Mamba-2's, RWKV-4's and RecurrentGemma's released
configs) is built by ``AutoModelForCausalLM.from_config`` on the ``meta`` device in bf16 and run there with
``use_cache=True`` on one token, then a second decoded as ``generate`` does: the bytes of every tensor its
cache holds (and every state a module keeps), by dtype, after each give the state per sequence (constant in
the sequence's length) and the keys and values a token adds. Nothing expected here is read off derive.
"""

from __future__ import annotations

import cache_live
import hf_live
import pytest

from docs_src.pages import worked

CASES = [(path, k) for path, models in worked.KEPT.items() for k in range(len(models))]


def _one_and_two(model_type: str, config: dict) -> tuple[dict[str, int], dict[str, int]]:
    import torch

    model = hf_live.build(model_type, config).to(torch.bfloat16)
    with torch.device("meta"):
        one, two = cache_live.cache_bytes_each(model, 1, 1, 1)
    return one, two


@pytest.mark.parametrize("path, k", CASES, ids=[f"{p}-{worked.KEPT[p][k][0]}" for p, k in CASES])
def test_state_per_sequence_as_transformers_holds_it(path: str, k: int) -> None:
    row = worked.kept(path)[k]
    config = dict(row["config"])
    one, two = _one_and_two(config.pop("model_type"), config)
    state = {d: 2 * one.get(d, 0) - two.get(d, 0) for d in set(one) | set(two)}
    kv = sum(two.values()) - sum(one.values())
    assert row["state"] == sum(state.values())
    assert {d: int(n.replace(",", "")) for d, n in row["dtypes"]} == {d: n for d, n in state.items() if n}
    assert row["kv"] == kv


def test_mamba_130m_keeps_what_the_issue_measured() -> None:
    """mamba-130m: 24 layers of a (1536, 4) bf16 convolution state and a (1536, 16) float32 SSM state."""
    (row, *_) = worked.kept("blocks/mamba.md")
    assert row["name"] == "state-spaces/mamba-130m-hf"
    assert row["state"] == 24 * (1536 * 4 * 2 + 1536 * 16 * 4) == 2_654_208
