"""The army builder's data as a browser gets it: through its page.

Reads an army builder page (``docs/ejercito*.md`` or ``site/ejercito*.html``; ``army-builder*`` in English),
finds its ``<script id="rb-army-data" src=…>`` and ``<script id="rb-army-rules" src=…>``
and reads the scripts they name, relative to the page (compiler/emit/site/to_army_page.py
writes them as ``assets/armies/<page>.js`` and ``assets/rulebook-armies.js``, the
classic-script twin of the JS package's ``armies.js``). Produces the data script's
text and the data it sets, ``window.rbArmyData``, parsed as the JSON literal it must
be, with the army document and the roster schema the page runs (``rbArmies.ARMIES[army_id]``,
``rbArmies.ROSTER_SCHEMA``, each one ``JSON.parse`` of a string literal) as ``army`` and
``schema``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

DATA_TAG = re.compile(r'<script id="rb-army-data" src="([^"]+)"></script>')
RULES_TAG = re.compile(r'<script id="rb-army-rules" src="([^"]+)"></script>')
PREFIX, SUFFIX = "window.rbArmyData = ", ";\n"
MODULE_DATA = re.compile(r'^ *const (ARMIES|ROSTER_SCHEMA) = deepFreeze\(JSON\.parse\(String\.raw`([^`]*)`\)\);$', re.M)


def _script(page: Path, tag: re.Pattern) -> str:
    (src,) = tag.findall(page.read_text(encoding="utf-8"))
    return (page.parent / html.unescape(src)).read_text(encoding="utf-8")


def army_data_script(page: Path) -> str:
    """The text of the data script ``page`` loads (exactly one)."""
    return _script(page, DATA_TAG)


def army_module_script(page: Path) -> str:
    """The text of the army module ``page`` loads (``assets/rulebook-armies.js``, exactly one)."""
    return _script(page, RULES_TAG)


def module_data(script: str) -> dict:
    """``{"ARMIES": …, "ROSTER_SCHEMA": …}`` of an army module (armies.js or its classic twin)."""
    found = {name: json.loads(text) for name, text in MODULE_DATA.findall(script)}  # the raw template is the JSON text
    assert set(found) == {"ARMIES", "ROSTER_SCHEMA"}, sorted(found)
    return found


def army_data(page: Path) -> dict:
    """``window.rbArmyData`` of ``page`` (the script must be that one assignment of a JSON literal),
    with ``army`` and ``schema``: what the page's army module holds for it."""
    script = army_data_script(page)
    assert script.startswith(PREFIX) and script.endswith(SUFFIX), script[:80]
    data = json.loads(script[len(PREFIX):-len(SUFFIX)])
    module = module_data(army_module_script(page))
    return {**data, "army": module["ARMIES"][data["army_id"]], "schema": module["ROSTER_SCHEMA"]}
