"""A flash-linear-attention subprocess for the tests (not a test module), run by the Python of
``.venv-ssm`` (torch CPU, triton, fla-core / flash-linear-attention 0.6.0: their own environment).

Protocol: one JSON request per line on stdin, ``{"cls": "GatedLinearAttention", "kwargs": {...}}``
(``"read": true`` also asks for derive's reading of the live object); one answer per line on
stdout: ``{"ok": {"params": [[name, shape], ...], "buffers": [[name, shape], ...], "total": int}}``
in ``named_parameters()`` / ``named_buffers()`` order, the layer built on ``torch.device("meta")``
(no weights); or ``{"error": "<ExceptionType>: <message>"}`` when fla refuses the arguments.
"""

from __future__ import annotations

import contextlib
import json
import sys
import warnings
from pathlib import Path


def build(request: dict) -> dict:
    """Build the layer asked for on the meta device; its tensors (and derive's reading of it)."""
    import torch
    from fla import layers  # imported here: this file is also imported (for doctests) where fla is absent

    cls = getattr(layers, request["cls"])
    with torch.device("meta"), contextlib.redirect_stdout(sys.stderr):  # stdout carries the answers only
        module = cls(**request.get("kwargs", {}))
    answer = {
        "params": [[n, list(p.shape)] for n, p in module.named_parameters()],
        "buffers": [[n, list(b.shape)] for n, b in module.named_buffers()],
        "total": sum(p.numel() for p in module.parameters()),
    }
    if request.get("read"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        import derive.blocks  # noqa: F401  (registers the fla constructors)
        from derive.engine.constructors import lookup

        args, kwargs = lookup("fla", request["cls"]).read(module)
        answer["read"] = [list(args), kwargs]
    return answer


def main() -> None:
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        try:
            answer = {"ok": build(json.loads(line))}
        except Exception as error:  # reported to the test, which decides
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
