"""Army lists on the rulebook's own pages: each ``army`` declaration drawn where it is declared.

A player reading the section that declares an army sees its budget per game
size and role (and how agreed points work), the cost of a unit with the
quality percentages, what each group of entries may take (options with costs
and maxima, choices, substitutions), the limits, each with its source
reference, and a link to that army's builder. Checked on the built HTML of
the bundled rulebooks (numbers from the checked IR in the right cells) and on
a tiny hostile rulebook (escaping, several armies, placement, cost per quality
on a card without ``@cost_modifier``, identical bytes from two builds).
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from army_data import army_data  # noqa: E402
from bundled import bundled_builds  # noqa: E402,F401 - the fixture
from page_tree import Node, parse  # noqa: E402
from unit_pages import unit_page  # noqa: E402

from rulebook.compiler.pipeline import driver
from rulebook.compiler.support import i18n  # noqa: E402
from rulebook.compiler.emit.site.markdown import number  # noqa: E402
from rulebook.compiler.emit.site.readable import Readable  # noqa: E402
from rulebook.compiler.emit.site.to_pages import round_half_up  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WITH_ARMIES = ("1936", "tercios")


def _program(name: str):
    result = driver.check(ROOT / "content" / name)
    assert result.ok
    return result.program


def _pages_with_id(site: Path, ident: str) -> list[Path]:
    return sorted(p for p in site.glob("*.html") if f'id="{ident}"' in p.read_text(encoding="utf-8"))


def _army_node(site: Path, army: str) -> tuple[Path, Node, Node]:
    """(the page, its article, the army's block) of the one page that has the army's anchor."""
    (page,) = _pages_with_id(site, army)
    article = parse(page.read_text(encoding="utf-8"))
    (block,) = [d for d in article.find_all("div", "rb-army-list") if any(h.attrs.get("id") == army for h in d.find_all())]
    return page, article, block


def _tables(block: Node) -> list[list[list[str]]]:
    """Each table of the block (technical details left out) as rows of cell texts, header first."""
    return [[[c.text() for c in tr.find_all() if c.tag in ("th", "td")] for tr in t.find_all("tr")]
            for t in block.find_all("table", skip={"rb-tech"})]


def _num(lang: str, value) -> str:
    with i18n.using(lang):
        return number(value)


@pytest.mark.parametrize("rulebook", WITH_ARMIES)
def test_army_is_drawn_in_place_with_its_numbers(bundled_builds, rulebook):
    program = _program(rulebook)
    lang = i18n.of_rulebook(program)
    site = bundled_builds[rulebook] / "site"
    for army in program.armies.values():
        page, article, block = _army_node(site, army.name)
        # in place: the page of the declaration right above it in the same file, after it
        above = max((d for d in program.decls.values() if d.span.file == army.span.file and d.span.line < army.span.line),
                    key=lambda d: d.span.line)
        ids = [n.attrs.get("id") for n in article.iter() if n.attrs.get("id")]
        assert above.name in ids and ids.index(above.name) < ids.index(army.name), f"{army.name} is not after {above.name}"
        text = block.text(skip={"rb-tech"})
        tables = _tables(block)
        # the budget: one row per size, one column per role, the points in the cells
        budget = tables[0]
        assert [row[0] for row in budget[1:]] == [s.title for s in army.sizes]
        roles = [r.id for r in army.roles]
        if roles:
            assert budget[0][1:] == [r.title for r in army.roles]
        for size, row in zip(army.sizes, budget[1:]):
            expected = [size.points[r] for r in roles] if isinstance(size.points, dict) else [size.points] * max(1, len(roles))
            assert row[1:] == [_num(lang, p) for p in expected]
        for role, pct in army.bonus:  # how agreed points work: a worked example of the bonus
            assert f"{_num(lang, 1000)} " in text and _num(lang, 1000 + round_half_up(Fraction(1000 * pct, 100))) in text
        # the quality percentages, in order
        if army.quality:
            assert any(t[0] == [q.title for q in army.quality] for t in tables)
        # every option, with its cost, on the line of the entries that may take it
        items = [li.text() for li in block.find_all("li", skip={"rb-tech"}) if not li.find_all("li")]  # innermost lines
        for e in army.entries:
            for key in e.options:
                o = army.options[key]
                assert any(o.title in line and (not o.cost or _num(lang, o.cost) in line) for line in items), o.title
        # substitutions name the troops they remove and add
        for o in army.options.values():
            if o.remove or o.add:
                (line,) = [x for x in items if o.title in x]
                with i18n.using(lang):
                    read = Readable(program)
                    for troop in o.remove + o.add:
                        assert read.entry_title(army.troop_catalog, troop) in line, (o.title, troop)
        # limits: one row each, min and max in their columns
        with i18n.using(lang):
            header = [i18n._("Units"), i18n._("Minimum"), i18n._("Maximum"), i18n._("Source")]
        limits = [t for t in tables if t[0] == header]
        if army.limits:
            (rows,) = limits
            titles = {c.id: c.title for c in army.categories}
            for x, row in zip(army.limits, rows[1:]):
                if x.kind == "category":
                    assert row[0] == titles[x.target]
                assert row[1:3] == [_num(lang, x.min) if x.min is not None else "—", _num(lang, x.max) if x.max is not None else "—"]
        else:
            assert not limits
        # the link to this army's builder, which embeds this army
        (link,) = [a for a in block.find_all("a") if "rb-cards-link" in (a.parent.classes if a.parent else set())]
        assert army_data(site / link.attrs["href"])["army"]["id"] == army.name


def test_1936_numbers_as_the_manual_prints_them(bundled_builds):
    _page, _article, block = _army_node(bundled_builds["1936"] / "site", "listas_genericas")
    budget, quality = _tables(block)[:2]
    assert budget == [["Tamaño de partida", "Atacante", "Defensor"], ["Pequeña", "1200", "800"],
                      ["Mediana", "2250", "1500"], ["Grande", "4500", "3000"]]
    assert quality == [["Verde", "Regular", "Veterano", "Élite"], ["−20 %", "0 %", "+30 %", "+50 %"]]
    text = block.text(skip={"rb-tech"})
    assert "1000 acordados → 1500" in text
    assert "Munición (2 puntos)" in text and "Munición (3 puntos)" in text
    assert "cada una como mucho una vez" in text
    assert "Sin límite de unidades de cada tipo." in text
    # the worked example of the rounding: a half, rounded up
    example = re.search(r"Ejemplo: .+ \((\d+)\) como \w+ \(([+−]\d+) %\): (\d+),5, redondeado a (\d+)\.", text)
    base, pct, exact, rounded = example.groups()
    assert Fraction(int(base) * (100 + int(pct.replace("−", "-"))), 100) == Fraction(2 * int(exact) + 1, 2)
    assert int(rounded) == int(exact) + 1


def test_tercios_limits_and_choices(bundled_builds):
    _page, _article, block = _army_node(bundled_builds["tercios"] / "site", "lista_ejercito")
    tables = _tables(block)
    assert tables[0][1:] == [["Para iniciarse", "7"], ["Cuando ya se domine la mecánica", "12"]]
    assert tables[-1][1:] == [["Infantería", "1", "3", "VIII"], ["Caballería", "0", "3", "VIII"],
                              ["Grupo de Combate", "0", "1", "VIII"], ["Artillería", "0", "2", "VIII"]]
    text = block.text(skip={"rb-tech"})
    assert "Artillería Media (2)" in text
    assert "(hasta 2 veces)" in text
    assert "quita Arcabuceros a Caballo; añade Compañía de Mosqueteros" in text
    assert "A elegir — Destacamento de apoyo: 1 × una de Arcabuceros a pie / Alabarderos" in text


HOSTILE = """```rules
rulebook hostile "Hostile" version "1.0" lang "en"
section I "One"
```

Before the army.

```rules
enum Grade "Grade <i>g</i>" ordered {
  low "Low & <low>"
  high "High **bold**"
}

table surcharge "Surcharge"
  by g: Grade "Grade"
  -> pct: int "Percent"
{
  low | -20
  high | 25
}

record Piece "Piece" {
  name: text "Name"
  price: int "Price"
}

@datasheet "Shop"
catalog pieces "Pieces <script>alert(0)</script>" of Piece {
  p1 | "Piece </script><script>alert(1)</script>" | 85
  p2 | "Piece | two" | 10
}

record Extra "Extra" {
  name: text "Name"
  price: int "Price"
}

catalog extras "Extras" of Extra {
  e1 | "Extra <img src=x onerror=alert(2)>" | 5
}

@source "I.2"
@doc "Doc with <script>alert(3)</script> and | pipes."
army host "Army <script>alert(4)</script> | x" {
  side red "Red side </td><script>alert(5)</script>"
  size small "Small <b>" points: 100
  agreed min: 50
  quality Grade percent: surcharge
  units pieces cost: price {
    options extras cost: price max: 2 entries: [p1]
  }
  limit entry: p2 max: 1
  limit total min: 1 max: 5
}
```

After the army.

```rules
section II "Two"
```

The second section.

```rules
army second "Second | army" {
  agreed
  units pieces cost: price models: 4 max_models: 6 per_model: 3
}
```
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, Path]:
    src = tmp_path_factory.mktemp("hostile-army")
    (src / "hostile.rules").write_text(HOSTILE, encoding="utf-8")
    outs = []
    for name in ("one", "two"):
        out = tmp_path_factory.mktemp(f"hostile-army-{name}") / "build"
        result = driver.build(src, out, site=True)
        assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
        outs.append(out)
    return outs[0], outs[1]


def test_hostile_titles_are_escaped_and_placed(hostile):
    site = hostile[0] / "site"
    page, article, block = _army_node(site, "host")
    raw = page.read_text(encoding="utf-8")
    assert "alert" not in "".join(re.findall(r"<script\b[^>]*>(.*?)</script>", raw, re.S))
    assert "<img" not in raw and "<b>" not in raw.split("<article", 1)[1]
    text = block.text(skip={"rb-tech"})
    for literal in ("Army <script>alert(4)</script> | x", "Doc with <script>alert(3)</script> and | pipes.",
                    "Red side </td><script>alert(5)</script>", "Extra <img src=x onerror=alert(2)>", "Low & <low>", "High **bold**"):
        assert literal in text, literal
    budget = _tables(block)[0]
    assert budget == [["Game size", "Points"], ["Small <b>", "100"]]  # a pipe or tag in a title breaks no table
    assert "Or the players agree the points: at least 50." in text
    assert "Extra <img src=x onerror=alert(2)> (5 points; up to 2 times)" in text
    limits = _tables(block)[-1]
    assert limits[1:] == [["Piece | two", "—", "1", ""], ["Units in the army", "1", "5", ""]]
    # in place: after the paragraph above it, before the one below it; the second army on section II's page
    assert raw.index("Before the army.") < raw.index('id="host"') < raw.index("After the army.")
    second_page, _a, second = _army_node(site, "second")
    assert second_page != page and "Two" in second_page.read_text(encoding="utf-8").split("<h1", 1)[1][:200]
    assert "The players agree the points: at least 1." in second.text(skip={"rb-tech"})
    assert "Piece | two: 4 models included in its points, up to 6; each extra model +3" in second.text(skip={"rb-tech"})


def test_army_lists_are_in_the_search_index(hostile):
    script = (hostile[0] / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    entries = json.loads(script[script.index("{"):script.rindex("}") + 1])["entries"]
    found = {e[1]: (e[0], e[2]) for e in entries if e[2] == "Army list"}
    assert found == {"01-one.html#host": ("Army <script>alert(4)</script> | x", "Army list"),
                     "02-two.html#second": ("Second | army", "Army list")}


def test_each_army_links_to_its_own_builder(hostile):
    site = hostile[0] / "site"
    for army in ("host", "second"):
        _page, _article, block = _army_node(site, army)
        (link,) = [a for a in block.find_all("a") if "rb-cards-link" in (a.parent.classes if a.parent else set())]
        assert link.attrs["href"] == f"army-builder-{army}.html"  # an English rulebook: English addresses
        assert army_data(site / link.attrs["href"])["army"]["id"] == army


def test_card_without_cost_modifier_shows_cost_per_quality(hostile):
    site = hostile[0] / "site"
    costs = {}
    for anchor in ("pieces--p1", "pieces--p2"):
        page = parse((site / unit_page(site, "datasheets-shop.html", anchor)).read_text(encoding="utf-8"))  # the card's own page
        (card,) = page.find_all("div", "rb-datasheet")
        (table,) = [t for t in card.find_all("div", "rb-cost")]
        rows = [[x.text() for x in tr.find_all() if x.tag in ("th", "td")] for tr in table.find_all("tr")]
        costs[page.find_all("h1")[0].attrs["id"]] = rows
    assert costs["pieces--p1"] == [["Low & <low>", "High **bold**"], ["68", "106"]]  # 85 × 0.8; 85 × 1.25 = 106.25
    assert costs["pieces--p2"] == [["Low & <low>", "High **bold**"], ["8", "13"]]  # 12.5 rounded half up


def test_two_builds_are_identical(hostile):
    one, two = hostile
    for sub in ("docs", "site"):
        files = sorted(p.relative_to(one / sub) for p in (one / sub).rglob("*") if p.is_file() and p.suffix in (".md", ".html", ".js"))
        assert files
        for f in files:
            assert (one / sub / f).read_bytes() == (two / sub / f).read_bytes(), f
