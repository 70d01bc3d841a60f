"""Writes :mod:`derive.engine.names` (``python -m derive.engine.names_writer PATH``; ``scripts/update-index``).

:func:`derive.engine.lazy.build_index` imports every registering module in this fresh process,
recording who registers each name; :func:`render` writes the tables as a Python module of literals.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .lazy import build_index

__all__ = ["render", "main"]


def render() -> str:
    """The source of :mod:`derive.engine.names` for the modules as they are now.

    Returns
    -------
    str
        A Python module: ``TABLES`` (table -> name -> modules) and ``ORDER``.

    Raises
    ------
    RuntimeError
        Not a fresh process (see :func:`derive.engine.lazy.build_index`).
    """
    tables, order = build_index()
    lines = [
        '"""Which module registers each name of derive\'s registries (generated: ``scripts/update-index``; do not edit).',
        "",
        "Read by :class:`derive.engine.lazy.Registry`: a lookup imports the modules listed for its name.",
        ":data:`ORDER` is the order a whole load imports the registering modules (the order registries list",
        "their entries in). ``tests/engine/test_lazy.py`` checks it against a fresh whole load.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        '__all__ = ["TABLES", "ORDER"]',
        "",
        "#: Table name -> index key -> the modules that register it.",
        "TABLES: dict[str, dict[str, tuple[str, ...]]] = {",
    ]
    for table, keys in tables.items():
        lines.append(f"    {table!r}: {{")
        for key, modules in keys.items():
            lines.append(f"        {key!r}: {modules!r},")
        lines.append("    },")
    lines.append("}")
    lines.append("")
    lines.append("#: The registering modules, in the order a whole load first imports them.")
    lines.append("ORDER: tuple[str, ...] = (")
    lines.extend(f"    {module!r}," for module in order)
    lines.append(")")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the index to the path given (default ``derive/engine/names.py`` beside this module).

    Parameters
    ----------
    argv : list of str, optional
        ``[PATH]``.

    Returns
    -------
    int
        0.
    """
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else Path(__file__).with_name("names.py")
    path.write_text(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
