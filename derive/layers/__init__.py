"""Every non-recurrent primitive once, and the blocks composed of them.

Each module of this package writes one primitive (``linear``, ``embedding``, ``conv``, the norms,
``attention``, ``transformer``, ``stateless``, ``adaptive``) as a function of its sizes that
returns a :class:`derive.tree.Module`, with the framework's own spelling of its class and tensor
names (a :class:`Spelling`: ``torch.nn.Linear`` has ``weight`` (out, in); Keras ``Dense`` has
``kernel`` (in, out)). Composite layers and blocks (a Mamba mixer) compose these functions;
framework constructor mirrors and the readers of whole models call them. :mod:`.torch_nn`
registers every ``torch.nn`` class with torch's signature in :mod:`derive.engine.constructors`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Spelling", "TORCH", "KERAS", "spelling"]


@dataclass(frozen=True)
class Spelling:
    """How a framework names and lays out a primitive's tensors.

    Attributes
    ----------
    framework : str
        ``"torch"``, ``"keras"``, ...
    sep : str
        The framework's path separator (``"."`` torch, ``"/"`` Keras).
    transposed : bool
        Weights stored (in, out) with the output axis last (Keras, Flax, Haiku) rather than
        (out, in) (torch).
    """

    framework: str
    sep: str = "."
    transposed: bool = False


#: ``torch.nn`` (and the frameworks that copy its names: MLX, Equinox).
TORCH = Spelling("torch")
#: Keras 3 (``keras.layers``): weight paths joined by ``/``, kernels (in, out).
KERAS = Spelling("keras", "/", True)

_SPELLINGS = {s.framework: s for s in (TORCH, KERAS)}


def spelling(framework: str | Spelling) -> Spelling:
    """The :class:`Spelling` of ``framework`` (a key such as ``"torch"``, or a Spelling).

    Parameters
    ----------
    framework : str or Spelling

    Returns
    -------
    Spelling

    Raises
    ------
    ValueError
        An unknown framework.
    """
    if isinstance(framework, Spelling):
        return framework
    try:
        return _SPELLINGS[framework]
    except (KeyError, TypeError):
        raise ValueError(f"framework must be one of {sorted(_SPELLINGS)}, got {framework!r}") from None
