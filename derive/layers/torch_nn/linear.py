"""``torch.nn``'s affine maps and lookup tables: Linear, Bilinear, Embedding, EmbeddingBag, PReLU, the
adaptive softmax and the linear cross-entropy loss, with torch's signatures and checks.

Sources: ``torch/nn/modules/linear.py``, ``sparse.py``, ``activation.py`` (PReLU), ``adaptive.py``,
``loss.py`` (``LinearCrossEntropyLoss``), torch 2.13.

>>> from derive.engine.constructors import lookup
>>> lookup("torch", "Linear").make(256, 10).count
2570
"""

from __future__ import annotations

import math
from typing import Any

from ...engine import validate
from ...tree import Module
from ..adaptive import adaptive_log_softmax
from ..embedding import embedding
from ..linear import bilinear, linear
from ..stateless import prelu
from ._base import define, is_number

__all__: list[str] = []


def _bias(m: Any) -> dict[str, Any]:
    return {"bias": m.bias is not None}


def Linear(in_features: Any, out_features: Any, bias: Any = True, device: Any = None, dtype: Any = None) -> Module:
    """``nn.Linear``: ``weight`` (out_features, in_features), ``bias`` (out_features,).

    Parameters
    ----------
    in_features, out_features : int or sympy.Expr
        Input and output width (features), as ``torch.nn.Linear``.
    bias : bool, default True
        Whether there is a ``bias``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, or ``bias`` not a bool.
    ValueError
        A size below 1.
    """
    i = validate.size("in_features", in_features)
    o = validate.size("out_features", out_features)
    return linear(i, o, validate.flag("bias", bias)).replace(output_shape=("*", o))


def Bilinear(
    in1_features: Any, in2_features: Any, out_features: Any, bias: Any = True, device: Any = None, dtype: Any = None
) -> Module:
    """``nn.Bilinear``: ``weight`` (out, in1, in2), ``bias`` (out,).

    Parameters
    ----------
    in1_features, in2_features, out_features : int or sympy.Expr
        The two input widths and the output width (features), as ``torch.nn.Bilinear``.
    bias : bool, default True
        Whether there is a ``bias``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, or ``bias`` not a bool.
    ValueError
        A size below 1.
    """
    i = validate.size("in1_features", in1_features)
    j = validate.size("in2_features", in2_features)
    o = validate.size("out_features", out_features)
    return bilinear(i, j, o, validate.flag("bias", bias)).replace(output_shape=("*", o))


def Embedding(
    num_embeddings: Any,
    embedding_dim: Any,
    padding_idx: Any = None,
    max_norm: Any = None,
    norm_type: Any = 2.0,
    scale_grad_by_freq: Any = False,
    sparse: Any = False,
    _weight: Any = None,
    _freeze: Any = False,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.Embedding``: ``weight`` (num_embeddings, embedding_dim); torch's ``padding_idx`` check.

    Parameters
    ----------
    num_embeddings : int or sympy.Expr
        Rows of the table (the vocabulary size), as ``torch.nn.Embedding``.
    embedding_dim : int or sympy.Expr
        Width of each row.
    padding_idx : int, optional
        Checked as torch checks it (within ``[-num_embeddings, num_embeddings)``); adds no tensor.
    max_norm, norm_type, scale_grad_by_freq, sparse : object, optional
        As ``torch.nn.Embedding``; ignored (they change no name or shape).
    _weight, _freeze : object, optional
        torch's initial table and its freezing; ignored (the shape comes from the sizes).
    device, dtype : object, optional
        Accepted as torch accepts them and ignored.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer.
    ValueError
        A size below 1, or ``padding_idx`` outside the table (torch's words, for int sizes).
    """
    v = validate.size("num_embeddings", num_embeddings)
    e = validate.size("embedding_dim", embedding_dim)
    _padding_idx(padding_idx, v)
    return embedding(v, e).replace(output_shape=("*", e))


def _padding_idx(padding_idx: Any, num_embeddings: Any) -> None:
    if not (is_number(padding_idx) and type(num_embeddings) is int):
        return
    if padding_idx >= num_embeddings:
        raise ValueError("Padding_idx must be within num_embeddings")
    if padding_idx < -num_embeddings:
        raise ValueError("Padding_idx must be within num_embeddings")


def EmbeddingBag(
    num_embeddings: Any,
    embedding_dim: Any,
    max_norm: Any = None,
    norm_type: Any = 2.0,
    scale_grad_by_freq: Any = False,
    mode: Any = "mean",
    sparse: Any = False,
    _weight: Any = None,
    include_last_offset: Any = False,
    padding_idx: Any = None,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.EmbeddingBag``: the table of :func:`Embedding`, reduced per bag.

    Parameters
    ----------
    num_embeddings : int or sympy.Expr
        Rows of the table (the vocabulary size), as ``torch.nn.EmbeddingBag``.
    embedding_dim : int or sympy.Expr
        Width of each row.
    max_norm, norm_type, scale_grad_by_freq, mode, sparse : object, optional
        As ``torch.nn.EmbeddingBag``; ignored (they change no name or shape).
    _weight : object, optional
        torch's initial table; ignored (the shape comes from the sizes).
    include_last_offset : bool, default False
        As ``torch.nn.EmbeddingBag``; ignored.
    padding_idx : int, optional
        Checked as :func:`Embedding` checks it; adds no tensor.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer.
    ValueError
        A size below 1, or ``padding_idx`` outside the table (for int sizes).
    """
    v = validate.size("num_embeddings", num_embeddings)
    e = validate.size("embedding_dim", embedding_dim)
    _padding_idx(padding_idx, v)
    return embedding(v, e, type="EmbeddingBag").replace(output_shape=("B", e))


def PReLU(num_parameters: Any = 1, init: Any = 0.25, device: Any = None, dtype: Any = None) -> Module:
    """``nn.PReLU``: ``weight`` (num_parameters,).

    Parameters
    ----------
    num_parameters : int or sympy.Expr, default 1
        Number of slopes learned (1, or the channels), as ``torch.nn.PReLU``.
    init : float, default 0.25
        The slopes' initial value; ignored.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        ``num_parameters`` is not an integer.
    ValueError
        ``num_parameters`` below 1.
    """
    return prelu(validate.size("num_parameters", num_parameters))


def Identity(*args: Any, **kwargs: Any) -> Module:
    """``nn.Identity``: any arguments, no parameters."""
    return Module("", "Identity")


def LazyLinear(out_features: Any, bias: Any = True, device: Any = None, dtype: Any = None) -> Module:
    """``nn.LazyLinear``: refused, its ``in_features`` is set by the first input.

    Parameters
    ----------
    out_features : int or sympy.Expr
        As ``torch.nn.LazyLinear``.
    bias : bool, default True
        As ``torch.nn.LazyLinear``.
    device, dtype : object, optional
        Accepted as torch accepts them.

    Returns
    -------
    derive.tree.Module
        Never: every call is refused.

    Raises
    ------
    ValueError
        Always: ``in_features`` comes from the first input, which code does not show.
    """
    raise ValueError(
        "LazyLinear takes in_features from its first input, which code does not show; write nn.Linear(in_features, ...)"
    )


def AdaptiveLogSoftmaxWithLoss(
    in_features: Any,
    n_classes: Any,
    cutoffs: Any,
    div_value: Any = 4.0,
    head_bias: Any = False,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.AdaptiveLogSoftmaxWithLoss``: a head and one two-layer tail per cluster (torch's checks).

    Parameters
    ----------
    in_features : int or sympy.Expr
        Input width (features), as ``torch.nn.AdaptiveLogSoftmaxWithLoss``.
    n_classes : int or sympy.Expr
        Number of classes.
    cutoffs : list or tuple of int
        Increasing class indices where the clusters start, each in ``[1, n_classes - 1]``.
    div_value : float, default 4.0
        Each tail's hidden width is ``in_features // div_value ** (i + 1)``.
    head_bias : bool, default False
        Whether the head has a ``bias``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer; ``cutoffs`` not a list or tuple, or holding anything but
        ints; ``div_value`` not a number; ``head_bias`` not a bool.
    ValueError
        A size below 1; ``cutoffs`` empty, unsorted, repeated, not positive, or above
        ``n_classes - 1`` (torch's words).
    """
    i = validate.size("in_features", in_features)
    n = validate.size("n_classes", n_classes)
    if not isinstance(cutoffs, (list, tuple)):
        raise TypeError(f"cutoffs should be a sequence of ints, got {type(cutoffs).__name__}")
    cuts = list(cutoffs)
    if len(cuts) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if not all(type(c) is int for c in cuts) or not is_number(div_value):
        raise TypeError("cutoffs and div_value must be numbers written in the code")
    if cuts != sorted(cuts) or min(cuts) <= 0 or (type(n) is int and max(cuts) > n - 1) or len(set(cuts)) != len(cuts):
        raise ValueError(
            "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
            "where each value is between 1 and n_classes-1"
        )
    return adaptive_log_softmax(i, n, cuts, div_value, validate.flag("head_bias", head_bias))


def LinearCrossEntropyLoss(
    in_features: Any,
    num_classes: Any,
    *,
    out_features: Any = (),
    bias: Any = False,
    device: Any = None,
    dtype: Any = None,
    reduction: Any = "mean",
    weight: Any = None,
    ignore_index: Any = None,
    label_smoothing: Any = 0.0,
    options: Any = None,
) -> Module:
    """``nn.LinearCrossEntropyLoss``: a ``linear`` (in_features -> num_classes·prod(out_features)).

    Parameters
    ----------
    in_features : int or sympy.Expr
        Input width (features), as ``torch.nn.LinearCrossEntropyLoss``.
    num_classes : int or sympy.Expr
        Number of classes.
    out_features : sequence of (int or sympy.Expr), default ()
        Further output dimensions; the projection's width is ``num_classes * prod(out_features)``.
    bias : bool, default False
        Whether the projection has a ``bias``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored.
    reduction, ignore_index, options : object, optional
        As ``torch.nn.LinearCrossEntropyLoss``; ignored (they change no tensor).
    weight : torch.Tensor, optional
        The class weights, which torch keeps as the buffer ``weight``; not read here (buffers
        are never counted).
    label_smoothing : float, default 0.0
        Checked as torch checks it (in ``[0, 1]``; torch raises a RuntimeError).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, ``out_features`` not an iterable, or ``bias`` not a bool.
    ValueError
        A size below 1, or ``label_smoothing`` outside ``[0, 1]``.
    """
    i = validate.size("in_features", in_features)
    c = validate.size("num_classes", num_classes)
    extra = [validate.size("out_features", d) for d in out_features]
    if is_number(label_smoothing) and not 0 <= label_smoothing <= 1:
        raise ValueError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
    out = math.prod(extra, start=c)
    child = linear(i, out, validate.flag("bias", bias), name="linear")
    return Module("", "LinearCrossEntropyLoss", children=(child,))


def _read_embedding(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (m.num_embeddings, m.embedding_dim), {"padding_idx": m.padding_idx}


define(
    "Linear",
    Linear,
    source="torch/nn/modules/linear.py",
    letters={"in_features": "I", "out_features": "O"},
    read=lambda m: ((m.in_features, m.out_features), _bias(m)),
)
define(
    "Bilinear",
    Bilinear,
    source="torch/nn/modules/linear.py",
    letters={"in1_features": "I", "in2_features": "J", "out_features": "O"},
    read=lambda m: ((m.in1_features, m.in2_features, m.out_features), _bias(m)),
)
define("Identity", Identity, source="torch/nn/modules/linear.py", read=lambda m: ((), {}))
define("LazyLinear", LazyLinear, source="torch/nn/modules/linear.py")
define(
    "Embedding",
    Embedding,
    source="torch/nn/modules/sparse.py",
    letters={"num_embeddings": "V", "embedding_dim": "E"},
    read=_read_embedding,
)
define(
    "EmbeddingBag",
    EmbeddingBag,
    source="torch/nn/modules/sparse.py",
    letters={"num_embeddings": "V", "embedding_dim": "E"},
    read=lambda m: ((m.num_embeddings, m.embedding_dim), {"mode": m.mode, "padding_idx": m.padding_idx}),
)
define(
    "PReLU",
    PReLU,
    source="torch/nn/modules/activation.py",
    letters={"num_parameters": "N"},
    read=lambda m: ((m.num_parameters,), {}),
)
define(
    "AdaptiveLogSoftmaxWithLoss",
    AdaptiveLogSoftmaxWithLoss,
    source="torch/nn/modules/adaptive.py",
    letters={"in_features": "I", "n_classes": "C"},
    read=lambda m: (
        (m.in_features, m.n_classes, list(m.cutoffs[:-1])),
        {"div_value": m.div_value, "head_bias": m.head_bias},
    ),
)
define(
    "LinearCrossEntropyLoss",
    LinearCrossEntropyLoss,
    source="torch/nn/modules/loss.py",
    letters={"in_features": "I", "num_classes": "C"},
    read=lambda m: (
        (m.linear.in_features, m.num_classes),
        {"out_features": tuple(m.out_features), "bias": m.linear.bias is not None},
    ),
)
