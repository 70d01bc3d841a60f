"""Every key of a family's config class, as the installed transformers defines it, is either mapped to a
shape or declared inert with a reason (``Keys`` in the family's module); and every attribute the model's
own code reads off its config is one of them. A transformers upgrade that adds a key fails here, naming it.

The class's keys: its ``__init__`` parameters (its dataclass fields), its ``attribute_map`` and its
sub-configs. The keys every config has (``PreTrainedConfig``'s own fields, :data:`derive.blocks.hf_config.GENERIC`)
need not be declared. The reads: ``config.<key>``, ``self.config.<key>`` and ``getattr(config, "<key>", ...)``
in the ``modeling_*.py`` file of the class ``AutoModelForCausalLM`` builds, parsed with ``ast``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib
import inspect
import sys

import hf_live
import pytest

import derive
from derive.blocks.hf_config import GENERIC
from derive.families.family import families

transformers = pytest.importorskip("transformers")

#: Model types whose keys are not declared whole yet: a key derive does not know is refused for them
#: (it might be one of the class's). This list only shrinks.
NOT_YET_COMPLETE: frozenset[str] = frozenset()

#: Families whose config class is not transformers' (mamba_ssm's ``MambaConfig``, fla's ``RWKV6Config`` and
#: ``RWKV7Config``): installed in ``.venv-ssm`` only, their keys are held there (``test_keys_ssm.py``).
OTHER_LIBRARIES = frozenset({"mamba_ssm", "rwkv6", "rwkv7"})


def _base_keys() -> set[str]:
    base = transformers.PretrainedConfig
    fields = {f.name for f in dataclasses.fields(base)} if dataclasses.is_dataclass(base) else set()
    return fields | set(inspect.signature(base.__init__).parameters) - {"self", "kwargs"}


def class_keys(model_type: str) -> set[str]:
    """The keys of ``model_type``'s config class at the installed transformers (the common ones left out)."""
    cls = transformers.CONFIG_MAPPING[model_type]
    own = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    own |= set(inspect.signature(cls.__init__).parameters) - {"self", "kwargs", "args"}
    own |= set(getattr(cls, "attribute_map", {}) or {})
    own |= set(getattr(cls, "sub_configs", {}) or {})
    return own - _base_keys() - GENERIC


def modeling_reads(model_type: str) -> set[str]:
    """The attributes the modeling code of ``model_type`` reads off a config object."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    name = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type]
    module = sys.modules[getattr(transformers, name).__module__]
    return config_reads(inspect.getsource(module))


def config_reads(source: str) -> set[str]:
    """The attributes a modeling file's ``source`` reads off a config object (``config.<key>``,
    ``self.config.<key>``, ``getattr(config, "<key>", ...)``)."""
    tree = ast.parse(source)
    reads: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id in ("config", "text_config")) or (
                isinstance(owner, ast.Attribute) and owner.attr == "config"
            ):
                reads.add(node.attr)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            target = node.args[0]
            if (isinstance(target, ast.Name) and target.id == "config") or (
                isinstance(target, ast.Attribute) and target.attr == "config"
            ):
                reads.add(node.args[1].value)
    return reads


def _declared() -> list:
    return [
        pytest.param(model_type, entry.keys, id=model_type)
        for model_type, entry in families().items()
        if entry.keys is not None and entry.keys.complete and model_type not in OTHER_LIBRARIES
    ]


@pytest.mark.parametrize(("model_type", "keys"), _declared())
def test_every_key_of_the_class_is_mapped_or_inert(model_type: str, keys) -> None:  # type: ignore[no-untyped-def]
    # a same_as key is read by the model too and must agree with the key it names (xLSTM's embedding_dim): mapped
    undeclared = class_keys(model_type) - set(keys.shape) - set(keys.inert) - set(keys.aliases) - set(keys.same_as)
    assert not undeclared, f"{keys.cls}: keys neither mapped nor declared inert: {sorted(undeclared)}"
    assert transformers.CONFIG_MAPPING[model_type].__name__ == keys.cls


@pytest.mark.parametrize(("model_type", "keys"), _declared())
def test_what_the_model_reads_off_its_config_is_a_declared_key(model_type: str, keys) -> None:  # type: ignore[no-untyped-def]
    """An attribute the model reads that the class does not define is one a release could set: declared too."""
    cls = transformers.CONFIG_MAPPING[model_type]
    defined = class_keys(model_type) | _base_keys() | GENERIC | {n for n in dir(cls) if not n.startswith("__")}
    # a modeling file may hold several models (Gemma 3's text model, Gemma 3n's audio and vision towers), each
    # reading its own config class's keys: the keys of every config class of the family's configuration module
    for sub in vars(sys.modules[cls.__module__]).values():
        if isinstance(sub, type) and issubclass(sub, transformers.PretrainedConfig) and dataclasses.is_dataclass(sub):
            defined |= {f.name for f in dataclasses.fields(sub)} | set(getattr(sub, "attribute_map", {}) or {})
    unknown = modeling_reads(model_type) - defined - set(keys.shape) - set(keys.inert)
    assert not unknown, f"{model_type}'s modeling code reads config attributes no declared key names: {sorted(unknown)}"


def test_the_families_not_yet_complete_only_shrink() -> None:
    incomplete = {t for t, e in families().items() if e.keys is None or not e.keys.complete}
    assert incomplete <= NOT_YET_COMPLETE, sorted(incomplete - NOT_YET_COMPLETE)
    assert incomplete >= NOT_YET_COMPLETE, f"complete now, drop from the list: {sorted(NOT_YET_COMPLETE - incomplete)}"


def test_a_key_outside_the_class_is_answered_with_a_note() -> None:
    """Nemotron-3's ``rms_norm_eps``, Qwen3.5's ``attn_output_gate``: keys a release carries that its class does
    not define. transformers keeps them and builds the same tensors; derive answers, naming them."""
    import derive

    config = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96,
              "num_hidden_layers": 2, "vocab_size": 100, "attn_output_gate": True, "some_future_key": [1, 2]}  # fmt: skip
    import hf_live

    report = derive.explain(config)
    assert any("attn_output_gate" in n and "some_future_key" in n and "LlamaConfig" in n for n in report.notes)
    assert report.total == hf_live.total(hf_live.build("llama", {k: v for k, v in config.items() if k != "model_type"}))


def test_a_cache_key_outside_the_class_is_said_and_the_cache_is_the_models_attention() -> None:
    """``sliding_window`` on a Llama config: not a key of ``LlamaConfig`` and not read by its attention (every
    layer attends to every earlier token), but transformers' cache reads it off any config and keeps only a
    window. derive's cache is the attention's — as transformers holds it without the key — and says so."""
    import cache_live

    import derive
    from derive.analysis.cost import cost

    config = {
        "vocab_size": 64,
        "hidden_size": 16,
        "intermediate_size": 24,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    }
    windowed = {**config, "sliding_window": 4}
    full = sum(cache_live.cache_bytes(cache_live.model("llama", config, "float32"), 1, 8).values())
    capped = sum(cache_live.cache_bytes(cache_live.model("llama", windowed, "float32"), 1, 8).values())
    assert capped < full  # transformers' cache does read the key
    assert cost({"model_type": "llama", **windowed}, 8, 1, "float32").cache_bytes == full
    notes = derive.explain({"model_type": "llama", **windowed}).notes
    assert any("sliding_window" in n and "cache_utils.py" in n for n in notes)


#: The families whose keys were declared whole from issue 33 on, each with a small config transformers builds: every
#: inert key they declare is varied on it (:func:`test_an_inert_key_changes_no_tensor`).
SMALL = {
    "mistral": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "vocab_size": 64, "sliding_window": 16},
    "mixtral": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "vocab_size": 64, "num_local_experts": 4, "num_experts_per_tok": 2},
    "gemma2": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3, "num_attention_heads": 4,
               "num_key_value_heads": 2, "head_dim": 8, "vocab_size": 64, "sliding_window": 16},
    "gemma3_text": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "head_dim": 8, "vocab_size": 64, "sliding_window": 16,
                    "sliding_window_pattern": 2},
    "jamba": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 4, "num_attention_heads": 4,
              "num_key_value_heads": 2, "vocab_size": 64, "attn_layer_period": 2, "attn_layer_offset": 1,
              "num_experts": 3, "mamba_d_state": 4, "mamba_dt_rank": 4},
    "mamba": {"hidden_size": 16, "state_size": 4, "num_hidden_layers": 2, "vocab_size": 64},
    "falcon_mamba": {"hidden_size": 16, "state_size": 4, "num_hidden_layers": 2, "vocab_size": 64},
    "mamba2": {"hidden_size": 16, "num_heads": 4, "head_dim": 8, "n_groups": 2, "state_size": 4,
               "num_hidden_layers": 2, "vocab_size": 64, "chunk_size": 8},
    "recurrent_gemma": {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3, "num_attention_heads": 4,
                        "num_key_value_heads": 1, "vocab_size": 64, "lru_width": 32, "attention_window_size": 8},
    "rwkv": {"hidden_size": 16, "num_hidden_layers": 2, "vocab_size": 64},
    **{
        t: {k: v for k, v in importlib.import_module("test_qwen3_next").CACHE.items()
            if k not in importlib.import_module("test_qwen3_next").ABSENT[t]}
        for t in ("qwen3_5_text", "qwen3_5_moe_text")
    },
    "gpt2": {"n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 16, "vocab_size": 64},
    "xlstm": {"vocab_size": 50, "hidden_size": 128, "num_heads": 2, "num_hidden_layers": 2, "chunk_size": 4},
}  # fmt: skip
#: The hybrids' small configs are their test modules' (``CACHE``: the config their caches are run on).
SMALL.update(
    {
        t: importlib.import_module(f"test_{t}").CACHE
        for t in (
            "bamba",
            "falcon_h1",
            "granitemoehybrid",
            "lfm2",
            "lfm2_moe",
            "zamba2",
            "zamba",
            "minimax",
            "olmo_hybrid",
            "lfm3",
            "kimi_linear",
            "bailing_hybrid",
        )
    }
)
SMALL["qwen4_exp_text"] = importlib.import_module("test_qwen4_exp").CACHE  # the QSA indexer's keys given

#: A changed value for an inert key whose default is not a number or a flag (or whose number must stay in a range).
CHANGED: dict[str, object] = {
    "max_position_embeddings": 77,
    "rope_parameters": {"rope_type": "linear", "rope_theta": 5e5, "factor": 2.0},
    "router_jitter_noise": 0.1,
    "attention_dropout": 0.1,
    "hidden_activation": "gelu",
    "final_logit_softcapping": 20.0,
    "attn_logit_softcapping": 40.0,
    "rope_local_base_freq": 5000.0,
    "activation_function": "relu",
    "summary_type": "mean",
    "summary_activation": "tanh",
    "time_step_init_scheme": "constant",
    "use_falcon_mambapy": True,
}
#: Where a model type takes another changed value than :data:`CHANGED`'s.
CHANGED_BY_TYPE: dict[tuple[str, str], object] = {
    ("gemma3_text", "rope_parameters"): {
        "sliding_attention": {"rope_type": "default", "rope_theta": 5e3},
        "full_attention": {"rope_type": "linear", "rope_theta": 5e5, "factor": 4.0},
    },
}


def _changed(model_type: str, key: str, default: object) -> object:
    """A value of ``key`` other than the class's ``default``, of the type the class takes (None: no value found)."""
    if (model_type, key) in CHANGED_BY_TYPE:
        return CHANGED_BY_TYPE[model_type, key]
    if key in CHANGED:
        return CHANGED[key]
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 3
    if isinstance(default, float):
        return default / 2 if default else 0.25
    return None


def _inert_cases() -> list:
    cases = []
    for model_type, config in SMALL.items():
        keys = families()[model_type].keys
        defaults = transformers.CONFIG_MAPPING[model_type]().to_dict()
        for key in sorted(keys.inert):
            value = _changed(model_type, key, defaults.get(key))
            # an attribute whose alias the config spells (Bailing-hybrid's n_group for num_expert_group) is varied there
            given = next((a for a, k in keys.aliases.items() if k == key and a in config), key)
            if value is not None and value != defaults.get(key):
                cases.append(pytest.param(model_type, config, given, value, id=f"{model_type}-{key}"))
    return cases


@pytest.mark.parametrize(("model_type", "config", "key", "value"), _inert_cases())
def test_an_inert_key_changes_no_tensor(model_type: str, config: dict, key: str, value: object) -> None:
    """Each key a family declares inert, set to a value other than its class's default: transformers builds the same
    tensors (names and shapes) on the meta device as at the default, and derive answers both as transformers builds
    them (``hf_live.check_family``: every tensor, buffer, the total)."""
    changed = {**copy.deepcopy(config), key: copy.deepcopy(value)}
    model = hf_live.check_family(model_type, changed, builds=True)
    assert hf_live.tensors(model) == hf_live.tensors(hf_live.build(model_type, copy.deepcopy(config)))
    hf_live.check_family(model_type, copy.deepcopy(config), builds=True)


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_the_class_defaults_whole_are_answered(model_type: str) -> None:
    """``XConfig().to_dict()`` — every key explicit, as ``save_pretrained`` writes it — is answered without a refusal,
    its total transformers' meta build of the class's defaults."""
    saved = transformers.CONFIG_MAPPING[model_type]().to_dict()
    try:
        model = hf_live.build(model_type, {})
    except Exception:  # the class's defaults build no model (Lfm2MoeConfig's layer_types None): refused too
        with pytest.raises(ValueError):
            derive.explain(saved)
        return
    assert derive.explain(saved).total == hf_live.total(model)


@pytest.mark.parametrize(("model_type", "config", "key"), [
    ("mistral", {"layer_types": ["full_attention"] * 2}, "layer_types"),
    ("mistral", {"sliding_window": None, "attention_chunk_size": 8}, "attention_chunk_size"),
    ("mixtral", {"layer_types": ["sliding_attention"] * 2, "sliding_window": 4}, "layer_types"),
    ("gemma2", {"use_bidirectional_attention": True}, "use_bidirectional_attention"),
    ("gpt2", {"add_cross_attention": True}, "add_cross_attention"),
    # mamba_ssm's spelling, which transformers ignores: a size the user meant and transformers does not build
    ("mamba", {"d_model": 32}, "d_model"),
    ("falcon_mamba", {"d_state": 8}, "d_state"),
    ("mamba2", {"headdim": 4}, "headdim"),
    # keys Zamba2Config's __post_init__ derives and saves: a saved value other than the derived one wins, and changes
    # the tensors (attention_hidden_size: the shared block's input width; hybrid_layer_ids: which layers it runs at)
    ("zamba2", {"attention_hidden_size": 24}, "attention_hidden_size"),
    ("zamba2", {"hybrid_layer_ids": [0]}, "hybrid_layer_ids"),
    ("gemma3_text", {"use_bidirectional_attention": True}, "use_bidirectional_attention"),
])  # fmt: skip
def test_a_cache_key_transformers_reads_but_derive_does_not_map_is_refused(
    model_type: str, config: dict, key: str
) -> None:
    """A key outside the class that changes what transformers' cache keeps (not its tensors): refused, named."""
    small = {**SMALL[model_type], **config}
    model = hf_live.build(model_type, copy.deepcopy(small))  # transformers builds it
    assert hf_live.total(model) > 0
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **small})


@pytest.mark.parametrize("pattern", [{"_sliding_window_pattern": 2}, {"sliding_window_pattern": 2}, {}])
def test_gemma3_reads_the_pattern_keyword_as_its_class_does(pattern: dict) -> None:
    """``Gemma3TextConfig.__post_init__`` makes ``layer_types`` of the keyword ``sliding_window_pattern`` (default 6),
    never of ``_sliding_window_pattern`` (which it sets from that keyword): derive once read the latter, and gave
    Gemma 3 a cache of other sliding layers than transformers keeps."""
    config = {**SMALL["gemma3_text"], "num_hidden_layers": 6}
    del config["sliding_window_pattern"]
    config.update(pattern)
    live = hf_live.check_family("gemma3_text", copy.deepcopy(config), builds=True)
    report = derive.explain({"model_type": "gemma3_text", **config})
    assert list(report.module.config["layer_types"]) == list(live.config.layer_types)


@pytest.mark.parametrize("head_dim", [16, 4])
def test_jamba_reads_a_head_dim_its_class_does_not_define(head_dim: int) -> None:
    """``JambaAttention`` reads ``getattr(config, "head_dim", D // H)``: a key outside ``JambaConfig`` that changes the
    attention's tensors, so derive maps it (once it would have been answered as outside the class: a wrong count)."""
    config = {**SMALL["jamba"], "head_dim": head_dim}
    model = hf_live.check_family("jamba", copy.deepcopy(config), builds=True)
    assert hf_live.tensors(model) != hf_live.tensors(hf_live.build("jamba", copy.deepcopy(SMALL["jamba"])))
    with pytest.raises(ValueError, match="head_dim"):
        derive.explain({"model_type": "jamba", **SMALL["jamba"], "head_dim": None})


@pytest.mark.parametrize(("model_type", "key"), [
    ("mamba", "layer_types"), ("falcon_mamba", "layer_types"), ("mamba2", "layer_types"),
    ("bamba", "layer_types"), ("bamba", "layers_block_type"),
    ("recurrent_gemma", "layer_types"), ("recurrent_gemma", "layers_block_type"),
    ("falcon_h1", "layer_types"), ("falcon_h1", "layers_block_type"),
])  # fmt: skip
def test_a_property_given_as_a_key_is_refused_as_transformers_refuses_it(model_type: str, key: str) -> None:
    """``layer_types`` (Bamba's ``layers_block_type``, and its alias) is a property of these classes without a setter:
    transformers refuses the key (AttributeError), and so does derive, naming it."""
    config = {**SMALL[model_type], key: ["linear_attention"] * 2}
    with pytest.raises(AttributeError):
        hf_live.build(model_type, copy.deepcopy(config))
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **config})


def test_zamba2_reads_attention_head_dim_as_head_dim() -> None:
    """``attention_head_dim`` is the attribute ``head_dim`` maps to (``Zamba2Config.attribute_map``): it sets the
    shared attention's head width, and derive reads it so (every tensor against transformers' meta build)."""
    config = {**SMALL["zamba2"], "attention_head_dim": 6}
    model = hf_live.check_family("zamba2", copy.deepcopy(config), builds=True)
    assert hf_live.tensors(model) != hf_live.tensors(hf_live.build("zamba2", copy.deepcopy(SMALL["zamba2"])))


@pytest.mark.parametrize("window", [4, 16])
def test_recurrent_gemma_reads_sliding_window_as_its_attention_window(window: int) -> None:
    """``sliding_window`` is ``RecurrentGemmaConfig``'s ``attribute_map`` name of ``attention_window_size``: it sets
    the attention's window, which the cache keeps (derive once ignored it). Held against transformers' config and
    the tiny model's cache after a forward."""
    import cache_live

    from derive.analysis.cost import cost

    config = {**SMALL["recurrent_gemma"], "sliding_window": window}
    del config["attention_window_size"]
    live = hf_live.check_family("recurrent_gemma", copy.deepcopy(config), builds=True)
    assert live.config.attention_window_size == window
    model = cache_live.model("recurrent_gemma", copy.deepcopy(config), "float32")
    expected = sum(cache_live.cache_bytes(model, 1, 24).values())
    assert cost({"model_type": "recurrent_gemma", **config}, 24, 1, "float32").cache_bytes == expected
    with pytest.raises(ValueError, match="sliding_window"):
        derive.explain({"model_type": "recurrent_gemma", **config, "attention_window_size": window + 1})


def test_rwkv_reads_max_position_embeddings_as_context_length() -> None:
    """``max_position_embeddings`` is ``RwkvConfig``'s name of ``context_length`` (no tensor): answered, and refused
    where it disagrees with a given ``context_length``."""
    config = {**SMALL["rwkv"], "max_position_embeddings": 64}
    hf_live.check_family("rwkv", copy.deepcopy(config), builds=True)
    with pytest.raises(ValueError, match="max_position_embeddings"):
        derive.explain({"model_type": "rwkv", **config, "context_length": 32})


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_a_key_outside_a_completed_class_is_answered_with_a_note(model_type: str) -> None:
    """A key no class of these families defines (``d_model`` on a Zamba config, a future key): transformers keeps it as
    an attribute its model never reads and builds the same tensors; derive answers as it builds, naming the key
    (the families whose keys were incomplete refused it, ``test_harness.py``)."""
    config = {**copy.deepcopy(SMALL[model_type]), "some_future_key": [1, 2]}
    model = hf_live.check_family(model_type, copy.deepcopy(config), builds=True)
    assert hf_live.tensors(model) == hf_live.tensors(hf_live.build(model_type, copy.deepcopy(SMALL[model_type])))
    notes = derive.explain({"model_type": model_type, **config}).notes
    assert any("some_future_key" in n and families()[model_type].keys.cls in n for n in notes), notes
