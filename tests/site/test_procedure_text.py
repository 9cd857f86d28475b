"""The procedures of every bundled rulebook as players read them on its built pages.

Reads each bundled rulebook's built site and its ``json/procedures.json`` (which procedures
there are, with their steps), and finds each procedure's section on its page: the heading with
the procedure's anchor and what follows it up to the next heading. Checks, the same way for
every rulebook: step numbers are said once (the badge, not again in the text); worked examples
never end in a bare word (``→ Resultado.``): every result has a value; no word is written twice
in a row; a check of the rules reads as a condition and what happens when it fails, never
``requisito:`` followed by a failure message; the inputs are listed by name; and the formulas of
every step are still there, in the technical details.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bundled import BUNDLED, bundled_builds  # noqa: F401 - the fixture
from page_tree import Node, parse
from rulebook.compiler.emit.site.markdown import anchor
from rulebook.compiler.support import i18n

TECH = {"rb-tech"}
HEADING = re.compile(r"h[1-6]")
OWN_NUMBER = re.compile(r"\d+(?:\s*[–—-]\s*\d+)?\s*[.)]\s")
DOUBLED = re.compile(r"(?<!\w)([^\W\d_]+)[ \t]+\1(?!\w)", re.IGNORECASE)  # within a line
# what a result of a worked example says besides a bare word: a value, a comparison, a quotation
HAS_VALUE = re.compile(r"[=:≥≤<>≠«“\[]")
QUOTED = re.compile(r"«[^»]*»|“[^”]*”")
BLOCKS = {"p", "li", "ol", "ul", "td", "th", "tr", "dt", "dd", "div", "pre", "br", "h1", "h2", "h3", "h4", "h5", "h6"}


def _procedure_sections(build: Path) -> dict[str, list[Node]]:
    """Procedure name → the nodes of its section (heading first), over the site's pages."""
    names = json.loads((build / "json" / "procedures.json").read_text(encoding="utf-8"))["procedures"]
    wanted = {anchor(name): name for name in names}
    sections: dict[str, list[Node]] = {}
    for path in sorted((build / "site").glob("*.html")):
        html = path.read_text(encoding="utf-8")
        if "rb-steps" not in html and "data-rb-calc=" not in html or "rb-calc-section" in html:  # not the calculators page
            continue
        current: list[Node] | None = None
        for node in parse(html).children:
            if isinstance(node, str):
                continue
            if HEADING.fullmatch(node.tag):
                name = wanted.get(node.attrs.get("id", ""))
                current = [node] if name else None
                if name:
                    sections[name] = current
            elif current is not None:
                current.append(node)
    missing = sorted(set(names) - set(sections))
    assert not missing, missing
    return sections


@pytest.fixture(scope="module")
def procedure_sections(bundled_builds) -> dict[str, dict[str, list[Node]]]:  # noqa: F811 - the fixture
    return {rulebook: _procedure_sections(bundled_builds[rulebook]) for rulebook in BUNDLED}


def _text(nodes: list[Node], skip: set[str] = frozenset()) -> str:
    return " ".join(n.text(skip) for n in nodes)


def _lines(node: Node, skip: set[str], out: list[str]) -> list[str]:
    """The text of ``node`` line by line: each paragraph, list item, cell… on its own line."""
    for child in node.children:
        if isinstance(child, str):
            out[-1] += child.replace("\n", " ")
        elif not (child.classes & skip):
            if child.tag in BLOCKS:
                out.append("")
            _lines(child, skip, out)
            if child.tag in BLOCKS:
                out.append("")
    return out


def _stop_phrases(build: Path) -> tuple[str, str]:
    """How the site writes a check: the words before its condition, and those before the message it stops with."""
    lang = "en" if 'language: "en"' in (build / "mkdocs.yml").read_text(encoding="utf-8") else "es"
    with i18n.using(lang):
        template = i18n._("requires %(condition)s; otherwise it stops: “%(message)s”")
    lead, rest = template.split("%(condition)s")
    return lead.strip(), rest.split("%(message)s")[0].strip()


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_step_numbers_are_said_once(procedure_sections, rulebook):
    doubled = []
    for name, nodes in procedure_sections[rulebook].items():
        for ol in (ol for n in nodes for ol in [n] + n.find_all("ol") if "rb-steps" in ol.classes):
            for li in (c for c in ol.children if isinstance(c, Node) and c.tag == "li"):
                if OWN_NUMBER.match(li.text(TECH).strip()):
                    doubled.append((name, li.attrs.get("data-step"), li.text(TECH)[:60]))
    assert not doubled, doubled[:5]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_every_result_of_a_worked_example_has_a_value(procedure_sections, rulebook):
    bare = []
    for name, nodes in procedure_sections[rulebook].items():
        for ex in (ex for n in nodes for ex in [n] + n.find_all("div") if "rb-example" in ex.classes):
            sentence = ex.text(TECH).strip()
            if "→" not in sentence:
                continue
            results = QUOTED.sub("«»", sentence.rsplit("→", 1)[1].strip().rstrip("."))
            bare += [(name, part) for part in results.split("; ") if not HAS_VALUE.search(part)]
    assert not bare, bare[:5]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_word_is_written_twice_in_a_row(procedure_sections, rulebook):
    doubled = []
    for name, nodes in procedure_sections[rulebook].items():
        lines = [line for n in nodes for line in _lines(n, {"highlight", "rb-decl-head"}, [""])]  # not the rules source
        doubled += [(name, line[max(0, m.start() - 40):m.end() + 40]) for line in lines for m in DOUBLED.finditer(line)]
    assert not doubled, doubled[:5]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_a_check_reads_as_its_condition_then_what_stops(procedure_sections, bundled_builds, rulebook):  # noqa: F811
    lead, stops = _stop_phrases(bundled_builds[rulebook])
    backwards, checks = [], 0
    for name, nodes in procedure_sections[rulebook].items():
        text = _text(nodes)
        assert not re.search(r"\b(?:requisito|requirement):", text), name
        for formula in (f for n in nodes for f in [n] + n.find_all("p") if "rb-formula" in f.classes):
            line = formula.text()
            at = [m.start() for m in re.finditer(re.escape(stops), line)]
            checks += len(at)
            if any(line.rfind(lead, 0, stop) < 0 for stop in at):  # each message after its condition
                backwards.append((name, line[:120]))
    assert not backwards, backwards[:5]
    assert checks, "no procedure of the rulebook checks anything"


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_inputs_are_listed_by_name_and_formulas_are_technical(procedure_sections, rulebook):
    for name, nodes in procedure_sections[rulebook].items():
        formulas = [f for n in nodes for f in [n] + n.find_all("p") if "rb-formula" in f.classes]
        assert formulas, name  # every step's formulas are still on the page
        shown = [f.text() for f in formulas if not ("rb-tech" in f.classes or f.inside("rb-tech"))]
        assert not shown, (name, shown[:2])  # behind "Detalles técnicos"
        inputs = [p for n in nodes for p in [n] + n.find_all("p") if "rb-inputs" in p.classes]
        if inputs:
            listed = inputs[0].text()
            assert "_" not in listed and "," in listed or len(listed.split(":", 1)[1].split(",")) == 1, (name, listed)


def test_a_1936_procedure_as_a_player_reads_it(procedure_sections):
    nodes = procedure_sections["1936"]["disparo_directo"]
    steps = [li for n in nodes for ol in [n] + n.find_all("ol") if "rb-steps" in ol.classes
             for li in ol.children if isinstance(li, Node) and li.tag == "li"]
    assert [li.attrs.get("data-step") for li in steps] == ["1", "2–3", "4", "5", "6", "7"]
    assert steps[0].text(TECH).startswith("Declara la munición")
    player = _text(nodes, TECH)
    assert "«Resolución del impacto»" in player and "«Perfiles de armas»" in player  # the tables and procedures it consults, linked
    assert "Datos: Perfil" in player and "bajas =" not in player and "D normal D normal" not in player
    technical = _text(nodes)
    assert "bajas = «Resolución del Daño» (D normal: D normal de" in technical
    assert "exige número de(entradas) > 0; si no, se detiene: «El perfil no tiene Tiro tenso»" in technical
