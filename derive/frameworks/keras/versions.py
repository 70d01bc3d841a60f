"""Keras versions whose constructor defaults change a layer's weights, and those defaults.

>>> version_defaults("2.2")[0]
{'GRU': {'reset_after': False}, 'GRUCell': {'reset_after': False}}
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DefaultChange", "KERAS_VERSIONS", "DEFAULT_CHANGES", "KERAS2_ONLY", "version_defaults"]


@dataclass(frozen=True)
class DefaultChange:
    """A constructor default of a Keras layer that changed between versions, changing the weights.

    Attributes
    ----------
    layers : tuple of str
        The classes concerned (``("GRU", "GRUCell")``).
    argument : str
    before, after : object
        The default before and from :attr:`version`.
    version : str
        The first Keras version (``MAJOR.MINOR``) with :attr:`after`.
    source : str
        Where the two defaults are read.
    """

    layers: tuple[str, ...]
    argument: str
    before: object
    after: object
    version: str
    source: str

    def note(self, version: str) -> str:
        """What the defaults of Keras ``version`` give, and where it changed.

        Parameters
        ----------
        version : str
            One of :data:`KERAS_VERSIONS`.

        Returns
        -------
        str
        """
        value = self.before if _older(version, self.version) else self.after
        other = self.after if value == self.before else self.before
        return (
            f"{'/'.join(self.layers)} {self.argument}={value} (Keras {version}'s default; "
            f"{self.argument}={other} {'from' if value == self.before else 'before'} Keras {self.version}; "
            f"source: {self.source})"
        )


#: The Keras versions :func:`version_defaults` knows: standalone Keras 2.0-2.3 (multi-backend),
#: 2.4-2.15 (``keras`` as tf.keras), tf-keras 2.16-2.21, Keras 3.
KERAS_VERSIONS = tuple(f"2.{k}" for k in range(22)) + ("3",)

#: Defaults that change a layer's weights. GRU ``reset_after``: False in the standalone
#: multi-backend Keras 2.0-2.3 (``keras/layers/recurrent.py``, ``GRU.__init__`` and ``GRUCell``;
#: tensorflow/tensorflow#43960: ``keras.layers.GRU(5)`` on 4 features has 150 parameters there,
#: 165 in ``tf.keras``) and in TF 1.x's ``tf.keras``; True in TF 2.0's ``tf.keras``
#: (``tensorflow/python/keras/layers/recurrent_v2.py``, ``GRU``), which Keras 2.4.0 became, and in
#: Keras 3. ``tf.compat.v1.keras.layers.GRU`` keeps False (``tf_keras/src/layers/rnn/gru_v1.py``).
DEFAULT_CHANGES = (
    DefaultChange(
        ("GRU", "GRUCell"),
        "reset_after",
        False,
        True,
        "2.4",
        "keras/layers/recurrent.py (Keras 2.0-2.3: GRU(..., reset_after=False)); "
        "tensorflow/python/keras/layers/recurrent_v2.py (TF 2.0 tf.keras GRU: reset_after=True, "
        "which Keras 2.4.0 re-exports); tensorflow/tensorflow#43960",
    ),
)

#: Classes that exist only in Keras 2 (``CuDNNLSTM``, ``CuDNNGRU``).
KERAS2_ONLY = ("CuDNNLSTM", "CuDNNGRU")


def _older(version: str, than: str) -> bool:
    return tuple(int(p) for p in version.split(".")) < tuple(int(p) for p in than.split("."))


def version_defaults(version: str) -> tuple[dict[str, dict[str, object]], list[str]]:
    """The constructor defaults of Keras ``version`` that differ from Keras 3's, by class.

    Parameters
    ----------
    version : str
        ``"MAJOR.MINOR"`` (``"2.2"``) or ``"3"``: one of :data:`KERAS_VERSIONS`.

    Returns
    -------
    defaults : dict
        ``{class name: {argument: value}}``, to apply where the constructor leaves the argument out.
    notes : list of str
        One line per default of :data:`DEFAULT_CHANGES`: its value in ``version`` and the version
        that changed it.

    Raises
    ------
    ValueError
        ``version`` not in :data:`KERAS_VERSIONS`.

    Examples
    --------
    >>> version_defaults("2.2")[0]
    {'GRU': {'reset_after': False}, 'GRUCell': {'reset_after': False}}
    """
    if version not in KERAS_VERSIONS:
        raise ValueError(f"keras version must be one of {', '.join(KERAS_VERSIONS)}, got {version!r}")
    defaults: dict[str, dict[str, object]] = {}
    notes = []
    for change in DEFAULT_CHANGES:
        notes.append(change.note(version))
        if _older(version, change.version):
            for layer in change.layers:
                defaults.setdefault(layer, {})[change.argument] = change.before
    return defaults, notes
