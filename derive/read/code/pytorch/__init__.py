"""PyTorch model code read by following it: ``nn.Sequential(...)``, ``class Net(nn.Module)``.

:mod:`.reader` is the way in (:func:`~derive.read.code.pytorch.reader.explain_torch`); the rest are
torch's rules for the code reader of :mod:`derive.read.code.python`: :mod:`.semantics` (what
torch's names mean), :mod:`.objects` (modules, parameters and tensors as the code holds them),
:mod:`.modules` and :mod:`.containers` (``nn.Module``'s registration rules, ``Sequential``,
``ModuleList``, ``ModuleDict``), :mod:`.tensors`, :mod:`.params`, :mod:`.names`, :mod:`.merge`,
:mod:`.registered` (classes of packages that registered constructors), :mod:`.tree` (the module
tree of what the code built) and :mod:`.layers` (``torch.nn``'s layers around recurrent ones).
"""
