"""The derivation engine: symbols, validation, the equation language, conventions, wirings, stacks.

The bottom floor of :mod:`derive` above the module tree (:mod:`derive.tree`): everything else is
built on these modules, and they import nothing of :mod:`derive` but :mod:`derive.tree` (the cells
register into :mod:`~derive.engine.registry`; the engine never imports them):

* :mod:`~derive.engine.symbols` -- the size symbols I, H, L, P, T and int-or-expression helpers;
* :mod:`~derive.engine.validate` -- argument checks worded like the frameworks';
* :mod:`~derive.engine.algebra` -- the operations cells are written with, symbolic or shape-only;
* :mod:`~derive.engine.cell` -- what a cell is: its parameters and equations, the bias policies;
* :mod:`~derive.engine.equations` -- the language cells are written in (:class:`Equations`);
* :mod:`~derive.engine.registry` -- the registered cells, :func:`make_cell`;
* :mod:`~derive.engine.tensors` -- a framework tensor, its layout and its shape;
* :mod:`~derive.engine.conventions` -- how a framework lays a cell's parameters out in tensors;
* :mod:`~derive.engine.labels`, :mod:`~derive.engine.wirings` -- how layers and directions are connected;
* :mod:`~derive.engine.stack` -- layers x directions x wiring; :mod:`~derive.engine.stack_tree`,
  a stack as a module tree, where the layer sum is computed (the one place);
* :mod:`~derive.engine.readout` -- an optional output layer on top of a stack;
* :mod:`~derive.engine.constructors` -- the constructors users write, by framework.
"""
