"""``rulebook diff``: a copy of the bundled rulebook with one cost, one weapon
profile value and one table row changed reports exactly those, with the odds
impact and the balance shift of the cost; builds compare like folders; bad sides are clear errors."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import CONTENT, replace_loosely

EDITS = (
    ("02-costes-listas.rules", '  n_infanteria_linea | "Sección Infantería de Línea" | 80 |', '  n_infanteria_linea | "Sección Infantería de Línea" | 85 |'),
    ("06-disparo.rules", 'fusiles_seccion | "Sección de fusileros" | [(i_preciso: [9, 7, 5], i_area: [10, 8, 6], d: [(3, 1), (2, 1), (2, 1)])]\n',
     'fusiles_seccion | "Sección de fusileros" | [(i_preciso: [9, 8, 5], i_area: [10, 8, 6], d: [(3, 1), (2, 1), (2, 1)])]\n'),
    ("06-disparo.rules", '  2..2   "2"   | "Dañado + 1 Supresión + daño de componente"  | danado_supresion_componente',
     '  2..2   "2"   | "Dañado + 1 Supresión"                       | danado_supresion'),
)


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff") / "1936"
    shutil.copytree(CONTENT, folder)
    for name, old, new in EDITS:
        path = folder / name
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_loosely(text, old, new), encoding="utf-8")  # however rulebook fmt aligned it
    return folder


@pytest.fixture(scope="module")
def changes(edited):
    from rulebook.compiler.commands.diff import diff_rulebooks

    return diff_rulebooks(CONTENT, edited)


def test_reports_exactly_the_edited_data(changes):
    paths = {c.path for c in changes.data}
    assert paths == {
        ("catalogs", "infanteria_nacional", "n_infanteria_linea", "coste"),
        ("catalogs", "perfiles_armas", "fusiles_seccion", "tiro_tenso", "0", "i_preciso", "media"),
        ("tables", "margen_final_vehiculos", "margen_final=2..2", "resultado"),
        ("tables", "margen_final_vehiculos", "margen_final=2..2", "resultado_id"),
    }
    cost = next(c for c in changes.data if c.path[-1] == "coste")
    assert (cost.old, cost.new) == (80, 85)


def test_reports_the_odds_impact(changes):
    from fractions import Fraction

    # the vehicle damage table (the row), and the profile's hit chance at Media (its I at Media)
    assert changes.odds and {c.path[1] for c in changes.odds} == {"resultados_danio_vehiculo", "impacto_por_perfil_y_banda"}
    band = {c.path[2:] for c in changes.odds if c.path[1] == "impacto_por_perfil_y_banda"}
    assert band and all(group == "fusiles_seccion" and column == "35" for group, _, column in band)
    cell = next(c for c in changes.odds if c.path[2:] == ("1", "danado_supresion"))  # no group: no "None" in the path
    assert (cell.old, cell.new) == (Fraction(1, 2), Fraction(13, 18))
    assert all("None" not in c.path for c in changes.odds)
    assert {c.path[1] for c in changes.examples} >= {"danio_vehiculo"}


def test_reports_the_balance_shift_of_the_cost_edit(changes):
    """80 → 85 points: the Sección Infantería de Línea buys 80/85 of what it bought per point when
    Regular (64/68 when Verde; the Veterano and Élite costs are rounded: 104 → 111, 120 → 128), in
    the direct fire matchup against infantry; nothing else moves per point."""
    from fractions import Fraction

    from rulebook.compiler.commands.diff import as_json, render_text

    assert changes.balance and {s.attacker for s in changes.balance} == {"n_infanteria_linea"}
    fire = [s for s in changes.balance if s.matchup == "tiro_tenso_contra_infanteria"]
    ratios = {s.label.rpartition("(")[2].rstrip(")"): s.new / s.old for s in fire}
    assert ratios == {"Verde": Fraction(64, 68), "Regular": Fraction(80, 85), "Veterano": Fraction(104, 111), "Élite": Fraction(120, 128)}
    assert all(s.size == 19 and s.new_rank > s.old_rank for s in fire)
    text = render_text(changes)  # in the language of the caller's locale
    assert "Sección Infantería de Línea (Regular):" in text and "“Tiro tenso contra Infantería (bajas medias)”" in text.replace("«", "“").replace("»", "”")
    shift = next(b for b in as_json(changes)["balance"] if b["label"].endswith("(Regular)"))
    assert shift["change_percent"] == -5.88 and shift["old_rank"] <= shift["new_rank"]


def test_text_and_json_output(changes):
    from rulebook.compiler.commands.diff import as_json, render_text

    text = render_text(changes)
    assert "coste: 80 → 85" in text and "tiro_tenso[0].i_preciso.media: 7 → 8" in text
    assert "Margen Base = 1, Resultado = danado_supresion: 1/2 → 13/18" in text
    doc = json.loads(json.dumps(as_json(changes)))
    assert {"old_version", "new_version", "data", "logic", "odds", "examples", "level", "next_version"} <= set(doc)
    # probabilities are always fraction strings ("0", "1/27"), never numbers
    assert all(isinstance(c[k], str) for c in doc["odds"] for k in ("old", "new") if c[k] is not None)


def test_a_build_compared_with_itself_has_no_changes(built, capsys):
    from rulebook.compiler.commands.cli import main

    assert main(["diff", str(built), str(built)]) == 0
    assert capsys.readouterr().out.strip() == "no changes"


def test_bad_sides_are_clear_errors(tmp_path, capsys):
    from rulebook.compiler.commands.cli import main

    assert main(["diff", str(tmp_path / "missing"), str(CONTENT)]) == 2  # as diff(1): 2 for trouble
    assert "no such file or folder" in capsys.readouterr().err
    broken = tmp_path / "broken.rules"
    broken.write_text('```rules\nrulebook t "T"\nenum E { a }\nprocedure p "P" () -> E { return E.b }\n```\n', encoding="utf-8")
    assert main(["diff", str(broken), str(CONTENT)]) == 2
    err = capsys.readouterr().err
    assert "has errors" in err and "'b' is not a value of E" in err and "Traceback" not in err


def test_a_parameter_that_only_gains_a_title_is_a_patch():
    """A title is what players read: callers pass the same input, so the change is a patch."""
    from rulebook.compiler.emit.data.changes import MINOR, PATCH, _params

    old = [{"name": "cat", "title": None, "type": "int", "required": False, "default": 0}]
    out: list = []
    _params(old, [{**old[0], "title": "Categoría"}], ("procedures", "p", "params"), "procedure p", out)
    assert [(c.kind, c.level) for c in out] == [("changed", PATCH)]
    out = []
    _params(old, [{**old[0], "title": "Categoría", "default": 1}], ("procedures", "p", "params"), "procedure p", out)
    assert [(c.kind, c.level) for c in out] == [("changed", MINOR)]
