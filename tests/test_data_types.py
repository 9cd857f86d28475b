"""Data and types a designer of a new game reaches for (issue 23, point 3).

Each case is a small rulebook written in place: an army whose units take their side
from a catalog field, references to several catalogs read through their shared
fields, list concatenation, filters that narrow optional types, odds tables over
booleans, catalog ids and lists, a cost field without a quality table, and
catalog rows with named cells. The working forms check and run (through the
generated resolvers, the army documents and the roster validator); each mistake is
one error at its line, with a hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver

HEAD = '```rules\nrulebook skirm "Skirmish" version "0.1" lang "en"\nsection I "Forces"\n```\n\n'


def _check(tmp_path: Path, body: str):
    (tmp_path / "00-game.rules").write_text(HEAD + "```rules\n" + body + "\n```\n", encoding="utf-8")
    return driver.check(tmp_path)


def _errors(tmp_path: Path, body: str) -> list[tuple[str, str, int]]:
    checked = _check(tmp_path, body)
    return [(d.message, d.hint or "", d.span.line - 6) for d in checked.diagnostics if d.severity == "error"]


def _ok(tmp_path: Path, body: str):
    checked = _check(tmp_path, body)
    assert checked.ok, [(d.message, d.span.line - 6) for d in checked.diagnostics if d.severity == "error"]
    return checked


def _load(tmp_path: Path, body: str):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(_ok(tmp_path, body).program)


def _run(package, name: str, **kwargs):
    """The one result of a procedure that rolls nothing (exact distribution of a single outcome)."""
    from rulebook import runtime

    outcomes = list(runtime.exact(package.PROCEDURES[name].function, **kwargs).items())
    assert len(outcomes) == 1, outcomes
    return outcomes[0][0]


def _expect_one_error(tmp_path: Path, body: str, message: str, hint_text: str, line: int | None = None) -> None:
    got = _errors(tmp_path, body)
    assert len(got) == 1, got
    m, h, at = got[0]
    assert message in m and hint_text in h, got
    if line is not None:
        assert at == line, got


# ---- 1. an army side taken from a catalog field --------------------------------------------------

UNITS = """
enum Faction "Faction" {
  red "Red"
  blue "Blue"
}

record Unit "Unit" {
  name: text "Name"
  faction: Faction "Faction"
  points: int "Points"
  shoot: int "Shoot"
}

catalog units "Units" of Unit {
  red_guard | "Red Guard" | red | 10 | 4
  blue_guard | "Blue Guard" | blue | 12 | 5
}
"""

ARMY = UNITS + """
army skirmish "Skirmish" {
  sides Faction
  size normal "Normal" points: 100
  units units side: faction cost: points
}
"""


def _army_document(checked, army: str) -> dict:
    from rulebook.compiler.emit.data import to_armies, to_json

    docs = to_armies.documents(checked.program, to_json.content_hash(checked.program))
    return {d["id"]: d for d in docs.values()}[army]


def test_a_side_field_gives_each_unit_its_side_and_a_roster_gets_the_wrong_side_error(tmp_path):
    from rulebook.compiler.commands import roster

    doc = _army_document(_ok(tmp_path, ARMY), "skirmish")
    assert {e["id"]: e["side"] for e in doc["entries"]} == {"red_guard": "red", "blue_guard": "blue"}
    result = roster.validate(doc, {"format": 1, "rulebook": "skirm", "army": "skirmish", "side": "red", "size": "normal",
                                   "units": [{"entry": "red_guard"}, {"entry": "blue_guard"}]})
    assert [(e["code"], e["path"], e["message"]) for e in result["errors"]] == [
        ("entry-wrong-side", "$.units[1].entry", "Blue Guard belongs to Blue, not Red.")]


@pytest.mark.parametrize("old,new,message,hint_text", [
    ("side: faction", "side: points", "'side:' field points is int, not an enum, ref, text or id", "fields that fit: name, faction"),
    ("side: faction", "side: factoin", "unknown side 'factoin'", "did you mean 'faction'"),
    ("sides Faction", 'side red "Red"', "entry blue_guard's side 'blue' (field 'faction') is not a side of army skirmish", "sides: red"),
    ("sides Faction", "", "'side: faction' reads each unit's side from a field, but the army declares no sides", "declare the sides first"),
])
def test_side_field_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, ARMY.replace(old, new), message, hint_text)


def test_a_side_field_that_is_empty_is_refused(tmp_path):
    body = ARMY.replace("faction: Faction", "faction: Faction?").replace("| blue | 12", "| - | 12")
    _expect_one_error(tmp_path, body, "entry blue_guard has no side in 'faction'", "give it one of the army's sides: red, blue")


# ---- 2. references to several catalogs, read through their shared fields -------------------------

SEVERAL = """
record Infantry "Infantry" {
  name: text "Name"
  shoot: int "Shoot"
  men: int "Men"
}

record Vehicle "Vehicle" {
  name: text "Name"
  armour: int "Armour"
  shoot: int "Shoot"
}

catalog a_units "A units" of Infantry {
  rifles | "Rifles" | 4 | 10
}

catalog b_units "B units" of Vehicle {
  tank | "Tank" | 3 | 5
}

procedure to_hit "To hit" (shooter: ref a_units | b_units) -> int {
  return shooter.shoot + 1
}
"""


def test_a_ref_of_several_catalogs_reads_their_shared_fields(tmp_path):
    package = _load(tmp_path, SEVERAL)
    assert _run(package, "to_hit", shooter="tank") == 6 and _run(package, "to_hit", shooter="rifles") == 5


@pytest.mark.parametrize("old,new,message,hint_text", [
    ("shooter.shoot", "shooter.men", "ref a_units | b_units: 'men' is a field of a_units but not of b_units", "fields every one has: name, shoot"),
    ("shooter.shoot", "shooter.shot", "ref a_units | b_units has no field 'shot'", "did you mean 'shoot'"),
    ("  armour: int \"Armour\"\n  shoot: int", "  armour: int \"Armour\"\n  shoot: decimal", "field 'shoot' has a different type in each catalog (int in a_units, decimal in b_units)", "one type"),
    ("tank | \"Tank\"", "rifles | \"Tank\"", "ref a_units | b_units: 'rifles' is an id of both a_units and b_units", "must be unique"),
])
def test_several_catalog_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, SEVERAL.replace(old, new), message, hint_text, line=SEVERAL.count("\n", 0, SEVERAL.index("return shooter")) + 1)


def test_a_one_column_table_among_several_catalogs_has_no_fields(tmp_path):
    body = SEVERAL.replace("ref a_units | b_units", "ref a_units | extra") + """
table extra "Extra" by id: id "Id" -> shoot: int "Shoot" {
  gun "Gun" | 3
}
"""
    _expect_one_error(tmp_path, body, "table extra has one column", "extra[")


# ---- 3. list concatenation; 4. filters narrow optional types -------------------------------------

LISTS = """
procedure joined "Joined" (xs: list[int], ys: list[int], y: int) -> list[int] {
  return xs + ys + [y] + []
}

procedure widened "Widened" (xs: list[int], zs: list[decimal]) -> list[decimal] {
  return xs + zs
}

procedure least "Least" (ws: list[int?]) -> int {
  return min([w for w in ws if w != none])
}

record Slot "Slot" {
  bonus: int? "Bonus"
}

procedure bonuses "Bonuses" (slots: list[Slot]) -> int {
  return sum([s.bonus for s in slots if s.bonus != none and s.bonus > 0])
}
"""


def test_lists_join_and_filters_narrow(tmp_path):
    from fractions import Fraction

    package = _load(tmp_path, LISTS)
    assert _run(package, "joined", xs=[1, 2], ys=(3,), y=4) == (1, 2, 3, 4)
    assert _run(package, "widened", xs=[1], zs=[Fraction(1, 2)]) == (1, Fraction(1, 2))
    assert _run(package, "least", ws=[None, 5, 3, None]) == 3
    slot = package.types.Slot
    assert _run(package, "bonuses", slots=[slot(bonus=None), slot(bonus=2), slot(bonus=-1), slot(bonus=3)]) == 5


@pytest.mark.parametrize("old,new,message,hint_text", [
    ("return xs + ys + [y] + []", "return xs + y", "'+' joins two lists, got int", "[x] + ys"),
    ("return xs + ys + [y] + []", "return y + xs", "'+' joins two lists, got int", "[x] + ys"),
    ("return xs + ys + [y] + []", 'return xs + ["a"]', "'+' joins lists of one type, got list[int] and list[text]", ""),
    ("[w for w in ws if w != none]", "[w for w in ws if w == none]", "returns int?, but the procedure's result is int", ""),
    ("[w for w in ws if w != none]", "[w for w in ws]", "returns int?, but the procedure's result is int", ""),
])
def test_list_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, LISTS.replace(old, new), message, hint_text)


# ---- 5. odds tables over booleans, catalog ids and lists of values written as in code ------------

ODDS = UNITS + """
procedure shot "Shot" (unit: ref units, aimed: bool, side: Faction) -> bool {
  return roll d6 + (if aimed then 1 else 0) + (if side == Faction.red then 1 else 0) >= unit.shoot + 2
}

odds by_unit "Shots by unit" {
  procedure shot(unit: u, aimed: a, side: Faction.blue)
  rows u in units "Unit"
  columns a in [true, false] "Aimed"
  cell probability(result)
}

odds by_aim "Shots by aim" {
  procedure shot(unit: u, aimed: a, side: Faction.blue)
  rows a in bool "Aimed"
  columns u in [units.blue_guard] "Unit"
  cell probability(result)
}

odds by_side "Shots by side" {
  procedure shot(unit: units.red_guard, aimed: false, side: s)
  rows s in [Faction.blue, Faction.red] "Side"
  cell probability(result)
}
"""


def _odds_tables(checked) -> dict:
    from rulebook.compiler.analysis.odds import compute
    from rulebook.compiler.emit.data import to_json
    from rulebook.compiler.pipeline import pyload

    package = pyload.compile_and_load(checked.program)
    return to_json.odds_doc(compute(package), checked.program)["tables"]


def test_odds_rows_and_columns_over_booleans_catalog_ids_and_listed_values(tmp_path):
    tables = _odds_tables(_ok(tmp_path, ODDS))
    unit = tables["by_unit"]
    assert unit["rows"]["values"] == ["red_guard", "blue_guard"] and unit["columns"]["values"] == [True, False]
    # red_guard shoots 4: needs 6 (5 aimed); blue_guard shoots 5: needs 7 (6 aimed)
    assert unit["cells"] == [["1/3", "1/6"], ["1/6", "0/1"]]
    aim = tables["by_aim"]
    assert aim["rows"] == {"variable": "a", "title": "Aimed", "values": [True, False]} and aim["cells"] == [["1/6"], ["0/1"]]
    assert tables["by_side"]["rows"]["values"] == ["blue", "red"] and tables["by_side"]["cells"] == [["1/6"], ["1/3"]]


def test_odds_over_ids_and_booleans_show_titles_on_the_site(tmp_path):
    _ok(tmp_path, ODDS)
    out = tmp_path.parent / (tmp_path.name + "-out")
    built = driver.build(tmp_path, out, site=False)
    assert built.ok, [d.message for d in built.diagnostics if d.severity == "error"]
    page = next((out / "docs").glob("01-*.md")).read_text(encoding="utf-8")
    assert "| <a href=\"#units--red_guard\">Red Guard</a> |" in page and "| yes |" in page and "| Blue |" in page


@pytest.mark.parametrize("old,new,message,hint_text", [
    ("rows u in units", "rows u in unitz", "unknown enum, catalog or bool 'unitz'", "did you mean 'units'"),
    ("[true, false]", "[true, 1]", "the values of an odds axis are whole numbers, true/false, Enum.value or catalogo.id, all of one kind; got the number 1", ""),
    ("[units.blue_guard]", "[blue_guard]", "the values of an odds axis are whole numbers", "write units.blue_guard"),
    ("[units.blue_guard]", "[units.green_guard]", "'green_guard' is not an entry of units", "did you mean 'red_guard'"),
    ("[Faction.blue, Faction.red]", "[Faction.blue, units.red_guard]", "the values of an odds axis are of one kind: Faction.…", "write Faction.<value>"),
    ("[Faction.blue, Faction.red]", "[Faction.blue, Faction.green]", "'green' is not a value of Faction", ""),
])
def test_odds_axis_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, ODDS.replace(old, new), message, hint_text)


# ---- 6. a cost field without a quality table -----------------------------------------------------

PRICED = UNITS.replace('catalog units "Units"', '@datasheet "Units"\n@cost_field "points"\ncatalog units "Units"')


def test_a_cost_field_alone_is_the_cost(tmp_path):
    from rulebook.compiler import ir

    checked = _ok(tmp_path, PRICED)
    cost = checked.program.get("units", ir.Catalog).cost
    assert (cost.field, cost.field_title, cost.table, cost.levels) == ("points", "Points", None, ())
    out = tmp_path.parent / (tmp_path.name + "-out")
    built = driver.build(tmp_path, out, site=False)
    assert built.ok, [d.message for d in built.diagnostics if d.severity == "error"]
    cards = (out / "docs").glob("*.md")
    text = "\n".join(p.read_text(encoding="utf-8") for p in cards)
    assert 'data-cost="10"' in text and 'data-cost="12"' in text  # the index of datasheets filters by it


@pytest.mark.parametrize("old,new,message,hint_text", [
    ('@cost_field "points"', '@cost_modifier "points"', "@cost_modifier needs @cost_field", '@cost_field "field"'),
    ('@cost_field "points"', '@cost_field "name"', "@cost_field: 'name' is not an int field of record Unit", ""),
    ('@datasheet "Units"\n', "", "@cost_field / @cost_modifier need @datasheet on the same catalog", ""),
])
def test_cost_field_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, PRICED.replace(old, new), message, hint_text)


# ---- 7. catalog rows with named cells ------------------------------------------------------------

NAMED = """
record Stats "Stats" {
  a: int "A"
  b: int "B"
}

record Trooper "Trooper" {
  name: text "Name"
  shoot: int "Shoot"
  melee: int "Melee"
  note: text? "Note"
  stats: Stats "Stats"
  tags: list[text] "Tags"
}

catalog troopers "Troopers" of Trooper {
  rifles | "Rifles" | (shoot: 4, melee: 3, stats: (1, 2))
  tank | (name: "Tank", melee: 1, shoot: 5, note: "Big", stats: (a: 1, b: 2), tags: ["armour"])
  mg | "MG" | 2 | 2 | - | (a: 3, b: 4) | []
}
"""


def test_named_cells_give_the_same_entries_as_positions(tmp_path):
    from rulebook.compiler import ir

    entries = _ok(tmp_path, NAMED).program.get("troopers", ir.Catalog).entries
    assert entries == {
        "rifles": {"name": "Rifles", "shoot": 4, "melee": 3, "note": None, "stats": {"a": 1, "b": 2}, "tags": []},
        "tank": {"name": "Tank", "shoot": 5, "melee": 1, "note": "Big", "stats": {"a": 1, "b": 2}, "tags": ["armour"]},
        "mg": {"name": "MG", "shoot": 2, "melee": 2, "note": None, "stats": {"a": 3, "b": 4}, "tags": []},
    }


def test_named_cells_after_columns_and_a_record_column_by_name(tmp_path):
    from rulebook.compiler import ir

    body = NAMED.replace('catalog troopers "Troopers" of Trooper {\n', 'catalog troopers "Troopers" of Trooper {\n  columns name | stats\n')
    body = body.replace('  rifles | "Rifles" | (shoot: 4, melee: 3, stats: (1, 2))', '  rifles | "Rifles" | (a: 1, b: 2) | (shoot: 4, melee: 3)')
    body = body.replace('  tank | (name: "Tank",', '  tank | (name: "Tank",').replace('  mg | "MG" | 2 | 2 | - | (a: 3, b: 4) | []\n', '  mg | "MG" | (a: 3, b: 4) | (shoot: 2, melee: 2)\n')
    entries = _ok(tmp_path, body).program.get("troopers", ir.Catalog).entries
    assert entries["rifles"]["stats"] == {"a": 1, "b": 2} and entries["rifles"]["shoot"] == 4 and entries["mg"]["melee"] == 2


ROW = '  rifles | "Rifles" | (shoot: 4, melee: 3, stats: (1, 2))'


@pytest.mark.parametrize("new,message,hint_text", [
    ('  rifles | "Rifles" | (shoot: 4, melle: 3, stats: (1, 2))', "row 'rifles': record Trooper has no field 'melle'", "did you mean 'melee'"),
    ('  rifles | "Rifles" | (shoot: 4, melee: 3, shoot: 5, stats: (1, 2))', "row 'rifles': field 'shoot' is named twice", ""),
    ('  rifles | "Rifles" | (name: "R", shoot: 4, melee: 3, stats: (1, 2))', "row 'rifles': field 'name' is given twice, by position and by name", "leave 'name:' out"),
    ('  rifles | "Rifles" | (shoot: 4, stats: (1, 2))', "row 'rifles' gives no value for field melee of Trooper", "(melee: …)"),
    ('  rifles | "Rifles" | 4 | 3', "row 'rifles' has 3 values but catalog troopers has 6 columns", "or name the cells after the first ones: rifles | … | (note: …, …)"),
])
def test_named_cell_mistakes(tmp_path, new, message, hint_text):
    _expect_one_error(tmp_path, NAMED.replace(ROW, new), message, hint_text, line=NAMED.count("\n", 0, NAMED.index(ROW)) + 1)


# ---- 8. content/1936: the procedures that take a unit give the distributions of those that take its numbers

UNIT_CATALOGS = ("infanteria_nacional", "vehiculos_ligeros_nacionales", "antiaereos_nacionales", "canones_antitanque_nacionales",
                 "carros_combate_nacionales", "artilleria_nacional", "transportes_nacionales", "infanteria_republicana",
                 "vehiculos_ligeros_republicanos", "antiaereos_republicanos", "canones_antitanque_republicanos",
                 "carros_combate_republicanos", "artilleria_republicana", "transportes_republicanos")


def _units(package, catalogs=UNIT_CATALOGS):
    from rulebook.compiler.emit.python.names import py_name

    return [(ident, entry) for c in catalogs for ident, entry in getattr(package.data, f"CATALOG_{py_name(c)}").items()]


def _same(package, new: str, old: str, new_args: dict, old_args: dict) -> None:
    from rulebook import runtime

    first = runtime.exact(package.PROCEDURES[new].function, **new_args)
    second = runtime.exact(package.PROCEDURES[old].function, **old_args)
    assert dict(first.items()) == dict(second.items()), (new_args, old_args)


def test_coste_de_unidad_is_coste_unidad_with_the_units_cost(package):
    for ident, entry in _units(package):
        for quality in ("green", "regular", "veteran", "elite"):
            _same(package, "coste_de_unidad", "coste_unidad", {"unidad": ident, "calidad": quality}, {"coste_base": entry.coste, "calidad": quality})


@pytest.mark.parametrize("perfil,modo,distancia,flags", [
    ("fusiles_seccion", "area", 15, {}),
    ("fusiles_seccion", "preciso", 60, {"blanco_a_cubierto": True}),
    ("pak_35_36_37", "preciso", 20, {"municion": "ap", "blanco_vehiculo": True}),
])
def test_disparo_contra_unidad_is_disparo_directo_with_the_units_p(package, perfil, modo, distancia, flags):
    shared = {"perfil": perfil, "modo": modo, "distancia": distancia, "calidad": "regular", **flags}
    for ident, entry in _units(package):
        _same(package, "disparo_contra_unidad", "disparo_directo", {**shared, "blanco": ident}, {**shared, "p": entry.p})


def test_chequeo_moral_unidad_is_chequeo_moral_with_the_units_size_and_rules(package):
    def has(entry, rule):
        return any(app.rule == rule for app in entry.reglas)

    for ident, entry in _units(package, ("infanteria_nacional", "infanteria_republicana")):
        flags = {f"con_{r}": has(entry, r) for r in ("fanatico", "disciplinados", "indisciplinados")}
        for quality, bajas, motivo in (("green", 2, "bajas"), ("regular", 4, "bajas"), ("veteran", 4, "panico_aliado")):
            shared = {"bajas": bajas, "calidad": quality, "motivo": motivo}
            _same(package, "chequeo_moral_unidad", "chequeo_moral", {**shared, "unidad": ident}, {**shared, "tipo": entry.moral_tamano, **flags})
