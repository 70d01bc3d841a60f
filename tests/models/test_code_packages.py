"""Installed packages' layers read from their source (derive.read.code.python.packages), never imported.

Each model is also built by the test with the real packages (imported here, by the test), and its
parameters are the truth: names and shapes as torch or Keras list them.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import derive  # noqa: E402
from derive.read.code.python.packages import locate  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

BILSTM_CRF = """
import torch.nn as nn
from torchcrf import CRF

class BiLSTMCRF(nn.Module):
    def __init__(self, vocab_size, num_tags, embedding_dim=100, hidden_dim=200):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, bidirectional=True, batch_first=True)
        self.hidden2tag = nn.Linear(hidden_dim, num_tags)
        self.crf = CRF(num_tags, batch_first=True)

model = BiLSTMCRF(5000, 9)
"""


def _torch_rows(module: nn.Module) -> list[tuple[str, tuple[int, ...]]]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def _derived_rows(report) -> list[tuple[str, tuple[int, ...]]]:  # type: ignore[no-untyped-def]
    return [(t["name"], tuple(t["shape"])) for t in report.tensors]


def test_a_bilstm_crf_with_torchcrf_as_torch_builds_it() -> None:
    pytest.importorskip("torchcrf")
    scope: dict = {}
    exec(compile(BILSTM_CRF, "<model>", "exec"), scope)  # the test's own model, with the real torchcrf
    real = scope["model"]
    report = derive.explain(BILSTM_CRF)
    assert report.total == sum(p.numel() for p in real.parameters())
    assert _derived_rows(report) == _torch_rows(real)
    assert any("torchcrf read from its source" in note for note in report.notes)


PACKAGE = {
    "__init__.py": """
        from .blocks import GatedResidual
        from . import blocks as _blocks
        if __name__ == "__main__":
            raise SystemExit("never read: the package is imported, not run")
        """,
    "blocks.py": """
        import pathlib

        import torch
        from torch import nn
        from .sizes import widen

        class GatedResidual(nn.Module):
            def __init__(self, d_model, factor=2):
                super().__init__()
                inner = widen(d_model, factor)
                self.up = nn.Linear(d_model, 2 * inner)
                self.down = nn.Linear(inner, d_model, bias=False)
                self.scale = nn.Parameter(torch.ones(d_model))
                pathlib.Path("written-if-run").touch()
        """,
    "sizes.py": """
        def widen(d, factor):
            return d * factor + 8
        """,
}


@pytest.fixture
def local_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package ``gates_pkg`` installed on ``sys.path`` (a temporary directory) as source."""
    root = tmp_path / "site"
    (root / "gates_pkg").mkdir(parents=True)
    for name, text in PACKAGE.items():
        (root / "gates_pkg" / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.chdir(tmp_path)
    yield root
    for name in [m for m in sys.modules if m.startswith("gates_pkg")]:
        del sys.modules[name]


def test_a_package_on_sys_path_is_read_through_its_relative_imports(local_package: Path) -> None:
    code = """
import torch.nn as nn
import gates_pkg

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(16, 32)
        self.block = gates_pkg.GatedResidual(32, factor=3)

model = Net()
"""
    report = derive.explain(code)
    assert not Path("written-if-run").exists()  # nothing of the package ran
    assert "gates_pkg" not in sys.modules  # nor was it imported
    scope: dict = {}
    exec(compile(code, "<model>", "exec"), scope)  # the test imports the package itself
    real = scope["model"]
    assert Path("written-if-run").exists()  # where the package runs, it leaves its mark
    assert _derived_rows(report) == _torch_rows(real)
    assert report.total == sum(p.numel() for p in real.parameters())


def test_a_package_not_installed_is_refused_naming_it_and_counted_apart_under_partial() -> None:
    code = (
        "import torch.nn as nn\nfrom crf_not_installed_here import CRF\nmodel = nn.Sequential(nn.LSTM(4, 8), CRF(5))\n"
    )
    with pytest.raises(SourceError, match=r"crf_not_installed_here, which is not installed here as Python source"):
        derive.explain(code)
    report = derive.explain(code, partial=True)
    assert report.partial and report.total == sum(p.numel() for p in nn.LSTM(4, 8).parameters())


def test_a_name_the_package_does_not_define_is_refused(local_package: Path) -> None:
    code = "import torch.nn as nn\nfrom gates_pkg import NoSuchLayer\nmodel = nn.Sequential(NoSuchLayer(5))\n"
    with pytest.raises(
        SourceError, match=r"imported from gates_pkg, whose source derive reads but finds no class or function"
    ):
        derive.explain(code)


def test_the_standard_library_and_compiled_modules_are_not_read() -> None:
    assert locate("json") is None  # the standard library
    assert locate("torch._C") is None  # a compiled extension
    assert locate("not an identifier") is None
    found = locate("torchcrf")
    assert found is None or found.name == "__init__.py"


def test_a_module_of_ones_own_beside_the_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``model.py`` imports ``blocks.py`` beside it, as Python finds it when the file is run."""
    (tmp_path / "blocks.py").write_text(
        "from torch import nn\n\nclass Gate(nn.Module):\n    def __init__(self, d):\n"
        "        super().__init__()\n        self.proj = nn.Linear(d, 2 * d)\n"
    )
    code = "from torch import nn\nfrom blocks import Gate\n\nmodel = nn.Sequential(nn.LSTM(8, 16), Gate(16))\n"
    (tmp_path / "model.py").write_text(code)
    report = derive.explain(str(tmp_path / "model.py"))
    assert "blocks" not in sys.modules
    with pytest.raises(SourceError, match="imported from blocks, which is not installed here"):
        derive.explain(code)  # the same code pasted: no file, nothing beside it
    monkeypatch.syspath_prepend(str(tmp_path))
    scope: dict = {}
    exec(compile(code, "<model>", "exec"), scope)  # the test runs the file's code, importing blocks itself
    sys.modules.pop("blocks", None)
    assert _derived_rows(report) == _torch_rows(scope["model"])


def _write_package(root: Path, name: str) -> None:
    """A package of the user's own: ``name/layers.py`` (an encoder), ``name/heads/__init__.py`` (a head) and
    three model files importing them relatively (``.layers``, ``..layers`` from a subpackage, ``from .
    import layers``)."""
    (root / name / "heads").mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "layers.py").write_text(
        "from torch import nn\n\nclass Encoder(nn.Module):\n    def __init__(self, n, h):\n"
        "        super().__init__()\n        self.rnn = nn.GRU(n, h, bidirectional=True)\n"
    )
    (root / name / "heads" / "__init__.py").write_text(
        "from torch import nn\nfrom ..layers import Encoder\n\nclass Tagger(nn.Module):\n"
        "    def __init__(self, n, h, tags):\n        super().__init__()\n        self.enc = Encoder(n, h)\n"
        "        self.out = nn.Linear(2 * h, tags)\n"
    )
    (root / name / "model.py").write_text(
        "from torch import nn\nfrom .layers import Encoder\n\nmodel = nn.Sequential(Encoder(12, 20), nn.Linear(40, 3))\n"
    )
    (root / name / "deep.py").write_text("from .heads import Tagger\n\nmodel = Tagger(12, 20, 9)\n")
    (root / name / "whole.py").write_text(
        "from torch import nn\nfrom . import layers\n\nmodel = nn.Sequential(layers.Encoder(6, 5), nn.LSTM(10, 4))\n"
    )


@pytest.mark.parametrize("file", ["model", "deep", "whole"])
def test_relative_imports_in_a_package_of_ones_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file: str) -> None:
    """A file inside the user's own package (directories holding ``__init__.py``) imports its siblings
    relatively, as ``python -m ownpkg.model`` runs it: derive resolves ``.layers``, ``..layers`` and
    ``from . import layers`` against the file's package and reads them, from any working directory.
    The truth: the test imports the package itself and builds the model."""
    _write_package(tmp_path, "ownpkg_rel")
    monkeypatch.chdir("/")
    report = derive.explain(str(tmp_path / "ownpkg_rel" / f"{file}.py"))
    assert not [m for m in sys.modules if m.startswith("ownpkg_rel")]  # derive imported nothing
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    try:
        real = importlib.import_module(f"ownpkg_rel.{file}").model
    finally:
        for m in [m for m in sys.modules if m.startswith("ownpkg_rel")]:
            sys.modules.pop(m)
    assert _derived_rows(report) == _torch_rows(real)
    assert report.total == sum(p.numel() for p in real.parameters())


def test_a_relative_import_without_a_package_is_refused_naming_it(tmp_path: Path) -> None:
    """A relative import in pasted code, or in a file whose directory is no package, or one reaching above
    the top-level package: Python refuses to run it, and derive names the import and what to give it."""
    code = "from torch import nn\nfrom .layers import Encoder\n\nmodel = nn.Sequential(Encoder(12, 20))\n"
    with pytest.raises(SourceError, match=r"imported from \.layers, a relative import derive resolves only in a file"):
        derive.explain(code)
    (tmp_path / "loose.py").write_text(code)
    with pytest.raises(SourceError, match=r"imported from \.layers"):
        derive.explain(str(tmp_path / "loose.py"))
    _write_package(tmp_path, "ownpkg_up")
    (tmp_path / "ownpkg_up" / "up.py").write_text(code.replace(".layers", "...layers"))
    with pytest.raises(SourceError, match=r"imported from \.\.\.layers"):
        derive.explain(str(tmp_path / "ownpkg_up" / "up.py"))
