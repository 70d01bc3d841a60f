"""A hybrid Mamba / attention stack (one attention layer every ``attn_every`` layers, as Jamba and
Zamba interleave them), each layer followed by a gated MLP."""

import torch.nn as nn
import torch.nn.functional as F
from mamba_ssm.modules.mamba_simple import Mamba


class GatedMLP(nn.Module):
    def __init__(self, d_model, hidden_mult=4, multiple_of=64):
        super().__init__()
        hidden = int(2 * hidden_mult * d_model / 3)
        hidden = multiple_of * ((hidden + multiple_of - 1) // multiple_of)
        self.fc1 = nn.Linear(d_model, 2 * hidden, bias=False)
        self.fc2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        y, gate = self.fc1(x).chunk(2, dim=-1)
        return self.fc2(y * F.silu(gate))


class AttentionMixer(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class HybridBlock(nn.Module):
    def __init__(self, d_model, layer_idx, n_heads=4, attn_every=3, ssm_cfg=None):
        super().__init__()
        ssm_cfg = ssm_cfg or {}
        self.norm1 = nn.RMSNorm(d_model)
        if (layer_idx + 1) % attn_every == 0:
            self.mixer = AttentionMixer(d_model, n_heads)
        else:
            self.mixer = Mamba(d_model, layer_idx=layer_idx, **ssm_cfg)
        self.norm2 = nn.RMSNorm(d_model)
        self.mlp = GatedMLP(d_model)

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class HybridModel(nn.Module):
    def __init__(self, vocab_size=2048, d_model=192, n_layers=6, attn_every=3, ssm_cfg=None):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(
            HybridBlock(d_model, i, attn_every=attn_every, ssm_cfg=ssm_cfg) for i in range(n_layers)
        )
        self.norm = nn.RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)


model = HybridModel(ssm_cfg=dict(d_state=8, d_conv=3, expand=1.5, dt_rank=16))
