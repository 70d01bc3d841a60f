"""mamba_ssm, live, for the tests (not a test module): its own environment, ``.venv-ssm``, runs
``tests/support/mamba_worker.py``; :func:`live` sends one request and returns the answer."""

from __future__ import annotations

import os
from pathlib import Path

from frameworks_live_extra import worker_request


def ssm_python() -> str | None:
    """The Python of mamba_ssm's environment: ``$DERIVE_SSM_PYTHON`` or ``.venv-ssm/bin/python``."""
    python = os.environ.get("DERIVE_SSM_PYTHON") or str(Path(__file__).resolve().parents[2] / ".venv-ssm/bin/python")
    return python if Path(python).exists() else None


def live(request: dict) -> dict:
    """mamba_ssm's answer to ``request`` (see the worker's protocol); RuntimeError for its errors."""
    python = ssm_python()
    assert python, ".venv-ssm is missing: run scripts/bootstrap --test"
    return worker_request("mamba", python, request)
