"""``torch.nn``'s classes as users write them, registered in :mod:`derive.engine.constructors`.

Its modules register, under the framework key ``"torch"`` and the prefixes ``nn.`` and
``torch.nn.``, every ``torch.nn`` class that is not recurrent (the recurrent ones are registered by
:mod:`derive.frameworks.torch_recurrent`): each with torch's signature and checks, the letters of
its closed form, and a reader of live modules. Families: :mod:`.linear` (Linear, Bilinear,
Embedding, EmbeddingBag, PReLU, adaptive softmax), :mod:`.conv`, :mod:`.norm`, :mod:`.attention`
(MultiheadAttention, transformer layers), :mod:`.containers` and :mod:`.stateless` (every class
without parameters). Each is imported when a lookup first asks for one of its classes
(:mod:`derive.engine.names` says which), not by importing this package.

>>> from derive.engine.constructors import find
>>> [c.name for c in find("nn.TransformerEncoderLayer")]
['TransformerEncoderLayer']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .stateless import STATELESS

__all__ = ["STATELESS", "attention", "containers", "conv", "linear", "norm", "stateless"]


def __getattr__(name: str) -> Any:
    """A module of this package, or ``STATELESS``, imported when first read."""
    if name == "STATELESS":
        from .stateless import STATELESS

        return STATELESS
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
