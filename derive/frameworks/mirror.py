"""Framework constructors as their users write them, mapped onto :func:`derive.frameworks.stack`.

The end of each framework module registers its classes (``hk.LSTM``, ``mlx.nn.GRU``,
``paddle.nn.LSTM`` ...) in :mod:`derive.engine.constructors` with :func:`constructor`: a function
with the class's own signature (names, order, defaults, keyword-only arguments) that checks the
arguments as the class does and returns the :class:`derive.tree.Module` of the tensors the class
creates (:func:`stack_module`), or, for a class that creates its weights only when it is first
applied (Haiku, Flax linen, TF1 cells, MXNet with ``input_size=0``), a :class:`Deferred` layer
that :meth:`Deferred.build` makes for an input width.

Arguments that do not change any tensor (initializers, dtypes, activation functions, random keys,
dropout) are accepted whatever they are and not read; an argument derive reads but cannot
know (code it does not evaluate) is refused by the size and flag checks, naming it.

>>> from derive.engine.constructors import lookup
>>> lstm = lookup("haiku", "LSTM").make(128).build((None, 32))[0]
>>> [(p.name, p.shape) for p in lstm.params]
[('lstm/linear/w', (160, 512)), ('lstm/linear/b', (512,))]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import validate
from ..engine.constructors import Constructor, register
from ..engine.symbols import Size, plain
from ..tree import Module, Param

__all__ = ["constructor", "stack_module", "Deferred", "unsupported", "choice", "optional_size"]


def constructor(
    framework: str,
    name: str,
    *,
    prefixes: tuple[str, ...],
    letters: Mapping[str, str] | None = None,
    deferred: bool = False,
    source: str = "",
    module_types: tuple[str, ...] = (),
    asked_prefixes: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the constructor of class ``name`` of ``framework``.

    The function is renamed ``<name>.__init__``, so that Python's own errors for a missing or an
    unexpected argument name the class as the framework's do.

    Parameters
    ----------
    framework : str
        A key of :data:`derive.frameworks.FRAMEWORKS`.
    name : str
        The class name as written.
    prefixes : tuple of str
        How users write it (``("hk.", "haiku.")``; ``""`` for the bare name).
    letters : mapping of str -> str, optional
        Size arguments and their letters in the closed form (``{"hidden_size": "H"}``).
    deferred : bool, default False
        The class needs the input width (it makes its weights when first applied).
    source : str
        The framework file the signature and checks are read from.
    module_types : tuple of str, optional
        The modules that define the class (``xlstm.xlstm_lm_model``): the code reader takes an
        import of the class from them, or from a prefix in their package, for this constructor.
    asked_prefixes : tuple of str, optional
        Prefixes read only where the framework is asked for
        (:attr:`derive.engine.constructors.Constructor.asked_prefixes`).

    Returns
    -------
    callable
        A decorator returning the function, registered.

    Raises
    ------
    ValueError
        The class is registered already.
    """

    def decorate(make: Callable[..., Any]) -> Callable[..., Any]:
        make.__qualname__ = f"{name}.__init__"
        register(
            Constructor(
                framework,
                name,
                make,
                prefixes,
                dict(letters or {}),
                deferred=deferred,
                source=source or make.__module__,
                module_types=module_types,
                asked_prefixes=asked_prefixes,
            )
        )
        return make

    return decorate


@dataclass(frozen=True)
class Deferred:
    """A layer whose weights are made when it is first applied, from the width of its input.

    Attributes
    ----------
    make : callable
        ``make(input_width) -> Module``.
    """

    make: Callable[[Any], Module]

    def build(self, input_shape: tuple[Any, ...]) -> tuple[Module, None]:
        """The module for an input of ``input_shape`` (its last axis is the features per step).

        Parameters
        ----------
        input_shape : tuple
            The input's shape; only its last dimension is read.

        Returns
        -------
        (Module, None)
            The module, and no output shape.

        Raises
        ------
        TypeError, ValueError
            A width that is not a positive integer; the class's own checks.
        """
        return self.make(validate.size("input width", input_shape[-1])), None


def stack_module(
    framework: str,
    cell: str,
    input_size: Size,
    hidden_size: Size,
    *,
    type: str | None = None,
    sep: str = ".",
    frozen: Callable[[str], bool] | None = None,
    rename: tuple[str, str] | None = None,
    **options: Any,
) -> Module:
    """The tensors ``derive.frameworks.tensors(framework, cell, ...)`` lists, as one module.

    Parameters
    ----------
    framework, cell : str
        As for :func:`derive.frameworks.stack`.
    input_size, hidden_size : int or sympy.Expr
    type : str, optional
        The module's class name (default ``cell``).
    sep : str, default "."
        The framework's path separator.
    frozen : callable, optional
        ``frozen(tensor name) -> bool``: tensors the class creates frozen (Paddle's ``*_attr=False``).
    rename : (str, str), optional
        Replace this leading path component by that one (a Haiku module's or a TF1 cell's ``name``).
    **options
        As for :func:`derive.frameworks.stack` (``num_layers``, ``bidirectional``, ``bias`` ...).

    Returns
    -------
    derive.tree.Module
        Named ``""``; its parameters carry the framework's full names. With a symbolic
        ``num_layers`` L, layer 0's tensors and a child standing for the L - 1 layers above
        (counted, not listed one by one).

    Raises
    ------
    TypeError, ValueError
        See :func:`derive.frameworks.stack`.
    """
    from ..engine.stack import UPPER
    from . import stack, tensors  # the package's API (this module is one of its parts)

    def param(name: str, shape: tuple[Any, ...], trainable: bool) -> Param:
        if rename is not None and (name == rename[0] or name.startswith(rename[0] + sep)):
            name = rename[1] + name[len(rename[0]) :]
        trainable = trainable and not (frozen is not None and frozen(name))
        return Param(name, tuple(plain(d) for d in shape), trainable=trainable)

    layers = plain(options.get("num_layers", 1))
    kind = type or cell
    config = {"input_size": input_size, "hidden_size": hidden_size, **options}
    if isinstance(layers, int):
        rows = tensors(framework, cell, input_size, hidden_size, **options)
        return Module("", kind, tuple(param(r.name, r.shape, r.trainable) for r in rows), sep=sep, config=config)
    built = stack(framework, cell, input_size, hidden_size, **options)
    first = tuple(param(t.name, t.shape, t.trainable) for t in built.layer_tensors(0))
    upper = tuple(param(t.name, t.shape, t.trainable) for t in built.layer_tensors(UPPER))
    above = Module("", kind, upper, repeat=layers - 1, start=1, sep=sep)
    return Module("", kind, first, children=(above,), sep=sep, config=config)


def unsupported(name: str, value: Any, default: Any, why: str) -> None:
    """Refuse an argument derive does not model unless it has its default.

    Parameters
    ----------
    name : str
    value, default : object
    why : str
        What the argument would change.

    Raises
    ------
    ValueError
        ``value`` is not ``default``.
    """
    if value is not default and value != default:
        raise ValueError(f"{name}={validate.shown(value)} is not supported by derive: {why}")


def choice(name: str, value: Any, allowed: tuple[Any, ...], message: str | None = None) -> Any:
    """``value`` if it is one of ``allowed``, else ValueError (``message``, or one naming the values).

    Parameters
    ----------
    name : str
    value : object
    allowed : tuple
    message : str, optional
        The framework's own wording.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    ValueError
        ``value`` is not one of ``allowed``.
    """
    if isinstance(value, (str, int, float, bool, type(None))) and value in allowed:
        return value
    raise ValueError(message or f"{name} must be one of {list(allowed)}, got {validate.shown(value)}")


def optional_size(name: str, value: Any) -> Size:
    """A size given as ``None`` (no such part) or a positive integer: 0 for None.

    Parameters
    ----------
    name : str
    value : None, int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    TypeError, ValueError
        Not None and not a positive integer.
    """
    return 0 if value is None else validate.size(name, value)
