"""A GRU tagger whose sizes come from a JSON file next to it (read at run time: derive cannot know them)."""

import json

import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, vocab_size, num_tags, embed_dim=100, hidden_size=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.gru = nn.GRU(embed_dim, hidden_size, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden_size, num_tags)


with open("config.json") as f:
    cfg = json.load(f)

model = Tagger(cfg["vocab_size"], cfg["num_tags"], hidden_size=cfg.get("hidden_size", 128))
