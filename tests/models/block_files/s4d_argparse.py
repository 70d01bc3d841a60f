"""state-spaces/s4's example.py as it stands (the sizes and S4D's lr read from the command line)."""

import argparse

import torch.nn as nn
from models.s4.s4d import S4D

parser = argparse.ArgumentParser(description="PyTorch CIFAR10 Training")
parser.add_argument("--lr", default=0.01, type=float, help="Learning rate")
parser.add_argument("--d_model", default=128, type=int, help="Model dimension")
args = parser.parse_args()


class S4Model(nn.Module):
    def __init__(self, d_input, d_output=10, d_model=256, n_layers=4, dropout=0.2):
        super().__init__()
        self.encoder = nn.Linear(d_input, d_model)
        self.s4_layers = nn.ModuleList()
        for _ in range(n_layers):
            self.s4_layers.append(S4D(d_model, dropout=dropout, transposed=True, lr=min(0.001, args.lr)))
        self.decoder = nn.Linear(d_model, d_output)


model = S4Model(d_input=3, d_model=128)
