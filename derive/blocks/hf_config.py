"""Reading a transformers ``config.json`` for a block's or a family's model: which keys count, which do not.

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
from dataclasses import dataclass, field
from typing import Any

from ..layers.linear import linear
from ..tree import Dim, Module, Param
from . import _keys
from ._keys import _symbolic

__all__ = [
    "GENERIC",
    "Keys",
    "resolve",
    "size",
    "flag",
    "symbolic",
    "positive",
    "strict_int",
    "time_step_rank",
    "lm_head",
]

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
    aliases: Mapping[str, str] | None = None,
    complete: bool = False,
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
        accepted when they agree with the key transformers reads, refused otherwise (a complete
        :class:`Keys` passes its own :attr:`~Keys.same_as`, the trap keys of another library's
        spelling; a key outside the class it does not list is answered with a note).
    aliases : mapping of str -> str, optional
        The class's ``attribute_map`` (``num_local_experts`` -> ``num_experts``): transformers sets the
        key it names, so its value is read as that key's.
    complete : bool, default False
        ``defaults``, ``inert`` and ``aliases`` are every key of the class (:class:`Keys`): a key
        outside them is one transformers keeps and never reads, accepted here (the report notes it).
        Otherwise such a key is refused (it might be one of the class's that derive does not know).

    Returns
    -------
    dict
        ``defaults`` updated with the config's values.

    Raises
    ------
    ValueError
        A key that is neither a shape key, an inert key nor an agreeing ``same_as`` key (named), unless
        ``complete``; an alias that disagrees with the key it names.
    """
    resolved = dict(defaults)
    resolved.update({k: config[k] for k in defaults if k in config})
    aliases = aliases or {}
    for alias, target in aliases.items():
        if alias in config:
            if target in config and config[target] != config[alias]:
                raise ValueError(
                    f"config keys {alias!r} ({config[alias]!r}) and {target!r} ({config[target]!r}) disagree: "
                    f"{cls} reads {alias!r} as {target!r}"
                )
            resolved[target] = config[alias]
    quiet = GENERIC | frozenset(inert) | frozenset(aliases)
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
        if complete:
            continue  # not a key of the class: transformers keeps it and builds the same (noted by the report)
        raise ValueError(
            f"config key {key!r} is not one derive maps for {cls}: it may change the model's tensors "
            f"(the keys that do: {', '.join(sorted(defaults))})"
        )
    return resolved


@dataclass(frozen=True)
class Keys:
    """A config class's keys: each mapped to the model's shapes, or inert with the reason.

    The key set is the class's own at the pinned transformers — its ``__init__`` parameters (its
    dataclass fields), its ``attribute_map`` and its sub-configs' keys; mamba_ssm's ``MambaConfig`` and
    fla's ``RWKV6Config``/``RWKV7Config`` at their pinned versions, read in ``.venv-ssm`` by
    ``tests/families/test_keys_ssm.py`` — and
    ``tests/families/test_keys.py`` reads the installed class and fails on a key that is neither in
    :attr:`shape` nor in :attr:`inert`, and on a key its modeling code reads that the class does not
    define. A key outside the class cannot change what transformers builds (``PreTrainedConfig``
    keeps it as a plain attribute no modeling code reads): :meth:`resolve` answers and
    :meth:`outside` names it for a note.

    Attributes
    ----------
    cls : str
        The config class (``"Qwen3Config"``).
    shape : mapping of str -> object
        Every key that shapes a tensor, the cache or a token's FLOPs, with the class's default.
    inert : mapping of str -> str
        The class's other keys, each with why it changes no tensor (``"an epsilon"``); the keys every
        config has (:data:`GENERIC`) need not be listed.
    aliases : mapping of str -> str
        The class's ``attribute_map``: an alias is read as the key it names.
    complete : bool
        :attr:`shape`, :attr:`inert` and :attr:`aliases` are the class's every key (the test holds it);
        False: a key derive does not know is refused, not noted.
    same_as : mapping of str -> str
        Keys outside the class that another library spells for one of its sizes (mamba_ssm's ``d_model``
        for ``hidden_size``): transformers ignores them, so one that disagrees with the size it names is
        refused (the user meant a size transformers does not build), one that agrees is answered.

    Examples
    --------
    >>> keys = Keys("LlamaConfig", {"hidden_size": 4096}, {"rms_norm_eps": "an epsilon"})
    >>> keys.resolve({"hidden_size": 64, "rms_norm_eps": 1e-5, "attn_output_gate": True})["hidden_size"]
    64
    >>> keys.outside({"hidden_size": 64, "attn_output_gate": True})
    ['attn_output_gate']
    """

    cls: str
    shape: Mapping[str, Any]
    inert: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    complete: bool = True
    same_as: Mapping[str, str] = field(default_factory=dict)

    def known(self) -> frozenset[str]:
        """Every key of the class, and the keys every config may carry.

        Returns
        -------
        frozenset of str
        """
        return frozenset(self.shape) | frozenset(self.inert) | frozenset(self.aliases) | GENERIC

    def outside(self, config: Mapping[str, Any]) -> list[str]:
        """The keys of ``config`` that are not keys of the class (transformers keeps them and never reads them).

        Parameters
        ----------
        config : mapping

        Returns
        -------
        list of str
            In the config's order; empty when :attr:`complete` is False (nothing is known to be outside).
        """
        if not self.complete:
            return []
        known = self.known()
        return [key for key in config if isinstance(key, str) and key not in known]

    def resolve(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The config's shape keys, absent ones at the class's defaults (see :func:`resolve`).

        Parameters
        ----------
        config : mapping
            As given (``config.json``'s object, a dict, a live config's ``to_dict()``).

        Returns
        -------
        dict
            :attr:`shape` updated with the config's values (an alias's under the key it names).

        Raises
        ------
        ValueError
            An alias, or a :attr:`same_as` key, that disagrees with the key it names; with
            :attr:`complete` False, a key the class is not known to have (named).
        """
        return resolve(
            config, cls=self.cls, defaults=self.shape, inert=tuple(self.inert), aliases=self.aliases,
            complete=self.complete, same_as=self.same_as,
        )  # fmt: skip


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
