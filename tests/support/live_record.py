"""The verification record's tally (not a test module): which (framework, class) pairs this run
held against the real package, and in how many cases — the frameworks of
:data:`derive.frameworks.FRAMEWORKS` and the libraries the blocks are held against
(:data:`docs_src.record.LIBRARIES`: transformers, mamba_ssm, fla), each under its own key — and the
memory questions' cases by kind and method (:data:`docs_src.record.MEMORY`: weights as stored, caches as
served, what fits, one GPU's share).

A live differential test calls :func:`checked` once per case it compared (names, shapes and count
read from the real object, never from ``derive``), and a live test of a memory question
:func:`checked_memory`, after its comparison. At the end of a run with ``DERIVE_UPDATE_RECORD=1``,
``tests/conftest.py`` writes the tally into ``docs_src/verification.json`` (framework, package versions,
classes with their cases, date; per memory kind its methods with their cases, versions and date);
``tests/site/test_verification_record.py`` checks on every run that the record names the installed
versions and that every class, kind and method it lists was checked live.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docs_src.record import MemoryCase

#: (framework key, class name) -> number of cases compared in this run.
CASES: Counter[tuple[str, str]] = Counter()

#: The memory questions' cases compared in this run, in order.
MEMORY: list[MemoryCase] = []


def checked(framework: str, cell: str) -> None:
    """Count one compared case of ``cell`` in ``framework``.

    Parameters
    ----------
    framework : str
        A key of :data:`derive.frameworks.FRAMEWORKS` or of :data:`docs_src.record.LIBRARIES` (a
        live one); the record refuses any other when it is written.
    cell : str
        The framework's class name (a block's class, or a model's architecture).
    """
    CASES[(framework, cell)] += 1


def checked_memory(
    kind: str, *methods: str, against: str | None = None, versions: Mapping[str, str] | None = None
) -> None:
    """Count one compared case of a memory question: of ``kind``, holding each of ``methods``.

    Call it after the comparison with the real package, once per case.

    Parameters
    ----------
    kind : str
        A key of :data:`docs_src.record.MEMORY`: ``"stored"``, ``"served"``, ``"fits"``, ``"share"``.
    *methods : str
        The kind's methods the case held (at least one): a quantization method (``"bnb-4bit"``), a served cache's
        keys' and values' format family and its states' (``docs_src.record.served_method``), ...
    against : str or None
        The class (or function) of the real object compared with, read from it: the quantizer's class.
    versions : mapping of str to str, or None
        The packages' versions the comparison ran with, where it ran in another process (the quantizers' worker
        reports them); None: the test environment's, read when the record is written.

    Raises
    ------
    KeyError
        No such kind, or no such method of it.
    ValueError
        No method.
    """
    from docs_src.record import MemoryCase, memory_method

    if not methods:
        raise ValueError(f"checked_memory({kind!r}) names no method")
    for method in methods:
        memory_method(kind, method)
    MEMORY.append(MemoryCase(kind, tuple(methods), against, tuple(sorted((versions or {}).items()))))
