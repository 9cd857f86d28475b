"""The army builder page as built (no browser): what it embeds, where it is linked, what it escapes.

Every bundled rulebook with an army declaration gets ``ejercito.html`` in its
site and navigation, embedding exactly the army document and roster schema of
its build; a rulebook without one gets no page. The embedded JSON cannot close
its ``<script>`` whatever a rules text holds. (The page in use is tested in
tests/browser/test_army_builder.py and tests/test_army_agreement.py.)
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bundled import BUNDLED, bundled_builds  # noqa: E402,F401 - the fixture

from rulebook.compiler.to_army_page import script_json  # noqa: E402

DATA_SCRIPT = re.compile(r'<script type="application/json" id="rb-army-data">(.*?)</script>', re.S)


def test_embedded_json_cannot_close_its_script():
    hostile = {"name": "</script><script>alert(1)</script> <!-- & \u2028 é"}
    text = script_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == hostile


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_builder_page_embeds_the_build_army_document(bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    armies = sorted((build / "json" / "armies").glob("*.json")) if (build / "json" / "armies").is_dir() else []
    page = build / "site" / "ejercito.html"
    mkdocs = (build / "mkdocs.yml").read_text(encoding="utf-8")
    if not armies:
        assert not page.exists() and '"ejercito.md"' not in mkdocs
        return
    assert len(armies) == 1, "one army per bundled rulebook: the page is ejercito.html"
    text = page.read_text(encoding="utf-8")
    (found,) = DATA_SCRIPT.findall(text)
    data = json.loads(found)
    assert data["army"] == json.loads(armies[0].read_text(encoding="utf-8"))
    assert data["schema"] == json.loads((build / "schemas" / "roster.schema.json").read_text(encoding="utf-8"))
    assert '"ejercito.md"' in mkdocs
    for asset in ("army-validator.js", "army-builder.js", "army-builder.css"):
        assert (build / "site" / "assets" / asset).is_file()
        assert f'assets/{asset}"' in text
    # every entry's card link points at a page of the site, at an anchor that page has
    pages: dict[str, str] = {}
    for entry_id, href in data["links"]["entries"].items():
        target, _, anchor = href.partition("#")
        if target not in pages:
            pages[target] = (build / "site" / target).read_text(encoding="utf-8")
        assert f'id="{html.escape(anchor)}"' in pages[target], (entry_id, href)
    assert set(data["links"]["entries"]) == {e["id"] for e in data["army"]["entries"]}


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_home_page_links_to_the_builder_when_there_is_one(bundled_builds, rulebook):
    """The home page's tiles ("At the table") lead to the army builder of a rulebook with an army."""
    build = bundled_builds[rulebook]
    home = (build / "site" / "index.html").read_text(encoding="utf-8")
    tiles = re.findall(r'<a class="rb-tile" href="([^"]+)"><strong>([^<]+)</strong>', home)
    builders = [(href, title) for href, title in tiles if href.startswith("ejercito")]
    if (build / "site" / "ejercito.html").exists():
        assert builders == [("ejercito.html", "Creador de ejércitos")], tiles
    else:
        assert builders == [], tiles
