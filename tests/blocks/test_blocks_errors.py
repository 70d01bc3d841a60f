"""``load_state_dict`` errors between block models explained (``derive.read.errors.blocks``).

Every message is produced by torch: two models transformers 5.23.0 builds on the meta device from
configs that differ in one key, the second loading the first's state dict. ``derive.explain_error``
must name the key and both values — the values read off the two models' own ``config`` objects
(``intermediate_size`` as transformers computes it), never from derive.
"""

from __future__ import annotations

import blocks_configs
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive

PROPERTY = settings(max_examples=30, deadline=None)


def error(model_type: str, checkpoint: dict, mine: dict) -> tuple[str, object, object]:
    """The message torch raises, and the two models (the checkpoint's, the user's)."""
    a, b = hf_live.build(model_type, checkpoint), hf_live.build(model_type, mine)
    with pytest.raises(RuntimeError) as raised:
        b.load_state_dict(a.state_dict(), assign=True)
    return str(raised.value), a, b


def says(model_type: str, checkpoint: dict, change: dict, key: str) -> str:
    """The explanation names ``key`` with the checkpoint's and the model's values."""
    text, a, b = error(model_type, checkpoint, {**checkpoint, **change})
    explained = derive.explain_error(text)
    line = f"checkpoint has {key}={getattr(a.config, key)}, your model {getattr(b.config, key)}"
    assert line in explained, (text, explained)
    assert "not a recurrent tensor" not in explained
    return explained


MAMBA = {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2, "state_size": 4}
MAMBA2 = {"vocab_size": 50, "hidden_size": 32, "num_hidden_layers": 2, "num_heads": 4, "head_dim": 16, "n_groups": 2}
RWKV = {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2}
GEMMA = {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2, "head_dim": 8,
         "num_key_value_heads": 1, "intermediate_size": 48}  # fmt: skip


@pytest.mark.parametrize(
    ("model_type", "base", "change", "key"),
    [
        ("mamba", MAMBA, {"state_size": 16}, "state_size"),
        ("mamba", MAMBA, {"expand": 3}, "intermediate_size"),
        ("mamba", MAMBA, {"conv_kernel": 2}, "conv_kernel"),
        ("mamba", MAMBA, {"time_step_rank": 3}, "time_step_rank"),
        ("mamba", MAMBA, {"vocab_size": 64}, "vocab_size"),
        ("mamba", MAMBA, {"hidden_size": 24}, "hidden_size"),
        # a tensor only a flag adds (in_proj.bias under use_bias), on both sides and of another size
        ("mamba", {**MAMBA, "use_bias": True}, {"hidden_size": 24}, "hidden_size"),
        ("mamba", MAMBA, {"num_hidden_layers": 3}, "num_hidden_layers"),
        ("mamba", {**MAMBA, "num_hidden_layers": 3}, {"num_hidden_layers": 1}, "num_hidden_layers"),
        ("mamba", MAMBA, {"use_bias": True}, "use_bias"),
        ("mamba", MAMBA, {"use_conv_bias": False}, "use_conv_bias"),
        ("falcon_mamba", MAMBA, {"state_size": 8}, "state_size"),
        ("mamba2", MAMBA2, {"num_heads": 8, "head_dim": 8}, "num_heads"),
        ("mamba2", MAMBA2, {"conv_kernel": 3}, "conv_kernel"),
        ("mamba2", MAMBA2, {"vocab_size": 70}, "vocab_size"),
        ("rwkv", RWKV, {"intermediate_size": 40}, "intermediate_size"),
        ("rwkv", RWKV, {"attention_hidden_size": 8}, "attention_hidden_size"),
        ("rwkv", RWKV, {"hidden_size": 24}, "hidden_size"),
        ("rwkv", RWKV, {"num_hidden_layers": 4}, "num_hidden_layers"),
        ("recurrent_gemma", GEMMA, {"lru_width": 32}, "lru_width"),
        ("recurrent_gemma", GEMMA, {"conv1d_width": 2}, "conv1d_width"),
    ],
)
def test_the_key_that_differs_is_named(model_type: str, base: dict, change: dict, key: str) -> None:
    says(model_type, base, change, key)


def test_what_the_shapes_fix_only_as_a_whole() -> None:
    # Mamba-2's state size shows only in the conv channels E + 2GN and in_proj's rows
    text, a, b = error("mamba2", MAMBA2, {**MAMBA2, "state_size": 32})
    explained = derive.explain_error(text)
    channels = [m.config.expand * m.config.hidden_size + 2 * m.config.n_groups * m.config.state_size for m in (a, b)]
    assert f"expand*hidden_size + 2*n_groups*state_size = {channels[0]}, your model {channels[1]}" in explained
    # RecurrentGemma's MLP is half of intermediate_size
    text, a, b = error("recurrent_gemma", GEMMA, {**GEMMA, "intermediate_size": 64})
    explained = derive.explain_error(text)
    assert (
        f"intermediate_size // 2 = {a.config.intermediate_size // 2}, your model {b.config.intermediate_size // 2}"
        in explained
    )
    # a tensor named as a Mamba's, alone: the alternatives that name it otherwise are given
    text, a, b = error("mamba", MAMBA, {**MAMBA, "state_size": 6})
    assert "(also MambaLMHeadModel: d_state)" in derive.explain_error(text)


def test_names_every_model_has_are_not_taken_for_a_block_model() -> None:
    text = (
        "size mismatch for lm_head.weight: copying a param with shape torch.Size([10, 8]) from checkpoint, "
        "the shape in current model is torch.Size([12, 8])."
    )
    assert "not a recurrent tensor" in derive.explain_error(text)
    other = text.replace("lm_head.weight", "encoder.layers.0.mixer.A_log")
    assert "not a recurrent tensor" in derive.explain_error(other)


@st.composite
def changes(draw: st.DrawFn) -> tuple[str, dict, dict, str]:
    model_type, config = draw(blocks_configs.configs().filter(lambda d: d[0] != "recurrent_gemma"))
    sizes = {
        "mamba": ("state_size", "conv_kernel", "vocab_size", "hidden_size"),
        "falcon_mamba": ("state_size", "conv_kernel", "vocab_size"),
        "mamba2": ("conv_kernel", "vocab_size"),
        "rwkv": ("attention_hidden_size", "intermediate_size", "vocab_size", "hidden_size"),
    }[model_type]
    key = draw(st.sampled_from(sizes))
    value = config[key] + draw(st.integers(1, 5))
    return model_type, config, {key: value}, key


@pytest.mark.slow
@PROPERTY
@given(changes())
def test_random_single_key_changes(drawn: tuple[str, dict, dict, str]) -> None:
    model_type, config, change, key = drawn
    says(model_type, config, change, key)
    hf_live.record("transformers", blocks_configs.CLASSES[model_type])


def test_a_part_of_a_model_is_read_under_its_path() -> None:
    # MambaModel is MambaForCausalLM's backbone: its keys have no "backbone." and torch names the class
    a, b = hf_live.build("mamba", MAMBA), hf_live.build("mamba", {**MAMBA, "state_size": 6, "num_hidden_layers": 3})
    with pytest.raises(RuntimeError) as raised:
        b.backbone.load_state_dict(a.backbone.state_dict(), assign=True)
    explained = derive.explain_error(str(raised.value))
    assert "MambaForCausalLM: checkpoint has state_size=4, your model 6" in explained
    assert "MambaForCausalLM: checkpoint has num_hidden_layers=2, your model 3" in explained
