"""Check a built site's KaTeX files against the package pinned in package-lock.json.

    python scripts/check_site_assets.py SITE_DIR
    python scripts/check_site_assets.py --source node_modules/katex

Used by ``scripts/build-site`` before the new build replaces ``site/``; with ``--source``, before the build
starts, on the files the build would copy (``dist/`` of the installed package), so that a broken install
fails in seconds rather than after the whole build. The KaTeX tarball is taken
from npm's cache (``npm pack --offline``: nothing is downloaded; ``npm ci`` put it there), its
sha512 is checked against the ``integrity`` that package-lock.json records, and every file the
site serves under ``assets/katex/`` must be non-empty and byte-identical to the file of that
tarball; each file the pages load (``KATEX_FILES``) and each font the stylesheet names must be
there. Exit status 0 when all holds; otherwise 1, with one line per problem on stderr.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docs_src.hook import KATEX_ASSETS, KATEX_FILES  # noqa: E402

CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)""")


def locked_katex(lock_file: Path = ROOT / "package-lock.json") -> tuple[str, str]:
    """(version, integrity) of node_modules/katex in the lock file."""
    entry = json.loads(lock_file.read_text(encoding="utf-8"))["packages"]["node_modules/katex"]
    return entry["version"], entry["integrity"]


def tarball_files(version: str, integrity: str) -> dict[str, bytes]:
    """The files of katex@version's tarball from npm's cache, once its integrity is verified."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("check_site_assets: npm not found on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [npm, "pack", f"katex@{version}", "--offline", "--silent", "--pack-destination", tmp],
            cwd=tmp,
            capture_output=True,
            text=True,
        )
        tarballs = list(Path(tmp).glob("*.tgz"))
        if proc.returncode or not tarballs:
            raise SystemExit(
                f"check_site_assets: katex {version} is not in npm's cache (run `npm ci`): {proc.stderr.strip()}"
            )
        data = tarballs[0].read_bytes()
        algorithm, expected = integrity.split("-", 1)
        actual = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
        if actual != expected:
            raise SystemExit(
                f"check_site_assets: the katex {version} tarball in npm's cache does not match package-lock.json "
                f"({algorithm} {actual} != {expected})"
            )
        with tarfile.open(tarballs[0]) as tar:
            return {
                m.name.split("/", 1)[1]: tar.extractfile(m).read()
                for m in tar.getmembers()
                if m.isfile() and "/" in m.name
            }


def katex_problems(katex: Path, label: str, files: dict[str, bytes], version: str) -> list[str]:
    """What is wrong with the KaTeX files in ``katex`` (a site's ``assets/katex`` or a package's ``dist``,
    named ``label`` in the messages) against the tarball's ``files`` (empty: nothing)."""
    out = []
    for name in KATEX_FILES:
        if not (katex / name).is_file():
            out.append(f"{label}/{name} is missing")
    present = sorted(p for p in katex.rglob("*") if p.is_file()) if katex.is_dir() else []
    for path in present:
        rel = path.relative_to(katex).as_posix()
        expected = files.get(rel if rel == "LICENSE" else f"dist/{rel}")
        content = path.read_bytes()
        if not content:
            out.append(f"{label}/{rel} is empty")
        elif expected is None:
            out.append(f"{label}/{rel} is not a file of katex {version}")
        elif content != expected:
            out.append(f"{label}/{rel} differs from katex {version} as locked in package-lock.json")
    css = katex / "katex.min.css"
    if css.is_file():
        for url in CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace")):
            if not url.startswith("data:") and not (katex / url.split("?")[0].split("#")[0]).is_file():
                out.append(f"{label}/{url}, named by katex.min.css, is missing")
    return out


def problems(site: Path, files: dict[str, bytes], version: str) -> list[str]:
    """What is wrong with ``site``'s KaTeX files (empty: nothing)."""
    out = katex_problems(site / KATEX_ASSETS, KATEX_ASSETS, files, version)
    if not (site / "index.html").is_file() or (site / "index.html").stat().st_size == 0:
        out.append("index.html is missing or empty")
    return out


def main(argv: list[str]) -> int:
    source = argv[:1] == ["--source"]
    if len(argv) != 1 + source:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[-1])
    version, integrity = locked_katex()
    files = tarball_files(version, integrity)
    if source:
        found = katex_problems(path / "dist", f"{path.as_posix()}/dist", files, version)
    else:
        found = problems(path, files, version)
    for problem in found:
        print(f"check_site_assets: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
