"""The wheel built from this checkout, installed into a clean venv with no extras, gives a working
``derive`` command and API; the sdist carries what building the site needs; the install commands
the README and the site's Install page show are run, exactly as shown, in a fresh venv (one venv
for the module: it is made once)."""

from __future__ import annotations

import os
import re
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
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout's files (tracked or not, less what git ignores): a build neither walks
    the checkout's virtual environments nor meets the files other test workers write in it meanwhile
    (a second build's ``build/`` and ``*.egg-info``, coverage data), and writes nothing there."""
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
    return source


@pytest.fixture(scope="module")
def dist(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from :func:`source`."""
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


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh venv (no system site-packages) for the module's installs."""
    env = tmp_path_factory.mktemp("venv") / "venv"
    venv.create(env, with_pip=True, system_site_packages=False)
    return env


def _uninstall(env: Path) -> None:
    subprocess.run(
        [str(env / "bin" / "python"), "-m", "pip", "uninstall", "--yes", "--quiet", "derive-rnn"],
        check=True,
        capture_output=True,
    )


def _clean() -> dict[str, str]:
    """This process's environment without what would point the fresh venv's Python elsewhere (a developer's
    ``PYTHONPATH`` at a checkout)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


FENCE = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _section(markdown: str, heading: str) -> str:
    """The text under ``heading`` (a Markdown heading line), up to the next heading of its level or above."""
    level = heading.split(" ", 1)[0]
    start = markdown.index(heading + "\n") + len(heading) + 1
    rest = re.search(rf"^#{{1,{len(level)}}} ", markdown[start:], re.MULTILINE)
    return markdown[start : start + rest.start()] if rest else markdown[start:]


def install_commands() -> tuple[list[str], list[str]]:
    """The shell blocks that install derive: the README's "## Install" and the Install page's "From a
    clone" and "As a wheel" (its template's text: those blocks hold no template syntax)."""
    readme = FENCE.findall(_section((ROOT / "README.md").read_text(), "## Install"))
    page = (ROOT / "templates" / "install.md.j2").read_text()
    site = [
        block for heading in ("## From a clone", "## As a wheel") for block in FENCE.findall(_section(page, heading))
    ]
    return readme, site


def test_the_readme_and_the_install_page_show_the_same_commands() -> None:
    readme, site = install_commands()
    assert len(site) == 2 and readme == site, (readme, site)
    assert all("{" not in block for block in site), site
    assert "<repository-url>" in site[0] and "pip install derive-rnn" not in "".join(site)


def test_install_commands_as_shown_work_in_a_fresh_venv(source: Path, env: Path, tmp_path: Path) -> None:
    """The README's and the Install page's commands, run as shown in the fresh venv (activated, as a reader's
    environment is), ``<repository-url>`` a git repository of this checkout's files; between the clone's
    install and the wheel's, derive-rnn is uninstalled, so that the wheel's install is the one tested."""
    repository = tmp_path / "repository"
    shutil.copytree(source, repository)
    for command in (["init", "--quiet"], ["add", "--all"], ["commit", "--quiet", "-m", "checkout"]):
        subprocess.run(
            ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", *command],
            cwd=repository,
            check=True,
            capture_output=True,
        )
    clone, wheel = (block.replace("<repository-url>", str(repository)) for block in install_commands()[1])
    script = f"set -eu\n. {env}/bin/activate\n{clone}\nderive --version\n"
    script += f"python -m pip uninstall --yes --quiet derive-rnn\n{wheel}\nderive --version\n"
    script += 'python -c "import derive.torch as dt; print(dt.LSTM(32, 128, 2, bidirectional=True).count)"\n'
    work = tmp_path / "work"
    work.mkdir()
    run = subprocess.run(["bash", "-c", script], cwd=work, env=_clean(), capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"the install commands failed:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    assert "561,152" in run.stdout and run.stdout.rstrip().endswith("561152"), run.stdout[-2000:]
    assert run.stdout.count("derive 0.2.0 (distribution derive-rnn)") == 2, run.stdout[-2000:]
    assert list((work / "derive" / "dist").glob("derive_rnn-*.whl")), "python -m build wrote no wheel"


def test_installed_wheel_works_without_extras(dist: Path, env: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("derive_rnn-*.whl")
    python = env / "bin" / "python"
    _uninstall(env)
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
        env=_clean(),
    ).stdout
    assert '"count": 561152' in out
    version = subprocess.run(
        [str(env / "bin" / "derive"), "--version"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_clean(),
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
    subprocess.run([str(python), "-c", code], check=True, cwd=tmp_path, env=_clean())
