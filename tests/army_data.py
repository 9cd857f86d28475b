"""The army builder's data as a browser gets it: through its page.

Reads an army builder page (``docs/ejercito*.md`` or ``site/ejercito*.html``; ``army-builder*`` in English),
finds its ``<script id="rb-army-data" src=…>`` and reads the script that names,
relative to the page (compiler/emit/site/to_army_page.py writes it as
``assets/armies/<page>.js``). Produces the script's text and the data it sets,
``window.rbArmyData``, parsed as the JSON literal it must be.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

DATA_TAG = re.compile(r'<script id="rb-army-data" src="([^"]+)"></script>')
PREFIX, SUFFIX = "window.rbArmyData = ", ";\n"


def army_data_script(page: Path) -> str:
    """The text of the data script ``page`` loads (exactly one)."""
    (src,) = DATA_TAG.findall(page.read_text(encoding="utf-8"))
    return (page.parent / html.unescape(src)).read_text(encoding="utf-8")


def army_data(page: Path) -> dict:
    """``window.rbArmyData`` of ``page``: the script must be that one assignment of a JSON literal."""
    script = army_data_script(page)
    assert script.startswith(PREFIX) and script.endswith(SUFFIX), script[:80]
    return json.loads(script[len(PREFIX):-len(SUFFIX)])
