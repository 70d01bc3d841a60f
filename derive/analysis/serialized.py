"""A cost written for JSON: every figure as an int, or a string for a symbolic one (the CLI's ``"cost"``).

:meth:`derive.analysis.cost.Cost.as_dict` gives every field of :class:`~derive.analysis.cost.Cost` by
name, each figure through :func:`derive.analysis.figures.json_value` (an int or None as it is, a SymPy
closed form as its string); the stored tensors as rows, the closed forms as strings in T, N and the
model's letters with the letters' values, what a budget counts and leaves out
(:data:`derive.analysis.fit.COUNTED`, :data:`derive.analysis.fit.NOT_COUNTED`) beside a budget's
answers, and with ``tp`` or ``pp`` > 1 what the plan says (:func:`derive.analysis.parallel.described`)
and each stage's share. ``derive --cost --json`` writes it under ``"cost"`` (:mod:`derive.cli.output`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import parallel as _parallel
from .figures import json_value as _json
from .fit import COUNTED, NOT_COUNTED

if TYPE_CHECKING:
    from .cost import Cost

__all__ = ["as_dict"]


def as_dict(cost: Cost, plan: _parallel.Plan | None = None) -> dict[str, Any]:
    """Every figure of ``cost`` for JSON, by field name (:meth:`derive.analysis.cost.Cost.as_dict`).

    Parameters
    ----------
    cost : derive.analysis.cost.Cost
    plan : derive.analysis.parallel.Plan or None
        The plan ``cost`` was priced with (None: ``tp`` and ``pp`` 1).

    Returns
    -------
    dict
        Ints, strings (a symbolic figure), bools and None; units as each field of
        :class:`~derive.analysis.cost.Cost` says.
    """
    forms, values = cost.closed_forms()
    listed = cost.stored_tensors
    rows = None if listed is None else [
        {"name": t.name, "of": t.of, "dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes} for t in listed
    ]  # fmt: skip
    per_step = cost.per_step
    ops = cost.ops
    out = {
        "seq_len": _json(cost.seq_len),
        "batch": _json(cost.batch),
        "dtype": cost.dtype,
        "kv_dtype": cost.kv_dtype,
        "state_dtype": cost.state_dtype,
        "parameters": _json(cost.parameters),
        "active": _json(cost.active),
        "per_step": None if per_step is None else {k: _json(v) for k, v in per_step.items()},
        "macs_per_step": _json(cost.macs_per_step),
        "flops_per_step": _json(cost.flops_per_step),
        "macs": _json(cost.macs),
        "flops": _json(cost.flops),
        "matmul_flops": _json(cost.matmul_flops),
        "ops": None if ops is None else {k: _json(v) for k, v in ops.items()},
        "activation_bytes": _json(cost.activation_bytes),
        "weight_bytes": _json(cost.weight_bytes),
        "weights_bytes": _json(cost.weights_bytes),
        "weights_bound": cost.weights_bound,
        "quant_method": cost.quant_method,
        "weights_by_dtype": cost.weights_by_dtype,
        "stored_tensors": rows,
        "cache_bytes": _json(cost.cache_bytes),
        "kv_bytes": _json(cost.kv_bytes),
        "state_bytes": _json(cost.state_bytes),
        "kv_bytes_per_token": _json(cost.kv_bytes_per_token),
        "cache_kinds": {k: {n: _json(v) for n, v in e.items()} for k, e in cost.cache_kinds.items()},
        "flops_per_token": _json(cost.flops_per_token),
        "flops_not_derived": cost.flops_not_derived,
        "memory": cost.memory,
        "reserve": cost.reserve if cost.memory is not None else None,
        "budget": cost.budget,
        "fits": cost.fits,
        "max_seq_len": cost.max_seq_len,
        "max_batch": cost.max_batch,
        "fits_any_length": cost.fits_any_length,
        "counted": COUNTED if cost.memory is not None else None,
        "not_counted": NOT_COUNTED if cost.memory is not None else None,
        "tp": cost.tp,
        "pp": cost.pp,
        "rank_weights_bytes": cost.rank_weights_bytes,
        "rank_cache_bytes": _json(cost.rank_cache_bytes),
        "rank_kv_bytes": _json(cost.rank_kv_bytes),
        "rank_state_bytes": _json(cost.rank_state_bytes),
        "rank_kv_bytes_per_token": _json(cost.rank_kv_bytes_per_token),
        **_parallel.described(plan, cost.ep),
        "stages": None
        if cost.stages is None
        else [
            {k: v if k == "layers" or v is None or isinstance(v, bool) else _json(v) for k, v in e.items()}
            for e in cost.stages
        ],
        "closed_forms": {k: None if v is None else str(v) for k, v in forms.items()},
        "letters": values,
    }
    return out
