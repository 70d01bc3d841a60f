"""The registry of framework conventions: :class:`CellSpec`, :class:`Framework`, :func:`register`.

Each module of :mod:`derive.frameworks` declares its :class:`~derive.engine.conventions.Convention`
values and calls :func:`register` with one :class:`Framework`; the package imports every module at
import time, so adding a framework is adding one module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cells import CELLS
from ..engine.conventions import Convention
from ..engine.lazy import Registry
from ..engine.registry import generic_names

__all__ = [
    "CellSpec",
    "Framework",
    "FRAMEWORKS",
    "GENERIC_CELLS",
    "register",
    "layer_path",
    "YES_NO",
    "ON_OFF",
    "SIZE_OR_ZERO",
    "POSITIVE_NUMBER",
]


def layer_path(template: str) -> Callable[[str, object, object], str]:
    """A ``layer_name`` for cell stacks: ``base`` for a single cell, else ``template`` filled in.

    Parameters
    ----------
    template : str
        With ``{layer}``, ``{label}`` (the direction's label) and ``{base}``.

    Returns
    -------
    callable
        ``(base, layer, label) -> str``.
    """

    def name(base: str, layer: object, label: object) -> str:
        return base if layer is None else template.format(layer=layer, label=label, base=base)

    return name


if TYPE_CHECKING:
    #: Generic cell names accepted by :func:`count` and :func:`tensors` in place of a class name: the
    #: ``generic`` name each registered cell declares (:func:`derive.cells.register`), in registration
    #: order; read, it imports every cell (module ``__getattr__``).
    GENERIC_CELLS: tuple[str, ...]


def __getattr__(name: str) -> Any:
    if name == "GENERIC_CELLS":
        return generic_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class CellSpec:
    """One recurrent class (or ONNX operator, or cuDNN mode) of a framework.

    Attributes
    ----------
    name : str
        The framework's own name: ``"LSTMCell"``, ``"LSTM"``, ``"CUDNN_GRU"`` ...
    mode : str
        The cell of :mod:`derive.cells`: ``"RNN_TANH"``, ``"LSTM"``, ``"GRU"``, ``"MGU"``, ``"CONVLSTM"``.
    generic : str
        One of :data:`GENERIC_CELLS`: the generic name of the cell ``mode`` (checked).
    convention : Convention
        How the framework lays this class's parameters out.
    kind : {"layer", "node", "cell"}
        ``"layer"``: one object spans all layers and directions, its tensor names always carry
        the layer (MXNet, Paddle layers, cuDNN); ``"node"``: one ONNX node per layer, names
        without a layer for one node; ``"cell"``: one time step of one layer and direction,
        composed into stacks by the user (names without a layer for one cell).
    options : mapping of option -> tuple of allowed values
        For ``bias``, ``peepholes``, ``reset_after``, ``reset_gate``: the values the class
        accepts, its default first (``bias``'s first is the default of :func:`derive.frameworks.stack`'s
        ``bias=None``). A class's own option: its values, or ``()`` for any size,
        :data:`SIZE_OR_ZERO` for any int >= 0, :data:`POSITIVE_NUMBER` for any positive number. ``proj_size``: present if a projection is supported (its
        value is then any size, below ``hidden_size`` if ``proj_below_hidden``). ``kernel_size``:
        present (and required) for the ConvLSTM.
        ``kernel_size`` may hold the number of spatial dimensions the class takes (Haiku's
        ``Conv2DLSTM``: ``(2,)``); empty for any of 1 to 3. ``double_bias`` (Haiku's ``VanillaRNN``):
        the values accepted, as for ``bias``.
    proj_below_hidden : bool
        Whether the class refuses ``proj_size >= hidden_size``.
    variants : mapping of (option, value) -> Convention
        The class's layout when ``option`` has ``value``, where it differs from ``convention``
        (Haiku ``VanillaRNN(double_bias=False)``: one bias instead of two).
    check : callable or None
        The class's own argument check, ``check(input_size=..., hidden_size=..., proj_size=...,
        num_layers=..., bidirectional=..., **options)``, raising ValueError worded like the class's (``mingru-pytorch``: the output
        projection maps back to the input's width).
    partitioned : mapping of option -> tensor
        Options that split a tensor into row blocks without changing any count (TF1
        ``LSTMCell``'s ``num_unit_shards`` -> ``"kernel"``, ``num_proj_shards`` ->
        ``"projection/kernel"``): read by :func:`derive.frameworks.tensors`, not by the cell.
    """

    name: str
    mode: str
    generic: str
    convention: Convention
    kind: str
    options: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    proj_below_hidden: bool = True
    variants: Mapping[tuple[str, object], Convention] = field(default_factory=dict)
    check: Callable[..., None] | None = None
    partitioned: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Refuse a cell that is not registered, or a generic name that is not that cell's."""
        entry = CELLS.get(self.mode)
        if entry is None:
            raise ValueError(
                f"{self.name}: mode must be one of the registered cells {sorted(CELLS)}, got {self.mode!r}"
            )
        # a cell sharing the build (Elman's RNN_TANH and RNN_RELU) is registered by the same module, loaded
        # with this one: no other cell is imported
        generics = {entry.generic} | {t.generic for t in CELLS.loaded().values() if t.build is entry.build}
        if self.generic not in generics - {""}:
            raise ValueError(
                f"{self.name}: generic must be the {self.mode} cell's generic name {entry.generic!r}, got {self.generic!r}"
            )


@dataclass(frozen=True)
class Framework:
    """A framework: its recurrent classes, where its convention comes from, how it was checked.

    The prose about a framework (what it is, how it stacks layers, what is particular about a
    class) is not here but in the site's template ``templates/frameworks/<key>.md.j2``.

    Attributes
    ----------
    key : str
        The key of :data:`FRAMEWORKS` (``"onnx"``, ``"flax.linen"`` ...).
    title : str
        Shown on the site.
    cells : tuple of CellSpec
    packages : tuple of str
        The PyPI distributions whose installed versions the test suite checks every number
        against (ONNX: ``onnx``, whose checker and reference evaluator run the nodes, and
        ``onnxruntime``, which refuses any input of the wrong shape); empty if the framework cannot
        be installed here and its convention is read from ``source`` only.
    source : str
        The framework files the convention is read from.
    order : int
        Where the framework stands in :data:`FRAMEWORKS` and on the site (smaller first).
    environment : str
        Non-empty when :attr:`packages` cannot share the test environment and are installed in
        their own, ``.venv-<environment>`` in the checkout (``scripts/bootstrap --test`` makes it):
        MXNet 1.9.1 needs numpy < 1.24.
    """

    key: str
    title: str
    cells: tuple[CellSpec, ...]
    packages: tuple[str, ...]
    source: str
    order: int = 100
    environment: str = ""

    @property
    def versions(self) -> dict[str, str | None]:
        """Installed version of each of :attr:`packages` (None if not installed)."""
        import importlib.metadata  # on demand: the package metadata machinery is slow to import

        out: dict[str, str | None] = {}
        for package in sorted(self.packages):
            try:
                out[package] = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                out[package] = None
        return out

    @property
    def checked(self) -> bool:
        """Whether the test suite holds this framework against installed packages."""
        return bool(self.packages)

    @property
    def status(self) -> str:
        """``"checked against <package> <version> [and ...]"`` or ``"from source: <files>"``."""
        if not self.packages:
            return f"from source: {self.source}"
        return "checked against " + " and ".join(f"{p} {v or '(not installed)'}" for p, v in self.versions.items())

    def cell(self, name: str) -> CellSpec:
        """The class named ``name``, or the class for a generic cell name (:data:`GENERIC_CELLS`).

        Parameters
        ----------
        name : str
            A class name of :attr:`cells` (``"LSTMCell"``) or a generic cell name (``"lstm"``).

        Returns
        -------
        CellSpec

        Raises
        ------
        ValueError
            ``name`` is neither one of the framework's classes nor a generic cell it has.
        """
        for spec in self.cells:
            if spec.name == name:
                return spec
        for spec in self.cells:
            if spec.generic == name:
                return spec
        names = [spec.name for spec in self.cells]
        generics = sorted({spec.generic for spec in self.cells}, key=generic_names().index)
        raise ValueError(
            f"cell must be one of {names} (or a generic name {generics}) for framework {self.key!r}, got {name!r}"
        )


#: Allowed values of an option that is on by default (default first).
YES_NO = (True, False)
#: Allowed values of an option that is off by default (default first).
ON_OFF = (False, True)
#: The "allowed values" of a class option that takes any int >= 0 (xlstm's ``conv1d_kernel_size``,
#: 0 for no convolution), checked as a size, not by membership.
SIZE_OR_ZERO: tuple[Any, ...] = ("an int >= 0",)
#: The "allowed values" of a class option that takes any positive number (xlstm's ``proj_factor``).
POSITIVE_NUMBER: tuple[Any, ...] = ("a positive number",)


#: Every framework this module knows, by key: ``"onnx"``, ``"cudnn"``, ``"tf.keras"``, ``"tf1"``,
#: ``"flax.linen"``, ``"flax.nnx"``, ``"equinox"``, ``"mxnet"``, ``"paddle"`` (PyTorch is
#: :mod:`derive.torch`, Keras 3 :mod:`derive.keras`).

#: Every framework of :mod:`derive.frameworks`, by key: ``"onnx"``, ``"cudnn"``, ``"tf.keras"``,
#: ``"tf1"``, ``"flax.linen"``, ``"flax.nnx"``, ``"equinox"``, ``"mxnet"``, ``"paddle"``, ...
#: (PyTorch is :mod:`derive.torch`, Keras 3 :mod:`derive.keras`), in registration order.
#: A framework's module is imported when its key is first asked for (:class:`derive.engine.lazy.Registry`);
#: iterating lists every framework, in their display order (:attr:`Framework.order`, then key).
FRAMEWORKS: Registry[str, Framework] = Registry(
    "frameworks", order=lambda found: dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))
)


def register(framework: Framework) -> Framework:
    """Add ``framework`` to :data:`FRAMEWORKS` under its key.

    Parameters
    ----------
    framework : Framework

    Returns
    -------
    Framework
        ``framework``, unchanged.

    Raises
    ------
    ValueError
        Its key is registered already.
    """
    if framework.key in FRAMEWORKS.loaded():
        raise ValueError(f"framework {framework.key!r} is registered already")
    FRAMEWORKS[framework.key] = framework
    return framework
