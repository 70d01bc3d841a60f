"""Two transformers models in one file: a Mamba-2 language model through ``AutoModelForCausalLM``
and an RWKV model built directly, untied."""

from transformers import AutoModelForCausalLM, Mamba2Config, RwkvConfig, RwkvForCausalLM

mamba2 = AutoModelForCausalLM.from_config(
    Mamba2Config(
        hidden_size=128, num_heads=8, head_dim=32, n_groups=2, state_size=16, num_hidden_layers=3, vocab_size=700
    )
)
rwkv_config = RwkvConfig(
    vocab_size=600, hidden_size=64, num_hidden_layers=3, attention_hidden_size=64, intermediate_size=192
)
model = RwkvForCausalLM(rwkv_config)
