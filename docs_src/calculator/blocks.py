"""The calculator's blocks: Mamba, Mamba-2 and whole Mamba and RWKV-4 language models, from their sizes.

Each block of :data:`BLOCKS` is derived once with letters for its sizes (``D`` = ``d_model``, ``N``
= ``d_state``, ``K`` = ``d_conv``, ``G`` = ``ngroups``, ``V`` = ``vocab_size``, ``L`` =
``n_layer``) and for the widths its library computes from them (``E`` = the inner width, ``R`` =
``dt_rank``, ``M`` = the number of heads): for every combination of its flags, the count of
:mod:`derive.blocks` (the same tree the tests hold against mamba_ssm and transformers) is a
polynomial in those letters, printed as a coefficient table the page's script evaluates with
``BigInt``. The script computes ``E``, ``R`` and ``M`` as the library does (``int(expand *
d_model)``, ``ceil(d_model / 16)``, ``d_ssm / headdim``) and refuses what the library refuses,
in derive's words; :func:`evaluate_block` gives the same answers with derive's builders.

The tensors: each block's tree (:func:`block_tensors`, the same tree) gives every counted tensor with
its shape in the letters, printed as indices into the same coefficient table; the page lists them at the
form's sizes (a repeated layer once, with its number of copies).

Element ids: ``calc-block-form``, ``calc-block`` (the block), ``calc-block-<field>`` for each of
:data:`FIELDS` and ``calc-block-<flag>`` for each flag; outputs ``calc-block-total`` (with
``data-value``), ``calc-block-call``, ``calc-block-error`` and ``calc-block-tensors`` (one row per
tensor: name, shape, count with "× copies"; the count's cell has ``data-value``, all copies; the row
``data-first``, the index ``{k}`` starts from).

>>> evaluate_block("mamba", {"d_model": 18, "d_state": 16, "d_conv": 4, "expand": 2})["total"]  # mamba#817
4068
>>> evaluate_block("mamba_lm", {"vocab_size": 50280, "d_model": 768, "n_layer": 24, "d_state": 16, "d_conv": 4,
...                             "expand": 2})["total"]  # mamba-130m, mamba#48
129135360
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sympy

from derive.blocks import mamba, mamba2, rwkv
from derive.engine import validate
from derive.tree import Module, count, named_parameters

__all__ = [
    "Block",
    "BLOCKS",
    "FIELDS",
    "VARS",
    "DEFAULT",
    "block_formulas",
    "block_tensors",
    "block_tables",
    "evaluate_block",
]

#: The letters of the closed forms, in the order of the coefficient tables' powers.
VARS = ("D", "N", "K", "E", "R", "G", "M", "V", "L")
_SYM = {name: sympy.Symbol(name, integer=True, positive=True) for name in VARS}

#: The form's size fields: name -> (label, default). The defaults are state-spaces/mamba-130m's.
FIELDS: dict[str, tuple[str, int]] = {
    "d_model": ("d_model (hidden_size)", 768),
    "d_state": ("d_state (state_size)", 16),
    "d_conv": ("d_conv (conv_kernel)", 4),
    "expand": ("expand", 2),
    "headdim": ("headdim", 64),
    "ngroups": ("ngroups", 1),
    "vocab_size": ("vocab_size", 50280),
    "n_layer": ("n_layer (num_hidden_layers)", 24),
}


@dataclass(frozen=True)
class Block:
    """A block the calculator offers.

    Attributes
    ----------
    key : str
        The form's value.
    title : str
    sizes : tuple of (str, str)
        The fields of :data:`FIELDS` it reads, each with the argument it is in the code shown
        (``("d_model", "hidden_size")`` for a transformers config).
    flags : tuple of (str, str, bool)
        Its flags: the form's name, the argument's, the default (in the order of the formula's key).
    rules : tuple of str
        The widths its library computes from the sizes (:data:`RULES`), as the script computes them.
    call : tuple of (str, str)
        What the code shown starts and ends with (``("Mamba(", ")")``).
    symbolic : callable
        ``symbolic(flags)`` -> the :class:`~derive.tree.Module` in the letters of :data:`VARS`.
    build : callable
        ``build(values, flags)`` -> the module of derive's builder for those sizes (raises as it does);
        both keyed by the form's names.
    """

    key: str
    title: str
    sizes: tuple[tuple[str, str], ...]
    flags: tuple[tuple[str, str, bool], ...]
    rules: tuple[str, ...]
    call: tuple[str, str]
    symbolic: Callable[[Mapping[str, bool]], Module]
    build: Callable[[Mapping[str, Any], Mapping[str, bool]], Module]

    def code(self, values: Mapping[str, Any], flags: Mapping[str, bool]) -> str:
        """The code that builds it: every size, and the flags not at their defaults.

        Parameters
        ----------
        values, flags : mapping
            By the form's names.

        Returns
        -------
        str
        """
        args = [f"{arg}={values[field]!r}" for field, arg in self.sizes]
        args += [f"{arg}={flags[name]!r}" for name, arg, default in self.flags if flags[name] != default]
        return f"{self.call[0]}{', '.join(args)}{self.call[1]}"


#: The widths a library computes from the sizes: letter and how (the script implements each once).
RULES = {
    "inner_trunc": "E = int(expand * d_model) (mamba_ssm: a fractional expand is truncated)",
    "inner": "E = expand * d_model",
    "dt_rank": "R = ceil(d_model / 16) (dt_rank 'auto')",
    "heads": "M = E / headdim (mamba_ssm asserts that headdim divides it)",
}
#: The fields whose value is a letter of the closed forms.
LETTERS = {"d_model": "D", "d_state": "N", "d_conv": "K", "ngroups": "G", "vocab_size": "V", "n_layer": "L"}

_MIXER = (("d_model", "d_model"), ("d_state", "d_state"), ("d_conv", "d_conv"), ("expand", "expand"))
_HF_MAMBA = (("vocab_size", "vocab_size"), ("d_model", "hidden_size"), ("d_state", "state_size"),
             ("n_layer", "num_hidden_layers"), ("expand", "expand"), ("d_conv", "conv_kernel"))  # fmt: skip
_HF_RWKV = (("vocab_size", "vocab_size"), ("d_model", "hidden_size"), ("n_layer", "num_hidden_layers"))
_MAMBA_FLAGS = (("bias", "bias", False), ("conv_bias", "conv_bias", True))
_MAMBA2_FLAGS = (*_MAMBA_FLAGS, ("rmsnorm", "rmsnorm", True), ("D_has_hdim", "D_has_hdim", False))
_LM_FLAGS = (("bias", "use_bias", False), ("conv_bias", "use_conv_bias", True),
             ("tie_word_embeddings", "tie_word_embeddings", True))  # fmt: skip


def _config(sizes: tuple[tuple[str, str], ...], flags: tuple[tuple[str, str, bool], ...]) -> Callable[..., dict]:
    """The transformers config of the form's values: each size and flag under its config key."""

    def config(values: Mapping[str, Any], chosen: Mapping[str, bool]) -> dict[str, Any]:
        return {arg: values[field] for field, arg in sizes} | {arg: chosen[name] for name, arg, _ in flags}

    return config


S = _SYM
_lm = _config(_HF_MAMBA, _LM_FLAGS)
_rwkv = _config(_HF_RWKV, (("tie_word_embeddings", "tie_word_embeddings", False),))
#: The blocks offered, by the form's value.
BLOCKS: dict[str, Block] = {
    b.key: b
    for b in (
        Block(
            "mamba", "Mamba (mamba_ssm.Mamba)", _MIXER, _MAMBA_FLAGS, ("inner_trunc", "dt_rank"), ("Mamba(", ")"),
            lambda f: mamba.mixer(S["D"], S["N"], S["K"], dt_rank=S["R"], d_inner=S["E"], bias=f["bias"],
                                  conv_bias=f["conv_bias"]),
            lambda v, f: mamba.Mamba(v["d_model"], v["d_state"], v["d_conv"], v["expand"], bias=f["bias"],
                                     conv_bias=f["conv_bias"]),
        ),
        Block(
            "mamba2", "Mamba-2 (mamba_ssm.Mamba2)", (*_MIXER, ("headdim", "headdim"), ("ngroups", "ngroups")),
            _MAMBA2_FLAGS, ("inner", "heads"), ("Mamba2(", ")"),
            lambda f: mamba2.mixer(S["D"], S["N"], S["K"], S["E"] / S["D"], nheads=S["M"], ngroups=S["G"],
                                   bias=f["bias"], conv_bias=f["conv_bias"], rmsnorm=f["rmsnorm"],
                                   D_has_hdim=f["D_has_hdim"]),
            lambda v, f: mamba2.Mamba2(v["d_model"], v["d_state"], v["d_conv"], expand=v["expand"],
                                       headdim=v["headdim"], ngroups=v["ngroups"], **f),
        ),
        Block(
            "mamba_lm", "MambaForCausalLM (transformers)", _HF_MAMBA, _LM_FLAGS, ("inner", "dt_rank"),
            ("MambaForCausalLM(MambaConfig(", "))"),
            lambda f: mamba.causal_lm(_lm({"vocab_size": S["V"], "d_model": S["D"], "d_state": S["N"], "d_conv": S["K"],
                                           "n_layer": S["L"], "expand": 1}, f)
                                      | {"intermediate_size": S["E"], "time_step_rank": S["R"]}),
            lambda v, f: mamba.causal_lm(_lm(v, f)),
        ),
        Block(
            "rwkv_lm", "RwkvForCausalLM (transformers, RWKV-4)", _HF_RWKV,
            (("tie_word_embeddings", "tie_word_embeddings", False),), (), ("RwkvForCausalLM(RwkvConfig(", "))"),
            lambda f: rwkv.rwkv_for_causal_lm(_rwkv({"vocab_size": S["V"], "d_model": S["D"], "n_layer": S["L"]}, f)),
            lambda v, f: rwkv.rwkv_for_causal_lm(_rwkv(v, f)),
        ),
    )
}  # fmt: skip
#: The block shown first, and its sizes (state-spaces/mamba-130m).
DEFAULT = "mamba_lm"


def _key(flags: Mapping[str, bool], order: tuple[tuple[str, str, bool], ...]) -> str:
    return "".join("1" if flags[name] else "0" for name, _, _ in order)


@lru_cache(maxsize=1)
def block_formulas() -> dict[str, dict[str, sympy.Expr]]:
    """Every block's count for every combination of its flags, derived in the letters of :data:`VARS`.

    Returns
    -------
    dict
        block -> {flags key ("01": one digit per flag, in the block's order) -> polynomial}.
    """
    out: dict[str, dict[str, sympy.Expr]] = {}
    for key, block in BLOCKS.items():
        forms = {}
        for bits in itertools.product((False, True), repeat=len(block.flags)):
            flags = {name: bit for (name, _, _), bit in zip(block.flags, bits)}
            forms[_key(flags, block.flags)] = sympy.expand(count(block.symbolic(flags)))
        out[key] = forms
    return out


def block_tensors(
    module: Module, prefix: str = "", sep: str = ".", copies: Any = 1, start: int = 0
) -> list[tuple[str, tuple, Any, int]]:
    """The counted tensors of a block's tree, a repeated module's once (its name keeps ``{k}``).

    Parameters
    ----------
    module : Module
        As :attr:`Block.symbolic` gives it (sizes in the letters of :data:`VARS`).
    prefix, sep : str
        The path of ``module``'s parent and the separator its parent joins names with.
    copies : int or sympy.Expr
        How many times the parent stands (the product of the repeats above).
    start : int
        The index of the first copy (``{k}`` from ``start``), as the parent's.

    Returns
    -------
    list of (str, tuple, int or sympy.Expr, int)
        Full name as ``named_parameters()`` gives it (``{k}`` for the copy's index), shape, how many
        copies of it the block has, and the first copy's index; buffers and tied tensors left out, as
        :func:`derive.tree.count` leaves them out.
    """
    if not module.counted:
        return []
    path = f"{prefix}{sep}{module.name}" if prefix and module.name else prefix or module.name
    if module.repeat != 1 or "{k}" in module.name:
        copies, start = copies * module.repeat, module.start
    rows = [
        (f"{path}{module.sep}{p.name}" if path else p.name, p.shape, copies, start) for p in module.params if p.counted
    ]
    for child in module.children:
        rows += block_tensors(child, path, module.sep, copies, start)
    return rows


def block_tables() -> tuple[list[list[int]], dict[str, Any]]:
    """The script's tables: distinct polynomials (coefficient, then a power per letter of :data:`VARS`;
    repeated), and per block its title, sizes, flags and the polynomial of each flags key.

    Returns
    -------
    (list, dict)
    """
    polys: list[list[int]] = []
    index: dict[tuple[int, ...], int] = {}
    table: dict[str, Any] = {}

    def ref(expr: Any) -> int:
        terms: list[int] = []
        for powers, coeff in sorted(sympy.Poly(sympy.expand(expr), *(_SYM[v] for v in VARS)).terms()):
            terms += [int(coeff), *powers]
        index.setdefault(tuple(terms), len(polys))
        if index[tuple(terms)] == len(polys):
            polys.append(terms)
        return index[tuple(terms)]

    for key, forms in block_formulas().items():
        block = BLOCKS[key]
        f = {bits: ref(expr) for bits, expr in forms.items()}
        t = {}
        for bits in forms:
            flags = {name: bit == "1" for (name, _, _), bit in zip(block.flags, bits)}
            rows = block_tensors(block.symbolic(flags))
            t[bits] = [[name, [ref(d) for d in shape], ref(copies), k] for name, shape, copies, k in rows]
        table[key] = {
            "sizes": [list(x) for x in block.sizes],
            "flags": [list(x) for x in block.flags],
            "rules": list(block.rules),
            "call": list(block.call),
            "f": f,
            "t": t,
        }
    return polys, table


def evaluate_block(block: str, values: Mapping[str, Any], flags: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """What the calculator shows for a block, computed with derive's builders (:mod:`derive.blocks`).

    Parameters
    ----------
    block : str
        A key of :data:`BLOCKS`.
    values : mapping
        The block's sizes (:attr:`Block.sizes`), ints >= 1; Mamba's ``expand`` may be a float
        (``int(expand * d_model)`` is the inner width, as mamba_ssm computes it).
    flags : mapping, optional
        The block's flags; absent ones at their defaults.

    Returns
    -------
    dict
        ``total`` (int, tied tensors once), ``call`` (the code that builds it), ``tensors`` (name and
        shape of each parameter, as ``named_parameters()`` lists them, from derive's builder) and ``rows``
        (the calculator's table: name with ``{k}`` for a repeated layer, shape, copies and the first
        copy's index; from the closed forms' tree at these sizes, a layer of no copies left out).

    Raises
    ------
    ValueError
        An unknown block; a size < 1; what the library refuses (a ``headdim`` that does not divide
        the inner width, an inner width of 0), in derive's words.
    TypeError
        A size that is not an int, a flag that is not a bool.
    """
    if not isinstance(block, str) or block not in BLOCKS:
        raise ValueError(f"block must be one of {list(BLOCKS)}, got {block!r}")
    b = BLOCKS[block]
    sizes = {}
    for name, _ in b.sizes:
        value = values[name]
        if block == "mamba" and name == "expand" and isinstance(value, float):
            sizes[name] = value  # a fraction: the inner width is truncated (checked by the builder)
        elif block == "mamba" and name == "expand":
            sizes[name] = validate.size(name, value, minimum=0)
        else:
            sizes[name] = validate.size(name, value)
    given = dict(flags or {})
    chosen = {name: validate.flag(name, given.get(name, default)) for name, _, default in b.flags}
    module = b.build(sizes, chosen)
    tensors = [(name, tuple(int(d) for d in p.shape)) for name, p in named_parameters(module)]
    letters = {_SYM[k]: v for k, v in _letters(b, sizes).items()}
    rows = [
        (name, tuple(int(sympy.sympify(d).subs(letters)) for d in shape), int(sympy.sympify(n).subs(letters)), k)
        for name, shape, n, k in block_tensors(b.symbolic(chosen))
    ]
    rows = [row for row in rows if row[2] > 0]  # a repeated layer of no copies (RWKV's blocks above 0 when n_layer = 1)
    return {"total": int(count(module)), "call": b.code(sizes, chosen), "tensors": tensors, "rows": rows}


def _letters(block: Block, sizes: Mapping[str, Any]) -> dict[str, int]:
    """The letters of the closed forms at the form's sizes: the fields' own, and the widths of :data:`RULES`."""
    x = {LETTERS[name]: value for name, value in sizes.items() if name in LETTERS}
    for rule in block.rules:
        if rule == "inner_trunc":
            x["E"] = int(sizes["expand"] * sizes["d_model"])
        elif rule == "inner":
            x["E"] = sizes["expand"] * sizes["d_model"]
        elif rule == "dt_rank":
            x["R"] = -(-sizes["d_model"] // 16)
        else:
            x["M"] = x["E"] // sizes["headdim"]
    return x


def tables_js() -> str:
    """The blocks' tables as JavaScript declarations (``BLOCK_VARS``, ``BPOLYS``, ``BLOCKS``)."""
    polys, table = block_tables()
    compact = (",", ":")
    return "\n".join(
        [
            "  // Blocks: distinct polynomials (coefficient, powers of " + ", ".join(VARS) + "; ...), then per",
            "  // block its sizes, flags (name, default) and, by flags key, the polynomial's index.",
            f"  var BLOCK_VARS = {json.dumps(list(VARS))};",
            f"  var BPOLYS = {json.dumps(polys, separators=compact)};",
            f"  var BLOCKS = {json.dumps(table, separators=compact)};",
        ]
    )


def names_js() -> str:
    """The form's field and flag names and the letters of the fields (``FIELD_NAMES``, ``FLAG_NAMES``, ``BLOCK_LETTERS``)."""
    flags = list(dict.fromkeys(name for b in BLOCKS.values() for name, _, _ in b.flags))
    return "\n".join(
        [
            f"  var FIELD_NAMES = {json.dumps(list(FIELDS))};",
            f"  var FLAG_NAMES = {json.dumps(flags)};",
            f"  var BLOCK_LETTERS = {json.dumps(LETTERS)};",
        ]
    )


def flag_names() -> list[tuple[str, bool]]:
    """Every flag of the blocks with the default of the first block that has it (for the form).

    Returns
    -------
    list of (str, bool)
    """
    found: dict[str, bool] = {}
    for name in (DEFAULT, *BLOCKS):
        for flag, _, default in BLOCKS[name].flags:
            found.setdefault(flag, default)
    return list(found.items())


#: The script's blocks: the widths each library computes (:data:`RULES`), the checks, the evaluation.
RUNTIME = r"""
  function ceilDiv(a, b) { return (a + b - 1n) / b; }
  function pyFloat(x) { var s = String(x); return /^[0-9]+$/.test(s) ? s + ".0" : s; }
  // mamba_ssm's Mamba takes a fractional expand (int(expand * d_model) truncates it): an int, or a
  // decimal fraction short enough that Python and JavaScript print it alike.
  function fraction(name, text) {
    var s = String(text).trim();
    if (/^-?(0|[1-9][0-9]*)$/.test(s)) {
      var v = BigInt(s);
      if (v < 0n) { throw new Error(name + " must be >= 0"); }
      return v;
    }
    if (/^[0-9]{1,6}\.[0-9]{1,4}$/.test(s)) { return Number(s); }
    throw new Error(name + " should be an int or a decimal fraction such as 1.5 (up to 6 digits and 4 decimals)");
  }
  var RULE = {
    inner_trunc: function (v, x) {
      x.E = typeof v.expand === "bigint" ? v.expand * v.d_model : BigInt(Math.trunc(v.expand * Number(v.d_model)));
      if (x.E < 1n) { throw new Error("int(expand * d_model) = " + x.E + ": the inner width must be >= 1"); }
    },
    inner: function (v, x) { x.E = v.expand * v.d_model; },
    dt_rank: function (v, x) { x.R = ceilDiv(v.d_model, 16n); },
    heads: function (v, x) {
      if (x.E % v.headdim !== 0n) {
        throw new Error("d_ssm (" + x.E + ") must be a multiple of headdim (" + v.headdim + "): mamba_ssm asserts it");
      }
      x.M = x.E / v.headdim;
    }
  };
  function bpoly(k, x) {
    var t = BPOLYS[k], n = BLOCK_VARS.length, s = 0n;
    for (var j = 0; j < t.length; j += n + 1) {
      var term = BigInt(t[j]);
      for (var i = 0; i < n; i++) { if (t[j + 1 + i]) { term *= x[BLOCK_VARS[i]] ** BigInt(t[j + 1 + i]); } }
      s += term;
    }
    return s;
  }
  // cfg: {block, and the block's sizes (strings or numbers) and flags (booleans; absent: the default)}.
  function deriveBlock(cfg) {
    var key = String(cfg.block);
    if (!Object.prototype.hasOwnProperty.call(BLOCKS, key)) { throw new Error("unknown block " + key); }
    var b = BLOCKS[key], v = {}, x = {}, args = [], bits = "";
    b.sizes.forEach(function (s) {
      var name = s[0];
      v[name] = key === "mamba" && name === "expand" ? fraction(name, cfg[name]) : size(name, cfg[name], 1);
      if (BLOCK_LETTERS[name]) { x[BLOCK_LETTERS[name]] = v[name]; }
      args.push(s[1] + "=" + (typeof v[name] === "bigint" ? v[name].toString() : pyFloat(v[name])));
    });
    b.rules.forEach(function (r) { RULE[r](v, x); });
    b.flags.forEach(function (f) {
      var on = cfg[f[0]] === undefined ? f[2] : !!cfg[f[0]];
      bits += on ? "1" : "0";
      if (on !== f[2]) { args.push(f[1] + "=" + (on ? "True" : "False")); }
    });
    var tensors = [];
    b.t[bits].forEach(function (row) {
      var shape = row[1].map(function (k) { return bpoly(k, x); }), copies = bpoly(row[2], x);
      var n = shape.reduce(function (a, d) { return a * d; }, 1n);
      if (copies > 0n) { tensors.push({ name: row[0], shape: shape, count: n, copies: copies, first: row[3] }); }
    });
    return { total: bpoly(b.f[bits], x), call: b.call[0] + args.join(", ") + b.call[1], tensors: tensors };
  }
"""

#: The blocks' form: the block's fields enabled and its flags at their defaults when it is chosen.
DOM = r"""
  function bindBlocks() {
    var form = document.getElementById("calc-block-form");
    if (!form || form.getAttribute("data-bound") === "1") { return; }
    form.setAttribute("data-bound", "1");
    var byId = function (id) { return document.getElementById(id); };
    var select = byId("calc-block"), shown = select.value;
    function prepare() {
      var b = BLOCKS[select.value], used = {}, flags = {};
      b.sizes.forEach(function (s) { used[s[0]] = true; });
      b.flags.forEach(function (f) { flags[f[0]] = f; });
      FIELD_NAMES.forEach(function (name) { byId("calc-block-" + name).disabled = !used[name]; });
      FLAG_NAMES.forEach(function (name) {
        var box = byId("calc-block-" + name);
        box.disabled = !flags[name];
        if (flags[name] && shown !== select.value) { box.checked = flags[name][2]; }
      });
      shown = select.value;
    }
    function update() {
      prepare();
      var cfg = { block: select.value }, total = byId("calc-block-total");
      FIELD_NAMES.forEach(function (name) { cfg[name] = byId("calc-block-" + name).value; });
      FLAG_NAMES.forEach(function (name) {
        var box = byId("calc-block-" + name);
        if (!box.disabled) { cfg[name] = box.checked; }
      });
      try {
        var r = deriveBlock(cfg);
        byId("calc-block-error").textContent = "";
        total.textContent = group(r.total);
        total.setAttribute("data-value", r.total.toString());
        byId("calc-block-call").textContent = r.call;
        var body = byId("calc-block-tensors");
        body.textContent = "";
        r.tensors.forEach(function (t) {
          var tr = body.insertRow();
          tr.setAttribute("data-first", String(t.first));
          var cells = [t.name, "(" + t.shape.join(", ") + (t.shape.length === 1 ? ",)" : ")"),
            group(t.count) + (t.copies !== 1n ? " × " + group(t.copies) : "")];
          cells.forEach(function (text, i) {
            var td = tr.insertCell();
            if (i < 2) { var code = document.createElement("code"); code.textContent = text; td.appendChild(code); }
            else { td.textContent = text; td.setAttribute("data-value", (t.count * t.copies).toString()); }
          });
        });
      } catch (e) {
        byId("calc-block-error").textContent = e.message;
        total.textContent = "—";
        total.setAttribute("data-value", "");
        byId("calc-block-call").textContent = "";
        byId("calc-block-tensors").textContent = "";
      }
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
    update();
  }
"""
