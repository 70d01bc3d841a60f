"""An encoder whose attention layer is switched on by an environment variable (unknown when reading the code)."""

import os

import torch.nn as nn

USE_ATTENTION = os.environ.get("USE_ATTENTION", "0") == "1"


class Encoder(nn.Module):
    def __init__(self, vocab_size=8000, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        if USE_ATTENTION:
            self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.out = nn.Linear(dim, 2)


model = Encoder()
