"""Datasheet cards, driven by generic annotations on catalogs.

``@datasheet "Página"`` gives each entry of a catalog a card (stats, lists,
rules linked to their anchors, references linked to their cards);
``@cost_field`` + ``@cost_modifier`` add the cost at every value of an enum,
rounded half up. Catalogs referenced by datasheet entries get cards that link
back. A tiny rulebook that uses no words of any real game checks the mechanism.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.compiler.emit.site.to_pages import round_half_up

ROOT = Path(__file__).resolve().parents[2]

TINY = """```rules
rulebook mini "Mini" version "1.0" lang "es"
section I "Uno"
```

```rules
enum Grado "Grado" ordered {
  bajo "Bajo"
  medio "Medio"
  alto "Alto"
}

table recargo "Recargo por grado"
  by g: Grado "Grado"
  -> pct: int "Porcentaje"
{
  bajo | -20
  medio | 0
  alto | 30
}

rule pesado "Pesado" (X: int) {
  "Cuesta moverlo <b>mucho</b> {{ 7*7 }}."
}

rule ligero "Ligero" {
  "Se mueve bien."
}

record Herramienta "Herramienta" {
  nombre: text "Nombre"
  golpe: int "Golpe"
}

catalog herramientas "Herramientas" of Herramienta {
  martillo | "Martillo" | 3
  llave | "Llave <i>inglesa</i>" | 1
}

record Uso "Uso" {
  nombre: text "Nombre"
  herramienta: ref herramientas "Herramienta"
}

record Medida "Medida" {
  ancho: int "ancho"
  alto: int "alto"
}

record Pieza "Pieza" {
  nombre: text "Nombre"
  precio: int "Precio"
  clase: text "Clase"
  peso: int "Peso"
  tam: Medida "Tamaño"
  usos: list[Uso] "Usos"
  reglas: list[rule] "Reglas"
}

@datasheet "Taller"
@cost_field "precio"
@cost_modifier "recargo"
catalog piezas "Piezas" of Pieza {
  p1 | "Pieza <script>alert(1)</script>" | 85 | "A | b **c**" | 2 | (ancho: 3, alto: 4) | [("Clavar", martillo)] | [pesado(2), ligero]
  p2 | "Pieza dos" | 10 | "B" | 1 | (ancho: 1, alto: 1) | [] | []
}

@datasheet "Taller"
@status deferred
catalog futuras "Futuras" of Pieza {
  f1 | "Futura" | 20 | "C" | 1 | (ancho: 1, alto: 1) | [("Apretar", llave)] | [ligero]
}
```
"""


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("mini")
    (src / "mini.rules").write_text(TINY, encoding="utf-8")
    out = tmp_path_factory.mktemp("mini_out") / "build"
    result = driver.build(src, out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return out


def _html(out: Path, name: str) -> str:
    return (out / "site" / name).read_text(encoding="utf-8")


def _unit_href(out: Path, index: str, anchor: str) -> str:
    """The href of a card's own page, read from its row (at the card's anchor) on its index page."""
    m = re.search(rf'<tr id="{re.escape(anchor)}"><td><a href="([^"#]+\.html)">', _html(out, index))
    assert m, f"no row #{anchor} on {index}"
    return m.group(1)


def _card(out: Path, index: str, anchor: str) -> str:
    """A card: the page its index row links to, from its heading (at ``anchor``) to the end of the article."""
    page = _html(out, _unit_href(out, index, anchor))
    m = re.search(rf'<h1 id="{re.escape(anchor)}">(.*?)</article>', page, re.S)
    assert m, f"no card #{anchor}"
    assert page.count('<div class="rb-datasheet">') == 1  # one card per page
    return m.group(1)


def test_round_half_up():
    from fractions import Fraction

    assert round_half_up(Fraction(221, 2)) == 111
    assert round_half_up(Fraction(1105, 10)) == 111
    assert round_half_up(Fraction(1104, 10)) == 110
    assert round_half_up(Fraction(56)) == 56


def test_compiler_has_no_game_vocabulary():
    modules = sorted((ROOT / "compiler" / "emit" / "site").rglob("*.py"))
    assert any(p.name == "datasheets.py" for p in modules)
    for path in modules:
        src = path.read_text(encoding="utf-8")
        for word in ("Unidad", "Calidad", "coste", "Coste", "perfil", "Perfil", "Veterano", "Élite"):
            assert word not in src, (path.name, word)


def test_pages_and_nav(mini):
    assert (mini / "site" / "fichas-taller.html").exists()
    # the referenced catalog gets its own card page
    assert (mini / "site" / "fichas-herramientas.html").exists()
    mk = (mini / "mkdocs.yml").read_text(encoding="utf-8")
    assert "fichas-taller.md" in mk and "fichas-herramientas.md" in mk


def test_card_content(mini):
    page = _html(mini, "fichas-taller.html")
    card = _card(mini, "fichas-taller.html", "piezas--p1")
    assert "Pieza &lt;script&gt;alert(1)&lt;/script&gt;" in card
    assert "<script>alert" not in page and "<script>alert" not in card
    # text facts are text
    assert "A | b **c**" in html.unescape(re.sub(r"<[^>]+>", "", card))
    # stats: numbers and the numeric record, with its parts named in its label
    stats = html.unescape(re.sub(r"<[^>]+>", "", card[card.index('class="rb-statline"'):]))
    assert "Tamaño (Ancho / Alto)" in stats and "3 / 4" in stats
    # rules with parameters, linked to the rule's anchor
    assert re.search(r'<a href="01-uno.html#pesado">Pesado\(2\)</a>', card)
    assert re.search(r'<a href="01-uno.html#ligero">Ligero</a>', card)
    # a reference links to the referenced entry's card
    assert f'href="{_unit_href(mini, "fichas-herramientas.html", "herramientas--martillo")}"' in card


def test_cost_at_every_level_rounded_half_up(mini):
    card = _card(mini, "fichas-taller.html", "piezas--p1")
    cost = card[card.index("rb-cost"):]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", cost)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", cost)
    assert headers[:3] == ["Bajo", "Medio", "Alto"]
    # 85 × 0,8 = 68; 85; 85 × 1,3 = 110,5 → 111
    assert cells[:3] == ["68", "85", "111"]


def test_rounding_rule_is_stated(mini):
    page = html.unescape(re.sub(r"<[^>]+>", "", _html(mini, "fichas-taller.html")))
    assert "las mitades se redondean hacia arriba" in page
    assert "110,5 → 111" in page


def test_deferred_catalog_has_a_badge(mini):
    card = _card(mini, "fichas-taller.html", "futuras--f1")
    assert "rb-badge--deferred" in card
    # no cost spec on that catalog: no cost table
    assert "rb-cost" not in card


def test_reverse_links(mini):
    rules = _html(mini, "01-uno.html")
    # the rule lists the entries that have it, with their parameters
    assert f'href="{_unit_href(mini, "fichas-taller.html", "piezas--p1")}"' in rules
    assert "(X = 2)" in html.unescape(rules)
    card = _card(mini, "fichas-herramientas.html", "herramientas--llave")
    assert f'href="{_unit_href(mini, "fichas-taller.html", "futuras--f1")}"' in card
    assert "Llave &lt;i&gt;inglesa&lt;/i&gt;" in card


def test_manual_table_links_to_cards(mini):
    page = _html(mini, "01-uno.html")
    assert f'href="{_unit_href(mini, "fichas-taller.html", "piezas--p1")}"' in page
    assert 'href="fichas-taller.html#piezas"' in page


def test_each_card_has_a_page_of_its_own_and_its_index_a_row(mini):
    """The index page: one row per entry (name linked to its page, type, cost), no card; the card's page
    names its index and its neighbours; card pages stay out of the navigation."""
    index = _html(mini, "fichas-taller.html")
    assert 'class="rb-datasheet"' not in index
    rows = re.findall(r'<tr id="([^"]+)"><td><a href="([^"]+)">([^<]*)</a></td><td>([^<]*)</td><td class="rb-num">([^<]*)</td></tr>', index)
    assert [(r[0], r[3], r[4]) for r in rows] == [("piezas--p1", "Piezas", "85"), ("piezas--p2", "Piezas", "10"), ("futuras--f1", "Futuras", "—")]  # no @cost_field: no cost
    assert rows[1][1] == "fichas-taller-pieza-dos.html" and rows[1][2] == "Pieza dos"
    second = _html(mini, "fichas-taller-pieza-dos.html")
    nav = re.search(r'<nav class="rb-unit-nav"[^>]*>(.*?)</nav>', second, re.S).group(1)
    assert 'href="fichas-taller.html"' in nav
    assert f'rel="prev" href="{rows[0][1]}"' in nav and f'rel="next" href="{rows[2][1]}"' in nav
    assert "<title>Pieza dos - Mini</title>" in second
    mk = (mini / "mkdocs.yml").read_text(encoding="utf-8")
    nav_part = mk[mk.index("\nnav:"):]
    assert "fichas-taller-pieza-dos.md" not in nav_part and "/fichas-taller-pieza-dos.md" in mk  # not_in_nav
    # the search finds the card on its page
    search = (mini / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert '"Pieza dos","fichas-taller-pieza-dos.html"' in search


def test_a_page_of_all_the_cards_to_print(mini):
    """The index links to a page with every card of the index (for paper: no technical details,
    reverse links or per-card options), kept out of the navigation and of the search."""
    index = _html(mini, "fichas-taller.html")
    assert '<p class="rb-meta rb-print-link"><a href="fichas-taller-imprimir.html">' in index
    page = _html(mini, "fichas-taller-imprimir.html")
    for anchor in ("piezas--p1", "piezas--p2", "futuras--f1"):
        assert re.search(rf'<h3 id="{anchor}">', page), anchor
    assert page.count('<div class="rb-datasheet">') == 3 and 'class="rb-tech"' not in page and "rb-users" not in page
    assert "<script>alert" not in page
    mk = (mini / "mkdocs.yml").read_text(encoding="utf-8")
    assert "/fichas-taller-imprimir.md" in mk and "fichas-taller-imprimir.md" not in mk[mk.index("\nnav:"):]
    assert "fichas-taller-imprimir" not in (mini / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    # the cards of what datasheets reference are printed on those datasheets: no page of their own to print
    assert not (mini / "site" / "fichas-herramientas-imprimir.html").exists()
