"""``torch.nn``'s layers that surround recurrent ones, counted like :mod:`derive.torch`'s.

Each class takes its ``torch.nn`` namesake's arguments in the same order; ``shapes`` gives the
tensors of ``named_parameters()`` (buffers such as ``running_mean`` are not parameters), ``count``
their total, ``formula`` the closed form in letters. Sizes may be ints or SymPy expressions.

>>> Embedding(160000, 1000).count
160000000
>>> Linear(256, 10).formula
(I*O + O, {'I': 256, 'O': 10})

Sources: ``torch/nn/modules/sparse.py`` (Embedding), ``linear.py``, ``normalization.py``
(LayerNorm), ``batchnorm.py``, ``conv.py``, ``dropout.py``, torch 2.13.
"""

from __future__ import annotations

from typing import Any

from ..engine import validate
from .base import Layer, numel, remembered

__all__ = [
    "Embedding",
    "Linear",
    "Dropout",
    "LayerNorm",
    "BatchNorm1d",
    "Conv1d",
    "MaxPool1d",
    "AvgPool1d",
    "STATELESS",
    "TORCH_LAYERS",
    "stateless",
]


class TorchLayer(Layer):
    """A ``torch.nn`` module without recurrence."""

    def shapes(self) -> dict[str, tuple]:
        """Parameter name -> shape, in the order of ``named_parameters()``.

        Returns
        -------
        dict of str to tuple
        """
        return {}

    @property
    def count(self) -> Any:
        """Number of parameters, ``sum(p.numel() for p in module.parameters())``."""
        total: Any = 0
        for shape in self.shapes().values():
            total = total + numel(shape)
        return total

    @property
    def formula(self) -> tuple[Any, dict[str, Any]]:
        """The closed form in letters and the letters' values, e.g. ``(I*O + O, {'I': 256, 'O': 10})``."""
        keyed = self._symbolic_key()
        if keyed is None:
            symbolic, values = self._symbolic()
            return symbolic.count, values  # type: ignore[attr-defined]
        key, values = keyed
        return remembered(key, lambda: self._symbolic()[0].count), values  # type: ignore[attr-defined]

    def output_shape(self) -> tuple | None:
        """Output shape in torch's notation (``*`` any leading dimensions), or None: same as the input.

        Returns
        -------
        tuple or None
        """
        return None


class Embedding(TorchLayer):
    """``torch.nn.Embedding(num_embeddings, embedding_dim, padding_idx=None, ...)``: ``weight`` (V, E).

    Parameters
    ----------
    num_embeddings : int or sympy.Expr
        V, the vocabulary size.
    embedding_dim : int or sympy.Expr
        E, features of each embedding vector.
    padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight, _freeze, device, dtype
        Accepted and ignored (they do not change the weight's shape).

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer.

    Examples
    --------
    >>> Embedding(1000, 64).shapes()
    {'weight': (1000, 64)}
    """

    SIZES = {"num_embeddings": "V", "embedding_dim": "E"}

    def __init__(
        self,
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
    ) -> None:
        self._keep(locals())
        self.num_embeddings = self._size("num_embeddings", num_embeddings)
        self.embedding_dim = self._size("embedding_dim", embedding_dim)

    def shapes(self) -> dict[str, tuple]:
        """``{"weight": (V, E)}``.

        Returns
        -------
        dict of str to tuple
        """
        return {"weight": (self.num_embeddings, self.embedding_dim)}

    def output_shape(self) -> tuple | None:
        """``(*, E)``.

        Returns
        -------
        tuple
        """
        return ("*", self.embedding_dim)


class Linear(TorchLayer):
    """``torch.nn.Linear(in_features, out_features, bias=True)``: ``weight`` (O, I), ``bias`` (O,).

    Parameters
    ----------
    in_features, out_features : int or sympy.Expr
        I and O.
    bias : bool, default True
    device, dtype
        Ignored.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; ``bias`` not a bool.
    """

    SIZES = {"in_features": "I", "out_features": "O"}

    def __init__(
        self, in_features: Any, out_features: Any, bias: Any = True, device: Any = None, dtype: Any = None
    ) -> None:
        self._keep(locals())
        self.in_features = self._size("in_features", in_features)
        self.out_features = self._size("out_features", out_features)
        self.bias = validate.flag("bias", bias)

    def shapes(self) -> dict[str, tuple]:
        """``weight`` (O, I) and, with ``bias``, ``bias`` (O,).

        Returns
        -------
        dict of str to tuple
        """
        shapes: dict[str, tuple] = {"weight": (self.out_features, self.in_features)}
        if self.bias:
            shapes["bias"] = (self.out_features,)
        return shapes

    def output_shape(self) -> tuple | None:
        """``(*, O)``.

        Returns
        -------
        tuple
        """
        return ("*", self.out_features)


class LayerNorm(TorchLayer):
    """``torch.nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)``.

    Parameters
    ----------
    normalized_shape : int, sympy.Expr or tuple of them
        The trailing dimensions normalised; ``weight`` and ``bias`` have this shape.
    eps : float
        Ignored.
    elementwise_affine : bool, default True
        Without it, no parameters.
    bias : bool, default True
        Without it, ``weight`` only.
    device, dtype
        Ignored.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; a flag not a bool.
    """

    SIZES = {"normalized_shape": "N"}

    def __init__(
        self,
        normalized_shape: Any,
        eps: Any = 1e-5,
        elementwise_affine: Any = True,
        bias: Any = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self._keep(locals())
        dims = normalized_shape if isinstance(normalized_shape, (tuple, list)) else (normalized_shape,)
        self.normalized_shape = tuple(self._size("normalized_shape", d) for d in dims)
        self.elementwise_affine = validate.flag("elementwise_affine", elementwise_affine)
        self.bias = validate.flag("bias", bias)

    def shapes(self) -> dict[str, tuple]:
        """``weight`` and ``bias`` of ``normalized_shape`` (when affine).

        Returns
        -------
        dict of str to tuple
        """
        if not self.elementwise_affine:
            return {}
        shapes = {"weight": self.normalized_shape}
        if self.bias:
            shapes["bias"] = self.normalized_shape
        return shapes


class BatchNorm1d(TorchLayer):
    """``torch.nn.BatchNorm1d(num_features, eps, momentum, affine=True, track_running_stats=True)``.

    ``weight`` and ``bias`` (C,) when ``affine``; ``running_mean``, ``running_var`` and
    ``num_batches_tracked`` are buffers, not parameters.

    Parameters
    ----------
    num_features : int or sympy.Expr
        C.
    eps, momentum, track_running_stats, device, dtype, bias
        Ignored for the count.
    affine : bool, default True

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; ``affine`` not a bool.
    """

    SIZES = {"num_features": "C"}

    def __init__(
        self,
        num_features: Any,
        eps: Any = 1e-5,
        momentum: Any = 0.1,
        affine: Any = True,
        track_running_stats: Any = True,
        device: Any = None,
        dtype: Any = None,
        bias: Any = True,
    ) -> None:
        self._keep(locals())
        self.num_features = self._size("num_features", num_features)
        self.affine = validate.flag("affine", affine)

    def shapes(self) -> dict[str, tuple]:
        """``weight``, ``bias`` (C,) when affine.

        Returns
        -------
        dict of str to tuple
        """
        return {"weight": (self.num_features,), "bias": (self.num_features,)} if self.affine else {}


class Conv1d(TorchLayer):
    """``torch.nn.Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True)``.

    ``weight`` (C_out, C_in / groups, k), ``bias`` (C_out,).

    Parameters
    ----------
    in_channels, out_channels : int or sympy.Expr
        C and F.
    kernel_size : int or a tuple of one int
        k.
    stride, padding, dilation, padding_mode, device, dtype
        Ignored for the count.
    groups : int, default 1
        Must divide both channel counts.
    bias : bool, default True

    Raises
    ------
    ValueError
        ``groups`` does not divide a channel count (torch's message); a size <= 0.
    TypeError
        A size that is not an integer.
    """

    SIZES = {"in_channels": "C", "out_channels": "F", "kernel_size": "K"}

    def __init__(
        self,
        in_channels: Any,
        out_channels: Any,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: Any = 1,
        bias: Any = True,
        padding_mode: Any = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self._keep(locals())
        self.in_channels = self._size("in_channels", in_channels)
        self.out_channels = self._size("out_channels", out_channels)
        kernel = kernel_size[0] if isinstance(kernel_size, (tuple, list)) and len(kernel_size) == 1 else kernel_size
        self.kernel_size = self._size("kernel_size", kernel)
        self.groups = self._size("groups", groups)
        self.bias = validate.flag("bias", bias)
        for name, value in (("in_channels", self.in_channels), ("out_channels", self.out_channels)):
            if isinstance(value, int) and isinstance(self.groups, int) and value % self.groups:
                raise ValueError(f"{name} must be divisible by groups")

    def shapes(self) -> dict[str, tuple]:
        """``weight`` (F, C / groups, k) and ``bias`` (F,).

        Returns
        -------
        dict of str to tuple
        """
        per_group = (
            self.in_channels // self.groups
            if isinstance(self.in_channels, int) and isinstance(self.groups, int)
            else self.in_channels / self.groups
        )
        shapes: dict[str, tuple] = {"weight": (self.out_channels, per_group, self.kernel_size)}
        if self.bias:
            shapes["bias"] = (self.out_channels,)
        return shapes

    def output_shape(self) -> tuple | None:
        """``(N, F, L_out)``.

        Returns
        -------
        tuple
        """
        return ("N", self.out_channels, "L_out")


class _Stateless(TorchLayer):
    """A module without parameters (activation, dropout, flatten...): any arguments accepted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._keep({})
        self.args, self.kwargs = args, kwargs

    def _symbolic(self) -> tuple[Layer, dict[str, Any]]:
        return self, {}


class Dropout(_Stateless):
    """``torch.nn.Dropout(p=0.5, inplace=False)``: no parameters.

    Parameters
    ----------
    p : float in [0, 1], default 0.5
    inplace : bool, default False

    Raises
    ------
    ValueError
        ``p`` outside [0, 1] (torch: "dropout probability has to be between 0 and 1, but got ...").
    """

    def __init__(self, p: Any = 0.5, inplace: Any = False) -> None:
        super().__init__()
        if isinstance(p, (int, float)) and not isinstance(p, bool) and not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


class _Pool1d(_Stateless):
    """A 1-D pooling module: no parameters; the length changes, the channels do not."""

    def output_shape(self) -> tuple | None:
        """``(N, C, L_out)`` (torch's notation; ``L_out`` depends on the input length).

        Returns
        -------
        tuple
        """
        return ("N", "C", "L_out")


class MaxPool1d(_Pool1d):
    """``torch.nn.MaxPool1d(kernel_size, ...)``: no parameters (any arguments accepted)."""


class AvgPool1d(_Pool1d):
    """``torch.nn.AvgPool1d(kernel_size, ...)``: no parameters (any arguments accepted)."""


#: Parameter-free ``torch.nn`` modules accepted in a model (any arguments).
STATELESS = (
    "ReLU",
    "Tanh",
    "Sigmoid",
    "GELU",
    "SiLU",
    "ELU",
    "LeakyReLU",
    "Softmax",
    "LogSoftmax",
    "Identity",
    "Flatten",
    "Dropout1d",
    "AlphaDropout",
)


def stateless(name: str) -> type[TorchLayer]:
    """The class of a parameter-free module named ``name`` (one of :data:`STATELESS`).

    Parameters
    ----------
    name : str

    Returns
    -------
    type
    """
    return type(name, (_Stateless,), {"__doc__": f"``torch.nn.{name}``: no parameters."})


#: Every class a torch model may use besides derive.torch's recurrent ones.
TORCH_LAYERS: dict[str, type[TorchLayer]] = {
    "Embedding": Embedding,
    "Linear": Linear,
    "Dropout": Dropout,
    "LayerNorm": LayerNorm,
    "BatchNorm1d": BatchNorm1d,
    "Conv1d": Conv1d,
    "MaxPool1d": MaxPool1d,
    "AvgPool1d": AvgPool1d,
    **{name: stateless(name) for name in STATELESS},
}
