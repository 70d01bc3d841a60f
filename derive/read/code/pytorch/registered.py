"""Classes imported from the packages that registered constructors, read as torch modules by the code reader.

``from mamba_ssm import Mamba`` then ``Mamba(d_model=64)``, ``fla.layers.GatedLinearAttention(...)``,
``from models.s4.s4d import S4D``: a call of a registered class (found by :mod:`derive.read.code.python.imported`) is made
by its constructor and becomes a module object, named as the package names its tensors. A config
class (``MambaConfig(hidden_size=256)``) becomes a config object whose sizes the code may read
(``config.hidden_size``); the model classes of its architecture (``MambaForCausalLM(config)``,
``MambaModel(config)``) and transformers' ``AutoModelForCausalLM.from_config`` /
``AutoModel.from_config`` / ``AutoConfig.for_model`` build from it what
:func:`derive.blocks.register_config` registered. Tied tensors (``lm_head.weight`` of a model with
``tie_word_embeddings``) stay one tensor.

An argument derive does not know goes to the constructor as an :class:`~derive.read.code.python.imported.Unread`: ignored
where no tensor depends on it (``device=device``), refused, naming it, where one does. A config
changed after it is made (``config.hidden_size = 512``) is refused unless the change leaves the
model's tensors as they are: transformers computes some sizes when the config is made
(``MambaConfig.__post_init__``: ``intermediate_size``, ``time_step_rank``), so the model would not
follow the change.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ....engine.constructors import Constructor
from ....tree import Module, named_parameters
from ....tree.walk import MAX_LISTED
from ..python.frame import source_of
from ..python.imported import (
    ConfigClass,
    Touched,
    Unread,
    auto_class,
    base_model_name,
    config_class,
    config_classes,
    imports_registered,
    model_class,
    registered,
    unread_in,
)
from ..python.values import Class, Instance, Ref, Refused, Unknown
from .objects import ModObj, adopt

if TYPE_CHECKING:
    from ....blocks import ConfigModel
    from ..python.core import Core

__all__ = ["RegisteredRules", "ConfigObject", "adopt_tied"]

#: Keyword arguments of ``from_config`` that change no tensor (transformers modeling_utils.py ``_from_config``).
_FROM_CONFIG_QUIET = frozenset({"torch_dtype", "dtype", "trust_remote_code", "attn_implementation"})
#: Keyword arguments of a model class that change no tensor (mamba_ssm's ``MambaLMHeadModel``:
#: mixer_seq_simple.py 216-223).
_MODEL_QUIET = frozenset({"device", "dtype", "initializer_cfg"})
#: Packages whose config classes the Auto classes read (fla registers its models with them).
_AUTO_PACKAGES = frozenset({"transformers", "fla"})


@dataclass(eq=False)
class ConfigObject(Instance):
    """A registered config class's object (``MambaConfig(hidden_size=256)``) as the code holds it.

    Parameters
    ----------
    cls : Class
        Its class, as the code's values hold classes.
    attrs : dict
        Its attributes (the config's fields and values).
    config, given, built, snapshot
        As the attributes below.

    Attributes
    ----------
    config : ConfigClass
    given : dict
        The keyword arguments it was made with.
    built : derive.tree.Module
        The model it configures, built when it was made.
    snapshot : dict
        Its attributes when it was made (a later change is checked against the model).
    """

    config: ConfigClass | None = None
    given: dict[str, Any] = field(default_factory=dict)
    built: Module | None = None
    snapshot: dict[str, Any] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, Any]) -> ConfigObject:
        new = ConfigObject(self.cls, copy.deepcopy(self.attrs, memo), self.config, self.given, self.built)
        new.snapshot = self.snapshot
        memo[id(self)] = new
        return new


def adopt_tied(module: Module) -> ModObj:
    """:func:`~.objects.adopt`, with each tied tensor the same object as the one it is tied to.

    Parameters
    ----------
    module : derive.tree.Module

    Returns
    -------
    ModObj
    """
    if _copies(module) > MAX_LISTED:  # kept whole: counted for any number of layers, never expanded
        return ModObj(module.type, origin=module, frozen=True)
    obj = adopt(module)
    if obj.frozen:
        return obj
    for name, p in named_parameters(module, ties=True):
        if p.tied_to is not None:
            owner, leaf = _owner(obj, name)
            target_owner, target_leaf = _owner(obj, p.tied_to)
            if target_leaf not in target_owner.params:  # a tie derive cannot place: the tree keeps it
                return ModObj(module.type, origin=module, frozen=True)
            owner.params[leaf] = target_owner.params[target_leaf]
    return obj


def _copies(module: Module) -> int:
    """How many module objects ``module``'s children expand to (0 past a symbolic repeat)."""
    total = 0
    for child in module.children:
        if type(child.repeat) is int:
            total += child.repeat * (1 + _copies(child))
    return total


def _owner(obj: ModObj, dotted: str) -> tuple[ModObj, str]:
    """The module object holding the tensor ``dotted`` names, and the tensor's own name (children of a
    repeated module are registered under dotted names: ``layers.0``)."""
    while True:
        key = next((k for k in sorted(obj.children, key=len, reverse=True) if dotted.startswith(k + ".")), None)
        child = obj.children.get(key) if key is not None else None
        if key is None or child is None:
            return obj, dotted
        obj, dotted = child, dotted[len(key) + 1 :]


class RegisteredRules:
    """Calls of registered classes, mixed into :class:`~.semantics.TorchSemantics`."""

    def call_registered(self, core: Core, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """The value of calling a registered package's name, or ``NotImplemented`` when ``ref`` names none.

        Parameters
        ----------
        core : Interpreter
        ref : Ref
        args : list
        kwargs : dict
        node : ast.Call

        Returns
        -------
        object
            A module object, a :class:`ConfigObject`, an :class:`~derive.read.code.python.values.Unknown` (a checkpoint
            loaded), or ``NotImplemented``.

        Raises
        ------
        Refused
            Arguments the class refuses, a size derive does not know, a config changed after it was
            made, or a name two registered packages claim.
        """
        path = ref.path
        owner, _, method = path.rpartition(".")
        auto, owned = auto_class(owner), model_class(owner)
        if method in ("from_pretrained", "from_single_file") and imports_registered(path):
            why = f"{method} loads a checkpoint, which derive does not read here (give derive the config.json or the checkpoint)"
            kind = "value" if auto == "config" or config_class(owner) else "module"
            return Unknown(source_of(node.func), why, node.lineno, kind)
        config = config_class(path)
        if config is not None:
            return self.make_config(core, config, args, kwargs, node)
        if method == "from_config" and auto in ("model", "base"):
            return self.from_config(core, None, auto, args, kwargs, node, quiet=_FROM_CONFIG_QUIET)
        if method == "_from_config" and owned is not None:
            return self.from_config(core, owned[0], owned[1], args, kwargs, node, quiet=_FROM_CONFIG_QUIET)
        if method == "for_model" and auto == "config":
            return self._for_model(core, args, kwargs, node)
        model = model_class(path)
        found = registered(path)
        if model is not None and not (found and _keywords(args, kwargs)):
            return self.from_config(core, model[0], model[1], args, kwargs, node, quiet=_MODEL_QUIET)
        if model is not None:
            core.note(
                f"line {node.lineno}: {source_of(node.func)}(...) given sizes, not a config: read as the version that took them ({found[0].source})"
            )
        if not found:
            return NotImplemented
        if len({c.framework for c in found}) > 1:
            names = " and ".join(f"{c.framework}'s" for c in found)
            raise core.refuse(node, f"{path} is registered by {names} {found[0].name}: derive cannot tell which")
        return self.construct_registered(core, found[0], args, kwargs, node)

    # -- registered classes ----------------------------------------------------------------------
    def build_registered(
        self, core: Core, constructor: Constructor, args: list[Any], kwargs: dict[str, Any], node: ast.AST
    ) -> Any:
        """The tree ``constructor.make`` builds from the code's arguments (or the config value it makes).

        Parameters
        ----------
        core : Interpreter
        constructor : Constructor
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        Refused
            The class refuses the arguments (its words), uses a value derive does not know, or is not
            a PyTorch module (a Flax class's tensors are not torch's).
        """
        name = constructor.name
        plain_args = [_argument(core, a, node) for a in args]
        plain_kwargs = {k: _argument(core, v, node) for k, v in kwargs.items()}
        try:
            made = constructor.make(*plain_args, **plain_kwargs)
        except Touched as touched:
            raise core.refuse(node, f"{name}: its tensors depend on {_why(core, touched.unread, node)}") from None
        except (TypeError, ValueError) as error:
            message = " ".join(str(error).split())
            unknown = next((a for a in [*plain_args, *plain_kwargs.values()] if _unknown(a)), None)
            if unknown is not None:
                message += f" — {_why(core, unknown, node)}"
            raise core.refuse(node, f"{name}: {message}") from None
        if _config_value(made):
            return made
        if not isinstance(made, Module) or made.sep != ".":
            raise core.refuse(
                node,
                f"{name} ({constructor.framework}) is not a PyTorch module: derive reads it on its own, not in torch code",
            )
        unread = next(unread_in(made), None)
        if unread is not None:
            raise core.refuse(node, f"{name}: its tensors depend on {_why(core, unread, node)}")
        return made

    def construct_registered(
        self, core: Core, constructor: Constructor, args: list[Any], kwargs: dict[str, Any], node: ast.AST
    ) -> ModObj:
        """A registered class made with the code's arguments, as a module object.

        Parameters
        ----------
        core : Interpreter
        constructor : Constructor
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        ModObj or object
            A module object; a frozen dataclass a registered config class makes (xlstm's
            ``mLSTMLayerConfig(...)``: an argument of the layer's class) as it is.
        """
        made = self.build_registered(core, constructor, args, kwargs, node)
        return made if _config_value(made) else adopt_tied(made)

    # -- configs and the models built from them -----------------------------------------------------
    def make_config(
        self, core: Core, config: ConfigClass, args: list[Any], kwargs: dict[str, Any], node: ast.AST
    ) -> ConfigObject:
        """``MambaConfig(**kwargs)``: a config object, its model built (and checked) now.

        Parameters
        ----------
        core : Interpreter
        config : ConfigClass
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        ConfigObject
        """
        built = self.build_registered(core, config.constructor, args, kwargs, node)
        attrs = {**dict(built.config), **kwargs}
        cls = Class(config.constructor.name, [], {}, getattr(node, "lineno", 0))
        made = ConfigObject(cls, attrs, config, dict(kwargs), built)
        made.snapshot = copy.deepcopy(attrs)
        return made

    def _for_model(self, core: Core, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        model_type = args[0] if args else kwargs.pop("model_type", None)
        found = [c for c in config_classes() if c.model.model_type == model_type and _packages(c) & _AUTO_PACKAGES]
        config = found[0] if found and isinstance(model_type, str) else None
        if config is None:
            why = (
                f"model type {model_type!r} is not one derive builds"
                if isinstance(model_type, str)
                else "its type is not known"
            )
            return Unknown(source_of(node), f"AutoConfig.for_model(...): {why}", getattr(node, "lineno", 0))
        return self.make_config(core, config, list(args[1:]), kwargs, node)

    def from_config(
        self,
        core: Core,
        model: ConfigModel | None,
        part: str,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.AST,
        quiet: frozenset[str] = frozenset(),
    ) -> ModObj:
        """The model (``part`` ``"model"``) or its base model (``"base"``) built from a config object.

        Parameters
        ----------
        core : Interpreter
        model : ConfigModel or None
            The model class's type; None for an Auto class (the config's type).
        part : {"model", "base"}
        args, kwargs : the call's arguments (the config first)
        node : ast.AST
        quiet : frozenset of str
            Keyword arguments that change no tensor.

        Returns
        -------
        ModObj

        Raises
        ------
        Refused
            No config object derive knows, a config of another model type, other arguments, or a
            config changed after it was made in a way the model would not follow.
        """
        kwargs = dict(kwargs)
        config = args[0] if args else kwargs.pop("config", None)
        shown = source_of(getattr(node, "func", node))
        extra = [*map(repr, args[1:]), *(k for k in kwargs if k not in quiet)]
        if not isinstance(config, ConfigObject) or config.config is None or config.built is None:
            why = _why(core, config, node) if config is not None else "no config given"
            raise core.refuse(node, f"{shown}(...) builds its model from a config derive does not know: {why}")
        if extra:
            raise core.refuse(node, f"{shown}(...): derive does not read the arguments {', '.join(extra)}")
        if model is None and not (_packages(config.config) & _AUTO_PACKAGES):
            raise core.refuse(node, f"{shown}(...) does not build from a {config.config.constructor.name}")
        if model is not None and config.config.model is not model:
            raise core.refuse(
                node, f"{shown}(...) builds a {model.architecture}, not from a {config.config.constructor.name}"
            )
        tree = self._config_tree(core, config, node)
        if part == "base":
            base = base_model_name(config.config.model.architecture)
            tree = next((c for c in tree.children if c.type == base), tree)
            if tree.type != base:
                raise core.refuse(node, f"{shown}(...): derive does not build a base model of {tree.type}")
            tree = tree.replace(name="")
        return adopt_tied(tree)

    def _config_tree(self, core: Core, config: ConfigObject, node: ast.AST) -> Module:
        """The model of ``config``, once every change made to it since is checked to change no tensor."""
        assert config.config is not None and config.built is not None
        cls = config.config.constructor.name
        for key, value in config.attrs.items():
            if key in config.snapshot and _same(config.snapshot[key], value):
                continue
            changed = f"{key} was set on the {cls} after it was made"
            if _unknown(value):
                raise core.refuse(node, f"{changed}, to a value derive does not know: {_why(core, value, node)}")
            try:
                rebuilt = self.build_registered(core, config.config.constructor, [], {**config.given, key: value}, node)
            except Refused as refused:
                raise core.refuse(node, f"{changed}: {str(refused).split(': ', 1)[-1]}") from None
            if _tensors(rebuilt) != _tensors(config.built):
                raise core.refuse(
                    node,
                    f"{changed}: transformers keeps what the config computed when it was made, so derive does not "
                    f"follow the change; pass {key}=... to {cls}(...)",
                )
        return config.built


def _packages(config: ConfigClass) -> frozenset[str]:
    return config.packages


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    return (
        type(a) is type(b) and isinstance(a, (bool, int, float, str, tuple, list, dict, sympy.Basic)) and bool(a == b)
    )


def _tensors(module: Module) -> tuple[Any, ...]:
    """What of a tree holds tensors: its nodes' names, types and repeats, and their tensors."""
    params = tuple((p.name, p.shape, p.trainable, p.buffer, p.tied_to, p.complex) for p in module.params)
    return (module.name, module.type, module.repeat, module.start, params, tuple(map(_tensors, module.children)))


def _config_value(value: Any) -> bool:
    """A frozen dataclass a registered config class makes (xlstm's configs), passed on as a value."""
    params = getattr(type(value), "__dataclass_params__", None)
    if params is None or not params.frozen or isinstance(value, Module):
        return False
    return not type(value).__module__.startswith("derive.read")  # the reader's own values (Unknown ...) are not


def _unknown(value: Any) -> bool:
    return isinstance(value, (Unknown, Unread))


def _keywords(args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a model class is called with sizes, not a config (mamba_ssm 1.0's
    ``MambaLMHeadModel(d_model=..., n_layer=..., vocab_size=...)``): keywords only (no ``config=``), or
    an int first (a name without a value may be a config)."""
    if args:
        return type(args[0]) is int
    return bool(kwargs) and "config" not in kwargs


def _why(core: Core, value: Any, node: ast.AST) -> str:
    if isinstance(value, Unread):
        inner = value.value
        return (
            core.why_unknown(inner, node)
            if isinstance(inner, (Unknown, Ref))
            else f"{value.shown}, which derive does not know"
        )
    return core.why_unknown(value, node)


def _argument(core: Core, value: Any, node: ast.AST) -> Any:
    """A value of the code as a registered constructor takes it: plain values as they are, a module as its
    tree, a config object as its keys, anything else an :class:`~derive.read.code.python.imported.Unread`."""
    from .tree import to_tree

    if value is None or isinstance(value, (bool, int, float, str, sympy.Basic, Module)) or _config_value(value):
        return value
    if isinstance(value, ModObj):
        return to_tree(value)
    if isinstance(value, list):
        return [_argument(core, v, node) for v in value]
    if isinstance(value, tuple):
        return tuple(_argument(core, v, node) for v in value)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _argument(core, v, node) for k, v in value.items()}
    if isinstance(value, ConfigObject):
        return {k: _argument(core, v, node) for k, v in value.attrs.items()}
    shown = value.name if isinstance(value, Unknown) else value.path if isinstance(value, Ref) else type(value).__name__
    return Unread(value, shown)
