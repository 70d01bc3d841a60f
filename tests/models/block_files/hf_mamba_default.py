"""transformers' Mamba language model from a ``MambaConfig`` with its defaults (the model card's
recipe: ``MambaForCausalLM(MambaConfig())``; tied embeddings by default)."""

from transformers import MambaConfig, MambaForCausalLM

configuration = MambaConfig()
model = MambaForCausalLM(configuration)
