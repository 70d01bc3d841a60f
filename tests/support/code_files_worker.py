"""A subprocess that runs trusted model files of the tests in ``.venv-ssm`` (mamba-ssm 2.3.2.post1,
flash-linear-attention 0.6.0, torch CPU) — not a test module.

mamba_ssm imports on a CPU only with its CUDA extension stubbed: ``selective_scan_cuda`` is set to an
empty module before the file runs. The file is executed as a module of its own under
``torch.device("meta")`` (no weights, no kernel), its prints sent to stderr.

Protocol: one JSON request per line on stdin, ``{"file": path, "expression": "model"}``; one answer
per line on stdout: ``{"ok": {"tensors": [[name, shape], ...], "buffers": [...], "total": n}}``
(``named_parameters()`` / ``named_buffers()`` of the object the expression names, and
``sum(p.numel() for p in parameters())``) or ``{"error": "Type: message"}``.
"""

from __future__ import annotations

import contextlib
import json
import sys
import types
import warnings


def run(request: dict) -> dict:
    """Execute the file and measure the object ``request["expression"]`` names."""
    sys.modules.setdefault("selective_scan_cuda", types.ModuleType("selective_scan_cuda"))
    import torch

    path = request["file"]
    module = types.ModuleType("model_file")
    sys.modules["model_file"] = module
    try:
        with torch.device("meta"), contextlib.redirect_stdout(sys.stderr):
            with open(path) as handle:
                exec(compile(handle.read(), path, "exec"), module.__dict__)  # a trusted test file
            model = eval(request.get("expression", "model"), module.__dict__)
    finally:
        sys.modules.pop("model_file", None)
    return {
        "tensors": [[n, list(p.shape)] for n, p in model.named_parameters()],
        "buffers": [[n, list(b.shape)] for n, b in model.named_buffers()],
        "total": sum(p.numel() for p in model.parameters()),
    }


def main() -> None:
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        try:
            reply = {"ok": run(json.loads(line))}
        except Exception as error:  # reported to the test, which fails with it
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
