"""The army documents agree with the rulebooks' own cost procedures.

Reads ``content/1936`` (checked and compiled once): its army ``listas_genericas``
as :mod:`rulebook.compiler.emit.data.to_armies` emits it, and the generated resolvers of
``coste_unidad`` and ``presupuesto_partida``. For every unit at every quality
(with every upgrade it may take, and with none) the validator's cost is the
procedure's total, and every budget (each game size and role, and agreed
points) is the procedure's. So the costs the CLI and the browser builder
compute from JSON are the manual's, without a second copy of its rules.
"""

from __future__ import annotations

import pytest

from rulebook import runtime
from rulebook.compiler.commands import roster
from rulebook.compiler.emit.data import to_armies, to_json


@pytest.fixture(scope="module")
def army(program) -> dict:
    return to_armies.army_doc(program, program.armies["listas_genericas"], to_json.content_hash(program))


def _roster(army: dict, unit: dict, **header) -> dict:
    return {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "units": [unit], **header}


def _procedure(package, name):
    fn = package.PROCEDURES[name].function
    return lambda **kw: runtime.sample(fn, seed=0, trace=False, **kw)[0]


def test_every_unit_at_every_quality_costs_what_coste_unidad_says(army, package):
    coste_unidad = _procedure(package, "coste_unidad")
    checked = 0
    for entry in army["entries"]:
        options = [army["options"][k] for k in entry["options"]]
        national = [o["id"] for o in options if o["key"].startswith("mejoras_nacionales.")]
        republican = [o["id"] for o in options if o["key"].startswith("mejoras_republicanas.")]
        assert len(national) + len(republican) == len(options)
        for quality in army["quality"]["values"]:
            for taken in ([], [o["id"] for o in options]):
                unit = {"entry": entry["id"], "quality": quality["id"], "options": taken}
                result = roster.validate(army, _roster(army, unit, side=entry["side"], role="defensor", size="grande"))
                assert result["errors"] == [], (entry["id"], result["errors"])
                expected = coste_unidad(
                    coste_base=entry["cost"], calidad=quality["id"],
                    mejoras_nacionales=[i for i in national if i in taken], mejoras_republicanas=[i for i in republican if i in taken],
                )
                assert result["units"][0]["cost"]["quality"] == expected.coste_calidad, (entry["id"], quality["id"])
                assert result["total"] == expected.total, (entry["id"], quality["id"], taken)
                checked += 1
    assert checked == len(army["entries"]) * 4 * 2 and len(army["entries"]) > 100


def test_the_upgrades_of_a_unit_are_its_sides_only(army):
    """Helmets on a T-26 are refused; each side's infantry takes its own list only."""
    entries = {e["id"]: e for e in army["entries"]}
    assert entries["r_t26_b"]["options"] == ["mejoras_republicanas.r_municion"]
    assert all(k.startswith("mejoras_nacionales.") for k in entries["n_legion"]["options"])
    assert "mejoras_republicanas.cascos" in entries["r_milicia_cnt"]["options"]
    assert entries["r_camion"]["options"] == []



def test_munition_goes_only_to_units_that_fire(army):
    """VI.12: the Munición upgrade raises the reserve of a unit that consumes Munición. A Tiznao
    without weapons (its passengers fire through the loopholes, with their own Munición) and a
    transport take no upgrade; every other vehicle, gun and piece may take Munición."""
    catalogs = {}
    for e in army["entries"]:
        catalogs.setdefault(e["catalog"], []).append(e)
    unarmed = {e["id"] for e in army["entries"] if not any(c["field"] == "armas" and c["value"] not in ("", "–", "—", "-") for c in e["card"])}
    assert {"n_tiznao", "r_tiznao", "r_tiznao_pesado", "r_tiznao_torras_ascaso"} <= unarmed
    for catalog, entries in catalogs.items():
        if catalog.startswith(("infanteria_", "transportes_")):
            continue
        for e in entries:
            want = [] if e["id"] in unarmed else [k for k in e["options"] if k.endswith("municion")]
            assert e["options"] == want and (e["id"] in unarmed or len(want) == 1), e["id"]


@pytest.mark.parametrize("role", ["atacante", "defensor"])
def test_budgets_are_presupuesto_partida(army, package, role, program):
    presupuesto = _procedure(package, "presupuesto_partida")
    some = army["entries"][0]
    unit = {"entry": some["id"], "quality": "regular"}
    for size in army["budget"]["sizes"]:
        result = roster.validate(army, _roster(army, unit, side=some["side"], role=role, size=size["id"]))
        assert result["budget"] == presupuesto(bando=role, tamano=size["id"])
    for points in (1, 7, 999, 1000, 1025, 1333, 4001):
        result = roster.validate(army, _roster(army, unit, side=some["side"], role=role, points=points))
        assert result["budget"] == presupuesto(bando=role, puntos_acordados=points), points
