"""A sequence classifier over transformers' Mamba backbone: the config written in the code, the
backbone built with ``AutoModel.from_config`` and a head sized from ``config.hidden_size``."""

import torch.nn as nn
from transformers import AutoConfig, AutoModel, MambaConfig


class MambaClassifier(nn.Module):
    def __init__(self, config, num_labels=5, dropout=0.1):
        super().__init__()
        self.backbone = AutoModel.from_config(config)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Sequential(
            nn.Linear(config.hidden_size, config.hidden_size // 2),
            nn.Tanh(),
            nn.Linear(config.hidden_size // 2, num_labels),
        )


config = MambaConfig(vocab_size=8000, hidden_size=256, state_size=8, num_hidden_layers=6, expand=2)
config.pad_token_id = 0
model = MambaClassifier(config)
decoder_config = AutoConfig.for_model(
    "mamba2", hidden_size=128, num_heads=4, head_dim=64, n_groups=2, num_hidden_layers=2, vocab_size=500
)
