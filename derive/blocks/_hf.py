"""Reading a transformers ``config.json`` for a block's model: which keys count, which do not.

A model type's builder (:func:`derive.blocks.register_config`) passes the config it is given to
:func:`resolve` with the keys that shape its tensors and their defaults (the config class's, read
from ``configuration_<model>.py``); every other key must be one that changes no tensor — the
``PreTrainedConfig`` fields and keyword arguments every config carries (:data:`GENERIC`), or the
model's own inert keys (epsilons, initialisation, generation). A key derive cannot map is refused,
naming it: a silently ignored key could be a size the user meant (``d_model`` in a transformers
``MambaConfig``, which transformers ignores and builds ``hidden_size=768``).

Sources (transformers 5.23.0): ``configuration_utils.py`` 413–426 (the common fields) and 438–498
(the keyword arguments ``__post_init__`` pops or sets); ``generation/configuration_utils.py`` 602–636
(``_get_default_generation_params``, popped from a model config).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..layers.linear import linear
from ..tree import Dim, Module, Param
from . import _keys
from ._keys import _symbolic

__all__ = ["GENERIC", "resolve", "size", "flag", "symbolic", "positive", "strict_int", "time_step_rank", "lm_head"]

#: Keys every transformers config may carry that change no tensor of the model.
GENERIC = frozenset(
    {
        # PreTrainedConfig fields and bookkeeping (configuration_utils.py 413-426, 440, 486-497)
        "model_type",
        "transformers_version",
        "architectures",
        "output_hidden_states",
        "output_attentions",
        "return_dict",
        "dtype",
        "torch_dtype",
        "chunk_size_feed_forward",
        "is_encoder_decoder",
        "id2label",
        "label2id",
        "num_labels",
        "problem_type",
        "_name_or_path",
        "name_or_path",
        "_commit_hash",
        "attn_implementation",
        "_attn_implementation_autoset",
        "experts_implementation",
        "use_cache",
        "pad_token_id",
        "bos_token_id",
        "eos_token_id",
        "sep_token_id",
        "decoder_start_token_id",
        "tokenizer_class",
        "prefix",
        "finetuning_task",
        "task_specific_params",
        "torchscript",
        "use_bfloat16",
        "tf_legacy_loss",
        "initializer_range",
        "hidden_act",
        # generation parameters popped from model configs (generation/configuration_utils.py 602-636)
        "max_length",
        "min_length",
        "do_sample",
        "early_stopping",
        "num_beams",
        "num_beam_groups",
        "diversity_penalty",
        "temperature",
        "top_k",
        "top_p",
        "typical_p",
        "repetition_penalty",
        "length_penalty",
        "no_repeat_ngram_size",
        "encoder_no_repeat_ngram_size",
        "bad_words_ids",
        "num_return_sequences",
        "output_scores",
        "return_dict_in_generate",
        "forced_bos_token_id",
        "forced_eos_token_id",
        "remove_invalid_values",
        "exponential_decay_length_penalty",
        "suppress_tokens",
        "begin_suppress_tokens",
        "encoder_repetition_penalty",
        "epsilon_cutoff",
        "eta_cutoff",
        "assistant_confidence_threshold",
        "assistant_lookbehind",
        "target_lookbehind",
        "num_assistant_tokens",
        "num_assistant_tokens_schedule",
    }
)


def resolve(
    config: Mapping[str, Any],
    *,
    cls: str,
    defaults: Mapping[str, Any],
    inert: Iterable[str] = (),
    same_as: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The config's shape keys, absent ones at the config class's defaults; other keys checked.

    Parameters
    ----------
    config : mapping
        The config as given (``config.json``'s object, or a live config's ``to_dict()``).
    cls : str
        The config class, for messages (``"MambaConfig"``).
    defaults : mapping
        Every key that shapes a tensor, with the config class's default.
    inert : iterable of str
        The model's own keys that shape no tensor (``layer_norm_epsilon``, ``time_step_min`` ...).
    same_as : mapping of str -> str, optional
        Keys transformers ignores although they name a size (``d_model`` -> ``hidden_size``):
        accepted when they agree with the key transformers reads, refused otherwise.

    Returns
    -------
    dict
        ``defaults`` updated with the config's values.

    Raises
    ------
    ValueError
        A key that is neither a shape key, an inert key nor an agreeing ``same_as`` key (named).
    """
    resolved = dict(defaults)
    resolved.update({k: config[k] for k in defaults if k in config})
    quiet = GENERIC | frozenset(inert)
    same_as = same_as or {}
    for key in config:
        if key in defaults or key in quiet:
            continue
        if key in same_as:
            target = same_as[key]
            if config[key] != resolved[target]:
                raise ValueError(
                    f"config key {key!r} ({config[key]!r}) is not read by transformers' {cls}: it builds "
                    f"{target}={resolved[target]!r}; write {target} instead"
                )
            continue
        raise ValueError(
            f"config key {key!r} is not one derive maps for {cls}: it may change the model's tensors "
            f"(the keys that do: {', '.join(sorted(defaults))})"
        )
    return resolved


def size(config: Mapping[str, Any], key: str, minimum: int = 1) -> Any:
    """``config[key]`` (resolved, see :func:`resolve`) as a size; the rule is :func:`derive.blocks._keys.size`.

    Parameters
    ----------
    config : mapping
    key : str
    minimum : int, default 1

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Anything else (a float, a bool, a string, a smaller int), naming the key.
    """
    return _keys.size(config, key, None, minimum=minimum)


def flag(config: Mapping[str, Any], key: str) -> bool:
    """``config[key]`` (resolved) as a bool; the rule is :func:`derive.blocks._keys.flag`.

    Parameters
    ----------
    config : mapping
    key : str

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        Not a bool, naming the key.
    """
    return _keys.flag(config, key, None)  # type: ignore[arg-type]  # resolved: never None


def symbolic(value: Any) -> bool:
    """Whether ``value`` is a SymPy expression with symbols (a size of a closed form).

    Parameters
    ----------
    value : Any

    Returns
    -------
    bool
    """
    return _symbolic(value)


def positive(value: Any, name: str, what: str = "argument") -> Any:
    """``value`` as a size: an int >= 1, or a SymPy expression with symbols.

    Parameters
    ----------
    value : Any
    name : str
        The argument or key, for the message.
    what : str, default "argument"
        ``"argument"`` (a constructor's) or ``"config key"``.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Anything else, naming ``name``.
    """
    if _symbolic(value):
        return value
    if type(value) is not int or value < 1:
        raise ValueError(f"{what} {name} must be an int >= 1, got {value!r}")
    return value


def strict_int(config: Mapping[str, Any], key: str, cls: str) -> Any:
    """A key a ``@strict`` transformers config types ``int`` (``expand``): a float is refused as transformers does.

    Parameters
    ----------
    config : mapping
    key : str
    cls : str
        The config class, for the message.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Not an int >= 1, naming the key.
    """
    value = config[key]
    if isinstance(value, bool) or not (type(value) is int or _symbolic(value)):
        raise ValueError(f"config key {key!r} must be an int ({cls} is @strict: it refuses {value!r})")
    return positive(value, repr(key), "config key")


def time_step_rank(value: Any) -> Any:
    """``time_step_rank``: "auto", an int, or a string of digits (the mixers call ``int()`` on it).

    Parameters
    ----------
    value : Any

    Returns
    -------
    "auto", int or sympy.Expr

    Raises
    ------
    ValueError
        Anything else (transformers' mixer would fail on it).
    """
    if value == "auto":
        return value
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return positive(value, "'time_step_rank'", "config key")


def lm_head(hidden_size: Dim, vocab_size: Dim, tied_to: str | None = None) -> Module:
    """``lm_head``: Linear(hidden_size, vocab_size) without bias, its weight tied to ``tied_to`` if given.

    Parameters
    ----------
    hidden_size, vocab_size : int or sympy.Expr
    tied_to : str, optional
        The full name of the embedding it shares its weight with (counted once, there).

    Returns
    -------
    derive.tree.Module
    """
    head = linear(hidden_size, vocab_size, False, name="lm_head").replace(part="head")
    if tied_to is None:
        return head
    return head.replace(params=(Param("weight", (vocab_size, hidden_size), tied_to=tied_to),))
