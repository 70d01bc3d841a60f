"""An MXNet subprocess for the tests (not a test module), run by the Python of ``.venv-mxnet``
(MXNet 1.9.1 needs numpy < 1.24, so it has its own environment; ``scripts/bootstrap --test``).

Protocol: one JSON request per line on stdin, ``{"text": ..., "input_size": I}`` — a constructor
line evaluated as written (``mx``, ``rnn``, ``gluon`` in scope), applied once to zeros of I
features (with the sequence lengths a layer made with ``use_sequence_length=True`` takes),
answered ``{"ok": [[name, shape, trainable], ...]}`` without the block's automatic
prefix (kept when the text gives one) — a symbol (``mx.sym.RNN(...)``) answers its weight arguments
as ``infer_shape`` gives them for that input; or ``{"cls": ..., "input_size": I, "hidden_size": H,
"num_layers": L, "bidirectional": bool, "proj_size": P}``; one answer per line on stdout,
``{"ok": [[name, shape], ...]}`` in ``collect_params()`` order, the block's own prefix removed from
the fused layers' names (Gluon numbers blocks per process: ``lstm0_``, ``lstm1_`` ...). Cells are
built with ``prefix=""`` and, in stacks, the prefixes ``l<k>_``/``r<k>_`` of the fused layers,
inside ``SequentialRNNCell(prefix="")`` and ``BidirectionalCell``; the stack is run once on zeros.
"""

from __future__ import annotations

import json
import sys
import warnings

warnings.simplefilter("ignore")

import mxnet as mx  # noqa: E402
from mxnet.gluon import rnn  # noqa: E402


def build(r: dict) -> list:
    cls, i, h = r["cls"], r["input_size"], r["hidden_size"]
    layers, bi, proj = r.get("num_layers", 1), r.get("bidirectional", False), r.get("proj_size", 0)
    x = mx.nd.zeros((3, 2, i))  # TNC
    if not cls.endswith("Cell"):
        kwargs = {"projection_size": proj} if proj else {}
        block = getattr(rnn, cls)(h, num_layers=layers, bidirectional=bi, input_size=i, **kwargs)
        block.initialize()
        block(x)
        return [[k[len(block.prefix) :], list(v.shape)] for k, v in block.collect_params().items()]
    make = getattr(rnn, cls)
    if layers == 1 and not bi:
        block = make(h, prefix="", input_size=i)
    else:
        block = rnn.SequentialRNNCell(prefix="")
        width = i
        for k in range(layers):
            if bi:
                block.add(
                    rnn.BidirectionalCell(
                        make(h, prefix=f"l{k}_", input_size=width), make(h, prefix=f"r{k}_", input_size=width)
                    )
                )
            else:
                block.add(make(h, prefix=f"l{k}_", input_size=width))
            width = h * (2 if bi else 1)
    block.initialize()
    block.unroll(3, x, layout="TNC", merge_outputs=True)
    return [[k, list(v.shape)] for k, v in block.collect_params().items()]


def from_text(r: dict) -> list:
    """The block a constructor line makes (test text, trusted), applied once to zeros."""
    block = eval(r["text"], {"mx": mx, "mxnet": mx, "gluon": mx.gluon, "rnn": rnn, "sym": mx.sym})
    if isinstance(block, mx.sym.Symbol):  # the symbol API: its weights as infer_shape gives them
        shapes, _, _ = block.infer_shape(data=(3, 2, r["input_size"]))
        return [
            [name, list(shape), True]
            for name, shape in zip(block.list_arguments(), shapes)
            if name.endswith("parameters")
        ]
    block.initialize()
    x = mx.nd.zeros((3, 2, r["input_size"] or block._input_size))  # TNC; a cell reads one step (N, C)
    if isinstance(block, rnn.RecurrentCell):
        block(x[0], block.begin_state(batch_size=2))
    elif getattr(block, "_use_sequence_length", False):  # the lengths are an input of the forward
        batch, steps = (3, 2) if block._layout == "NTC" else (2, 3)
        block(x, sequence_length=mx.nd.full((batch,), steps))
    else:
        block(x)
    strip = 0 if "prefix" in r["text"] else len(block.prefix)
    return [[k[strip:], list(v.shape), v.grad_req != "null"] for k, v in block.collect_params().items()]


def main() -> None:
    for line in sys.stdin:
        try:
            request = json.loads(line)
            answer = {"ok": from_text(request) if "text" in request else build(request)}
        except Exception as error:  # reported to the test, which fails with it
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
