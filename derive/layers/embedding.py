"""A lookup table of ``num_embeddings`` vectors: ``torch.nn.Embedding``, Keras ``Embedding``.

Sources: ``torch/nn/modules/sparse.py`` (``weight`` (num_embeddings, embedding_dim));
``keras/src/layers/core/embedding.py`` (``embeddings`` (input_dim, output_dim)).

>>> embedding(50280, 768).count
38615040
"""

from __future__ import annotations

from ..tree import Dim, Module, Param
from . import Spelling
from . import spelling as _spelling

__all__ = ["embedding"]


def embedding(
    num_embeddings: Dim,
    embedding_dim: Dim,
    *,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str = "Embedding",
) -> Module:
    """A table of ``num_embeddings`` vectors of ``embedding_dim`` features.

    Parameters
    ----------
    num_embeddings : int or sympy.Expr
        V, the vocabulary size (Keras ``input_dim``).
    embedding_dim : int or sympy.Expr
        E, features per vector (Keras ``output_dim``).
    name : str
    spelling : str or Spelling, default "torch"
        ``"torch"``: ``weight``; ``"keras"``: ``embeddings``.
    type : str, default "Embedding"
        The class name (``"EmbeddingBag"``: the same table, summed or averaged per bag).

    Returns
    -------
    derive.tree.Module
        V·E parameters.
    """
    s = _spelling(spelling)
    tensor = "embeddings" if s.framework == "keras" else "weight"
    return Module(name, type, (Param(tensor, (num_embeddings, embedding_dim)),), sep=s.sep, part="embeddings")
