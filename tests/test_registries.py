"""The registries are complete: every registered cell has a site page and its prose, every registered
framework its prose; adding a cell or a framework is one module (plus its template note)."""

from __future__ import annotations

from pathlib import Path

import pytest

from derive.cells import CELLS, make_cell
from derive.frameworks import FRAMEWORKS
from docs_src.pages import cells as cell_pages
from docs_src.site import pages

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


@pytest.mark.parametrize("mode", sorted(CELLS))
def test_every_registered_cell_has_a_page(mode: str) -> None:
    paths = {page.path for page in pages()}
    if mode in cell_pages.HAND_WRITTEN:
        assert cell_pages.HAND_WRITTEN[mode] in paths
    else:
        assert cell_pages.generic_path(mode) in paths
        assert (TEMPLATES / "cells" / f"{mode}.md.j2").is_file(), f"templates/cells/{mode}.md.j2 (its prose) is missing"
    entry = CELLS[mode]
    assert entry.title and entry.source, f"{mode}: register() it with a title and its source paper"
    assert (
        make_cell(mode, 3, 5, **entry.page_options).count.free_symbols
        or make_cell(mode, 3, 5, **entry.page_options).count > 0
    )


@pytest.mark.parametrize("key", sorted(FRAMEWORKS))
def test_every_registered_framework_has_its_prose(key: str) -> None:
    assert (TEMPLATES / "frameworks" / f"{key}.md.j2").is_file(), f"templates/frameworks/{key}.md.j2 is missing"


def test_unknown_cell_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(ValueError, match=r"mode must be one of \[.*'LSTM'.*\], got 'LSTMX'"):
        make_cell("LSTMX", 3, 5)
