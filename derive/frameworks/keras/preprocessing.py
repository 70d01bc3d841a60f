"""Keras 3's preprocessing layers: ``Normalization`` (non-trainable weights), and those without
weights that change the shape — ``Resizing``, ``CenterCrop``, ``RandomCrop``, the lookups
(``StringLookup``, ``IntegerLookup``, ``TextVectorization``, ``Hashing``, ``HashedCrossing``,
``CategoryEncoding``, ``Discretization``) and ``MelSpectrogram``.

Sources: ``keras/src/layers/preprocessing/*.py`` (Keras 3.15), each layer's
``compute_output_shape``: an encoded output's depth is the vocabulary's size where the code gives
it (``vocabulary=[...]``, ``max_tokens`` with ``pad_to_max_tokens``, ``num_tokens``,
``num_bins``), else unknown (None: a layer after it that reads that axis is refused, by name).
``Normalization`` without ``mean``/``variance`` has ``mean`` and ``variance`` of the kept axes and
a scalar ``count``, all non-trainable (``count_params()`` counts them).

>>> resizing, encoding = PREPROCESSING["Resizing"], PREPROCESSING["CategoryEncoding"]
>>> resizing(8, 6).build((4, 4, 3))[1], encoding(10, output_mode="one_hot").build((1,))[1]
((8, 6, 3), (10,))
>>> [(p.name, p.shape, p.trainable) for p in Normalization().build((5, 3))[0].params]
[('mean', (3,), False), ('variance', (3,), False), ('count', (), False)]
"""

from __future__ import annotations

from typing import Any

from ...tree import Module, Param
from .base import snake
from .layer import KerasLayer

__all__ = ["Shaped", "Normalization", "PREPROCESSING"]


class Shaped(KerasLayer):
    """A preprocessing layer without weights: Keras' arguments kept, the output by ``_shape``.

    Parameters
    ----------
    *args, **kwargs
        Keras' arguments, in Keras' order (:attr:`ARGUMENTS`).

    Raises
    ------
    TypeError
        More positional arguments than Keras takes; a keyword it does not take.
    """

    #: The constructor's arguments in Keras' order (positional ones are read in it).
    ARGUMENTS: tuple[str, ...] = ()
    #: More of its arguments, taken by keyword only here (they come after ``name`` in Keras' order).
    KEYWORDS: tuple[str, ...] = ()
    DEFAULTS: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._keep({})
        if len(args) > len(self.ARGUMENTS):
            raise TypeError(f"{type(self).__name__} takes {len(self.ARGUMENTS)} positional arguments")
        own = (*self.ARGUMENTS, *self.KEYWORDS)
        self.options = {**self.DEFAULTS, **dict(zip(self.ARGUMENTS, args))}
        self.options.update({k: v for k, v in kwargs.items() if k in own})
        self._common({k: v for k, v in kwargs.items() if k not in own})

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:  # pragma: no cover  (each kind defines it)
        raise NotImplementedError

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the output shape (with the batch axis while computing, as Keras does)."""
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        if input_shape and input_shape[0] is Ellipsis:
            raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
        return self._empty(), tuple(self._shape((None, *input_shape))[1:])


def _encoded(full: tuple[Any, ...], mode: Any, depth: Any) -> tuple[Any, ...]:
    """``IndexLookup.compute_output_shape`` for a mode and a depth."""
    if mode == "int":
        return full
    if mode == "one_hot":
        return full[:-1] + (depth,) if len(full) > 1 and full[-1] == 1 else full + (depth,)
    return full[:-1] + (depth,)


class _Lookup(Shaped):
    """``StringLookup``'s arguments (``keras/src/layers/preprocessing/string_lookup.py``)."""

    ARGUMENTS: tuple[str, ...] = (
        "max_tokens",
        "num_oov_indices",
        "mask_token",
        "oov_token",
        "vocabulary",
        "idf_weights",
        "invert",
        "output_mode",
        "pad_to_max_tokens",
        "sparse",
        "encoding",
    )
    KEYWORDS: tuple[str, ...] = ("salt",)
    DEFAULTS: dict[str, Any] = {"num_oov_indices": 1, "output_mode": "int", "oov_token": "[UNK]"}

    def _depth(self) -> Any:
        given = self.options
        if given.get("pad_to_max_tokens") and isinstance(given.get("max_tokens"), int):
            return given["max_tokens"]
        vocabulary = given.get("vocabulary")
        oov = given.get("num_oov_indices", 1)
        if not isinstance(vocabulary, (list, tuple)) or not isinstance(oov, int):
            return None
        # IndexLookup.set_vocabulary and _token_start_index (keras/src/layers/preprocessing/
        # index_lookup.py): the mask token has an index only in "int" mode; special tokens leading the
        # vocabulary in that order are not counted twice.
        mask = int(given.get("mask_token") is not None and given.get("output_mode") == "int")
        special = [given.get("mask_token")] * mask + [given.get("oov_token")] * oov
        tokens = vocabulary[mask + oov :] if list(vocabulary[: mask + oov]) == special else vocabulary
        if len(set(tokens)) != len(tokens) or (given.get("mask_token") is not None and given["mask_token"] in tokens):
            raise ValueError(
                f"{self.name}: the vocabulary repeats a token or holds the mask token elsewhere than first "
                "(Keras refuses it)"
            )
        return len(tokens) + mask + oov

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.options.get("output_mode") == "tf_idf":
            raise ValueError(f"{self.name}: output_mode='tf_idf' is not read by derive")
        return _encoded(full, self.options.get("output_mode"), self._depth())


class _IntegerLookup(_Lookup):
    """``IntegerLookup``'s arguments (``keras/src/layers/preprocessing/integer_lookup.py``)."""

    ARGUMENTS: tuple[str, ...] = (
        "max_tokens",
        "num_oov_indices",
        "mask_token",
        "oov_token",
        "vocabulary",
        "vocabulary_dtype",
        "idf_weights",
        "invert",
        "output_mode",
        "sparse",
        "pad_to_max_tokens",
        "oov_method",
        "salt",
    )
    KEYWORDS: tuple[str, ...] = ()
    DEFAULTS: dict[str, Any] = {"num_oov_indices": 1, "output_mode": "int", "oov_token": -1}


class _TextVectorization(_Lookup):
    KEYWORDS: tuple[str, ...] = ()
    ARGUMENTS: tuple[str, ...] = (
        "max_tokens",
        "standardize",
        "split",
        "ngrams",
        "output_mode",
        "output_sequence_length",
        "pad_to_max_tokens",
        "vocabulary",
        "idf_weights",
        "sparse",
        "ragged",
        "encoding",
    )
    DEFAULTS = {
        "output_mode": "int",
        "split": "whitespace",
        "num_oov_indices": 1,
        "mask_token": "",
        "oov_token": "[UNK]",
    }

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.options.get("output_mode", "int") == "int":
            return (full[0], self.options.get("output_sequence_length"))
        full = full + ((1,) if len(full) <= 1 else ()) if self.options.get("split") is None else full + (None,)
        return super()._shape(full)


class _Hashing(Shaped):
    ARGUMENTS = ("num_bins", "mask_value", "salt", "output_mode", "sparse")
    DEFAULTS = {"output_mode": "int"}

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.options.get("output_mode") == "int":
            return full
        return full[:-1] + (self.options.get("num_bins"),)


class _CategoryEncoding(Shaped):
    ARGUMENTS = ("num_tokens", "output_mode", "sparse")
    DEFAULTS = {"output_mode": "multi_hot"}

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        tokens = self.options.get("num_tokens")
        if self.options.get("output_mode") == "one_hot" and (full[-1] != 1 or len(full) == 1):
            return full + (tokens,)
        return full[:-1] + (tokens,)


class _Discretization(Shaped):
    ARGUMENTS = ("bin_boundaries", "num_bins", "epsilon", "output_mode", "sparse")
    DEFAULTS = {"output_mode": "int"}

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        mode, bins = self.options.get("output_mode"), self.options.get("bin_boundaries")
        depth = len(bins) + 1 if isinstance(bins, (list, tuple)) else self.options.get("num_bins")
        if mode == "int":
            return full
        if mode == "one_hot":
            return full[:-1] + (depth,) if full[-1] == 1 and len(full) > 1 else full + (depth,)
        return (full[0], *full[2:], depth) if len(full) >= 2 else (depth,)


class _Image(Shaped):
    """``Resizing``'s arguments (``keras/src/layers/preprocessing/image_preprocessing/resizing.py``)."""

    ARGUMENTS: tuple[str, ...] = (
        "height",
        "width",
        "interpolation",
        "crop_to_aspect_ratio",
        "pad_to_aspect_ratio",
        "fill_mode",
        "fill_value",
        "antialias",
        "data_format",
    )

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(full) != 4:  # Keras reads a 3-D input as one image, its batch axis as the height
            raise ValueError(
                f"{self.name}: expects a batch of images (batch, height, width, channels) and derive reads "
                f"no other rank; got {full}"
            )
        out = list(full)
        at = 1 + (self.options.get("data_format") == "channels_first")
        out[at], out[at + 1] = self.options.get("height"), self.options.get("width")
        return tuple(out)


class _CenterCrop(_Image):
    ARGUMENTS: tuple[str, ...] = ("height", "width", "data_format")


class _RandomCrop(_Image):
    ARGUMENTS: tuple[str, ...] = ("height", "width", "seed", "data_format")


class _Crossing(Shaped):
    ARGUMENTS = ("num_bins", "output_mode", "sparse")
    DEFAULTS = {"output_mode": "int"}

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.options.get("output_mode") == "int":
            return full
        return full[:-1] + (self.options.get("num_bins"),)


class _Mel(Shaped):
    ARGUMENTS = (
        "fft_length",
        "sequence_stride",
        "sequence_length",
        "window",
        "sampling_rate",
        "num_mel_bins",
        "min_freq",
        "max_freq",
        "power_to_db",
        "top_db",
        "mag_exp",
        "min_power",
        "ref_power",
    )
    DEFAULTS = {"sequence_stride": 512, "num_mel_bins": 128}

    def _shape(self, full: tuple[Any, ...]) -> tuple[Any, ...]:
        samples, stride = full[-1], self.options["sequence_stride"]
        frames = samples // stride + 1 if isinstance(samples, int) and isinstance(stride, int) else None
        return (*full[:-1], self.options["num_mel_bins"], frames)


class Normalization(KerasLayer):
    """``keras.layers.Normalization(axis=-1, mean=None, variance=None, invert=False)``: ``mean``,
    ``variance`` (the kept axes' sizes) and ``count`` (), non-trainable — none when ``mean`` and
    ``variance`` are given.

    Parameters
    ----------
    axis : int, tuple of int or None, default -1
        The axes kept (None: a scalar mean and variance).
    mean, variance : object
        Given values (then no weights).
    invert : bool
        Ignored.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        An axis outside the input, or kept with an unknown size (Keras' messages).
    """

    default_name = "normalization"

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None, invert: Any = False, **kwargs: Any):
        self._keep({})
        self._common(kwargs)
        self.axis = () if axis is None else (tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))
        self.stats_given = mean is not None

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """The non-trainable weights; output: the input's shape.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            See the class.
        """
        full = (None, *input_shape)
        if Ellipsis in full or any(not -len(full) <= a < len(full) for a in self.axis):
            raise ValueError(
                f"All `axis` values must be in the range [-ndim, ndim). Received inputs with ndim={len(full)}, "
                f"while axis={list(self.axis)}"
            )
        kept = tuple(sorted(a % len(full) for a in self.axis))
        if any(full[a] is None for a in kept):
            raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={list(self.axis)}")
        shape = tuple(full[a] for a in kept)
        params = (
            ()
            if self.stats_given
            else tuple(Param(n, s, trainable=False) for n, s in (("mean", shape), ("variance", shape), ("count", ())))
        )
        return Module(self.name, "Normalization", params, sep="/"), input_shape


def _kind(base: type, name: str) -> type:
    doc = f"``keras.layers.{name}``: no weights; its output shape as Keras computes it."
    return type(name, (base,), {"default_name": snake(name), "__doc__": doc, "__module__": __name__})


#: Every preprocessing layer without weights that changes the shape, by Keras' class name.
PREPROCESSING: dict[str, type] = {
    "StringLookup": _kind(_Lookup, "StringLookup"),
    "IntegerLookup": _kind(_IntegerLookup, "IntegerLookup"),
    "TextVectorization": _kind(_TextVectorization, "TextVectorization"),
    "Hashing": _kind(_Hashing, "Hashing"),
    "HashedCrossing": _kind(_Crossing, "HashedCrossing"),
    "CategoryEncoding": _kind(_CategoryEncoding, "CategoryEncoding"),
    "Discretization": _kind(_Discretization, "Discretization"),
    "Resizing": _kind(_Image, "Resizing"),
    "CenterCrop": _kind(_CenterCrop, "CenterCrop"),
    "RandomCrop": _kind(_RandomCrop, "RandomCrop"),
    "MelSpectrogram": _kind(_Mel, "MelSpectrogram"),
}
