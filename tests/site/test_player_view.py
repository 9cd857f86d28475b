"""The site as a player reads it: rules before code, datasheets with human labels,
pages that find things for the table.

Generic checks run on every bundled rulebook's built HTML: headings never skip
a level, no table has an empty header cell, no declaration's note repeats what
the page already said, no rules code or test assertion outside the "Detalles
técnicos" blocks, worked examples read as inputs → results, the search index
holds no code. The 1936 rulebook then checks concrete cards and pages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulebook.compiler import ir
from rulebook.compiler.emit.site.readable import fold
from bundled import BUNDLED, bundled_builds  # noqa: F401 - the fixture
from page_tree import parse
from unit_pages import unit_page

TECH = {"rb-tech"}


def _pages(build: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((build / "site").glob("*.html")) if p.name != "404.html"}


def _sentences(text: str) -> list[str]:
    return [" ".join(s.split()).rstrip(".:") for s in re.split(r"(?<=[.:!?])\s+", text) if len(s) > 30]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_headings_never_skip_a_level(bundled_builds, rulebook):
    for name, page in _pages(bundled_builds[rulebook]).items():
        levels = [int(n.tag[1]) for n in parse(page).iter(TECH) if re.fullmatch(r"h[1-6]", n.tag)]
        jumps = [(a, b) for a, b in zip([1] + levels, levels) if b > a + 1]
        assert not jumps, (name, jumps[:3])


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_table_header_cell_is_empty(bundled_builds, rulebook):
    for name, page in _pages(bundled_builds[rulebook]).items():
        empty = [th for th in parse(page).find_all("th") if not th.text()]
        assert not empty, name


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_note_repeats_what_the_page_said(bundled_builds, rulebook):
    """A declaration's note (``@doc``) never repeats a sentence of the prose or of a note above it."""
    for name, page in _pages(bundled_builds[rulebook]).items():
        said: set[str] = set()
        for p in parse(page).find_all("p", skip=TECH | {"rb-datasheet", "rb-example"}):
            sentences = _sentences(p.text())
            if "rb-doc" in p.classes:
                repeated = [s for s in sentences if s in said]
                assert not repeated, (name, repeated[:2])
            said.update(sentences)


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_code_outside_the_technical_details(bundled_builds, rulebook):
    for name, page in _pages(bundled_builds[rulebook]).items():
        if name.startswith(("codigo-", "source-")) or name in ("datos.html", "data-for-tools.html"):  # (English addresses: source-, data-for-tools)
            continue  # the rules source and the data for tools are code on purpose
        tree = parse(page)
        assert not [d for d in tree.find_all("div", skip=TECH) if "language-rules" in d.classes], name
        visible = tree.text(TECH)
        for word in ("require ", "let ", "return ", "expect ", "result.", "given ("):
            assert word not in visible, (name, word, visible[max(0, visible.find(word) - 80):visible.find(word) + 80])


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_worked_examples_read_as_inputs_and_results(bundled_builds, rulebook):
    examples = 0
    for name, page in _pages(bundled_builds[rulebook]).items():
        for ex in parse(page).find_all("div", "rb-example"):
            examples += 1
            sentence = ex.text(TECH)
            assert "→" in sentence or "se detiene" in sentence, (name, sentence)
            checks = ex.find_all(cls="rb-tech")
            assert checks and "example" in checks[0].text(), name
    assert examples or rulebook != "1936"


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_the_search_index_holds_no_code(bundled_builds, rulebook, program):
    script = (bundled_builds[rulebook] / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    entries = json.loads(script[script.index("{"):script.rindex("}") + 1])["entries"]
    assert all(len(e) == 5 and e[1] and not e[1].startswith("/") for e in entries)
    text = "\n".join(e[0] + " " + e[4] for e in entries)
    for word in ("require ", "let ", "return ", "expect ", "```"):
        assert word not in text, word
    if rulebook == "1936":
        for d in program.of(ir.Procedure)[:10]:
            body = [line.strip() for line in d.source_text.splitlines()[1:] if len(line.strip()) > 25]
            assert not [line for line in body if line in text], d.name


# ---------------------------------------------------------------- the 1936 rulebook


def _card(built: Path, index: str, anchor: str):
    """The card at ``anchor``: the one card of the page its row on ``index`` links to, under its heading."""
    page = parse((built / "site" / unit_page(built / "site", index, anchor)).read_text(encoding="utf-8"))
    assert any(h.attrs.get("id") == anchor for h in page.find_all("h1")), anchor
    cards = page.find_all("div", "rb-datasheet")
    assert len(cards) == 1, anchor
    return cards[0]


def test_a_tank_card_at_the_table(built):
    card = _card(built, "fichas-bando-nacional.html", "carros_combate_nacionales--n_panzer_i")
    visible = card.text(TECH)
    # no internal id and no code-like label in the player's face
    assert "n_panzer_i" not in visible and not card.find_all("code", skip=TECH)
    assert not re.search(r"\b[A-Z][a-z]+[A-Z][a-z]+\b", visible), visible
    # the armour values are explained by tooltips taken from the rulebook's prose
    tips = {a.text(): a.attrs["title"] for a in card.find_all("abbr")}
    assert {"RF", "RL", "RT", "P"} <= set(tips), tips
    assert "frontal" in tips["RF"].lower() and "Perfil" in tips["P"]
    # the weapon's I and D by range band, on the card
    weapon = card.find_all("div", "rb-weapon")[0]
    headers = [th.text() for th in weapon.find_all("th")]
    assert headers[-3:] == ["Corta", "Media", "Larga"], headers
    assert "I Fuego Preciso" in weapon.text() and "D (D normal / D reducido↓)" in weapon.text()
    # the options it may take, with their cost: those the army list allows a tank (the builder offers the same)
    options = card.find_all("details", "rb-options")[0].text()
    assert "Munición 2" in options and "Mejoras Nacionales (1)" in options and "Tirador Selecto" not in options


def test_infantry_cards_use_human_labels(built):
    visible = _card(built, "fichas-bando-republicano.html", "infanteria_republicana--r_milicia_cnt").text(TECH)
    for label in ("Bajas máximas", "Tamaño a efectos de Moral", "Tipo de cobertura de la unidad", "CF", "CL", "CT"):
        assert label in visible, label
    for code in ("BajasMaximas", "MoralTamano", "TipoCobertura", "r_milicia_cnt"):
        assert code not in visible, code


def test_the_datasheet_index_lists_every_datasheet(built, program):
    tree = parse((built / "site" / "indice-de-fichas.html").read_text(encoding="utf-8"))
    rows = tree.find_all("tbody")[0].find_all("tr")
    expected = sum(len(c.entries) for c in program.of(ir.Catalog) if c.datasheet)
    assert len(rows) == expected
    form = tree.find_all("form", "rb-filter")[0]
    assert {f.attrs.get("name") for f in form.find_all() if f.tag in ("input", "select")} == {"q", "group", "type", "cost", "rule"}
    assert {r.attrs["data-group"] for r in rows} == {"Bando Nacional", "Bando Republicano"}
    panzer = next(r for r in rows if r.text().startswith("Panzer I Ausf A/B"))
    assert panzer.attrs["data-cost"] == "100" and "maniobrable" in panzer.attrs["data-rules"].split()


def test_special_rules_a_to_z(built, program):
    tree = parse((built / "site" / "reglas-a-z.html").read_text(encoding="utf-8"))
    titles = [li.find_all("a")[0].text() for li in tree.find_all("li")]
    assert len(titles) == len(program.of(ir.Rule))
    assert [fold(t) for t in titles] == sorted(fold(t) for t in titles)


def test_home_page_puts_the_table_first(built):
    tree = parse((built / "site" / "index.html").read_text(encoding="utf-8"))
    tiles = [a.attrs["href"] for a in tree.find_all("a", "rb-tile")]
    assert tiles[:1] == ["indice-de-fichas.html"]
    for href in ("fichas-bando-nacional.html", "fichas-bando-republicano.html", "reglas-a-z.html", "17-glosario.html", "referencia-rapida.html"):
        assert href in tiles, href
    # the designer's vocabulary lives on its own page
    assert not tree.find_all("div", "rb-tech") and not tree.find_all("table")
    assert "Calidad" in (built / "site" / "disenadores.html").read_text(encoding="utf-8")


def test_quick_reference_gathers_formulas_and_odds(built):
    tree = parse((built / "site" / "referencia-rapida.html").read_text(encoding="utf-8"))
    text = tree.text()
    assert "I efectivo = I base + M" in text and "Margen Base = D final − RF/RL/RT + Dañado" in text
    assert tree.find_all("span", "rb-prob")


def test_procedure_steps_are_prose_with_formulas(built):
    page = (built / "site" / "02-costes-listas-y-estadisticas.html").read_text(encoding="utf-8")
    tree = parse(page)
    steps = [ol for ol in tree.find_all("ol", "rb-steps")]
    assert steps
    assert "Coste base de la lista" in " ".join(ol.text(TECH) for ol in steps)
    # the checks and formulas of each step are technical details
    assert "requisito" not in " ".join(ol.text() for ol in steps)
    technical = " ".join(" ".join(t.text() for t in ol.find_all(cls="rb-tech")) for ol in steps)
    assert "exige Coste base ≥ 0; si no, se detiene: «El coste base no puede ser negativo»" in technical
