"""Shared by the code reader's tests: snippets read by derive and built by torch (meta device)."""

from __future__ import annotations

import sys
import textwrap
import types
import unittest.mock
import warnings

HEADER = "import copy\nimport math\nimport functools\nimport torch\nimport torch.nn as nn\n"


def built(text: str, name: str = "model"):
    """Run the test's own snippet with torch (meta device, ``.to()`` a no-op) and return ``name``."""
    import torch

    module = types.ModuleType("snippet")  # a module of its own: dataclasses look their module up
    sys.modules["snippet"] = module
    try:
        with (
            torch.device("meta"),
            warnings.catch_warnings(),
            unittest.mock.patch.object(torch.nn.Module, "to", lambda self, *a, **k: self),
        ):
            warnings.simplefilter("ignore")
            exec(HEADER + textwrap.dedent(text), module.__dict__)  # the test's own snippet, built by torch
    finally:
        sys.modules.pop("snippet", None)
    return module.__dict__[name]


def same(text: str, name: str = "model", partial: bool = False):
    """derive's report of ``text`` equals torch's ``name`` built from it: tensors, buffers, total."""
    from derive.read.code.pytorch.reader import explain_torch
    from derive.tree import named_buffers

    model = built(text, name)
    report = explain_torch(HEADER + textwrap.dedent(text), partial)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
        (n, tuple(p.shape)) for n, p in model.named_parameters()
    ]
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == [
        (n, tuple(p.shape)) for n, p in model.named_buffers()
    ]
    assert report.total == sum(p.numel() for p in model.parameters())
    return report


def refused(text: str, *words: str, partial: bool = False) -> str:
    """derive refuses ``text`` with a message that names the line and holds ``words``."""
    import pytest

    from derive.read.code.pytorch.reader import explain_torch
    from derive.read.source import SourceError

    with pytest.raises(SourceError) as error:
        explain_torch(HEADER + textwrap.dedent(text), partial)
    message = str(error.value)
    assert message.startswith("line ") and all(w in message for w in words), message
    return message
