"""Shared set-up of the whole-model tests: Keras on the torch backend with a private KERAS_HOME.

Golden outputs
--------------
``tests/models/test_goldens.py`` compares the command line's output and ``derive.explain``'s
reports, whole, with the files in ``tests/models/golden/*.out``. After a deliberate change of
output, rewrite them and review the diff before committing::

    DERIVE_UPDATE_GOLDENS=1 ./scripts/test tests/models/test_goldens.py
    git diff tests/models/golden

With ``DERIVE_UPDATE_GOLDENS=1`` the comparisons are skipped (reported as such), so a run that
rewrites goldens never passes silently.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture
def golden():
    """``golden(name, text)``: ``text`` must equal ``golden/<name>.out`` whole (or rewrite it)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / f"{name}.out"
        if os.environ.get("DERIVE_UPDATE_GOLDENS") == "1":
            GOLDEN.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            pytest.skip(f"rewrote {path.name} (DERIVE_UPDATE_GOLDENS=1)")
        assert path.exists(), f"no golden {path.name}: run with DERIVE_UPDATE_GOLDENS=1 and review it"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"output differs from {path.name} (DERIVE_UPDATE_GOLDENS=1 rewrites it)"

    return check
