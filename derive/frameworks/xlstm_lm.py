"""xlstm's own blocks and language model: ``xLSTMLMModel(xLSTMLMModelConfig(...))``, as the package builds it.

``xLSTMBlockStackConfig(mlstm_block=mLSTMBlockConfig(...), slstm_block=sLSTMBlockConfig(...),
num_blocks=..., embedding_dim=..., slstm_at=[...])`` places an sLSTM block at each index of
``slstm_at`` (every index when there is no mLSTM block config, ``"all"``) and an mLSTM block at the
others; its ``__post_init__`` writes the stack's ``embedding_dim`` into both layer configs and its
``bias`` into the mLSTM layer's (xlstm/xlstm_block_stack.py 44-66). A block is a pre-norm
``xlstm_norm`` (xlstm's ``LayerNorm``: a weight, no bias), the layer (``xlstm``) and, for an sLSTM
block with a ``feedforward`` (``FeedForwardConfig()`` by default), ``ffn_norm`` and a gated
feed-forward ``ffn`` (``proj_up`` D → 2·U, ``proj_down`` U → D, U = ``proj_factor``·D rounded up to a
multiple of 64; bias as its config's ``bias``, False by default). The stack ends with
``post_blocks_norm`` (a weight) when ``add_post_blocks_norm``. ``xLSTMLMModel`` adds
``token_embedding`` (V, D) and ``lm_head`` (V, D, no bias), tied to the embedding with ``tie_weights``.

Sources (xlstm 2.0.6): ``xlstm/xlstm_lm_model.py`` 14-43, ``xlstm/xlstm_block_stack.py`` 13-100,
``xlstm/blocks/xlstm_block.py`` 16-75, ``xlstm/blocks/mlstm/block.py`` 9-33,
``xlstm/blocks/slstm/block.py`` 10-40, ``xlstm/components/feedforward.py`` 31-66,
``xlstm/components/ln.py`` 8-25, ``xlstm/utils.py`` 13-29 (``UpProjConfigMixin``).

>>> from derive.engine.constructors import lookup
>>> from derive.tree import count
>>> make = lambda name, *a, **k: lookup("xlstm", name).make(*a, **k)
>>> config = make("xLSTMLMModelConfig", mlstm_block=make("mLSTMBlockConfig", make("mLSTMLayerConfig", num_heads=4)),
...               slstm_block=make("sLSTMBlockConfig", make("sLSTMLayerConfig", num_heads=4)),
...               num_blocks=4, embedding_dim=128, slstm_at=[1], vocab_size=1000, context_length=64)
>>> count(make("xLSTMLMModel", config))
692504
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import validate
from ..engine.constructors import lookup
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..tree import Module, Param
from .mirror import constructor
from .xlstm import XlstmConfig, bind_fields

__all__ = ["up_width"]

_PREFIXES = ("xlstm.", "")
_SOURCE = (
    "xlstm/xlstm_lm_model.py 14-43, xlstm/xlstm_block_stack.py 13-100, xlstm/blocks/xlstm_block.py 16-75, "
    "xlstm/blocks/mlstm/block.py 9-33, xlstm/blocks/slstm/block.py 10-40, xlstm/components/feedforward.py 31-66, "
    "xlstm/components/ln.py 8-25 (xlstm 2.0.6)"
)

#: ``FeedForwardConfig``'s fields (``UpProjConfigMixin``'s first) and defaults, in order.
_FEEDFORWARD: dict[str, Any] = {
    "proj_factor": 1.3,
    "round_proj_up_dim_up": True,
    "round_proj_up_to_multiple_of": 64,
    "_proj_up_dim": None,
    "act_fn": "gelu",
    "embedding_dim": -1,
    "dropout": 0.0,
    "bias": False,
    "ff_type": "ffn_gated",
    "_num_blocks": 1,
}
_ACTIVATIONS = ("gelu", "relu", "relu^2", "sigmoid", "swish", "selu")
_MLSTM_BLOCK: dict[str, Any] = {"mlstm": None, "_num_blocks": None, "_block_idx": None}
_SLSTM_BLOCK: dict[str, Any] = {"slstm": None, "feedforward": "default", "_num_blocks": None, "_block_idx": None}
#: ``xLSTMBlockStackConfig``'s fields and defaults, in order; ``xLSTMLMModelConfig`` adds :data:`_LM`.
_STACK: dict[str, Any] = {
    "mlstm_block": None,
    "slstm_block": None,
    "context_length": -1,
    "num_blocks": 1,
    "embedding_dim": 128,
    "add_post_blocks_norm": True,
    "bias": False,
    "dropout": 0.0,
    "slstm_at": [],
    "_block_map": None,
}
_LM: dict[str, Any] = {
    **_STACK,
    "vocab_size": -1,
    "tie_weights": False,
    "weight_decay_on_embedding": False,
    "add_embedding_dropout": False,
}


def up_width(proj_factor: Any, width: Any, multiple: Any = 64, round_up: bool = True) -> int:
    """``UpProjConfigMixin._set_proj_up_dim``: ``proj_factor``·width rounded to a multiple (xlstm/utils.py 20-29).

    Parameters
    ----------
    proj_factor : float
    width : int
    multiple : int
    round_up : bool

    Returns
    -------
    int

    Examples
    --------
    >>> up_width(1.3, 128), up_width(4 / 3, 768)
    (192, 1024)
    """
    scaled = proj_factor * width / multiple
    return int((math.ceil(scaled) if round_up else math.floor(scaled)) * multiple)


@constructor(
    "xlstm",
    "FeedForwardConfig",
    prefixes=_PREFIXES,
    module_types=("xlstm.components.feedforward",),
    source="xlstm/components/feedforward.py 31-46",
)
def _feedforward_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    config = bind_fields("FeedForwardConfig", _FEEDFORWARD, args, kwargs)
    if config.fields["act_fn"] not in _ACTIVATIONS:
        raise ValueError(f"FeedForwardConfig: Unknown activation function {config.fields['act_fn']}")
    if config.fields["ff_type"] != "ffn_gated":
        raise ValueError(
            f"FeedForwardConfig: ff_type must be 'ffn_gated', got {validate.shown(config.fields['ff_type'])}"
        )
    return config


@constructor(
    "xlstm",
    "mLSTMBlockConfig",
    prefixes=_PREFIXES,
    module_types=("xlstm.blocks.mlstm.block",),
    source="xlstm/blocks/mlstm/block.py 9-20",
)
def _mlstm_block_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    config = bind_fields("mLSTMBlockConfig", _MLSTM_BLOCK, args, kwargs)
    if config.fields["mlstm"] is None:
        return bind_fields("mLSTMBlockConfig", _MLSTM_BLOCK, (), {**config.fields, "mlstm": _layer_config("m")})
    return config


@constructor(
    "xlstm",
    "sLSTMBlockConfig",
    prefixes=_PREFIXES,
    module_types=("xlstm.blocks.slstm.block",),
    source="xlstm/blocks/slstm/block.py 10-24",
)
def _slstm_block_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    config = dict(bind_fields("sLSTMBlockConfig", _SLSTM_BLOCK, args, kwargs).fields)
    if config["slstm"] is None:
        config["slstm"] = _layer_config("s")
    if config["feedforward"] == "default":  # field(default_factory=FeedForwardConfig)
        config["feedforward"] = _feedforward_config()
    return bind_fields("sLSTMBlockConfig", _SLSTM_BLOCK, (), config)


def _layer_config(kind: str) -> XlstmConfig:
    found = lookup("xlstm", f"{kind}LSTMLayerConfig")
    assert found is not None
    config: XlstmConfig = found.make()
    return config


@constructor(
    "xlstm",
    "xLSTMBlockStackConfig",
    prefixes=_PREFIXES,
    module_types=("xlstm.xlstm_block_stack",),
    source="xlstm/xlstm_block_stack.py 13-66",
)
def _stack_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    return bind_fields("xLSTMBlockStackConfig", _STACK, args, kwargs)


@constructor(
    "xlstm",
    "xLSTMLMModelConfig",
    prefixes=_PREFIXES,
    module_types=("xlstm.xlstm_lm_model",),
    source="xlstm/xlstm_lm_model.py 14-19",
)
def _lm_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    return bind_fields("xLSTMLMModelConfig", _LM, args, kwargs)


def _norm(width: Any, name: str) -> Module:
    """xlstm's ``LayerNorm(ndim)``: a weight, no bias (xlstm/components/ln.py 8-25)."""
    return Module(name, "LayerNorm", (Param("weight", (width,)),))


def _layer(kind: str, layer: Any, **overrides: Any) -> Module:
    """The block's ``xlstm`` layer, its config with the stack's overrides."""
    wanted = f"{kind}LSTMLayerConfig"
    if not isinstance(layer, XlstmConfig) or layer.cls != wanted:
        raise TypeError(f"{kind}LSTMBlockConfig: {kind}lstm must be a {wanted}(...), got {validate.shown(layer)}")
    config = XlstmConfig(wanted, type(layer.fields)({**layer.fields, **overrides}))
    found = lookup("xlstm", f"{kind}LSTMLayer")
    assert found is not None
    module: Module = found.make(config)
    return module.replace(name="xlstm")


def _feedforward(config: Any, width: Any) -> tuple[Module, ...]:
    if config is None:
        return ()
    if not isinstance(config, XlstmConfig) or config.cls != "FeedForwardConfig":
        raise TypeError(
            f"sLSTMBlockConfig: feedforward must be a FeedForwardConfig(...) or None, got {validate.shown(config)}"
        )
    f = config.fields
    validate.flag("FeedForwardConfig bias", f["bias"])
    up = up_width(f["proj_factor"], width, f["round_proj_up_to_multiple_of"], f["round_proj_up_dim_up"])
    ffn = Module(
        "ffn",
        "GatedFeedForward",
        children=(linear(width, 2 * up, f["bias"], name="proj_up"), linear(up, width, f["bias"], name="proj_down")),
    )
    return _norm(width, "ffn_norm"), ffn


def _block(kind: str, config: Any, stack: dict[str, Any], index: int) -> Module:
    """Block ``index`` of the stack: ``mLSTMBlock`` or ``sLSTMBlock`` (xlstm/blocks/xlstm_block.py 46-75)."""
    wanted = f"{kind}LSTMBlockConfig"
    if not isinstance(config, XlstmConfig) or config.cls != wanted:
        raise TypeError(
            f"xLSTMBlockStackConfig: {kind}lstm_block must be a {wanted}(...), got {validate.shown(config)}"
        )
    width = stack["embedding_dim"]
    if kind == "m":
        layer = _layer("m", config.fields["mlstm"], embedding_dim=width, bias=stack["bias"])
        children: tuple[Module, ...] = (_norm(width, "xlstm_norm"), layer)
    else:
        layer = _layer("s", config.fields["slstm"], embedding_dim=width)
        children = (_norm(width, "xlstm_norm"), layer, *_feedforward(config.fields["feedforward"], width))
    return Module(str(index), f"{kind}LSTMBlock", children=children)


def _stack(config: Any, cls: str) -> Module:
    """``xLSTMBlockStack(config)`` as ``xlstm_block_stack`` (xlstm/xlstm_block_stack.py 44-100)."""
    if not isinstance(config, XlstmConfig) or config.cls != cls:
        raise TypeError(f"{cls.removesuffix('Config')} takes a {cls}(...), got {validate.shown(config)}")
    c = dict(config.fields)
    blocks = validate.size("num_blocks", c["num_blocks"])
    validate.size("embedding_dim", c["embedding_dim"])
    for flag in ("add_post_blocks_norm", "bias"):
        validate.flag(flag, c[flag])
    at = c["slstm_at"]
    if c["mlstm_block"] is None or at == "all":
        at = list(range(blocks))
    if not isinstance(at, (list, tuple)) or not all(type(k) is int for k in at):
        raise ValueError(f"{cls}: slstm_at must be a list of block indices or 'all', got {validate.shown(at)}")
    for k in at:
        if not 0 <= k < blocks:  # xlstm asserts: "Invalid slstm position"
            raise ValueError(f"{cls}: Invalid slstm position {k} (num_blocks={blocks})")
    if at and c["slstm_block"] is None:
        raise ValueError(f"{cls}: slstm_at places sLSTM blocks at {sorted(at)} but slstm_block is None")
    context = c["context_length"]
    if len(at) < blocks and type(context) is int and context < 1:  # mLSTMCell's causal mask: torch.ones(-1, -1)
        raise ValueError(
            f"{cls}: context_length must be given (got {context}): the mLSTM blocks' cell makes a "
            "context_length x context_length causal mask, and xlstm fails without it"
        )
    children = [
        _block("s" if k in at else "m", c["slstm_block" if k in at else "mlstm_block"], c, k) for k in range(blocks)
    ]
    stack: tuple[Module, ...] = (Module("blocks", "ModuleList", children=tuple(children)),)
    if c["add_post_blocks_norm"]:
        stack += (_norm(c["embedding_dim"], "post_blocks_norm"),)
    return Module("", "xLSTMBlockStack", children=stack, config={"num_blocks": blocks, "slstm_at": sorted(at)})


@constructor("xlstm", "xLSTMBlockStack", prefixes=_PREFIXES, module_types=("xlstm.xlstm_block_stack",), source=_SOURCE)
def _block_stack(config: Any) -> Module:
    return _stack(config, "xLSTMBlockStackConfig")


@constructor("xlstm", "xLSTMLMModel", prefixes=_PREFIXES, module_types=("xlstm.xlstm_lm_model",), source=_SOURCE)
def _lm_model(config: Any, **kwargs: Any) -> Module:
    stack = _stack(config, "xLSTMLMModelConfig")
    c = config.fields
    vocab = validate.size("vocab_size", c["vocab_size"])
    validate.flag("tie_weights", c["tie_weights"])
    width = c["embedding_dim"]
    head = linear(width, vocab, False, name="lm_head")
    if c["tie_weights"]:
        head = head.replace(params=(Param("weight", (vocab, width), tied_to="token_embedding.weight"),))
    children = (stack.replace(name="xlstm_block_stack"), embedding(vocab, width, name="token_embedding"), head)
    shown = {"vocab_size": vocab, "embedding_dim": width, **stack.config, "tie_weights": c["tie_weights"]}
    return Module("", "xLSTMLMModel", children=children, config=shown)
