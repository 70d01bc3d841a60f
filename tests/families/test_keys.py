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
import dataclasses
import inspect
import sys

import pytest

from derive.blocks.hf_config import GENERIC
from derive.families.family import families

transformers = pytest.importorskip("transformers")

#: Model types whose keys are not declared whole yet: a key derive does not know is refused for them
#: (it might be one of the class's). This list only shrinks.
NOT_YET_COMPLETE = frozenset(
    {
        "bailing_hybrid",
        "bamba",
        "falcon_h1",
        "falcon_mamba",
        "gemma2",
        "gemma3_text",
        "gpt2",
        "granitemoehybrid",
        "jamba",
        "kimi_linear",
        "lfm2",
        "lfm2_moe",
        "lfm3",
        "mamba",
        "mamba2",
        "mamba_ssm",
        "minimax",
        "mistral",
        "mixtral",
        "olmo_hybrid",
        "qwen3_5_moe_text",
        "qwen3_5_text",
        "qwen4_exp_text",
        "recurrent_gemma",
        "rwkv",
        "rwkv6",
        "rwkv7",
        "xlstm",
        "zamba",
        "zamba2",
    }
)


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
    tree = ast.parse(inspect.getsource(module))
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
        if entry.keys is not None and entry.keys.complete
    ]


@pytest.mark.parametrize(("model_type", "keys"), _declared())
def test_every_key_of_the_class_is_mapped_or_inert(model_type: str, keys) -> None:  # type: ignore[no-untyped-def]
    undeclared = class_keys(model_type) - set(keys.shape) - set(keys.inert) - set(keys.aliases)
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
