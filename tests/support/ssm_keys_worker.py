"""The keys of the config classes that are not transformers' (not a test module), read by the Python of
``.venv-ssm`` (mamba-ssm 2.3.2.post1, flash-linear-attention 0.6.0, transformers 5.23.0):
``tests/families/test_keys_ssm.py`` runs it once and reads one JSON object off stdout.

For each model type (``mamba_ssm``: mamba_ssm's ``MambaConfig``; ``rwkv6``, ``rwkv7``: fla's ``RWKV6Config``,
``RWKV7Config``): ``cls`` (the class name), ``own`` (its ``__init__`` parameters, its dataclass fields, its
``attribute_map`` and ``sub_configs``), ``base`` (``PreTrainedConfig``'s fields and ``__init__`` parameters: the keys
every transformers config has; empty for mamba_ssm's plain dataclass), ``kwargs`` (whether ``__init__`` takes
``**kwargs``: a key outside the class is kept, not refused), ``attributes`` (every name the class defines),
``modeling`` (the source of the file of the model built from it) and ``saved`` (the class's defaults whole, as
``save_pretrained`` writes them: ``to_dict()``, mamba_ssm's ``config.__dict__``).
Importing this module imports nothing of mamba_ssm or fla (pytest collects it for doctests).
"""

from __future__ import annotations

import json
import sys


def _keys(cls: type, base: type | None) -> dict:
    import dataclasses
    import inspect

    signature = inspect.signature(cls.__init__).parameters
    own = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    own |= set(signature) - {"self", "args", "kwargs"}
    own |= set(getattr(cls, "attribute_map", {}) or {})
    own |= set(getattr(cls, "sub_configs", {}) or {})
    common: set[str] = set()
    if base is not None:
        common = {f.name for f in dataclasses.fields(base)} if dataclasses.is_dataclass(base) else set()
        common |= set(inspect.signature(base.__init__).parameters) - {"self", "args", "kwargs"}
    return {
        "cls": cls.__name__,
        "own": sorted(own - common),
        "base": sorted(common),
        "kwargs": any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.values()),
        "attributes": sorted(n for n in dir(cls) if not n.startswith("__")),
    }


def main() -> None:
    import dataclasses
    import inspect
    import types
    import warnings

    warnings.simplefilter("ignore")
    # mamba_ssm imports on a CPU only with its CUDA extension stubbed (as tests/support/mamba_worker.py)
    sys.modules.setdefault("selective_scan_cuda", types.ModuleType("selective_scan_cuda"))
    import fla.models.rwkv6.modeling_rwkv6 as rwkv6
    import fla.models.rwkv7.modeling_rwkv7 as rwkv7
    import mamba_ssm.models.mixer_seq_simple as mixer
    from fla.models import RWKV6Config, RWKV7Config
    from mamba_ssm.models.config_mamba import MambaConfig
    from transformers import PreTrainedConfig

    out = {
        "mamba_ssm": {**_keys(MambaConfig, None), "modeling": inspect.getsource(mixer)},
        "rwkv6": {**_keys(RWKV6Config, PreTrainedConfig), "modeling": inspect.getsource(rwkv6)},
        "rwkv7": {**_keys(RWKV7Config, PreTrainedConfig), "modeling": inspect.getsource(rwkv7)},
    }
    out["mamba_ssm"]["saved"] = dataclasses.asdict(MambaConfig())
    out["rwkv6"]["saved"] = RWKV6Config().to_dict()
    out["rwkv7"]["saved"] = RWKV7Config().to_dict()
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
