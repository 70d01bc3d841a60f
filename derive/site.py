"""Render the reference site's Markdown pages from the Jinja2 templates (stub, replaced by the real renderer)."""
from __future__ import annotations

from pathlib import Path

PAGES = {
    "index.md": "Home",
    "cells/rnn.md": "Elman RNN",
    "cells/lstm.md": "LSTM",
    "cells/lstm-projection.md": "LSTM with projection",
    "cells/gru.md": "GRU",
}


def render_pages(template_dir: Path) -> dict[str, str]:
    """Return {docs-relative path: Markdown text} for every generated page."""
    return {
        path: f"# {title}\n\nInline math $I \\cdot H$ and display math:\n\n$$\n4H(I + H) + 8H\n$$\n"
        for path, title in PAGES.items()
    }
