"""Language features as designers use them: ``repeat … until``, granted rules,
``min``/``max`` of a list that may be empty.

Reads the small rulebooks of ``tests/data/features/*.rules`` (each one's worked
examples state the exact odds, computed by hand in their titles) and the
bundled ``content/tercios``. Checks, through the generated resolvers: every
example holds; exact odds of a repeat condition on the stop and agree with the
every-path enumeration; a sampled repeat keeps only runs where its condition
holds, shows each run in the trace, and one whose condition never holds stops
at the work limit with an error naming the procedure, the step and the
condition; an empty ``max`` is a rule error citing its line; granted rules are
seen by ``has_rule``/``rule_param`` (Tercios' cavalry included).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import pytest

from conftest import DATA, ROOT

FEATURES = sorted((DATA / "features").glob("*.rules"))


@lru_cache(maxsize=None)
def _package(path: str):
    from rulebook.compiler.pipeline import driver, pyload

    checked = driver.check(ROOT / path)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert not errors, errors
    return pyload.compile_and_load(checked.program)


def _proc(path: str, name: str):
    return _package(path).PROCEDURES[name].function


REPEAT = "tests/data/features/repeat.rules"
GRANTS = "tests/data/features/grants.rules"
TERCIOS = "content/tercios"


@pytest.mark.parametrize("case", FEATURES, ids=[c.stem for c in FEATURES])
def test_feature_examples_hold(case):
    from rulebook.compiler.analysis.examples import run_examples

    results = run_examples(_package(str(case.relative_to(ROOT))))
    assert results, "a feature rulebook without examples tests nothing"
    failed = [(r.title, r.failures, r.error) for r in results if not r.ok]
    assert not failed, failed


@pytest.mark.parametrize("name, kwargs", [("mayor", {}), ("par", {}), ("umbral", {"minimo": 9}), ("anidado", {})])
def test_exact_repeat_matches_every_path_enumeration(name, kwargs):
    from rulebook import runtime

    fn = _proc(REPEAT, name)
    assert runtime.exact(fn, **kwargs) == runtime.exact(fn, every_path=True, **kwargs)


def test_exact_repeat_conditions_on_the_stop():
    """Each of the 30 distinct pairs is equally likely: 1/30, not the truncated 1/36."""
    from rulebook import runtime

    dist = runtime.exact(_proc(REPEAT, "par"))
    assert len(dist) == 30
    assert {p for _, p in dist.items()} == {Fraction(1, 30)}
    assert all(pair.a != pair.b for pair in dist)


def test_sampled_repeat_keeps_the_run_where_the_condition_holds():
    from rulebook import runtime

    fn = _proc(REPEAT, "par")
    seen = {runtime.sample(fn, seed=seed, trace=False)[0] for seed in range(300)}
    assert all(pair.a != pair.b for pair in seen)
    assert len(seen) > 20  # the sampler explores the pairs, not one fixed answer


def test_trace_shows_each_run_of_a_repeat():
    from rulebook import runtime

    fn = _proc(REPEAT, "mayor")
    for seed in range(200):
        _, trace = runtime.sample(fn, seed=seed, trace=True)
        text = trace.render_text()
        if "until a != b = false" in text:  # a tie was re-rolled
            break
    else:
        pytest.fail("no seed of 200 rolled a tie")
    lines = text.splitlines()
    assert sum("until a != b = " in line for line in lines) >= 2
    assert lines[[i for i, line in enumerate(lines) if "until a != b" in line][-1]].strip() == "until a != b = true"


@pytest.mark.parametrize("traced", [False, True])
def test_sampled_repeat_that_never_stops_hits_the_work_limit(traced):
    from rulebook import runtime

    with pytest.raises(runtime.WorkLimitError) as failure:
        runtime.sample(_proc(REPEAT, "umbral"), seed=1, trace=traced, max_work=20_000, minimo=13)
    message = str(failure.value)
    for fragment in ("repeticiones", "«tirada >= minimo»", "en umbral, paso 1", "repeat.rules:54", "--max-work"):
        assert fragment in message, (fragment, message)


def test_exact_repeat_that_never_stops_is_a_rule_error():
    from rulebook import runtime

    with pytest.raises(runtime.RuleError) as failure:
        runtime.exact(_proc(REPEAT, "umbral"), minimo=13)
    message = str(failure.value)
    assert "tirada >= minimo" in message and "no se cumple" in message and "repeat.rules:54" in message


@pytest.mark.parametrize("traced", [False, True])
def test_max_of_a_list_that_turns_out_empty_is_a_rule_error(traced):
    from rulebook import runtime

    fn = _proc(REPEAT, "vacio")
    assert runtime.sample(fn, seed=1, trace=traced, valores=[1, 7, 3])[0] == 7
    with pytest.raises(runtime.RuleError) as failure:
        runtime.sample(fn, seed=1, trace=traced, valores=[1, 2])
    assert "max() de una lista vacía" in str(failure.value) and "repeat.rules:92" in str(failure.value)


def test_rule_queries_see_granted_rules():
    from rulebook import runtime

    pkg = _package(GRANTS)
    fn = pkg.PROCEDURES["capacidad"].function
    answers = {u: runtime.sample(fn, seed=1, trace=False, unidad=u)[0] for u in ("fusileros", "pioneros", "zapadores", "veteranos")}
    assert [(a.cava, a.fichas) for a in answers.values()] == [(False, None), (True, 2), (True, 2), (True, 5)]
    # stacking max: the larger of the own Cavar(1) and the granted Cavar(2)
    assert runtime.sample(fn, seed=1, trace=False, unidad="bisonos")[0].fichas == 2
    # stacking sum: the own Refuerzo(1) and the granted Refuerzo(2)
    assert runtime.sample(pkg.PROCEDURES["soldados"].function, seed=1, trace=True, unidad="escoltados")[0] == 3
    # data.py keeps direct grants only; rulebook.runtime.granted follows the chain (zapadores → palas → cavar)
    assert pkg.data.GRANTS["zapadores"] == (runtime.RuleApp("palas", ()),)
    zapadores = runtime.RuleApp("zapadores", ())
    assert runtime.granted((zapadores,), pkg.data.GRANTS) == (
        zapadores, runtime.RuleApp("palas", ()), runtime.RuleApp("cavar", (("X", 2),)))


def test_tercios_initiative_is_never_a_tie():
    from rulebook import runtime

    fn = _proc(TERCIOS, "iniciativa")
    dist = runtime.exact(fn)
    assert dict(dist.items()) == {"jugador_a": Fraction(1, 2), "jugador_b": Fraction(1, 2)}
    assert {runtime.sample(fn, seed=seed, trace=False)[0] for seed in range(100)} == {"jugador_a", "jugador_b"}


def test_tercios_cavalry_has_its_type_rules_through_grants():
    from rulebook import runtime

    fn = _proc(TERCIOS, "chequeo_evasion")
    # Coraceros charged by a Tercio: Disciplina 3 with an increase, 4 dice at 5+
    dist = runtime.exact(fn, unidad="coraceros", carga="tercio")
    assert dist.probability(lambda r: r.superado) == 1 - Fraction(2, 3) ** 4
    with pytest.raises(runtime.RuleError):
        runtime.exact(fn, unidad="tercio", carga="coraceros")


STACK = "tests/data/features/stack.rules"


@pytest.mark.parametrize("name, kwargs", [
    ("disparo", {"dados_combate": 3, "apuntado": True, "friccion": 1}),
    ("velocidad", {"velocidad": 6, "corriendo": True, "terreno_facil": False, "terreno_dificil": True}),
])
def test_exact_stack_matches_every_path_enumeration(name, kwargs):
    from rulebook import runtime

    fn = _proc(STACK, name)
    assert runtime.exact(fn, **kwargs) == runtime.exact(fn, every_path=True, **kwargs)


def test_trace_lists_each_source_of_a_stack_that_applies():
    from rulebook import runtime

    fn = _proc(STACK, "velocidad")
    result, trace = runtime.sample(fn, seed=1, trace=True, velocidad=6, corriendo=True, terreno_facil=False, terreno_dificil=True)
    assert result == 9
    text = trace.render_text()
    assert "«¡Corred!» = 2" in text and "«Terreno Difícil» = -1" in text
    assert "Terreno Fácil" not in text  # a source whose modifier is 0 does not apply
    assert "modificadores = [2, -1]" in text
    # the fast resolver passes the same modifiers
    assert runtime.sample(fn, seed=1, trace=False, velocidad=6, corriendo=True, terreno_facil=False, terreno_dificil=True)[0] == 9


def test_tercios_shooting_names_its_sources_in_the_trace():
    from rulebook import runtime

    fn = _proc(TERCIOS, "disparo")
    _, trace = runtime.sample(fn, seed=3, trace=True, tirador="arcabuceros_a_pie", objetivo="tercio", orden="atencion",
                              objetivo_cubierto=True, objetivo_desordenado=True)
    text = trace.render_text()
    assert "«Carta de orden» = -1" in text


def test_display_and_internal_on_the_player_pages(tmp_path):
    from rulebook.compiler.pipeline import driver

    result = driver.build(ROOT / "tests/data/features/presentation.rules", tmp_path / "out", site=False)
    assert result.ok, [d.message for d in result.diagnostics]
    assert not [d for d in result.diagnostics if d.severity == "warning"]  # the unused parameter is @allow-ed
    page = (tmp_path / "out" / "docs" / "01-regimientos.md").read_text(encoding="utf-8")
    assert '1 × <a href="#tropas--tercio">Tercio</a><br>2 × <a href="#tropas--mangas">Mangas de arcabuceros</a>' in page
    assert "{: #Componente }" in page  # a record with @display keeps its declaration
    assert "{: #Recuento }" not in page and "{: #Paso }" not in page  # @internal ones do not
    assert "Recuento (sólo tipos)" not in page and "Paso interno" not in page


ODDS_READ_AXES = '''```rules
rulebook r "R" lang "en"
section I "S"
procedure two_dice "Two dice" (bonus: int) -> int {
  step "Roll" {
    return roll 2d6 + bonus
  }
}
example two_dice "At least 12 with +0" {
  given (bonus: 0)
  expect probability(result >= 12) == 1/36
}
record Bonus "Bonus" {
  bonus: int "Bonus"
}
catalog bonuses "Bonuses" of Bonus {
  plain | 0
  plus_one | 1
}
odds totals_between "Totals between" {
  procedure two_dice(bonus: bonuses[b].bonus)
  each b in bonuses "Bonus"
  rows at_least in [7, 12] "At least"
  columns under in [9, 13] "Under"
  cell probability(result >= at_least and result < under + bonuses[b].bonus)
}
odds over "Over a total" {
  procedure two_dice(bonus: 0)
  rows line in [6, 8] "Line"
  cells outcomes(result > line)
}
```
'''


def test_an_odds_cell_reads_its_axes(tmp_path):
    """The cell of an odds table may read the rows, columns and ``each`` values, as the
    procedure's arguments do (``rows at_least in …`` with ``cell probability(result >= at_least)``)."""
    from rulebook.compiler.analysis import odds
    from rulebook.compiler.pipeline import driver, pyload

    (tmp_path / "r.rules").write_text(ODDS_READ_AXES, encoding="utf-8")
    checked = driver.check(tmp_path)
    assert checked.ok, [d.message for d in checked.diagnostics]
    at_least, over = odds.compute(pyload.compile_and_load(checked.program))
    assert at_least.errors == [] and over.errors == []
    # bonus 0: 7 ≤ 2d6 < 9 is 11/36, 7 ≤ 2d6 < 13 is 21/36; 12 ≤ 2d6 < 9 never, < 13 is 1/36
    assert at_least.cells[0] == [[Fraction(11, 36), Fraction(21, 36)], [0, Fraction(1, 36)]]
    # bonus 1: 7 ≤ 2d6 + 1 < 10 is 2d6 in 6..8 (16/36); < 14 is 2d6 ≥ 6 (26/36); 12 ≤ 2d6 + 1 < 14 is 2d6 ≥ 11 (3/36)
    assert at_least.cells[1] == [[Fraction(16, 36), Fraction(26, 36)], [0, Fraction(3, 36)]]
    assert over.cells == [[Fraction(5, 12), Fraction(7, 12)], [Fraction(13, 18), Fraction(5, 18)]]
