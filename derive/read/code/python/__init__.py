"""A reader of model code that follows the code: Python's construction subset, evaluated over the ``ast``.

Literals and arithmetic (ints exactly; SymPy for sizes without a value), names and attributes,
calls of the code's functions and classes (``__init__`` with the instantiation's arguments over
the defaults, ``super().__init__``, inheritance, dataclasses), helpers nested or not, ``for`` over
ranges, lists, tuples, ``zip``/``enumerate``, comprehensions, ``if``/``else`` on values it knows
(both ways read and merged when it does not), f-strings, ``len``/``max``/``min``/``int``/``math``,
``functools.partial``, ``copy.deepcopy``. Nothing imported, nothing executed, a step limit against
runaway loops. The framework's names (``nn.Linear``, ``nn.ModuleList``, ``add_module``) come from
a :class:`~.semantics.Semantics`: torch's in :mod:`derive.read.code.pytorch`, Keras' in
:mod:`derive.read.code.keras`.

Modules: :mod:`.values` (what names hold), :mod:`.frame` (scopes, limits), :mod:`.semantics` (a
framework's hooks), :mod:`.core` (the shared state), :mod:`.expressions`,
:mod:`.calls`, :mod:`.statements`, :mod:`.flow` (both ways of an unknown condition),
:mod:`.builtins`, :mod:`.stdlib`, :mod:`.methods`, :mod:`.operators`, :mod:`.attributes`,
:mod:`.imported` (an imported name's registered class: ``mamba_ssm.Mamba``).
"""

from __future__ import annotations

from .interpreter import Interpreter
from .semantics import Semantics
from .values import Refused, Unknown

__all__ = ["Interpreter", "Semantics", "Refused", "Unknown"]
