"""Run examples/derive.ipynb on this Python's kernel and store its outputs in place.

    .venv/bin/python examples/execute_notebook.py

The site's notebook page (derive/pages/tools.py) shows the stored outputs;
tests/site/test_notebook.py runs the notebook again and fails if they differ.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().with_name("derive.ipynb")


def execute(path: Path = NOTEBOOK, timeout: int = 300):
    """Execute the notebook with the ``python3`` kernel of the running interpreter; return it."""
    os.environ.setdefault("KERAS_BACKEND", "torch")
    os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    return nb


if __name__ == "__main__":
    nb = execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK}", file=sys.stderr)
