"""A small Mamba language model, written the way the mamba_ssm README suggests: blocks of
mamba_ssm's ``Mamba`` with pre-norm residuals, an embedding and a tied output head."""

import torch
import torch.nn as nn
from mamba_ssm import Mamba


class ResidualBlock(nn.Module):
    def __init__(self, d_model, d_state=16, d_conv=4, expand=2, layer_idx=None):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.mixer = Mamba(
            d_model=d_model,  # Model dimension d_model
            d_state=d_state,  # SSM state expansion factor
            d_conv=d_conv,  # Local convolution width
            expand=expand,  # Block expansion factor
            layer_idx=layer_idx,
        )

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class MambaLM(nn.Module):
    def __init__(self, vocab_size, d_model=256, n_layers=4, d_state=16, tie_weights=True, device=None):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList([ResidualBlock(d_model, d_state=d_state, layer_idx=i) for i in range(n_layers)])
        self.norm_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            self.lm_head.weight = self.embedding.weight

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm_f(x))


device = "cuda" if torch.cuda.is_available() else "cpu"
model = MambaLM(vocab_size=1000, d_model=128, n_layers=3, device=device)
