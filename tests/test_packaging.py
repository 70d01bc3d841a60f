"""The wheel built from this checkout, installed into a clean venv with no extras, gives a working
``derive`` command and API; the sdist carries what building the site needs."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# One worker runs the module, so the package is built once (the fixture is per module and per worker).
pytestmark = pytest.mark.xdist_group("packaging")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from a copy of the checkout's files (tracked or not, less what
    git ignores): the build neither walks the checkout's virtual environments nor meets the files
    other test workers write in it meanwhile (a second build's ``build/`` and ``*.egg-info``, coverage
    data), and writes nothing there."""
    source = tmp_path_factory.mktemp("source")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        if (ROOT / name).is_file():  # a tracked file deleted in the working tree is left out
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        cwd=source,
    )
    assert built.returncode == 0, f"python -m build failed:\n{built.stdout[-4000:]}\n{built.stderr[-4000:]}"
    return out


def test_wheel_holds_the_package_only(dist: Path) -> None:
    (wheel,) = dist.glob("derive_rnn-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "derive/py.typed" in names
    assert "derive/cells/lstm_cell.py" in names and "derive/frameworks/onnx.py" in names
    assert not [n for n in names if n.startswith(("docs_src/", "tests/", "templates/"))]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Name: derive-rnn" in metadata and "License-Expression: MIT" in metadata


def test_sdist_carries_what_the_site_build_needs(dist: Path) -> None:
    (sdist,) = dist.glob("derive_rnn-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    for needed in (
        "mkdocs.yml",
        "package.json",
        "package-lock.json",
        "templates/cell.md.j2",
        "docs_src/hook.py",
        "docs_src/verification.json",
        "LICENSE",
        "CHANGELOG.md",
        "scripts/build-site",
    ):
        assert needed in names, needed


def test_installed_wheel_works_without_extras(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("derive_rnn-*.whl")
    env = tmp_path / "venv"
    venv.create(env, with_pip=True, system_site_packages=False)
    python = env / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
    )
    out = subprocess.run(
        [str(env / "bin" / "derive"), "nn.LSTM(32, 128, 2, bidirectional=True)", "--json"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert '"count": 561152' in out
    version = subprocess.run(
        [str(env / "bin" / "derive"), "--version"], check=True, capture_output=True, text=True, cwd=tmp_path
    ).stdout
    assert "0.2.0" in version
    code = (
        "import derive, derive.torch as dt, derive.keras as dk, derive.engine.stack; "
        "assert dt.LSTM(32, 128, 2, bidirectional=True).count == 561152; "
        "assert dk.count(dk.Bidirectional(dk.LSTM(128)), 28) == 160768; "
        "assert derive.frameworks.count('onnx', 'GRU', 10, 20) == 1920; "
        "from derive.families.family import released; assert len(released('llama')) >= 13; "
        "import sys; assert 'torch' not in sys.modules and 'keras' not in sys.modules; "
        "assert derive.__file__.startswith(sys.prefix), derive.__file__"
    )
    subprocess.run([str(python), "-c", code], check=True, cwd=tmp_path)
