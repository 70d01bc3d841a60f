"""The S4D sequence classifier of state-spaces/s4's example.py (e757cef, lines 154-231), with the
example's argparse defaults written as a namespace (--lr 0.01, --d_model 128, --n_layers 4,
--dropout 0.1) and the torch >= 1.12 dropout."""

import argparse

import torch.nn as nn
from models.s4.s4d import S4D

dropout_fn = nn.Dropout1d
args = argparse.Namespace(lr=0.01, d_model=128, n_layers=4, dropout=0.1, prenorm=False)
d_input = 3
d_output = 10


class S4Model(nn.Module):
    def __init__(
        self,
        d_input,
        d_output=10,
        d_model=256,
        n_layers=4,
        dropout=0.2,
        prenorm=False,
    ):
        super().__init__()

        self.prenorm = prenorm

        # Linear encoder (d_input = 1 for grayscale and 3 for RGB)
        self.encoder = nn.Linear(d_input, d_model)

        # Stack S4 layers as residual blocks
        self.s4_layers = nn.ModuleList()
        self.norms = nn.ModuleList()
        self.dropouts = nn.ModuleList()
        for _ in range(n_layers):
            self.s4_layers.append(S4D(d_model, dropout=dropout, transposed=True, lr=min(0.001, args.lr)))
            self.norms.append(nn.LayerNorm(d_model))
            self.dropouts.append(dropout_fn(dropout))

        # Linear decoder
        self.decoder = nn.Linear(d_model, d_output)


model = S4Model(
    d_input=d_input,
    d_output=d_output,
    d_model=args.d_model,
    n_layers=args.n_layers,
    dropout=args.dropout,
    prenorm=args.prenorm,
)
