"""The bundled rulebook ``content/tercios`` (Tercios – Brevis Editio): check, examples, build.

Builds the rulebook once for this module, with its site, through ``rulebook.compiler.pipeline.driver``, and
checks that: the check reports no error and exactly the warnings listed in
``tests/data/tercios_warnings.txt`` (none today); every worked example passes and every
procedure has one; the dice procedures agree with icepool, an independent oracle, over
whole ranges of inputs; the site has a page per section, the datasheets and the missing
values marked visibly; and the counts the closing note of issue 9 quotes still hold.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from conftest import build_rulebook

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content" / "tercios"
WARNINGS = Path(__file__).resolve().parent / "data" / "tercios_warnings.txt"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return build_rulebook(tmp_path_factory, CONTENT, "tercios", site=True)


@pytest.fixture(scope="module")
def package(build):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(build[0].program)


def test_check_reports_only_the_listed_warnings(build):
    result, _ = build
    lines = sorted(f"{d.span.file}: {d.code}: {d.message}" for d in result.diagnostics)
    assert lines == WARNINGS.read_text(encoding="utf-8").splitlines()


def test_every_example_passes_and_every_procedure_has_one(package):
    from rulebook.compiler.analysis.examples import run_examples

    results = run_examples(package)
    failed = [(r.title, r.src, r.failures, r.error) for r in results if not r.ok]
    assert not failed
    missing = set(package.PROCEDURES) - {e.procedure for e in package.examples.EXAMPLES}
    assert not missing, sorted(missing)


def _exact(package, name: str, **inputs):
    from rulebook import runtime

    proc = package.PROCEDURES[name]
    return runtime.exact(proc.function, **proc.convert(inputs))


def test_order_and_break_checks_agree_with_icepool(package):
    import icepool

    for disciplina in range(1, 7):
        dist = _exact(package, "chequeo_orden", disciplina=disciplina, desgaste=1)
        oracle = (disciplina @ (icepool.d6 >= 5)).probability(">=", 1)
        assert dist.probability(lambda r: r.superado) == oracle
        for puntos in range(1, 4):
            dist = _exact(package, "chequeo_ruptura", disciplina_original=disciplina, puntos_ruptura=puntos)
            assert dist.probability(lambda r: r) == (disciplina @ (icepool.d6 == 6)).probability(">=", puntos)


@pytest.mark.parametrize("unidad, enemigo, dados, defensa, coraje", [
    ("tercio_viejo", "coraceros", 5, 4, 4),
    ("coraceros", "compania_piqueros", 4, 5, 3),
    ("bateria_canones_ligeros", "tercio", 2, 4, 4),
])
def test_combat_round_agrees_with_icepool(package, unidad, enemigo, dados, defensa, coraje):
    import icepool

    hits = dados @ (icepool.d6 >= defensa)
    saves = coraje @ (icepool.d6 >= 5)
    oracle = icepool.map(lambda h, s: max(h - s, 0), hits, saves)
    dist = _exact(package, "ronda_combate", unidad=unidad, enemigo=enemigo)
    for wear in range(dados + 1):
        assert dist.probability(lambda r: r.desgaste == wear) == oracle.probability(wear), wear


def test_break_check_after_combat_agrees_with_icepool(package):
    """Coraceros (¡Atacad!: 6 dice at 3+) charge Arcabuceros a pie (2 dice at 4+; Coraje 3
    and 4 at 5+): the infantry is destroyed by Persecución, or over its Aguante 2 fails
    its Chequeo de Ruptura (Disciplina 3 × D6, one 6 per Punto de Ruptura)."""
    import icepool

    def destroyed(h1, s1, h2, s2):
        wear_def, wear_att = max(h1 - s1, 0), max(h2 - s2, 0)
        if wear_def > wear_att and h1 > 0 and s1 == 0:
            return 1
        points = wear_def - 2
        return 0 if points <= 0 else (3 @ (icepool.d6 == 6) < points).map(lambda failed: 1 if failed else 0)

    oracle = icepool.map(destroyed, 6 @ (icepool.d6 >= 3), 3 @ (icepool.d6 >= 5), 2 @ (icepool.d6 >= 4), 4 @ (icepool.d6 >= 5))
    dist = _exact(package, "combate", atacante="coraceros", defensor="arcabuceros_a_pie")
    assert dist.probability(lambda r: r.defensor.destruida) == oracle.probability(1)


def test_initiative_rerolled_until_different_is_even(package):
    dist = _exact(package, "iniciativa")
    assert dist.probability(lambda r: r == "jugador_a") == Fraction(1, 2)


def test_site_has_every_section_the_datasheets_and_the_missing_values(build):
    _, out = build
    site = out / "site"
    pages = sorted(p.name for p in site.glob("[0-9][0-9]-*.html"))
    assert len(pages) == 11, pages
    assert (site / "fichas-fichas-de-las-tropas.html").read_text(encoding="utf-8").count("Tercio Viejo") >= 1
    assert "No jugable" in (site / "09-la-batalla.html").read_text(encoding="utf-8")
    assert "Aplazada" in (site / "08-el-ejercito.html").read_text(encoding="utf-8")
    assert '<html lang="es"' in (site / "index.html").read_text(encoding="utf-8")


def test_counts_quoted_in_the_closing_note(build):
    from rulebook.compiler import ir

    program = build[0].program
    assert len(program.sections) == 11
    assert len(program.tables) == 17
    assert {name: len(c.entries) for name, c in program.catalogs.items()} == {
        "armas": 8, "regimientos": 17, "tropas": 19, "elementos_terreno": 11}
    assert len(program.of(ir.Rule)) == 17  # with the type rules reglas_caballeria and reglas_artilleria
    assert len(program.of(ir.Procedure)) == 29  # with valor_apilado and aumentos_netos, the stacking rules of modifiers, and combate_repetido (balance)
    assert len(program.examples) == 112
    assert len(program.of(ir.Term)) == 18
