"""``torch.nn``'s classes as users write them, registered in :mod:`derive.engine.constructors`.

Importing this package registers, under the framework key ``"torch"`` and the prefixes ``nn.`` and
``torch.nn.``, every ``torch.nn`` class that is not recurrent (the recurrent ones are registered by
:mod:`derive.frameworks.torch_recurrent`): each with torch's signature and checks, the letters of
its closed form, and a reader of live modules. Families: :mod:`.linear` (Linear, Bilinear,
Embedding, EmbeddingBag, PReLU, adaptive softmax), :mod:`.conv`, :mod:`.norm`, :mod:`.attention`
(MultiheadAttention, transformer layers), :mod:`.containers` and :mod:`.stateless` (every class
without parameters).

>>> from derive.engine.constructors import find
>>> [c.name for c in find("nn.TransformerEncoderLayer")]
['TransformerEncoderLayer']
"""

from __future__ import annotations

from . import attention, containers, conv, linear, norm, stateless
from .stateless import STATELESS

__all__ = ["STATELESS", "attention", "containers", "conv", "linear", "norm", "stateless"]
