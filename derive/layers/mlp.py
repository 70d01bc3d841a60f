"""The feed-forward blocks of decoder language models, as transformers 5.23.0 names their tensors.

- :func:`gated_mlp`: ``gate_proj`` and ``up_proj`` Linear(D, F), ``down_proj`` Linear(F, D) —
  ``down_proj(act(gate_proj(x)) * up_proj(x))`` (``models/llama/modeling_llama.py`` 152–160,
  ``LlamaMLP``; every family derived from it: Mistral, Qwen2, Gemma, Jamba, Mixtral's shared
  experts, ...);
- :func:`plain_mlp`: ``up_proj`` Linear(D, F), ``down_proj`` Linear(F, D)
  (``models/nemotron_h/modeling_nemotron_h.py``, ``NemotronHMLP``);
- :func:`conv1d`, :func:`gpt2_mlp`: GPT-2's ``Conv1D`` keeps its weight transposed, (in, out)
  (``pytorch_utils.py`` ``Conv1D``: ``weight`` (nx, nf), ``bias`` (nf,)); ``GPT2MLP`` is ``c_fc``
  Conv1D(D, F) and ``c_proj`` Conv1D(F, D) (``models/gpt2/modeling_gpt2.py``).

>>> gated_mlp(64, 96).count
18432
>>> gpt2_mlp(768, 3072).count   # one GPT-2 small block's MLP
4722432
"""

from __future__ import annotations

from ..tree import Dim, Module, Param
from .linear import linear

__all__ = ["gated_mlp", "plain_mlp", "conv1d", "gpt2_mlp"]


def gated_mlp(
    hidden_size: Dim, intermediate_size: Dim, *, bias: bool = False, name: str = "mlp", type: str = "MLP"
) -> Module:
    """``gate_proj``, ``up_proj`` (D -> F) and ``down_proj`` (F -> D), in that order.

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr
        D and F.
    bias : bool, default False
        Every projection biased (``mlp_bias``).
    name, type : str
        Its name in the layer and its class (``"mlp"``, ``"LlamaMLP"``).

    Returns
    -------
    derive.tree.Module
        3·D·F parameters (+ 2F + D with biases).
    """
    children = (
        linear(hidden_size, intermediate_size, bias, name="gate_proj"),
        linear(hidden_size, intermediate_size, bias, name="up_proj"),
        linear(intermediate_size, hidden_size, bias, name="down_proj"),
    )
    return Module(name, type, children=children, part="MLP")


def plain_mlp(
    hidden_size: Dim, intermediate_size: Dim, *, bias: bool = False, name: str = "mlp", type: str = "MLP"
) -> Module:
    """``up_proj`` (D -> F) and ``down_proj`` (F -> D): an MLP without a gate.

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr
    bias : bool, default False
    name, type : str

    Returns
    -------
    derive.tree.Module
        2·D·F parameters (+ F + D with biases).
    """
    children = (
        linear(hidden_size, intermediate_size, bias, name="up_proj"),
        linear(intermediate_size, hidden_size, bias, name="down_proj"),
    )
    return Module(name, type, children=children, part="MLP")


def conv1d(in_features: Dim, out_features: Dim, *, name: str) -> Module:
    """transformers' ``Conv1D`` (GPT-2): a Linear whose ``weight`` is stored (in, out), always biased.

    Parameters
    ----------
    in_features, out_features : int or sympy.Expr
        ``nx`` and ``nf``.
    name : str

    Returns
    -------
    derive.tree.Module
        in·out + out parameters.
    """
    return Module(name, "Conv1D", (Param("weight", (in_features, out_features)), Param("bias", (out_features,))))


def gpt2_mlp(hidden_size: Dim, inner_size: Dim, *, name: str = "mlp", type: str = "GPT2MLP") -> Module:
    """GPT-2's MLP: ``c_fc`` Conv1D(D, F) and ``c_proj`` Conv1D(F, D).

    Parameters
    ----------
    hidden_size, inner_size : int or sympy.Expr
        ``n_embd`` and the inner width (``n_inner``, 4·``n_embd`` when None).
    name, type : str

    Returns
    -------
    derive.tree.Module
        2·D·F + F + D parameters.
    """
    return Module(
        name,
        type,
        children=(conv1d(hidden_size, inner_size, name="c_fc"), conv1d(inner_size, hidden_size, name="c_proj")),
        part="MLP",
    )
