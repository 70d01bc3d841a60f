"""A BiLSTM text classifier configured by a dict of hyper-parameters with defaults."""

from types import SimpleNamespace

import torch.nn as nn

DEFAULTS = {
    "vocab_size": 20000,
    "embed_dim": 128,
    "hidden_dim": 256,
    "num_layers": 2,
    "bidirectional": True,
    "dropout": 0.3,
    "num_classes": 5,
    "cell": "lstm",
    "use_attention": True,
}


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1, bias=False)


class TextClassifier(nn.Module):
    def __init__(self, hparams=None):
        super().__init__()
        hp = {**DEFAULTS, **(hparams or {})}
        self.hp = SimpleNamespace(**hp)
        self.embedding = nn.Embedding(hp["vocab_size"], hp["embed_dim"], padding_idx=0)
        rnn = {"lstm": nn.LSTM, "gru": nn.GRU}[hp.get("cell", "lstm")]
        self.rnn = rnn(
            hp["embed_dim"],
            hp["hidden_dim"],
            num_layers=hp["num_layers"],
            bidirectional=hp["bidirectional"],
            dropout=hp["dropout"] if hp["num_layers"] > 1 else 0.0,
            batch_first=True,
        )
        out_dim = hp["hidden_dim"] * (2 if hp["bidirectional"] else 1)
        if self.hp.use_attention:
            self.attention = Attention(out_dim)
        self.norm = nn.LayerNorm(out_dim)
        self.classifier = nn.Linear(out_dim, hp["num_classes"])


config = {"cell": "gru", "hidden_dim": 192, "num_classes": 3}
model = TextClassifier(config)
