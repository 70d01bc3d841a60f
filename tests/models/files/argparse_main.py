"""An LSTM language model whose sizes come from the command line under the main guard: derive does
not know the arguments a user will pass, and says which one."""

import argparse

import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="PyTorch LSTM language model")
    parser.add_argument("--emsize", type=int, default=200)
    parser.add_argument("--nhid", type=int, default=200)
    parser.add_argument("--nlayers", type=int, default=2)
    args = parser.parse_args()
    model = RNNModel(33278, args.emsize, args.nhid, args.nlayers)
