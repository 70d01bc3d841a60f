"""Names for the sidebar's section landmarks.

With ``navigation.indexes`` Material renders a section's toggle as an icon-only ``<label
id="__nav_N_label">`` beside the link to the section's index page, and names the section's
``<nav aria-labelledby="__nav_N_label">`` by it: every section's landmark then has the same empty
name (axe-core's ``landmark-unique``). The section's title is the nav's own
``<label class="md-nav__title" for="__nav_N">``; this gives that title an id and names the nav by it.

>>> html = ('<nav class="md-nav" data-md-level="1" aria-labelledby="__nav_3_label">'
...         '<label class="md-nav__title" for="__nav_3">Questions</label></nav>')
>>> print(name_section_navs(html))
<nav class="md-nav" data-md-level="1" aria-labelledby="__nav_3_title"><label class="md-nav__title" for="__nav_3" id="__nav_3_title">Questions</label></nav>
"""

from __future__ import annotations

import re

__all__ = ["name_section_navs"]

_NAV = re.compile(
    r'(<nav class="md-nav"[^>]*aria-labelledby=")(__nav_[\d_]+)_label("[^>]*>\s*<label class="md-nav__title" for="\2")>'
)


def name_section_navs(page_html: str) -> str:
    """``page_html`` with each section's navigation landmark named by the section's title.

    Parameters
    ----------
    page_html : str
        A page as Material wrote it.

    Returns
    -------
    str
    """
    return _NAV.sub(lambda m: f'{m.group(1)}{m.group(2)}_title{m.group(3)} id="{m.group(2)}_title">', page_html)
