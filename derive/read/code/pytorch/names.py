"""Which torch names the code reader knows, and what a dotted path names.

The names a snippet may use without importing them (``nn``, ``torch``, ``F``), the ``torch.nn``
classes the reader holds itself (the containers), the library bases that add no tensor, and the
packages whose functions give plain values (never a module). A ``torch.nn`` class is named
by ``torch.nn.X`` or by its defining module (``torch/nn/modules/``, ``torch/nn/parallel/``,
``torch/nn/parameter.py``).
"""

from __future__ import annotations

from ....engine.constructors import CONSTRUCTORS
from .objects import CONTAINERS

__all__ = ["torch_name", "supported", "FREE_NAMES", "NATIVE", "EMPTY_BASES", "VALUE_PACKAGES"]

#: Names a snippet uses without importing them, and the modules they stand for.
FREE_NAMES = {"nn": "torch.nn", "torch": "torch", "F": "torch.nn.functional"}
#: ``torch.nn`` classes the reader holds itself (containers, ``Module``, the data-parallel wrappers).
NATIVE: tuple[str, ...] = (*CONTAINERS, "Module", "DataParallel", "DistributedDataParallel")
#: Library bases whose ``__init__`` adds no tensor.
EMPTY_BASES: tuple[str, ...] = ("torch.nn.Module", "pytorch_lightning.LightningModule", "lightning.LightningModule")
EMPTY_BASES += ("lightning.pytorch.LightningModule", "pl.LightningModule", "L.LightningModule")
#: Packages whose functions give plain values, never modules (a config read from a file is
#: unknown, not a model).
VALUE_PACKAGES: tuple[str, ...] = (
    "json",
    "yaml",
    "os",
    "sys",
    "pickle",
    "numpy",
    "np",
    "math",
    "random",
    "time",
    "logging",
    "argparse",
)
VALUE_PACKAGES += (
    "re",
    "string",
    "pathlib",
    "collections",
    "itertools",
    "functools",
    "warnings",
    "typing",
    "torch.cuda",
)
VALUE_PACKAGES += ("torch.device", "torch.manual_seed", "torch.backends", "torch.distributed", "torch.utils.data")


def torch_name(path: str) -> str | None:
    """The ``torch.nn`` class a dotted path names (``torch.nn.modules.rnn.LSTM`` -> ``"LSTM"``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None
    """
    for prefix in ("torch.nn.modules.", "torch.nn.parallel.", "torch.nn.parameter."):
        if path.startswith(prefix):
            return path.rsplit(".", 1)[-1]
    if path.startswith("torch.nn.") and path.count(".") == 2:
        return path.rsplit(".", 1)[-1]
    return None


def supported() -> list[str]:
    """Every ``torch.nn`` class the code reader knows.

    Returns
    -------
    list of str
    """
    return sorted({name for fw, name in CONSTRUCTORS if fw == "torch"} | set(NATIVE) | {"Parameter"})
