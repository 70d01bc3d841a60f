"""A Mamba-2 backbone whose mixer settings come from a config dict (ngroups, headdim), as
training scripts pass ``ssm_cfg`` to mamba_ssm's ``Mamba2``."""

import torch.nn as nn
from mamba_ssm.modules.mamba2 import Mamba2

config = {
    "vocab_size": 512,
    "d_model": 256,
    "n_layer": 4,
    "ssm_cfg": {"d_state": 64, "d_conv": 4, "expand": 2, "headdim": 32, "ngroups": 2},
}


class Mamba2Backbone(nn.Module):
    def __init__(self, vocab_size, d_model, n_layer, ssm_cfg=None, norm_eps=1e-5):
        super().__init__()
        ssm_cfg = dict(ssm_cfg or {})
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList()
        for i in range(n_layer):
            layer = nn.ModuleDict()
            layer["norm"] = nn.LayerNorm(d_model, eps=norm_eps)
            layer["mixer"] = Mamba2(d_model, layer_idx=i, **ssm_cfg)
            self.layers.append(layer)
        self.norm_f = nn.LayerNorm(d_model, eps=norm_eps)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)


model = Mamba2Backbone(**config)
