"""A linear-attention language model that interleaves flash-linear-attention's GLA and RWKV-7
layers (RWKV-7's value LoRA exists from layer 1 on)."""

import torch.nn as nn
from fla.layers import GatedLinearAttention, RWKV7Attention


class Block(nn.Module):
    def __init__(self, hidden_size, num_heads, layer_idx, num_layers):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        if layer_idx % 2 == 0:
            self.attn = GatedLinearAttention(
                hidden_size=hidden_size,
                num_heads=num_heads,
                use_short_conv=True,
                layer_idx=layer_idx,
            )
        else:
            self.attn = RWKV7Attention(
                hidden_size=hidden_size,
                head_dim=hidden_size // num_heads,
                layer_idx=layer_idx,
                num_hidden_layers=num_layers,
            )
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = nn.Sequential(
            nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(), nn.Linear(4 * hidden_size, hidden_size)
        )


class LinearAttentionLM(nn.Module):
    def __init__(self, vocab_size=1024, hidden_size=128, num_heads=4, num_layers=4):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([Block(hidden_size, num_heads, i, num_layers) for i in range(num_layers)])
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)


model = LinearAttentionLM()
