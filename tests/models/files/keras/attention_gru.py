"""A GRU document classifier with attention pooling, written TF2-style (tensorflow.keras)."""

from tensorflow.keras import layers
from tensorflow.keras.models import Model

DEFAULTS = {"vocab_size": 30000, "embed_dim": 200, "gru_units": 100, "reset_after": False, "num_classes": 4}


def build(params=None):
    p = dict(DEFAULTS, **(params or {}))
    tokens = layers.Input(shape=(None,), dtype="int32")
    emb = layers.Embedding(p["vocab_size"], p["embed_dim"])(tokens)
    seq = layers.Bidirectional(layers.GRU(p["gru_units"], return_sequences=True, reset_after=p["reset_after"]))(emb)
    seq = layers.GRU(p["gru_units"], return_sequences=True)(seq)
    query = layers.Dense(p["gru_units"], use_bias=False)(seq)
    context = layers.AdditiveAttention()([query, seq])
    pooled = layers.GlobalAveragePooling1D()(layers.Concatenate()([seq, context]))
    out = layers.Dense(p["num_classes"], activation="softmax")(pooled)
    return Model(tokens, out)


model = build({"embed_dim": 128})
