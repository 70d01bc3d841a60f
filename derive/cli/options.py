"""The ``derive`` command's one argument parser: every input kind, every option, the exit statuses."""

from __future__ import annotations

import argparse
from typing import NoReturn

from ..analysis import cost as cost_module
from ..read.code.constructor_line import MAX_INT
from ..read.line.parse import EXIT_BAD_INPUT

__all__ = [
    "parser",
    "UsageError",
    "EXIT_OK",
    "EXIT_OUTPUT_ERROR",
    "EXIT_BAD_INPUT",
    "EXIT_PARTIAL",
    "EXIT_INTERNAL_ERROR",
    "EXIT_BROKEN_PIPE",
]

#: Exit status of an exact answer.
EXIT_OK = 0
#: Exit status when the output cannot be written (stdout closed, full, or an I/O error).
EXIT_OUTPUT_ERROR = 1
#: Exit status of an answer whose total is partial: some part was not counted (shown as a "not
#: counted" row), so the total is a lower bound. The output is printed in full.
EXIT_PARTIAL = 3
#: Exit status of a bug (an exception derive did not expect); one line on stderr, no traceback.
EXIT_INTERNAL_ERROR = 70
#: Exit status when the reader of the output went away (``derive ... | head -1``): that of a
#: process killed by SIGPIPE, as coreutils' tools end, and nothing is printed.
EXIT_BROKEN_PIPE = 128 + 13

_INPUTS = """\
input (what INPUT is, decided in this order):
  --explain-error TEXT   a framework's error message about a model's tensors (- reads stdin)
                           derive --explain-error "size mismatch for lstm.weight_ih_l0: ..."
  -                      model code on stdin, PyTorch, Keras or TF1 (read with ast, never run);
                         a config's JSON; print(model)'s output
                           derive - < model.py
  FILE                   model code (.py); a checkpoint (.pt .pth .bin read weights_only,
                         .safetensors, .keras, .onnx); a config.json (transformers, mamba_ssm,
                         Keras' model.to_json()); .txt: text as it would be pasted
                           derive model.pt
  CONSTRUCTOR            one call of a class derive knows, literal arguments (symbols I H L P)
                           derive "nn.LSTM(32, 128, 2, bidirectional=True)"
                           derive "Bidirectional(LSTM(128))" --input-dim 28
                           derive "hk.LSTM(128)" --input-dim 32
                           derive "paddle.nn.GRU(16, 32, direction='bidirect')"
  CODE                   any other text: a whole model written as code
                           derive "nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128))"
                           derive "Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])"
                         a list of Keras layers alone: the Sequential of them
                           derive "[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]" --input-dim 16

A class several frameworks name alike (nn.LSTM: torch, MLX, Paddle; LSTM: torch, Keras) is
torch's unless --framework (or --keras) says otherwise; two other frameworks alike are refused,
naming the --framework that chooses. Constructors of:
{frameworks}

output: a table of the tensors (constructors) or of the layers (models), the total and the
closed form; --json, --latex or --tensors instead; --cost adds MACs, FLOPs and memory.

exit status: 0 an exact answer; 3 an answer whose total is partial (a part derive cannot
count is shown as "not counted"; the total is a lower bound); 2 input or options refused (one
line on stderr); 1 the output could not be written; 141 the reader of the output went away;
70 a bug in derive (one line on stderr; please report it)."""


class UsageError(Exception):
    """argparse's complaint, raised instead of printed so that main() prints it like every error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def format_help(self) -> str:
        # the epilog lists every framework's classes: written when --help is asked, not for every answer
        # (listing them imports every framework's module)
        if self.epilog is None:
            self.epilog = _INPUTS.format(frameworks=_frameworks())
        return super().format_help()


def _positive_int(text: str) -> int:
    from .output import literal

    shown = literal(repr(text), 40)  # a 5,001-digit option is not echoed whole
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown}") from None
    if value < 1 or value > MAX_INT:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to {MAX_INT:.0e}, got {shown}")
    return value


def _frameworks() -> str:
    """Every framework with constructors: how its classes are written, and the classes."""
    import textwrap

    from ..engine.constructors import CONSTRUCTORS
    from ..read.line.parse import KERAS_LAYERS, KERAS_WRAPPERS, TORCH_CLASSES
    from .inputs import load_registries

    load_registries()
    prefixes: dict[str, list[str]] = {
        "torch": ["nn.", "torch.nn.", ""],
        "keras": ["layers.", "keras.layers.", "tf.keras.layers.", ""],
    }
    names: dict[str, list[str]] = {"torch": list(TORCH_CLASSES), "keras": list(KERAS_LAYERS + KERAS_WRAPPERS)}
    for (framework, name), c in CONSTRUCTORS.items():
        seen = prefixes.setdefault(framework, [])
        seen += [p for p in c.prefixes if p not in seen]
        if name not in names.setdefault(framework, []):
            names[framework].append(name)
    lines = []
    for framework, written in prefixes.items():
        how = " ".join(p or "(bare)" for p in written[:4]) + (" ..." if len(written) > 4 else "")
        lines.append(f"  {framework:<11} {how}")
        lines += textwrap.wrap(" ".join(names[framework]), 94, initial_indent=" " * 14, subsequent_indent=" " * 14)
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The ``derive`` command's parser (its ``--help`` lists every input kind with an example).

    Returns
    -------
    argparse.ArgumentParser
        Its ``error`` raises :class:`UsageError` instead of printing and exiting.
    """
    from .. import __version__

    p = _Parser(
        prog="derive",
        usage="derive [options] INPUT | derive --explain-error TEXT",
        description="Exact parameter counts, tensors and closed forms of a layer or a whole model, from its "
        "constructor, its code, a checkpoint or an error message (read, never run).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", nargs="?", metavar="INPUT", help="a constructor, model code, a FILE, or - for stdin")
    p.add_argument("--version", action="version", version=f"derive {__version__} (distribution derive-rnn)")
    p.add_argument("--explain-error", metavar="TEXT", help="explain a framework's error message (- reads stdin)")
    which = p.add_argument_group("which framework")
    which.add_argument("--torch", action="store_true", help="PyTorch (the default for nn.* and bare names)")
    which.add_argument("--keras", action="store_true", help="Keras 3 (keras.layers)")
    which.add_argument("--framework", metavar="NAME", help="any framework listed below, e.g. mlx, paddle, flax.linen")
    which.add_argument(
        "--input-dim",
        type=_positive_int,
        metavar="N",
        help="features per step of the input, for layers that make their weights when first applied "
        "(Keras, Haiku, Flax linen, TF1 cells, MXNet with input_size=0) and Keras code",
    )
    which.add_argument(
        "--keras-version",
        metavar="VERSION",
        help="Keras constructors: that version's defaults, e.g. 2.2 (GRU reset_after=False before 2.4); default 3",
    )
    which.add_argument(
        "--partial",
        action="store_true",
        help="model code: count the known layers and show unknown ones as not counted (exit status 3)",
    )
    output = p.add_argument_group("output")
    shown = output.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help='JSON for machines (always "total" and "tensors")')
    shown.add_argument("--latex", action="store_true", help="the count as LaTeX for papers")
    shown.add_argument(
        "--tensors", action="store_true", help="only the table of tensors (frozen, buffers, ties marked)"
    )
    output.add_argument(
        "--cost",
        action="store_true",
        help="torch RNN/LSTM/GRU: MACs, FLOPs and memory; a language model's config: its cache bytes and FLOPs per token (derive.cost)",
    )
    output.add_argument("--seq-len", type=_positive_int, default=1, help="time steps T for --cost (default 1)")
    output.add_argument("--batch", type=_positive_int, default=1, help="batch size N for --cost (default 1)")
    output.add_argument(
        "--dtype",
        default=None,
        choices=sorted(cost_module.DTYPE_BYTES),
        help="element type of the weights for --cost (default: the config's torch_dtype, else float32, as "
        "from_config builds it); a config's quantization_config gives the weights as stored; a config that names "
        "no dtype needs it for the weights as stored and --memory (its checkpoint's dtype decides them)",
    )
    served = p.add_argument_group("served cache and memory budget (imply --cost)")
    served.add_argument(
        "--kv-dtype",
        metavar="D",
        help="keys and values as served: float16 bfloat16 float32 fp8 (e4m3) fp8_e5m2 int8, or llama.cpp's "
        "q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl (blocks of 32 values); default as transformers holds them",
    )
    served.add_argument(
        "--state-dtype",
        metavar="D",
        help="recurrent and conv states as served (vLLM's mamba_ssm_cache_dtype), the same formats; default as "
        "transformers holds them (float32 SSM states stay float32)",
    )
    served.add_argument(
        "--memory",
        metavar="SIZE",
        type=_size,
        help="a memory budget (24GB = 24*10^9 B, 80GiB = 80*2^30 B, or plain bytes): the largest --seq-len that "
        "fits at --batch, the largest --batch at --seq-len; counts the weights as stored + the cache, not "
        "activations, workspace or the CUDA context",
    )
    served.add_argument(
        "--reserve", metavar="SIZE", type=_size, default=0, help="bytes of --memory held back (default 0)"
    )
    served.add_argument(
        "--tp",
        type=_positive_int,
        default=1,
        metavar="N",
        help="tensor parallelism on N devices: one device's weights and cache as vLLM shards them (column/row-"
        "parallel linears, vocabulary padded to 64 and split, KV heads replicated when N > num_key_value_heads, "
        "each expert split N ways); --memory is then one device's; a size N does not divide is refused",
    )
    served.add_argument(
        "--ep",
        action="store_true",
        help="with --tp: routed experts whole, E / N on each device (vLLM's --enable-expert-parallel), instead of "
        "each expert split N ways (vLLM's default)",
    )
    served.add_argument(
        "--pp",
        type=_positive_int,
        default=1,
        metavar="N",
        help="pipeline parallelism: the decoder layers split in N stages as vLLM splits them (embedding on the "
        "first, norm and head on the last); each stage's share, and --memory must hold on every stage",
    )
    return p


def _size(text: str) -> int:
    from ..analysis.fit import parse_size

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("memory: ")) from None
