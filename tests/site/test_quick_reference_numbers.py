"""The quick reference holds the numbers a player looks up, taken from the declarations
marked ``@quick_reference`` (the Napoleonic rulebook: ½ opportunity fire, the chart's
columns 1:3–10:1, density and prone modifiers, −3 in disorder, great disorder ×1,5 and
15 hexes), each linked to its declaration, with its status badge."""

from __future__ import annotations

from bundled import bundled_builds  # noqa: F401 - the fixture
from page_tree import parse


def test_the_napoleonic_quick_reference_shows_the_numbers(bundled_builds):  # noqa: F811 - the fixture
    site = bundled_builds["napoleonico"] / "site"
    tree = parse((site / "referencia-rapida.html").read_text(encoding="utf-8"))
    facts = {li.text() for li in tree.find_all("li")}
    assert "Potencia del Fuego de Oportunidad: 0,5" in facts
    assert "Hexágonos del enemigo más cercano a los que debe emplazarse una unidad en PGD: 15" in facts
    assert "Defensa de Fuego de un Gran Cuadro: 4" in facts
    tables = {t.find_all("th")[0].text(): [[c.text() for c in tr.find_all("td")] for tr in t.find_all("tr")[1:]]
              for t in tree.find_all("table")}
    assert [row[0] for row in tables["Columna"]] == ["1:3", "2,5:1", "10:1"]
    assert ["16", "12"] in tables["Incrementos en el hexágono objetivo"] and ["10–12", "3"] in tables["Incrementos en el hexágono objetivo"]
    assert [row[-1] for row in tables["Caso"]] == ["2", "3", "−6"]
    disorder = {row[0]: row for row in tables["Estado"]}
    assert disorder["Desorden"][-1] == "−3" and disorder["Gran Desorden (PGD)"][4] == "1,5"
    # each number links to its declaration; the charts the text does not give whole say so
    links = {a.text(): a.attrs["href"] for a in tree.find_all("a")}
    assert links["Potencia del Fuego de Oportunidad"].startswith("03-") and "#factor_fuego_oportunidad" in links["Potencia del Fuego de Oportunidad"]
    assert any("No jugable" in p.text() and "Columnas de la Carta de Fuego de Combate" in p.text() for p in tree.find_all("p"))
