"""Checkpoints of block models read back to their configs (``derive.read.files.block_infer``).

The checkpoints are written by the real libraries from models transformers 5.23.0 builds with real
(tiny) CPU tensors: ``model.save_pretrained`` (``model.safetensors``, a tied head left out),
``safetensors.torch.save_file`` of the state dict without its tied copies, and
``torch.save(model.state_dict())`` (the tied head saved once, under both names). derive must infer
the config the model was built with (each key it names is the model's ``config``'s value, but for
what the shapes cannot tell, which it must say), count what ``model.parameters()`` counts, and list
the tensors ``model.named_parameters()`` lists.
"""

from __future__ import annotations

import blocks_configs
import hf_live
import pytest
from hypothesis import HealthCheck, given, settings

import derive
from derive.read.files.state_dict import explain_state_dict

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
#: The architecture derive names for each model type (FalconMamba saves Mamba's tensors).
NAMED = {**blocks_configs.CLASSES, "falcon_mamba": "MambaForCausalLM"}
#: Keys whose value the shapes fix, by model type (n_groups and state_size: only their product).
FIXED = {
    "mamba": ("vocab_size", "hidden_size", "state_size", "conv_kernel", "num_hidden_layers", "use_bias",
              "use_conv_bias", "tie_word_embeddings", "time_step_rank", "intermediate_size"),
    "mamba2": ("vocab_size", "hidden_size", "num_heads", "expand", "conv_kernel", "num_hidden_layers", "use_bias",
               "use_conv_bias", "tie_word_embeddings"),
    "rwkv": ("vocab_size", "hidden_size", "num_hidden_layers", "attention_hidden_size", "intermediate_size",
             "tie_word_embeddings"),
    "recurrent_gemma": ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "lru_width",
                        "conv1d_width", "tie_word_embeddings"),
}  # fmt: skip
FIXED["falcon_mamba"] = FIXED["mamba"]


def tied_copies(model) -> set[str]:
    """The state dict's names that ``named_parameters()`` does not list: a tied tensor's second name."""
    return set(model.state_dict()) - {name for name, _ in model.named_parameters()}


def inferred(report: derive.read.Report, model, model_type: str) -> None:
    """The report is the model's config's: the architecture, every tensor, the total, the keys."""
    assert report.title == f"{NAMED[model_type]} from its tensors (config inferred)"
    assert report.total == hf_live.total(model)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    config = report.module.config
    for key in FIXED[model_type]:
        if key in config:
            assert config[key] == getattr(model.config, key), key
    if model_type == "mamba2":  # the shapes fix only n_groups × state_size, and say so
        assert config["n_groups"] * config["state_size"] == model.config.n_groups * model.config.state_size
        assert any("only the product of the groups and the state size" in note for note in report.notes)
    if model_type == "recurrent_gemma":
        assert config["intermediate_size"] // 2 == model.config.intermediate_size // 2
        layers = [
            "recurrent" if hasattr(layer.temporal_block, "rg_lru") else "attention" for layer in model.model.layers
        ]
        assert [config["block_types"][i % len(config["block_types"])] for i in range(len(layers))] == layers
    assert report.notes[0].startswith("config inferred from the tensor shapes: ")


def check_files(model_type: str, config: dict, tmp_path) -> None:
    """Every checkpoint format of one model, read back."""
    import torch
    from safetensors.torch import save_file

    try:
        model = blocks_configs.cpu(model_type, config)
    except ZeroDivisionError:
        # RWKV's initialisation divides by num_hidden_layers - 1 and by attention_hidden_size - 1
        # (transformers/models/rwkv/modeling_rwkv.py, _init_weights): no weights to save
        assert model_type == "rwkv" and 1 in (config["num_hidden_layers"], config.get("attention_hidden_size"))
        return
    state = model.state_dict()
    copies = tied_copies(model)
    model.save_pretrained(tmp_path / "hf")
    saved = derive.explain(str(tmp_path / "hf" / "model.safetensors"))
    inferred(saved, model, model_type)
    if copies:
        head = next(iter(copies))
        assert any(note.startswith(f"{head} is not among the tensors: it is tied to") for note in saved.notes)
    save_file({k: v.contiguous() for k, v in state.items() if k not in copies}, tmp_path / "plain.safetensors")
    inferred(derive.explain(str(tmp_path / "plain.safetensors")), model, model_type)
    torch.save(state, tmp_path / "state.pt")
    pickled = derive.explain(str(tmp_path / "state.pt"))
    inferred(pickled, model, model_type)
    if copies:
        assert any("storage (tied): counted once" in note for note in pickled.notes)
    inferred(derive.explain(state), model, model_type)
    hf_live.record("transformers", blocks_configs.CLASSES[model_type])


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        ("mamba", {"vocab_size": 60, "hidden_size": 16, "num_hidden_layers": 2, "state_size": 4, "expand": 3}),
        ("mamba", {"vocab_size": 60, "hidden_size": 16, "num_hidden_layers": 1, "intermediate_size": 20,
                   "tie_word_embeddings": False, "use_conv_bias": False}),
        ("recurrent_gemma", {"vocab_size": 60, "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                             "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 33}),
    ],
)  # fmt: skip
def test_checkpoints_of_a_mamba_and_a_recurrent_gemma(model_type: str, config: dict, tmp_path) -> None:
    check_files(model_type, config, tmp_path)


@pytest.mark.slow
@PROPERTY
@given(drawn=blocks_configs.configs())
def test_random_checkpoints_read_back(drawn: tuple[str, dict], tmp_path_factory) -> None:
    model_type, config = drawn
    check_files(model_type, config, tmp_path_factory.mktemp("ckpt"))


# --------------------------------------------------------------------------- what is not a model's config


def rwkv_state() -> dict:
    model = blocks_configs.cpu("rwkv", {"vocab_size": 40, "hidden_size": 8, "num_hidden_layers": 3})
    return dict(model.state_dict())


def test_tensors_the_config_cannot_rebuild_are_read_as_tensors() -> None:
    import torch

    state = rwkv_state()
    # a layer missing: said, and the rest counted from the tensors
    gap = {k: v for k, v in state.items() if not k.startswith("rwkv.blocks.1.")}
    report = derive.explain(gap)
    assert report.total == sum(v.numel() for v in gap.values())
    assert any("rwkv.blocks.1 is missing (layers are numbered 0 … 2)" in note for note in report.notes)
    # a tensor of another shape
    odd = {**state, "rwkv.blocks.2.attention.time_first": torch.zeros(9)}
    report = derive.explain(odd)
    assert report.total == sum(v.numel() for v in odd.values())
    assert any(
        "rwkv.blocks.2.attention.time_first is (9,) in the tensors, (8,) in the model" in note for note in report.notes
    )
    # a tensor the model does not have
    extra = {**state, "rwkv.blocks.0.attention.extra": torch.zeros(2)}
    assert any(
        "rwkv.blocks.0.attention.extra is in the tensors but not in the model" in n for n in derive.explain(extra).notes
    )
    # a tie the model does not have
    shapes = {k: tuple(v.shape) for k, v in state.items()}
    tied = explain_state_dict(shapes, complete=True, ties={"rwkv.ln_out.weight": "rwkv.blocks.0.ln1.weight"})
    assert any("shares rwkv.blocks.0.ln1.weight's storage, which the model does not tie" in n for n in tied.notes)
    # a partial listing (an error message's tensors) is never read as a model
    assert not explain_state_dict(shapes, complete=False).title.endswith("(config inferred)")


def whole(shapes: dict) -> derive.read.Report:
    """A whole state dict given as names and shapes."""
    return explain_state_dict(shapes, complete=True)


def test_shapes_no_config_gives_are_said() -> None:
    model = blocks_configs.cpu(
        "recurrent_gemma",
        {"vocab_size": 30, "hidden_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2, "head_dim": 4},
    )
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    # more key/value heads than heads: the inferred config is refused as transformers refuses it
    wide = {
        **shapes,
        "model.layers.2.temporal_block.k_proj.weight": (12, 8),
        "model.layers.2.temporal_block.v_proj.weight": (12, 8),
    }
    assert any("its inferred config is refused" in n for n in whole(wide).notes)
    # no RG-LRU layer: the heads cannot be told
    attention_only = {k: s for k, s in shapes.items() if ".0." not in k and ".1." not in k}
    attention_only = {k.replace("layers.2.", "layers.0."): s for k, s in attention_only.items()}
    assert any("num_attention_heads cannot be told" in n for n in whole(attention_only).notes)
    # q_proj rows that are no multiple of the heads
    odd = {**shapes, "model.layers.2.temporal_block.q_proj.weight": (7, 8)}
    assert any("not num_attention_heads (2) × head_dim" in n for n in whole(odd).notes)
    # a tensor of the wrong rank
    flat = {**shapes, "model.layers.0.temporal_block.conv_1d.weight": (8, 4)}
    assert any("conv_1d.weight has 2 dimensions, not 3" in n for n in whole(flat).notes)


def test_mamba2_shapes_no_config_gives() -> None:
    model = blocks_configs.cpu(
        "mamba2",
        {"vocab_size": 30, "hidden_size": 16, "num_hidden_layers": 1, "num_heads": 4, "head_dim": 8, "n_groups": 1},
    )
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    rows = shapes["backbone.layers.0.mixer.in_proj.weight"]
    odd = {**shapes, "backbone.layers.0.mixer.in_proj.weight": (rows[0] + 1, rows[1])}
    assert any("not 2E + 2GN + H of a Mamba-2 mixer" in n for n in whole(odd).notes)
    uneven = {
        **shapes,
        "backbone.layers.0.mixer.A_log": (3,),
        "backbone.layers.0.mixer.in_proj.weight": (rows[0] - 1, 16),
    }
    assert any("is not expand × hidden_size and num_heads × head_dim" in n for n in whole(uneven).notes)


def test_mamba_ssm_names_whose_shapes_give_no_config() -> None:
    # a Mamba-2 mixer under mamba_ssm's names (backbone.embedding): the refusals of its reader
    model = blocks_configs.cpu(
        "mamba2",
        {"vocab_size": 30, "hidden_size": 16, "num_hidden_layers": 1, "num_heads": 4, "head_dim": 8, "n_groups": 1},
    )
    shapes = {
        k.replace("backbone.embeddings.", "backbone.embedding."): tuple(v.shape) for k, v in model.state_dict().items()
    }
    rows = shapes["backbone.layers.0.mixer.in_proj.weight"]
    wide = {
        **shapes,
        "backbone.layers.0.mixer.out_proj.weight": (16, 33),
        "backbone.layers.0.mixer.in_proj.weight": (rows[0] + 2, 16),
    }
    assert any("is not expand × d_model (Mamba2 takes an int)" in n for n in whole(wide).notes)
    heads = {
        **shapes,
        "backbone.layers.0.mixer.A_log": (6,),
        "backbone.layers.0.mixer.in_proj.weight": (rows[0] + 2, 16),
    }
    assert any("A_log has 6 heads: they do not divide the SSM width" in n for n in whole(heads).notes)
    # not a block model at all: read as any state dict, without a note
    assert (
        whole({"rnn.weight_ih_l0": (8, 3), "rnn.weight_hh_l0": (8, 2)}).notes[0].startswith("dropout and batch_first")
    )
