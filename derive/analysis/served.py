"""Caches as served: the element formats a serving engine keeps keys, values and recurrent states in.

transformers keeps a cache's keys and values in the model's dtype and some recurrent states in
float32 (each :class:`~derive.tree.State` says which: ``dtype`` None is the model's dtype). A
serving engine may keep them otherwise: vLLM's ``--kv-cache-dtype fp8`` (keys and values in one
byte, the Mamba state untouched, vLLM #55196) and ``--mamba-ssm-cache-dtype`` (the recurrent state),
SGLang's ``--mamba-ssm-dtype``, llama.cpp's ``--cache-type-k`` / ``--cache-type-v`` and Ollama's
``OLLAMA_KV_CACHE_TYPE`` (``q8_0``, ``q4_0``: blocks of 32 values with their scales, Ollama #5091).
:func:`entry_bytes` prices a tensor of a state in one of them.

Element formats (:data:`FORMATS`), bytes per value:

``float32`` 4, ``float16`` / ``bfloat16`` 2, ``float8_e4m3fn`` / ``float8_e5m2`` / ``int8`` 1 —
torch's element sizes (``torch.empty(0, dtype=...).element_size()``); vLLM's names ``fp8``,
``fp8_e4m3`` (both e4m3) and ``fp8_e5m2`` are accepted and said back as torch's.

Block formats (:data:`BLOCKS`), ggml's block structs (llama.cpp ``ggml/src/ggml-common.h``, the
``block_q*`` structs and their ``static_assert`` on ``sizeof``): 32 values a block, along the
tensor's last axis (a head's width), so a width not divisible by 32 is refused:

========  =====================================================================  =====
format    struct (``ggml-common.h``)                                              bytes
========  =====================================================================  =====
q8_0      ``block_q8_0``: ``ggml_half d``; ``int8_t qs[QK8_0]`` (QK8_0 = 32)       34
q4_0      ``block_q4_0``: ``ggml_half d``; ``uint8_t qs[QK4_0 / 2]`` (QK4_0 = 32)  18
q4_1      ``block_q4_1``: ``ggml_half d, m``; ``uint8_t qs[QK4_1 / 2]``            20
q5_0      ``block_q5_0``: ``ggml_half d``; ``uint8_t qh[4]``; ``qs[QK5_0 / 2]``     22
q5_1      ``block_q5_1``: ``ggml_half d, m``; ``uint8_t qh[4]``; ``qs[QK5_1 / 2]``  24
iq4_nl    ``block_iq4_nl``: ``ggml_half d``; ``uint8_t qs[QK4_NL / 2]`` (32)       18
========  =====================================================================  =====

The same sizes are gguf-py's ``GGML_QUANT_SIZES`` (``gguf/constants.py``: ``Q8_0: (32, 2 + 32)``,
``Q4_0: (32, 2 + 16)``, ``Q4_1: (32, 2 + 2 + 16)``, ``Q5_0: (32, 2 + 4 + 16)``, ``Q5_1: (32, 2 + 2 +
4 + 16)``, ``IQ4_NL: (32, 2 + 16)``), against which the tests hold them.

Which format each tensor of a cache is kept in (:class:`Served`): a tensor that grows with the tokens
(keys, values, MLA's latent, an indexer's keys) in ``kv_dtype``, a recurrent or conv state in
``state_dtype``, either, when none is asked, as transformers holds it (the :class:`~derive.tree.State`'s
own dtype, e.g. float32 SSM states, else the model's); an integer counter stays as it is (int64).

Not counted: per-layer scales some engines keep beside an fp8 cache (vLLM's ``k_scale`` and
``v_scale``, one float each per attention layer: the layer's parameters, not the cache), and the
page granularity of a paged cache (vLLM's blocks of 16 tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tree import State

__all__ = ["FORMATS", "BLOCKS", "ALIASES", "served_format", "entry_bytes", "check_width", "Served"]

#: Bytes per value of the element formats a cache can be served in (torch's element sizes).
FORMATS = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int8": 1,
    "int64": 8,
}

#: ggml's block formats: (values per block, bytes per block), from the ``block_*`` structs of
#: llama.cpp's ``ggml/src/ggml-common.h`` (see the module docstring).
BLOCKS = {
    "q8_0": (32, 34),
    "q4_0": (32, 18),
    "q4_1": (32, 20),
    "q5_0": (32, 22),
    "q5_1": (32, 24),
    "iq4_nl": (32, 18),
}

#: Other spellings, as serving engines write them (vLLM's ``--kv-cache-dtype``; llama.cpp's ``f16``).
ALIASES = {
    "fp8": "float8_e4m3fn",
    "fp8_e4m3": "float8_e4m3fn",
    "fp8_e5m2": "float8_e5m2",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "fp16": "float16",
    "fp32": "float32",
}

#: The formats a served cache may be asked in (``--kv-dtype``, ``--state-dtype``).
SERVED = ("float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int8", *BLOCKS)


def served_format(name: Any, option: str = "kv_dtype") -> str | None:
    """The format ``name`` means (an alias resolved), or None for None.

    Parameters
    ----------
    name : str or None
        ``"fp8"``, ``"q8_0"``, ``"bfloat16"`` ...; None: as transformers holds the cache.
    option : str
        The argument's name, for the message.

    Returns
    -------
    str or None

    Raises
    ------
    TypeError
        ``name`` is neither a str nor None.
    ValueError
        A format not in :data:`SERVED` (nor an alias of one).

    Examples
    --------
    >>> served_format("fp8"), served_format("q4_0"), served_format(None)
    ('float8_e4m3fn', 'q4_0', None)
    """
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"{option} must be a str, got {type(name).__name__}")
    resolved = ALIASES.get(name.lower(), name.lower())
    if resolved not in SERVED:
        spelled = ", ".join([*SERVED, *ALIASES])
        raise ValueError(f"{option} must be one of {spelled}; got {name[:40]!r}")
    return resolved


def entry_bytes(fmt: str) -> Fraction:
    """Bytes per value of a format: an int for an element format, a fraction for a block format.

    Parameters
    ----------
    fmt : str
        A name of :data:`FORMATS` or :data:`BLOCKS`.

    Returns
    -------
    fractions.Fraction
        Units: bytes per value (q8_0: 34/32).

    Examples
    --------
    >>> entry_bytes("bfloat16"), entry_bytes("q8_0")
    (Fraction(2, 1), Fraction(17, 16))
    """
    if fmt in BLOCKS:
        values, size = BLOCKS[fmt]
        return Fraction(size, values)
    return Fraction(FORMATS[fmt])


def check_width(fmt: str | None, width: Any, what: str) -> None:
    """Refuse a block format for a tensor whose last axis is not a whole number of blocks.

    Parameters
    ----------
    fmt : str or None
        The served format (None: none asked).
    width : int or sympy.Expr
        The tensor's last axis (a head's width).
    what : str
        The tensor, for the message (``"model.layers.{k}.self_attn keys"``).

    Raises
    ------
    ValueError
        ``fmt`` is a block format and ``width`` an int not divisible by its block (32 values).
    """
    if fmt not in BLOCKS:
        return
    block = BLOCKS[fmt][0]
    if type(width) is int and width % block:
        raise ValueError(
            f"kv_dtype {fmt!r} stores blocks of {block} values along a head's width; {what} is {width} wide, "
            f"not a multiple of {block} (llama.cpp refuses it too)"
        )


@dataclass(frozen=True)
class Served:
    """The formats a cache's tensors are kept in: as transformers holds them, or as a serving engine is
    asked to keep them (see the module docstring).

    Attributes
    ----------
    dtype : str
        The model's dtype: a state's whose own ``dtype`` is None, where no format is asked for it.
    kv_dtype : str or None
        The format of every tensor that grows with the tokens (:func:`served_format`'s name); None: as
        transformers holds them.
    state_dtype : str or None
        The format of the recurrent and conv states; None: as transformers holds them.
    """

    dtype: str
    kv_dtype: str | None = None
    state_dtype: str | None = None

    def format(self, state: State) -> str:
        """The format ``state`` is kept in.

        Parameters
        ----------
        state : derive.tree.State

        Returns
        -------
        str
            A counter's own dtype (int64 where it names none); else ``kv_dtype`` for a state that grows
            with the tokens and ``state_dtype`` for another, where asked; else the state's own dtype, else
            the model's.
        """
        if state.counter:
            return state.dtype or "int64"
        if state.per_token:
            return self.kv_dtype or state.dtype or self.dtype
        return self.state_dtype or state.dtype or self.dtype
