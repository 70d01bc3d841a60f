"""A checkpoint of another architecture named in ``--explain-error``: real transformers models (meta
device), one's ``state_dict()`` loaded into another's, and the message torch raises read by derive."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import derive  # noqa: E402
from derive.read.errors.architecture import checkpoint_architecture  # noqa: E402


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


# --------------------------------------------------------------------------- one block's keys, one side (issue 26)


class _Hybrid(torch.nn.Module):
    """A model with a transformers mixer under ``model.layers.{i}.mamba`` in ``layers``, the rest empty:
    its ``load_state_dict`` of an empty checkpoint is torch's message of MambaInLlama (#14)."""

    def __init__(self, kind: str, layers: tuple[int, ...]) -> None:
        super().__init__()
        mixer = _model(kind).backbone.layers[0].mixer
        self.model = torch.nn.Module()
        self.model.layers = torch.nn.ModuleList(torch.nn.Module() for _ in range(max(layers) + 1))
        for i in layers:
            self.model.layers[i].mamba = mixer


@pytest.mark.parametrize("kind,block", [("mamba2", "Mamba-2 mixer"), ("mamba", "Mamba mixer")])
def test_missing_keys_that_are_one_block_are_named(kind, block):
    with torch.device("meta"):
        model = _Hybrid(kind, (0, 2))
    text = _error(model, torch.nn.Module())  # torch's own message: every mixer key missing
    assert "Missing key(s)" in text and "Unexpected key(s)" not in text
    explained = derive.explain_error(text)
    keys = len(model.state_dict())
    assert f"the {keys} keys model.layers.#.mamba.* are the tensors of a {block} (" in explained, explained
    assert "your model has one in layers 0, 2; the checkpoint has no weights for them" in explained


def test_keys_that_are_no_one_block_name_none():
    with torch.device("meta"):
        names = list(_Hybrid("mamba2", (0,)).state_dict())
    from derive.read.errors.architecture import keys_block

    assert keys_block(names) is not None
    assert keys_block([k for k in names if not k.endswith("dt_bias")]) is None  # a tensor Mamba-2 always has
    assert keys_block([*names, "model.layers.0.mamba.x_proj.weight"]) is None  # Mamba-1's too: neither
    assert keys_block([*names, "model.layers.0.attn.q_proj.weight"]) is None  # another path
    assert keys_block(["model.layers.0.mamba.D"]) is None


#: BlinkDL's time-mix tensors (no package: BlinkDL/RWKV-LM is a repository of scripts), as its
#: checkpoints name them: RWKV-v4neo/src/model.py RWKV_TimeMix (time_decay, time_first, time_mix_k/v/r,
#: key, value, receptance, output); RWKV-v5/src/model.py RWKV_TimeMix_RWKV5 (time_mix_k/v/r/g, time_decay,
#: time_faaaa, receptance, key, value, output, gate, ln_x).
RWKV4 = {"time_first", "time_decay", "time_mix_k", "time_mix_v", "time_mix_r"}
RWKV5 = {"time_faaaa", "time_decay", "time_mix_k", "time_mix_v", "time_mix_r", "time_mix_g", "gate.weight"}


def _keys_error(owner: str, missing: set[str], unexpected: set[str]) -> str:
    def listed(names: set[str]) -> str:
        return ", ".join(f'"blocks.{i}.att.{n}"' for i in range(2) for n in sorted(names))

    return (
        f"RuntimeError: Error(s) in loading state_dict for {owner}:\n\tMissing key(s) in state_dict: {listed(missing)}."
        f"\n\tUnexpected key(s) in state_dict: {listed(unexpected)}."
    )


def test_a_blinkdl_rwkv_checkpoint_of_another_version_is_named():
    """RWKV-LM#197: an RWKV-4 checkpoint into an RWKV-5 model, and the other way round."""
    text = _keys_error("RWKV", RWKV5 - RWKV4, RWKV4 - RWKV5)
    assert "RWKV: the checkpoint is a RWKV-4 (BlinkDL RWKV-v4neo) model's, not a RWKV-5" in derive.explain_error(text)
    text = _keys_error("RWKV", RWKV4 - RWKV5, RWKV5 - RWKV4)
    assert "the checkpoint is a RWKV-5 (BlinkDL RWKV-v5, x052) model's, not a RWKV-4" in derive.explain_error(text)
    near = _keys_error("RWKV", {"time_bonus"}, RWKV4 - RWKV5)  # a key no version has
    assert "the checkpoint is a" not in derive.explain_error(near)
