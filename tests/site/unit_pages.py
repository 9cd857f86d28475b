"""Where a datasheet card is on a built site: its own page, linked from its row on its index page.

Import into a test module: ``from unit_pages import unit_page``.
"""

from __future__ import annotations

import re
from pathlib import Path


def unit_page(site: Path, index: str, anchor: str) -> str:
    """The file name of the card at ``anchor``: the page its row (``<tr id=anchor>``) on ``index`` links to."""
    m = re.search(rf'<tr id="{re.escape(anchor)}"><td><a href="([^"#]+\.html)">', (site / index).read_text(encoding="utf-8"))
    assert m, f"no row #{anchor} on {index}"
    return m.group(1)
