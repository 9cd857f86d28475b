"""The army builder page as built (no browser): what it loads, where it is linked, what it escapes.

Every bundled rulebook with an army declaration gets ``ejercito.html`` in its
site (``army-builder.html`` in English) and navigation, loading its data (``assets/armies/ejercito.js``) and the JS
package's army module (``assets/rulebook-armies.js``, the build's ``js/armies.browser.js``)
with exactly the army document and roster schema of its build; a rulebook without one
gets no page. The JSON of either cannot end its script whatever a rules text holds, and
is not in the page's Markdown (which must then not change with every edit of the
rules). (The page in use is tested in tests/browser/test_army_builder.py and
tests/test_army_agreement.py.)
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bundled import BUNDLED, builder_stem, bundled_builds  # noqa: E402,F401 - the fixture

from army_data import army_data  # noqa: E402

from rulebook.compiler.emit.site.to_army_page import data_script, script_json  # noqa: E402

HOSTILE = {"name": "</script><script>alert(1)</script> <!-- & \u2028 \u2029 é \"}; alert(2); //"}


def test_embedded_json_cannot_close_its_script():
    text = script_json(HOSTILE)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == HOSTILE


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the data script")
def test_data_script_sets_exactly_the_data_whatever_its_texts_hold():
    script = data_script(HOSTILE)
    run = "const vm = require('vm'); const window = {}; vm.runInNewContext(process.argv[1], {window}); " \
          "process.stdout.write(JSON.stringify([Object.keys(window), window.rbArmyData]))"
    proc = subprocess.run(["node", "-e", run, script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [["rbArmyData"], HOSTILE]


HOSTILE_ARMIES = {"__proto__": {"id": "__proto__", "title": HOSTILE["name"], "rulebook": "*/ </script>", "lang": "*/",
                                 "messages": {"no-units": HOSTILE["name"] + " */ alert(3)"}, "troops": {"__proto__": {"name": "x"}, "constructor": {}}}}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the army module")
def test_army_module_holds_exactly_the_documents_whatever_their_texts_hold(tmp_path):
    from rulebook.compiler.emit.js.armies import generate

    files = generate(HOSTILE_ARMIES, roster_schema={"title": HOSTILE["name"]})
    for name in ("armies.js", "armies.browser.js"):
        data_lines = [line for line in files[name].splitlines() if "JSON.parse(" in line and "deepFreeze" in line]
        assert len(data_lines) == 2 and not any(c in line for line in data_lines for c in "<>&\u2028\u2029"), name
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    run = ("const vm = require('vm'), fs = require('fs'); const g = {}; vm.createContext(g);"
           "vm.runInContext(fs.readFileSync(process.argv[1] + '/armies.browser.js', 'utf8'), g);"
           "import(process.argv[1] + '/armies.js').then(m => process.stdout.write(JSON.stringify(["
           "Object.keys(g), m.ARMIES, g.rbArmies.ARMIES, m.ROSTER_SCHEMA, Object.isFrozen(m.ARMIES.__proto__.troops),"
           "Object.getPrototypeOf(m.ARMIES) === Object.prototype, m.ARMY_IDS])))")
    proc = subprocess.run(["node", "-e", run, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    keys, armies, twin, schema, frozen, plain, ids = json.loads(proc.stdout)
    assert keys == ["rbArmies"] and armies == twin == HOSTILE_ARMIES and schema == {"title": HOSTILE["name"]}
    assert frozen and plain and ids == ["__proto__"]
    comments = re.findall(r"/\*.*?\*/", files["armies.d.ts"], re.S)  # no text ends a comment of the types early
    assert all("alert(3)" not in c or c.count("*/") == 1 for c in comments) and "*/ alert(3)" not in files["armies.d.ts"]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_builder_page_loads_the_build_army_document(bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    armies = sorted((build / "json" / "armies").glob("*.json")) if (build / "json" / "armies").is_dir() else []
    stem = builder_stem(build)
    page = build / "site" / f"{stem}.html"
    mkdocs = (build / "mkdocs.yml").read_text(encoding="utf-8")
    if not armies:
        assert not page.exists() and f'"{stem}.md"' not in mkdocs
        return
    assert len(armies) == 1, f"one army per bundled rulebook: the page is {stem}.html"
    text = page.read_text(encoding="utf-8")
    data = army_data(page)
    assert data["army"] == json.loads(armies[0].read_text(encoding="utf-8"))
    assert army_data(build / "docs" / f"{stem}.md") == data
    # the page's Markdown holds none of the data: an edit of the rules (a new content hash) leaves it as it is
    assert data["army"]["content_hash"] not in (build / "docs" / f"{stem}.md").read_text(encoding="utf-8")
    assert data["schema"] == json.loads((build / "schemas" / "roster.schema.json").read_text(encoding="utf-8"))
    assert f'"{stem}.md"' in mkdocs
    for asset in ("rulebook-armies.js", "army-builder.js", "army-builder.css"):
        assert (build / "site" / "assets" / asset).is_file()
        assert f'assets/{asset}"' in text
    assert text.index('id="rb-army-data"') < text.index('src="assets/rulebook-armies.js"') < text.index('src="assets/army-builder.js"')
    # the build's js/ holds the army module of its documents; the builder runs it, byte for byte (no validator of its own)
    from rulebook.compiler.emit.js.armies import generate

    module = generate({a["id"]: a for a in map(lambda p: json.loads(p.read_text(encoding="utf-8")), armies)}, roster_schema=data["schema"])
    assert {name: (build / "js" / name).read_text(encoding="utf-8") for name in module} == module
    assert (build / "site" / "assets" / "rulebook-armies.js").read_bytes() == (build / "js" / "armies.browser.js").read_bytes()
    assert not (build / "site" / "assets" / "army-validator.js").exists()
    # every entry's card link points at a page of the site (a card's own page: one card), at an anchor that page has
    pages: dict[str, str] = {}
    for entry_id, href in data["links"]["entries"].items():
        target, _, anchor = href.partition("#")
        if target not in pages:
            pages[target] = (build / "site" / target).read_text(encoding="utf-8")
        assert not anchor or f'id="{html.escape(anchor)}"' in pages[target], (entry_id, href)
        assert anchor or pages[target].count('<div class="rb-datasheet">') == 1, (entry_id, href)
    assert set(data["links"]["entries"]) == {e["id"] for e in data["army"]["entries"]}


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_home_page_links_to_the_builder_when_there_is_one(bundled_builds, rulebook):
    """The home page's tiles ("At the table") lead to the army builder of a rulebook with an army."""
    build = bundled_builds[rulebook]
    home = (build / "site" / "index.html").read_text(encoding="utf-8")
    tiles = re.findall(r'<a class="rb-tile" href="([^"]+)"><strong>([^<]+)</strong>', home)
    stem = builder_stem(build)
    builders = [(href, title) for href, title in tiles if href.startswith(stem)]
    if (build / "site" / f"{stem}.html").exists():
        assert builders == [(f"{stem}.html", "Army builder" if stem == "army-builder" else "Creador de ejércitos")], tiles
    else:
        assert builders == [], tiles


def test_a_prose_edit_in_serve_renews_the_army_module_not_the_page(tmp_path):
    """``rulebook serve``: a prose edit changes the content hash, which the army document
    carries (in the army module, assets/rulebook-armies.js); the builder page's Markdown
    stays as it was (MkDocs does not convert it again) and the served page loads the new
    army document."""
    from rulebook.compiler.commands.serve import Preview

    rulebook = tmp_path / "mini"
    shutil.copytree(Path(__file__).parents[1] / "data" / "armies" / "mini", rulebook)
    rules = rulebook / "00-mini.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nUna frase de prosa.\n", encoding="utf-8")
    preview = Preview(rulebook, tmp_path / "work", log=lambda text: None)
    assert preview.build_all()
    page = preview.site / "ejercito.html"
    before = army_data(page)["army"]["content_hash"]
    rules.write_text(rules.read_text(encoding="utf-8").replace("Una frase", "Otra frase"), encoding="utf-8")
    assert preview.rebuild()
    assert "ejercito.md" not in preview.changed and "assets/rulebook-armies.js" in preview.changed, preview.changed
    after = army_data(page)["army"]
    assert after["content_hash"] != before
    assert after == json.loads((preview.live / "json" / "armies" / f"{after['id']}.json").read_text(encoding="utf-8"))
