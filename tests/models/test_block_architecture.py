"""A checkpoint of another architecture named in ``--explain-error``: real transformers models (meta
device), one's ``state_dict()`` loaded into another's, and the message torch raises read by derive."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import derive  # noqa: E402
from derive.models.block_architecture import checkpoint_architecture  # noqa: E402


def _model(kind: str):
    small = {"vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2}
    configs = {
        "mamba": lambda: transformers.MambaConfig(**small, state_size=8),
        "mamba2": lambda: transformers.Mamba2Config(**small, num_heads=2, head_dim=32, n_groups=1, state_size=8),
        "falcon_mamba": lambda: transformers.FalconMambaConfig(**small, state_size=8),
        "rwkv": lambda: transformers.RwkvConfig(**small, attention_hidden_size=32, intermediate_size=64),
    }
    config = configs[kind]()
    with torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(config)


def _error(model, checkpoint) -> str:
    with pytest.raises(RuntimeError) as raised:
        model.load_state_dict(checkpoint.state_dict())
    return str(raised.value)


@pytest.mark.parametrize(
    "checkpoint,model,named",
    [
        ("mamba2", "mamba", "the checkpoint is a Mamba2ForCausalLM's (model type mamba2), not a MambaForCausalLM's"),
        # Mamba and FalconMamba have the same tensor names: the keys tell both
        ("mamba", "mamba2", "the checkpoint is a MambaForCausalLM's (model type mamba) or FalconMambaForCausalLM's"),
        ("mamba2", "falcon_mamba", "the checkpoint is a Mamba2ForCausalLM's (model type mamba2), not a FalconMamba"),
        ("rwkv", "mamba", "the checkpoint is a RwkvForCausalLM's (model type rwkv), not a MambaForCausalLM's"),
        ("mamba", "rwkv", "not a RwkvForCausalLM's"),
    ],
)
def test_a_checkpoint_of_another_architecture_is_named(checkpoint, model, named):
    built, ckpt = _model(model), _model(checkpoint)
    assert type(built).__name__ != type(ckpt).__name__
    text = _error(built, ckpt)  # torch's own message
    assert "Unexpected key(s)" in text and "Missing key(s)" in text
    explained = derive.explain_error(text)
    assert named in explained, explained
    assert explained.splitlines()[0].startswith(f"{type(built).__name__}: the checkpoint is a"), explained


def test_the_same_architecture_names_none():
    """Two Mamba models that differ in layers: keys unexpected but the same model type — no architecture line."""
    small, big = _model("mamba"), None
    with torch.device("meta"):
        big = transformers.MambaForCausalLM(
            transformers.MambaConfig(vocab_size=64, hidden_size=32, num_hidden_layers=3, state_size=8)
        )
    text = _error(small, big)
    assert "Unexpected key(s)" in text
    assert "the checkpoint is a" not in derive.explain_error(text)
    assert "num_hidden_layers=3, your model 2" in derive.explain_error(text)


def test_one_side_only_or_unknown_keys_name_none():
    assert checkpoint_architecture([], ["backbone.layers.0.mixer.dt_bias"]) is None
    assert checkpoint_architecture(["encoder.weight"], ["decoder.weight"]) is None
