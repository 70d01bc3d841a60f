"""The derivation engine: symbols, validation, the equation language, conventions, wirings, stacks.

Everything else in :mod:`derive` is built on these modules, and they import nothing outside
this package but :mod:`derive.cells` (the stack builds its cells by name):

* :mod:`~derive.engine.symbols` -- the size symbols I, H, L, P, T and int-or-expression helpers;
* :mod:`~derive.engine.validate` -- argument checks worded like the frameworks';
* :mod:`~derive.engine.equations` -- the language cells are written in;
* :mod:`~derive.engine.conventions` -- how a framework lays a cell's parameters out in tensors;
* :mod:`~derive.engine.wirings` -- how layers and directions are connected;
* :mod:`~derive.engine.stack` -- layers x directions x wiring, and the layer sum (the one place);
* :mod:`~derive.engine.readout` -- an optional output layer on top of a stack.
"""
