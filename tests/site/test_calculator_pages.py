"""The calculators in the built site (compiler/emit/site/pages/calculators.py), without a browser.

Every bundled rulebook: its calculators page is in the navigation and on the home page, with
one section per procedure; the resolvers the page loads are the JavaScript package's
``browser.js``, byte for byte; the data names every parameter as players read it (no
identifiers), starts each calculator from a worked example that resolves, and describes
every type the forms need; each procedure's block on its rules page is a marker of a few
bytes that loads nothing. (The calculators at work: tests/browser/test_calculators.py.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bundled import BUNDLED, bundled_builds  # noqa: F401 - the fixture

KINDS = {"int", "dec", "bool", "text", "enum", "ref", "rule", "opt", "list", "rec", "map", "json"}


def _data(build: Path) -> dict:
    text = (build / "docs" / "assets" / "calc" / "data.js").read_text(encoding="utf-8")
    assert text.startswith("window.rbCalcData = ") and text.endswith(";\n")
    return json.loads(text[len("window.rbCalcData = "):-2])


def _kinds(desc: dict, data: dict, seen: set) -> set:
    k = desc["k"]
    out = {k}
    if k in ("opt", "list"):
        out |= _kinds(desc["of"], data, seen)
    elif k == "map":
        assert desc["of"] in data["enums"]
        out |= _kinds(desc["v"], data, seen)
    elif k == "rec" and desc["of"] not in seen:
        seen.add(desc["of"])
        for _name, label, inner in data["records"][desc["of"]]:
            assert label and "_" not in label
            out |= _kinds(inner, data, seen)
    elif k == "enum":
        assert data["enums"][desc["of"]]["m"]
    elif k == "ref":
        assert all(data["catalogs"][c]["e"] for c in desc["of"])
    return out


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_the_calculators_page_has_a_section_per_procedure(bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    data = _data(build)
    procedures = json.loads((build / "json" / "procedures.json").read_text(encoding="utf-8"))["procedures"]
    assert list(data["procs"]) == list(procedures)
    page = next(p for p in (build / "docs").glob("*.md") if "data-rb-calc-page" in p.read_text(encoding="utf-8"))
    html = (build / "site" / page.with_suffix(".html").name).read_text(encoding="utf-8")
    assert re.findall(r'data-rb-calc-section="([^"]+)"', html) == list(data["procs"])
    # each section carries its calculator's marker, as a rules page does: nothing is loaded before one is opened
    assert re.findall(r'<div data-rb-calc="([^"]+)"></div>', html) == list(data["procs"])
    assert "assets/calc/" not in html and "calculator.js" not in html and "calculator.css" not in html
    assert f'"{page.name}"' in (build / "mkdocs.yml").read_text(encoding="utf-8")
    assert f'href="{page.with_suffix(".html").name}"' in (build / "site" / "index.html").read_text(encoding="utf-8")
    resolvers = build / "site" / "assets" / "calc" / "resolvers.js"
    assert resolvers.read_bytes() == (build / "js" / "browser.js").read_bytes()
    assert data["global"] in resolvers.read_text(encoding="utf-8")[-300:]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_inputs_are_labelled_for_players_and_start_from_a_worked_example(bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    data = _data(build)
    vectors = json.loads((build / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
    seen: set = set()
    for name, proc in data["procs"].items():
        mine = [v for v in vectors if v["procedure"] == name]
        assert [ex[1] for ex in proc["ex"]] == [v["input"] for v in mine]
        assert proc["first"] is not None and mine[proc["first"]]["error"] is None or all(v["error"] for v in mine), name
        for param in proc["p"]:
            assert param[1] and "_" not in param[1] and param[1][0].isupper(), (name, param[:2])
            assert _kinds(param[2], data, seen) <= KINDS - {"json"}, (name, param[0])
        assert _kinds(proc["r"], data, seen) <= KINDS - {"json"}
        assert proc["href"] and ".html#" in proc["href"], name


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_a_rules_page_carries_only_a_marker_per_procedure(bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    data = _data(build)
    markers = {}
    for page in sorted((build / "site").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        if "data-rb-calc-page" not in html:  # the calculators page has them all (checked above)
            for name in re.findall(r'<div data-rb-calc="([^"]+)"></div>', html):
                markers[name] = page.name
        if "data-rb-calc=" in html:
            assert "assets/calc/" not in html and "calculator.js" not in html, page.name
    assert sorted(markers) == sorted(data["procs"])
    for name, proc in data["procs"].items():
        assert proc["href"].split("#")[0] == markers[name]
