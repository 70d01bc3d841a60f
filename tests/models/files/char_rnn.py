"""A character-level RNN language model (in the style of karpathy/char-rnn, ported to PyTorch)."""

import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size=512, n_layers=3, model="lstm", dropout=0.5, embed_dim=None):
        super().__init__()
        self.model = model.lower()
        self.hidden_size = hidden_size
        self.n_layers = n_layers
        embed_dim = embed_dim or hidden_size
        self.encoder = nn.Embedding(vocab_size, embed_dim)
        rnn_cls = nn.GRU if self.model == "gru" else nn.LSTM
        self.rnn = rnn_cls(embed_dim, hidden_size, n_layers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, hidden):
        output, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, batch_size):
        weight = next(self.parameters())
        if self.model == "lstm":
            return (
                weight.new_zeros(self.n_layers, batch_size, self.hidden_size),
                weight.new_zeros(self.n_layers, batch_size, self.hidden_size),
            )
        return weight.new_zeros(self.n_layers, batch_size, self.hidden_size)


chars = sorted(set("First Citizen: Before we proceed any further, hear me speak."))
model = CharRNN(len(chars), hidden_size=128, n_layers=2, model="gru", embed_dim=64)
