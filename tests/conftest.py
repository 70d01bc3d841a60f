"""Shared set-up of every test directory (each also runs alone): the environment the frameworks need,
the site built and rendered once per session, and the ``slow`` marker of the fast loop.

The fast loop, ``./scripts/test -m "not slow and not browser"``, leaves out what this file marks
``slow``. Whole classes of tests are slow by a rule here — by path, fixture or framework
(:data:`SLOW_PATHS`, :data:`SLOW_FIXTURES`, :data:`WORKER_FRAMEWORKS`): the live framework matrices, the
subprocess workers (TensorFlow's, MXNet's), the site builds, the notebook and the packaging. A single slow
test elsewhere carries ``@pytest.mark.slow`` itself; the families' cases are marked by their data
(``tests/families/test_registry.py``: a model type's first release runs in the fast loop, the rest are slow).
``./scripts/test`` with no ``-m`` (and CI) runs everything.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

# Before any test module imports Keras or JAX: Keras 3 on torch, JAX on the CPU, a private
# KERAS_HOME (a test directory run alone gets the same environment as the whole suite).
os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

import pytest
from hypothesis import settings as hypothesis_settings
from sitebuild import ROOT, build_site

# Property tests draw new examples on each developer's run; CI (.ci/run sets HYPOTHESIS_PROFILE=ci)
# draws the same ones every time, so that its result is reproducible: ``HYPOTHESIS_PROFILE=ci
# ./scripts/test ...`` runs exactly what CI ran.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Subprocess workers, run by another Python (.venv-mxnet's, TensorFlow's process): not importable here.
collect_ignore = ["support/mxnet_worker.py", "support/tf_worker.py"]

#: Test files (relative to the checkout) that are slow as a whole: the live framework matrices,
#: the site builds, the notebook run, the packaging into a fresh venv, the 5,600-case battery.
SLOW_PATHS = (
    "tests/frameworks/test_live_",
    "tests/families/test_families_live.py",
    "tests/site/test_site_build.py",
    "tests/site/test_build_site_script.py",
    "tests/site/test_links.py",
    "tests/site/test_site_text.py",
    "tests/site/test_language_models_site.py",
    "tests/site/test_notebook.py",
    "tests/test_packaging.py",
    "tests/test_battery.py",
)
#: Fixtures that make a test slow wherever it is: the site built, every page rendered.
SLOW_FIXTURES = ("built_site", "rendered_pages")
#: Frameworks held through a subprocess worker (TensorFlow, MXNet in .venv-mxnet): any test case
#: parametrized with one of them is slow.
WORKER_FRAMEWORKS = frozenset({"tf1", "keras2", "tf.keras", "mxnet"})


def _framework_of(value: object) -> object:
    return getattr(value, "key", value)


def is_slow(item: pytest.Item) -> bool:
    """Whether ``item`` belongs to the slow part of the suite (see the module's docstring).

    Parameters
    ----------
    item : pytest.Item

    Returns
    -------
    bool
    """
    try:
        path = item.path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # a doctest or a test outside the checkout
        path = ""
    if path.startswith(SLOW_PATHS):
        return True
    if any(f in getattr(item, "fixturenames", ()) for f in SLOW_FIXTURES):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(
        _framework_of(v) in WORKER_FRAMEWORKS for v in params.values() if isinstance(v, str) or hasattr(v, "key")
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests ``slow`` (the fast loop deselects them with ``-m "not slow"``)."""
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Under ``--dist loadgroup`` (scripts/test), fail the run if pytest-xdist ignores the ``xdist_group`` marks.

    pytest-xdist groups a test by renaming its nodeid (``...::test@group``); pytest 9.2 derives the nodeid
    elsewhere, so the renaming is lost and a group's tests are spread over the workers without a word: a
    module fixture is then built once a worker (the checkout's copy in tests/site/test_build_site_script.py,
    twice a run). pyproject.toml pins the pytest with which the marks hold."""
    if not session.config.getoption("loadgroup", default=False):
        return
    ignored = [
        item.nodeid for item in session.items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid
    ]
    if ignored:
        raise pytest.UsageError(
            f"pytest-xdist ignored the xdist_group mark of {len(ignored)} tests (e.g. {ignored[0]}): "
            "this pytest does not let --dist loadgroup rename nodeids; install the pytest pyproject.toml pins"
        )


def _once_a_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """``tmp/<name>``, made by ``make(path)`` once for the whole run.

    Under pytest-xdist the workers share it: the first to ask makes it in the run's common temporary folder,
    holding a lock the others wait on (pytest-xdist's documented pattern); a marker says it is complete."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        path = tmp_path_factory.mktemp(name) / name
        make(path)
        return path
    from filelock import FileLock

    path = tmp_path_factory.getbasetemp().parent / name
    done = path.parent / f"{name}.complete"
    with FileLock(str(path) + ".lock"):
        if not done.is_file():
            make(path)
            done.touch()
    return path


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the whole run (read-only: tests must not change it; the workers of pytest-xdist
    share one build).

    ``DERIVE_BUILT_SITE=<dir>`` hands the session a build of this checkout instead: ``.ci/run`` builds the
    site with ``scripts/build-site`` (the same ``mkdocs build --strict``, dated by the last commit) before
    the tests, and the tests read that build rather than making a second one."""
    given = os.environ.get("DERIVE_BUILT_SITE")
    if given:
        site_dir = Path(given).resolve()
        if not (site_dir / "index.html").is_file() or not (site_dir / "sitemap.xml.gz").is_file():
            pytest.fail(f"DERIVE_BUILT_SITE={given!r} is not a built site (no index.html or sitemap.xml.gz)")
        return site_dir
    return _once_a_run(tmp_path_factory, "built-site", build_site)


@pytest.fixture(scope="session")
def rendered_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every page's Markdown (``docs_src.site.render_pages``), rendered once for the whole run (read-only:
    tests must not change it; the workers of pytest-xdist share one rendering, written as JSON). Each
    rendering of the site costs minutes under coverage: the tests that read pages take them from here
    rather than rendering the site again."""
    import json

    from docs_src.site import render_pages

    def render(path: Path) -> None:
        path.write_text(json.dumps(render_pages(ROOT / "templates")), encoding="utf-8")

    return json.loads(_once_a_run(tmp_path_factory, "rendered-pages.json", render).read_text(encoding="utf-8"))


#: The tests this session deselected (``-m``, ``-k``, ``--deselect``): a run that deselects any writes no record.
_DESELECTED: list[str] = []


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Remember the deselected tests (the record is written only from a run that left none out)."""
    _DESELECTED.extend(item.nodeid for item in items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop the subprocess workers; with ``DERIVE_UPDATE_RECORD=1`` and no failure, write the live
    cases of this run into the record.

    The record's counts are a run's: each class (and each memory kind) it writes is rewritten with the cases this
    run compared. So it is written only from one process (not a pytest-xdist worker: ``scripts/test`` runs one
    when ``DERIVE_UPDATE_RECORD=1``) that deselected no test; such a run that would write and cannot fails,
    saying why. Which tests to run is the caller's: every test that feeds a class or kind it writes (the
    command is in ``tests/site/test_verification_record.py``'s docstring)."""
    workers = getattr(sys.modules.get("frameworks_live_extra"), "_WORKERS", {})
    for process in workers.values():
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
    workers.clear()
    if os.environ.get("DERIVE_UPDATE_RECORD") != "1" or exitstatus != 0 or "PYTEST_XDIST_WORKER" in os.environ:
        return
    from live_record import CASES, MEMORY

    refused = ""
    if session.config.pluginmanager.hasplugin("dsession"):
        refused = "the tests ran in pytest-xdist workers (run them in one process: -n 0)"
    elif _DESELECTED and (CASES or MEMORY):
        refused = f"{len(_DESELECTED)} tests were deselected (-m, -k or --deselect), e.g. {_DESELECTED[0]}"
    if refused:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"DERIVE_UPDATE_RECORD=1: docs_src/verification.json not written: {refused}"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    from docs_src import record

    if CASES or MEMORY:
        record.write_run(CASES, MEMORY)
