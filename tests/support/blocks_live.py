"""The real models the block tests are held against (not a test module): transformers' models built
from a config on the meta device in this process, and flash-linear-attention's layers and models in
``.venv-ssm`` through ``tests/support/fla_worker.py``. Names, shapes and totals are read from the
real objects, never from ``derive``."""

from __future__ import annotations

import os
from pathlib import Path

from frameworks_live_extra import worker_request

from derive.tree import Module, count, named_buffers, named_parameters


def hf_model(model_type: str, config: dict) -> dict:
    """``AutoModelForCausalLM.from_config`` of ``config`` on the meta device: parameters (name, shape)
    in ``named_parameters()`` order, buffers, the total over ``parameters()`` and the class."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    made = AutoConfig.for_model(model_type, **config)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(made)
    return {
        "parameters": [(n, tuple(p.shape)) for n, p in model.named_parameters()],
        "buffers": [(n, tuple(b.shape)) for n, b in model.named_buffers()],
        "total": sum(p.numel() for p in model.parameters()),
        "type": type(model).__name__,
        "config": made,
        "library": "transformers",
    }


def ssm_python() -> str | None:
    """The Python of ``.venv-ssm`` (``$DERIVE_SSM_PYTHON`` or the checkout's ``.venv-ssm/bin/python``)."""
    python = os.environ.get("DERIVE_SSM_PYTHON") or str(Path(__file__).resolve().parents[2] / ".venv-ssm/bin/python")
    return python if Path(python).exists() else None


def fla(request: dict) -> dict:
    """Send ``request`` to the fla worker; the answer's parameters and buffers as (name, shape) tuples.

    Raises
    ------
    RuntimeError
        fla refused (its exception type and message).
    """
    python = ssm_python()
    assert python, ".venv-ssm is missing"
    got = worker_request("fla", python, request)
    return {
        "parameters": [(n, tuple(s)) for n, s in got["parameters"]],
        "buffers": [(n, tuple(s)) for n, s in got["buffers"]],
        "total": got["total"],
        "type": got["type"],
        "attributes": got.get("attributes", {}),
        "g_norm": got.get("g_norm", {}),
        "library": "fla",
    }


def tensors(module: Module) -> list[tuple[str, tuple]]:
    """derive's (name, shape) listing of ``module``."""
    return [(n, tuple(p.shape)) for n, p in named_parameters(module)]


def same(module: Module, live: dict, buffers: bool = False) -> None:
    """Assert that ``module`` has exactly the live names, shapes, order and total (and closed form);
    count the case in the verification record under the live object's library and class."""
    assert tensors(module) == live["parameters"]
    assert count(module) == live["total"]
    if buffers:
        assert [(n, tuple(p.shape)) for n, p in named_buffers(module)] == live["buffers"]
    if module.formula is not None:
        values = dict(module.formula.values)
        expr = module.formula.expr
        if not isinstance(expr, int):
            import sympy

            expr = expr.subs({sympy.Symbol(k, integer=True, positive=True): v for k, v in values.items()})
        assert expr == live["total"]
    if "library" in live:
        import live_record

        live_record.checked(live["library"], live["type"])
