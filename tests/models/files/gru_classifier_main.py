"""A GRU sentence classifier whose hyper-parameters are a dict made under the main guard and passed
with ``**``; the model is moved to a device, as training scripts do."""

import torch
from torch import nn

PAD_IDX = 0


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, num_classes, bidirectional=False):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD_IDX)
        self.gru = nn.GRU(embed_dim, hidden_size, num_layers, batch_first=True, bidirectional=bidirectional)
        directions = 2 if bidirectional else 1
        self.norm = nn.LayerNorm(hidden_size * directions)
        self.fc = nn.Linear(hidden_size * directions, num_classes)

    def forward(self, x):
        output, hidden = self.gru(self.embedding(x))
        return self.fc(self.norm(output[:, -1]))


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    config = dict(vocab_size=25_000, embed_dim=300, hidden_size=256, num_layers=2, num_classes=5)
    config["bidirectional"] = True
    model = GRUClassifier(**config).to(device)
    print(f"The model has {count_parameters(model):,} trainable parameters")
