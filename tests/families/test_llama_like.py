"""The Llama-like families of ``derive.families.llama_like`` (ministral, ministral3, granite, granitemoe, ernie4_5,
ernie4_5_moe, hunyuan_v1_dense, hunyuan_v1_moe, exaone4, seed_oss, minimax_m2, cohere2, starcoder2) held against
transformers 5.23.0 where their data (``derive/families/data/<model_type>.json``, run by ``test_registry.py``)
cannot say it:

- sliding windows the cache outgrows (the registry's runs keep every window growing): the bytes after a forward
  and a decode step's FLOPs, including the windows ``DynamicCache`` makes from keys a class does not define
  (Granite's ``sliding_window``, a ``chunked_attention`` layer);
- configs both refuse, derive naming the key; a null value of every key a ``@strict`` class types without
  ``None``;
- configs transformers builds whose first forward fails (more experts per token than experts, a sliding layer
  without a window): derive refuses them, naming the key;
- values transformers builds and runs that the tiny configs do not hold (no expert per token).

Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import copy
import dataclasses

import hf_cache
import hf_live
import pytest

import derive
from derive.blocks import config_model
from derive.families.family import tiny

transformers = pytest.importorskip("transformers")

FAMILIES = (
    "ministral",
    "ministral3",
    "granite",
    "granitemoe",
    "ernie4_5",
    "ernie4_5_moe",
    "hunyuan_v1_dense",
    "hunyuan_v1_moe",
    "exaone4",
    "seed_oss",
    "minimax_m2",
    "cohere2",
    "starcoder2",
)

#: Small sizes every family takes (``head_dim`` given: Ministral's and HunYuan's default null fails).
BASE = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 24, "num_attention_heads": 4, "head_dim": 8}
MOE = {
    "granitemoe": {"num_local_experts": 4, "num_experts_per_tok": 2},
    "ernie4_5_moe": {"moe_intermediate_size": 16, "moe_num_experts": 4, "moe_k": 2},
    "hunyuan_v1_moe": {"num_experts": 4, "moe_topk": 2},
    "minimax_m2": {"num_local_experts": 4, "num_experts_per_tok": 2, "bos_token_id": 1, "eos_token_id": 2},
}


def _config(model_type: str, **changes: object) -> dict:
    return {**BASE, "num_hidden_layers": 2, "num_key_value_heads": 2, **MOE.get(model_type, {}), **changes}


SLIDING = ["sliding_attention", "full_attention", "sliding_attention"]

#: Windows shorter than the tokens run (each keeps window - 1 of them).
WINDOWS = [
    pytest.param("granite", _config("granite", sliding_window=4), id="granite-sliding_window-outside-the-class"),
    # every layer chunked (a class without a layer-aware mask runs only a cache alike in every layer)
    pytest.param("granite", _config("granite", attention_chunk_size=3), id="granite-attention_chunk_size-outside"),
    pytest.param(
        "ministral",
        _config("ministral", num_hidden_layers=3, sliding_window=4, layer_types=SLIDING),
        id="ministral-layer_types",
    ),  # fmt: skip
    pytest.param("ministral", _config("ministral", sliding_window=3), id="ministral-every-layer-sliding"),
    pytest.param("ministral3", _config("ministral3", sliding_window=4), id="ministral3"),
    pytest.param(
        "exaone4",
        _config("exaone4", num_hidden_layers=4, sliding_window=3, sliding_window_pattern=2),
        id="exaone4-pattern",
    ),  # fmt: skip
    pytest.param(
        "cohere2",
        _config("cohere2", num_hidden_layers=3, sliding_window=4, sliding_window_pattern=3),
        id="cohere2-pattern",
    ),  # fmt: skip
    pytest.param("starcoder2", _config("starcoder2", sliding_window=4), id="starcoder2"),
    pytest.param("ernie4_5", _config("ernie4_5", sliding_window=3), id="ernie4_5-sliding_window-outside"),
    pytest.param(
        "ernie4_5_moe",
        _config("ernie4_5_moe", num_hidden_layers=3, sliding_window=3, moe_num_shared_experts=1),
        id="ernie4_5_moe",
    ),  # fmt: skip
    pytest.param("hunyuan_v1_dense", _config("hunyuan_v1_dense", sliding_window=4), id="hunyuan_v1_dense"),
    pytest.param(
        "hunyuan_v1_moe", _config("hunyuan_v1_moe", moe_topk=[1, 3], sliding_window=4), id="hunyuan_v1_moe-topk-list"
    ),
    pytest.param("seed_oss", _config("seed_oss", sliding_window=4), id="seed_oss"),
    pytest.param("minimax_m2", _config("minimax_m2", sliding_window=4, rotary_dim=4), id="minimax_m2"),
    pytest.param("granitemoe", _config("granitemoe", sliding_window=3), id="granitemoe"),
]


@pytest.mark.parametrize(("model_type", "config"), WINDOWS)
def test_windows_the_cache_outgrows(model_type: str, config: dict) -> None:
    """The cache after a prefill longer than the window and after one-token steps, by dtype, and each decode
    step's matmul FLOPs over the window - 1 cached tokens and its own."""
    hf_live.check_family(model_type, copy.deepcopy(config), builds=True)
    for dtype, batch, prefill, steps in hf_cache.CACHE_RUNS:
        hf_cache.check_cache(model_type, copy.deepcopy(config), dtype, batch, prefill, steps, split=False)
    hf_cache.check_decode(model_type, copy.deepcopy(config), runs=((1, 1), (2, 5), (1, 7)))


#: Configs transformers refuses (or fails to build), with the key derive's refusal names.
REFUSED = [
    pytest.param("ministral", {**_config("ministral"), "head_dim": None}, "head_dim", id="ministral-default-head_dim"),
    pytest.param("hunyuan_v1_dense", {"head_dim": None}, "head_dim", id="hunyuan_v1_dense-defaults"),
    pytest.param("hunyuan_v1_moe", {"head_dim": None}, "head_dim", id="hunyuan_v1_moe-defaults"),
    pytest.param("granite", _config("granite", head_dim=None), "head_dim", id="granite-null-head_dim"),
    pytest.param("granitemoe", _config("granitemoe", head_dim=None), "head_dim", id="granitemoe-null-head_dim"),
    pytest.param("cohere2", _config("cohere2", head_dim=None), "head_dim", id="cohere2-null-head_dim"),
    pytest.param("exaone4", _config("exaone4", sliding_window=None), "sliding_window", id="exaone4-no-window"),
    pytest.param(
        "exaone4", _config("exaone4", sliding_window_pattern="LLG"), "sliding_window_pattern", id="exaone4-str-pattern"
    ),
    pytest.param(
        "cohere2", _config("cohere2", sliding_window_pattern=0), "sliding_window_pattern", id="cohere2-pattern-0"
    ),
    pytest.param(
        "ernie4_5_moe", _config("ernie4_5_moe", moe_layer_interval=0), "moe_layer_interval", id="ernie-interval-0"
    ),
    pytest.param(
        "hunyuan_v1_moe",
        _config("hunyuan_v1_moe", num_hidden_layers=3, moe_topk=[1, 1]),
        "moe_topk",
        id="hunyuan-topk-list-short",
    ),  # fmt: skip
    pytest.param(
        "ministral",
        _config("ministral", num_hidden_layers=3, layer_types=SLIDING[:2]),
        "layer_types",
        id="ministral-layer_types-short",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("model_type", "config", "key"), REFUSED)
def test_refused_as_transformers_refuses(model_type: str, config: dict, key: str) -> None:
    with pytest.raises(Exception):  # transformers' own error, whichever it raises
        hf_live.build(model_type, copy.deepcopy(config))
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **copy.deepcopy(config)})


def _not_optional(model_type: str) -> list[str]:
    """The shape keys the config class types without None (``@strict`` refuses a null one)."""
    cls = transformers.CONFIG_MAPPING[model_type]
    shape = config_model(model_type).keys.shape
    return [f.name for f in dataclasses.fields(cls) if f.name in shape and "None" not in str(f.type)]


STRICT = [
    pytest.param(t, key, id=f"{t}-{key}")
    for t in FAMILIES
    for key in _not_optional(t)
    if key in tiny(t)[0] or key in ("tie_word_embeddings", "intermediate_size")
]


@pytest.mark.parametrize(("model_type", "key"), STRICT)
def test_a_null_key_the_class_types_without_none(model_type: str, key: str) -> None:
    """Each key the class types without None, null in a tiny config: transformers refuses it, derive too."""
    config = {**tiny(model_type)[0], key: None}
    with pytest.raises(Exception):  # huggingface_hub's StrictDataclassFieldValidationError
        transformers.AutoConfig.for_model(model_type, **copy.deepcopy(config))
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **config})


#: Configs transformers builds whose first forward fails, with the key derive's refusal names.
FAILS_TO_RUN = [
    pytest.param("granitemoe", _config("granitemoe", num_experts_per_tok=5), "num_experts_per_tok", id="granitemoe"),
    pytest.param("ernie4_5_moe", _config("ernie4_5_moe", moe_k=5), "moe_k", id="ernie4_5_moe"),
    pytest.param("hunyuan_v1_moe", _config("hunyuan_v1_moe", moe_topk=5), "moe_topk", id="hunyuan_v1_moe"),
    pytest.param("minimax_m2", _config("minimax_m2", num_experts_per_tok=5), "num_experts_per_tok", id="minimax_m2"),
    pytest.param(
        "granite",
        _config("granite", layer_types=["sliding_attention", "full_attention"]),
        "layer_types",
        id="granite-sliding-layer-without-window",
    ),  # fmt: skip
    pytest.param(
        "exaone4",
        _config("exaone4", sliding_window=None, layer_types=["sliding_attention", "full_attention"]),
        "layer_types",
        id="exaone4-sliding-layer-without-window",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("model_type", "config", "key"), FAILS_TO_RUN)
def test_refused_where_transformers_builds_what_cannot_run(model_type: str, config: dict, key: str) -> None:
    import torch

    model = hf_cache.tiny(model_type, copy.deepcopy(config))
    with pytest.raises(Exception), torch.no_grad():  # topk's or the cache's own error
        model(torch.zeros((1, 3), dtype=torch.long), use_cache=True)
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **copy.deepcopy(config)})


#: No expert per token: transformers builds and runs it (``topk(0)``); no routed expert is active.
NO_EXPERT = [
    pytest.param("granitemoe", _config("granitemoe", num_experts_per_tok=0), id="granitemoe"),
    pytest.param("ernie4_5_moe", _config("ernie4_5_moe", moe_k=0, moe_num_shared_experts=0), id="ernie4_5_moe"),
    pytest.param("hunyuan_v1_moe", _config("hunyuan_v1_moe", moe_topk=[0, 2]), id="hunyuan_v1_moe"),
    pytest.param("minimax_m2", _config("minimax_m2", num_experts_per_tok=0), id="minimax_m2"),
]


@pytest.mark.parametrize(("model_type", "config"), NO_EXPERT)
def test_no_expert_per_token(model_type: str, config: dict) -> None:
    hf_live.check_family(model_type, copy.deepcopy(config), builds=True)
    hf_cache.check_decode(model_type, copy.deepcopy(config))


def test_a_null_window_ministral_and_cohere2_build_answered_as_built() -> None:
    """Ministral and Cohere 2 build with a null ``sliding_window`` (every layer full) though their forward fails
    (the sliding mask is made for every config): derive answers what they build."""
    for model_type in ("ministral", "cohere2"):
        config = _config(model_type, sliding_window=None, layer_types=["full_attention", "full_attention"])
        hf_live.check_family(model_type, copy.deepcopy(config), builds=True)


def test_ernie_moe_layers_by_start_end_and_interval() -> None:
    """Layer i sparse when (i + 1) % interval == 0 and start <= i <= end: the layers transformers makes sparse."""
    config = _config(
        "ernie4_5_moe", num_hidden_layers=7, moe_layer_start_index=2, moe_layer_end_index=5, moe_layer_interval=2
    )
    model = hf_live.check_family("ernie4_5_moe", copy.deepcopy(config), builds=True)
    sparse = [i for i, layer in enumerate(model.model.layers) if hasattr(layer.mlp, "experts")]
    assert sparse == [3, 5]
    report = derive.explain({"model_type": "ernie4_5_moe", **config})
    assert [t["name"] for t in report.tensors if t["name"].endswith("experts.down_proj")] == [
        "model.layers.3.mlp.experts.down_proj",
        "model.layers.5.mlp.experts.down_proj",
    ]
