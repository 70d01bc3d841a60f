"""The lazy registries: ``import derive`` imports almost nothing, a lookup imports the one module that
registers its name, and the committed index (``derive/engine/names.py``) is what a whole load records."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sitebuild import ROOT

_PROBE = """
import json, sys, time
t = time.perf_counter()
{code}
elapsed = time.perf_counter() - t
mods = sorted(m for m in sys.modules if m == "derive" or m.startswith("derive."))
print(json.dumps({{"derive": mods, "sympy": "sympy" in sys.modules, "numpy": "numpy" in sys.modules,
                   "torch": "torch" in sys.modules, "seconds": elapsed, "value": repr(globals().get("value"))}}))
"""


def _probe(code: str) -> dict:
    """What a fresh interpreter has imported after ``code`` (run from the checkout)."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(code=code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_derive_imports_a_few_modules_and_no_sympy() -> None:
    seen = _probe("import derive")
    assert len(seen["derive"]) <= 25, seen["derive"]
    assert not seen["sympy"] and not seen["numpy"] and not seen["torch"]


def test_a_cell_lookup_imports_that_cell_only() -> None:
    seen = _probe("from derive.engine.registry import CELLS\nvalue = CELLS['GRU'].title")
    cells = [m for m in seen["derive"] if m.startswith("derive.cells.")]
    assert cells == ["derive.cells.gru_cell"], cells
    assert seen["value"] == repr("GRU")


def test_a_config_lookup_imports_its_family_and_not_the_others() -> None:
    seen = _probe("import derive\nvalue = derive.explain({'model_type': 'mistral'}).total")
    families = {m for m in seen["derive"] if m.startswith("derive.families.")}
    assert "derive.families.mistral" in families and "derive.families.jamba" not in families
    assert seen["value"] == "7241732096"  # MistralConfig(): Mistral-7B, as transformers builds it (tests/families)


def test_a_live_torch_module_imports_no_reader_of_text_and_no_other_framework() -> None:
    """``derive.explain(module)`` reads the object: no constructor-line or code reader, nothing of Keras, no
    SymPy (the first call's time is mostly the modules it imports: benchmarks/bench_explain.py)."""
    code = (
        "import torch\nfrom torch import nn\nimport derive\n"
        "m = nn.Sequential(nn.Embedding(10, 4), nn.LSTM(4, 8, 2, bidirectional=True))\n"
        "value = (derive.explain(m).total, sum(p.numel() for p in m.parameters()))"
    )
    seen = _probe(code)
    ours, torchs = seen["value"].strip("()").split(", ")
    assert ours == torchs
    loaded = seen["derive"]
    assert not [m for m in loaded if m.startswith(("derive.read.line", "derive.read.code", "derive.read.pasted"))]
    assert not [m for m in loaded if "keras" in m], [m for m in loaded if "keras" in m]
    assert not seen["sympy"]
    # the LSTM's cell only, and of torch.nn's layer tables only the container's (Sequential)
    assert [m for m in loaded if m.startswith("derive.cells.")] == ["derive.cells.lstm_cell"], loaded
    torch_nn = [m for m in loaded if m.startswith("derive.layers.torch_nn.")]
    assert torch_nn == ["derive.layers.torch_nn._base", "derive.layers.torch_nn.containers"], torch_nn


def test_the_torch_mirror_hands_out_its_layers_when_first_read() -> None:
    """``derive.torch.Embedding`` (a layer of :mod:`derive.layers.torch_nn.legacy`) is imported when read, and
    counts as ``torch.nn.Embedding`` does; ``derive.frameworks.GENERIC_CELLS`` imports every cell when read."""
    seen = _probe(
        "import torch\nimport derive.torch as dt\n"
        "value = (dt.Embedding(10, 4).count, torch.nn.Embedding(10, 4, device='meta').weight.numel())"
    )
    assert seen["value"] == "(40, 40)"
    assert "derive.layers.torch_nn.legacy" in seen["derive"]
    before = _probe("import derive.torch as dt\nvalue = dt.LSTM(4, 8).count")
    assert "derive.layers.torch_nn.legacy" not in before["derive"]
    assert [m for m in before["derive"] if m.startswith("derive.cells.")] == ["derive.cells.lstm_cell"]
    generic = _probe("import derive.frameworks as fx\nvalue = fx.GENERIC_CELLS")
    assert len([m for m in generic["derive"] if m.startswith("derive.cells.") and m.endswith("_cell")]) == 13


def test_a_checkpoint_with_numeric_shapes_imports_no_sympy() -> None:
    """A ``.safetensors`` file of an ``nn.LSTM(300, 128)`` (its header read, never its tensors): the count in ints."""
    torch = pytest.importorskip("torch")
    code = (
        "import os, tempfile\nimport numpy as np\nfrom safetensors.numpy import save_file\n"
        "path = os.path.join(tempfile.mkdtemp(), 'model.safetensors')\n"
        "shapes = {'weight_ih_l0': (512, 300), 'weight_hh_l0': (512, 128), 'bias_ih_l0': (512,), 'bias_hh_l0': (512,)}\n"
        "save_file({f'lstm.{k}': np.zeros(v, np.float32) for k, v in shapes.items()}, path)\n"
        "import derive\nvalue = derive.explain(path).total"
    )
    seen = _probe(code)
    assert seen["value"] == str(sum(p.numel() for p in torch.nn.LSTM(300, 128).parameters()))
    assert not seen["sympy"]


def test_keras_code_and_a_keras_layer_with_int_sizes_import_no_sympy() -> None:
    """Keras code read with ``ast`` and ``derive.keras.LSTM(128, input_dim=28).count``: counted in ints, the totals
    Keras 3 builds (keras.Sequential, count_params: tests/frameworks), no SymPy imported."""
    keras = pytest.importorskip("keras")
    code = (
        "import derive\nimport derive.keras as dk\n"
        "value = (derive.explain('model = keras.Sequential([keras.Input((10, 28)), keras.layers.Bidirectional("
        "keras.layers.LSTM(128, return_sequences=True)), keras.layers.GRU(4), keras.layers.Dense(3)])').total, "
        "dk.LSTM(128, input_dim=28).count, dk.CuDNNGRU(16, input_shape=(5, 8)).count, dk.count(dk.GRU(4), 3))"
    )
    seen = _probe(code)
    model = keras.Sequential([keras.Input((10, 28)), keras.layers.Bidirectional(keras.layers.LSTM(128, return_sequences=True)),
                              keras.layers.GRU(4), keras.layers.Dense(3)])  # fmt: skip
    lstm = keras.Sequential([keras.Input((10, 28)), keras.layers.LSTM(128)])
    assert seen["value"].startswith(f"({model.count_params()}, {lstm.count_params()}, ")
    assert not seen["sympy"]


def test_iterating_a_registry_lists_everything_in_one_order() -> None:
    """A lookup first, then the whole table: the same order as a whole load gives."""
    code = "from derive.engine.constructors import CONSTRUCTORS, find\nfind('hk.LSTM')\nvalue = list(CONSTRUCTORS)[:40]"
    first = _probe(code)["value"]
    whole = _probe("from derive.engine.constructors import CONSTRUCTORS\nvalue = list(CONSTRUCTORS)[:40]")["value"]
    assert first == whole


def test_the_committed_index_is_what_a_whole_load_records() -> None:
    """Fails when a module registers a name the index does not list (run scripts/update-index)."""
    code = "from derive.engine import names_writer\nvalue = names_writer.render()"
    fresh = subprocess.run(
        [sys.executable, "-c", code + "\nprint(value, end='')"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    committed = (ROOT / "derive" / "engine" / "names.py").read_text()
    normalize = _ruff_format
    assert normalize(fresh.stdout) == committed, "derive/engine/names.py is stale: run scripts/update-index"


def _ruff_format(source: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--quiet", "-"], input=source, capture_output=True, text=True, cwd=ROOT
    )
    return out.stdout if out.returncode == 0 else source


def test_build_index_refuses_a_process_that_imported_registering_modules() -> None:
    import derive.cells.lstm_cell  # noqa: F401
    from derive.engine.lazy import build_index

    with pytest.raises(RuntimeError, match="fresh process"):
        build_index()


def test_the_index_script_writes_the_committed_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``scripts/update-index``'s command (``python -m derive.engine.names_writer PATH``) writes, in a fresh process,
    the index that is committed."""
    written = tmp_path / "names.py"
    done = subprocess.run(
        [sys.executable, "-m", "derive.engine.names_writer", str(written)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    committed = (ROOT / "derive" / "engine" / "names.py").read_text()
    assert _ruff_format(written.read_text()) == committed


_DEFERRED = """
import json, sys
from derive._sympy import function, loaded, symbol, sympy

seen = {}
expr, symbol_class, applied = sympy.Expr, sympy.Symbol, sympy.ElementwiseApplyFunction
sigma = function("sigma")
# before SymPy: stand-ins that answer the tests derive makes without importing it
seen["before"] = [isinstance(3, expr), issubclass(int, expr), expr == object, repr(expr), repr(applied),
                  repr(sympy), repr(sigma), hash(expr) == hash("sympy.Expr"), loaded(), "sympy" in sys.modules]
import sympy as real

x = real.Symbol("x")
# after: the real classes behind the same stand-ins, and the real ones handed out from then on
class Sub(expr):
    pass

seen["after"] = [isinstance(x, expr), issubclass(real.Symbol, expr), expr == real.Expr, symbol_class("y") == real.Symbol("y"),
                 expr.is_number is real.Expr.is_number, issubclass(Sub, real.Expr), sympy.Expr is real.Expr,
                 sympy.ElementwiseApplyFunction is real.matrices.expressions.applyfunc.ElementwiseApplyFunction,
                 sympy.Integer(3) == 3, repr(sympy) == repr(real), loaded(), str(sigma(x)),
                 sigma.nargs == real.Function("sigma").nargs, sympy.latex(x) == "x",
                 symbol("H") == real.Symbol("H", integer=True, positive=True),
                 symbol("t", integer=False) == real.Symbol("t", positive=True)]
print(json.dumps(seen))
"""


def test_the_sympy_stand_ins_before_and_after_sympy_is_imported() -> None:
    """``derive._sympy`` in a fresh process: its stand-ins for SymPy's classes answer ``isinstance``,
    ``issubclass``, ``==`` and ``repr`` without importing SymPy; once it is imported, the same stand-ins are the
    real classes (called, subclassed, read from) and the module hands out the real ones."""
    out = subprocess.run(
        [sys.executable, "-c", _DEFERRED], capture_output=True, text=True, cwd=ROOT, timeout=300, check=True
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] == [
        False,
        False,
        False,
        "<deferred sympy.Expr>",
        "<deferred sympy.matrices.expressions.applyfunc.ElementwiseApplyFunction>",
        "<sympy, imported on first use>",
        "sigma",
        True,
        False,
        False,
    ]
    assert seen["after"] == [True] * 11 + ["sigma(x)", True, True, True, True]


def test_the_cells_package_hands_out_its_builders_and_functions_when_asked() -> None:
    """``derive.cells``'s names imported on first use: each builder from its cell's module, ``sigma`` and
    ``relu`` from the equations' algebra; another name is an AttributeError."""
    import importlib

    import derive.cells as cells
    from derive.engine import algebra

    for name, module in cells._BUILDERS.items():
        assert getattr(cells, name) is getattr(importlib.import_module(f"derive.cells.{module}"), name)
    assert (cells.sigma, cells.relu) == (algebra.sigma, algebra.relu)
    with pytest.raises(AttributeError, match="'derive.cells' has no attribute 'tanh'"):
        cells.tanh  # noqa: B018
