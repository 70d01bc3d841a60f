"""Mixture of experts as transformers 5.23.0 builds it: a router, the routed experts fused into 3-D
tensors, shared experts beside them.

- :func:`router`: the router's ``weight`` (E, D) on its own module (``MixtralTopKRouter``,
  ``JambaTopKRouter``: ``models/jamba/modeling_jamba.py`` 680–695), named ``gate`` or ``router``
  by the family; DeepSeek-style routers add the buffer ``e_score_correction_bias`` (E,)
  (``models/kimi_linear/modeling_kimi_linear.py`` 718–735, not a parameter);
- :func:`routed_experts`: every expert's MLP in two tensors, ``gate_up_proj`` (E, 2F, D) and
  ``down_proj`` (E, D, F) (``JambaExperts``, ``modeling_jamba.py`` 641–651; ``MixtralExperts``);
  an ungated family has ``up_proj`` (E, F, D) instead (``NemotronHExperts``). The module carries
  :attr:`~derive.tree.Module.routed` = (top_k, E): a token runs top_k of the E experts, and
  :func:`derive.tree.active` counts top_k / E of it;
- shared experts are a plain :func:`derive.layers.mlp.gated_mlp` beside them (``shared_expert``,
  ``shared_experts``), always active; :func:`moe_block` assembles the parts in the family's order.

A token's matmul FLOPs (:func:`derive.layers.token_flops.matmul_flops`): 2·E·D for the router,
2·top_k·(3·D·F) for the experts it visits (``F.linear`` per hit expert, ``JambaExperts.forward``).

>>> experts = routed_experts(4096, 14336, 8, 2)   # Mixtral-8x7B's, one layer
>>> from derive.tree import count, active
>>> count(experts), active(experts)
(1409286144, 352321536)
"""

from __future__ import annotations

from typing import Any

from ..tree import Dim, Module, Param
from .mlp import gated_mlp
from .token_flops import register

__all__ = ["router", "routed_experts", "moe_block", "deepseek_moe"]


def router(
    hidden_size: Dim,
    num_experts: Dim,
    *,
    correction_bias: bool = False,
    name: str = "gate",
    type: str = "TopKRouter",
) -> Module:
    """The router: ``weight`` (E, D) (and the buffer ``e_score_correction_bias`` (E,)).

    Parameters
    ----------
    hidden_size, num_experts : int or sympy.Expr
        D and E.
    correction_bias : bool, default False
        DeepSeek-V3's load-balancing bias, a buffer (listed, not counted).
    name, type : str
        ``"gate"`` (Mixtral, Qwen) or ``"router"`` (Jamba, Granite); the class.

    Returns
    -------
    derive.tree.Module
        E·D parameters.
    """
    params: tuple[Param, ...] = (Param("weight", (num_experts, hidden_size)),)
    if correction_bias:
        params += (Param("e_score_correction_bias", (num_experts,), buffer=True),)
    register(type, _router_flops)
    return Module(name, type, params, part="routers")


def _router_flops(module: Module, tokens: Dim) -> Any:
    return 2 * module.params[0].numel


def routed_experts(
    hidden_size: Dim,
    intermediate_size: Dim,
    num_experts: Dim,
    top_k: Dim,
    *,
    gated: bool = True,
    name: str = "experts",
    type: str = "Experts",
) -> Module:
    """The E routed experts fused: ``gate_up_proj`` (E, 2F, D) and ``down_proj`` (E, D, F).

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr
        D and F (one expert's width: ``moe_intermediate_size`` where the family has it).
    num_experts, top_k : int or sympy.Expr
        E and k (``num_experts_per_tok``).
    gated : bool, default True
        False: ``up_proj`` (E, F, D) instead of ``gate_up_proj`` (Nemotron-H's squared-ReLU experts).
    name, type : str

    Returns
    -------
    derive.tree.Module
        3·E·D·F parameters (2·E·D·F ungated), :attr:`~derive.tree.Module.routed` = (k, E).
    """
    E, D, F = num_experts, hidden_size, intermediate_size
    up = Param("gate_up_proj", (E, 2 * F, D)) if gated else Param("up_proj", (E, F, D))
    return Module(name, type, (up, Param("down_proj", (E, D, F))), routed=(top_k, num_experts), part="routed experts")


def moe_block(*parts: Module, name: str = "mlp", type: str = "SparseMoeBlock") -> Module:
    """A sparse-MoE layer: its parts (router, experts, shared experts, shared-expert gate) in the
    family's order.

    Parameters
    ----------
    *parts : derive.tree.Module
    name, type : str

    Returns
    -------
    derive.tree.Module
        Its own part is none: each part keeps its own (:data:`derive.tree.PARTS`), an MLP beside
        the routed experts becoming the shared experts.
    """
    shared = tuple(p.replace(part="shared experts") if p.part == "MLP" else p for p in parts)
    return Module(name, type, children=shared)


def deepseek_moe(
    hidden_size: Dim,
    intermediate_size: Dim,
    num_experts: Dim,
    top_k: Dim | None,
    num_shared: Dim,
    *,
    prefix: str,
    correction_bias: bool = True,
    bias: bool = False,
    type: str | None = None,
) -> Module:
    """DeepSeek-V3's MoE layer as DeepSeek-V2/V3/V3.2, Kimi-Linear and Bailing-hybrid build it
    (``{prefix}MoE``): the routed ``experts``, the ``gate`` router with its correction-bias buffer, and
    ``shared_experts``, one gated MLP of ``num_shared`` · F (``models/deepseek_v3/modeling_deepseek_v3.py``
    120-222; ``models/kimi_linear/modeling_kimi_linear.py`` 718–760).

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr
        D and one expert's F (``moe_intermediate_size``).
    num_experts, num_shared : int or sympy.Expr
        E and the shared experts' count (0: ``shared_experts`` of width 0, as transformers builds it).
    top_k : int, sympy.Expr or None
        k; None: no k is known (DeepSeek-V2's ``num_experts_per_tok`` default), every expert counted active.
    prefix : str
        The family's class prefix (``"KimiLinear"``).
    correction_bias : bool, default True
        The router's ``e_score_correction_bias`` buffer (DeepSeek-V2's router has none).
    bias : bool, default False
        The shared experts' projections biased (DeepSeek-V2's ``mlp_bias``).
    type : str, optional
        The block's class (default ``{prefix}MoE``; DeepSeek-V2's is ``DeepseekV2Moe``).

    Returns
    -------
    derive.tree.Module
        3·E·D·F + E·D + 3·D·F·num_shared parameters.
    """
    D, F, E = hidden_size, intermediate_size, num_experts
    experts = routed_experts(D, F, E, 0 if top_k is None else top_k, type=f"{prefix}Experts")
    return moe_block(
        experts.replace(routed=None) if top_k is None else experts,
        router(D, E, correction_bias=correction_bias, name="gate", type=f"{prefix}TopkRouter"),
        gated_mlp(D, F * num_shared, bias=bias, name="shared_experts", type=f"{prefix}MLP"),
        type=type or f"{prefix}MoE",
    )
