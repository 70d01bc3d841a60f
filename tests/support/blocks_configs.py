"""Small configs of the transformers block models, drawn by hypothesis, for the tests (not a test module).

Every size is small enough for a model with real CPU tensors (a checkpoint written with
``safetensors.torch.save_file`` or ``torch.save``) to take milliseconds; transformers builds every
config drawn (its own checks: Mamba-2's ``hidden_size * expand == num_heads * head_dim``,
RecurrentGemma's key/value heads at most its heads).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: The model types and the class ``AutoModelForCausalLM.from_config`` builds of each.
CLASSES = {
    "mamba": "MambaForCausalLM",
    "falcon_mamba": "FalconMambaForCausalLM",
    "mamba2": "Mamba2ForCausalLM",
    "rwkv": "RwkvForCausalLM",
    "recurrent_gemma": "RecurrentGemmaForCausalLM",
}


@st.composite
def configs(draw: st.DrawFn) -> tuple[str, dict]:
    """(model type, config): a model type of :data:`CLASSES` and sizes it builds with."""
    model_type = draw(st.sampled_from(sorted(CLASSES)))
    layers = draw(st.integers(1, 3))
    vocab = draw(st.integers(5, 90))
    tie = draw(st.booleans())
    if model_type in ("mamba", "falcon_mamba"):
        d = draw(st.integers(4, 40))
        config = {"hidden_size": d, "state_size": draw(st.integers(1, 12)), "expand": draw(st.integers(1, 3)),
                  "conv_kernel": draw(st.integers(1, 5)), "use_bias": draw(st.booleans()),
                  "use_conv_bias": draw(st.booleans())}  # fmt: skip
        if draw(st.booleans()):
            config["time_step_rank"] = draw(st.integers(1, 6))
        if draw(st.booleans()):  # an inner width of its own (transformers reads it over expand)
            config["intermediate_size"] = draw(st.integers(1, 60))
    elif model_type == "mamba2":
        heads, head_dim, expand = draw(st.integers(1, 6)), draw(st.integers(2, 12)), draw(st.sampled_from([1, 2]))
        d = heads * head_dim // expand if (heads * head_dim) % expand == 0 else heads * head_dim
        expand = expand if (heads * head_dim) % expand == 0 else 1
        config = {"hidden_size": d, "num_heads": heads, "head_dim": head_dim, "expand": expand,
                  "state_size": draw(st.integers(1, 12)), "n_groups": draw(st.integers(1, 3)),
                  "conv_kernel": draw(st.integers(1, 5)), "use_bias": draw(st.booleans())}  # fmt: skip
    elif model_type == "rwkv":
        d = draw(st.integers(2, 40))
        config = {"hidden_size": d, "attention_hidden_size": draw(st.integers(1, 40)),
                  "intermediate_size": draw(st.integers(1, 80))}  # fmt: skip
    else:
        heads = draw(st.integers(1, 4))
        d = heads * draw(st.integers(2, 8))
        config = {"hidden_size": d, "num_attention_heads": heads, "num_key_value_heads": draw(st.integers(1, heads)),
                  "lru_width": heads * draw(st.integers(1, 8)), "intermediate_size": draw(st.integers(2, 60)),
                  "head_dim": 2 * draw(st.integers(1, 6)), "attention_bias": draw(st.booleans()),
                  "block_types": draw(st.sampled_from([["recurrent"], ["recurrent", "attention"],
                                                       ["recurrent", "recurrent", "attention"]]))}  # fmt: skip
        layers = draw(st.integers(len(config["block_types"]), 4))
    config.update(vocab_size=vocab, num_hidden_layers=layers, tie_word_embeddings=tie)
    return model_type, config


def cpu(model_type: str, config: dict[str, Any]) -> Any:
    """The model transformers builds from the config, with real (tiny) CPU tensors."""
    import torch
    import transformers

    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(model_type, **config))
