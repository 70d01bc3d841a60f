"""The verification record's tally (not a test module): which (framework, class) pairs this run
held against the real package, and in how many cases — the frameworks of
:data:`derive.frameworks.FRAMEWORKS` and the libraries the blocks are held against
(:data:`docs_src.record.LIBRARIES`: transformers, mamba_ssm, fla), each under its own key.

A live differential test calls :func:`checked` once per case it compared (names, shapes and count
read from the real object, never from ``derive``). At the end of a run with
``DERIVE_UPDATE_RECORD=1``, ``tests/conftest.py`` writes the tally into
``docs_src/verification.json`` (framework, package versions, classes with their cases, date);
``tests/site/test_verification_record.py`` checks on every run that the record names the installed
versions and that every class it lists was checked live.
"""

from __future__ import annotations

from collections import Counter

#: (framework key, class name) -> number of cases compared in this run.
CASES: Counter[tuple[str, str]] = Counter()


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
