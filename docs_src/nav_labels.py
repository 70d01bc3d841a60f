"""Names for the sidebar's section toggles, so each section's navigation landmark is named.

With ``navigation.indexes`` Material renders a section's toggle as an icon-only ``<label
id="__nav_N_label">`` beside the link to the section's index page, and names the section's
``<nav aria-labelledby="__nav_N_label">`` by it: every section's landmark then has the same empty
name (axe-core's ``landmark-unique``). The section's title is in the nav's own
``<label class="md-nav__title" for="__nav_N">``; this gives the toggle that title as its
``aria-label``.

>>> html = ('<label class="md-nav__link " for="__nav_3" id="__nav_3_label" tabindex="0"></label>'
...         '<nav aria-labelledby="__nav_3_label"><label class="md-nav__title" for="__nav_3">'
...         '<span class="md-nav__icon md-icon"></span> Questions </label></nav>')
>>> 'aria-label="Questions"' in name_section_toggles(html)
True
"""

from __future__ import annotations

import html as html_module
import re

__all__ = ["name_section_toggles"]

_TITLE = re.compile(r'<label class="md-nav__title" for="(__nav_[\d_]+)">(.*?)</label>', re.S)
_TOGGLE = re.compile(r'(<label class="md-nav__link[^"]*" for="(__nav_[\d_]+)" id="\2_label")(?![^>]*aria-label)')


def name_section_toggles(page_html: str) -> str:
    """``page_html`` with each icon-only section toggle named by its section's title.

    Parameters
    ----------
    page_html : str
        A page as Material wrote it.

    Returns
    -------
    str
    """
    titles = {
        key: " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", text)).split())
        for key, text in _TITLE.findall(page_html)
    }

    def named(match: re.Match[str]) -> str:
        title = titles.get(match.group(2))
        if not title:
            return match.group(0)
        return f'{match.group(1)} aria-label="{html_module.escape(title, quote=True)}"'

    return _TOGGLE.sub(named, page_html)
