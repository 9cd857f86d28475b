"""Exact distributions from the generated code against independent oracles.

* pure dice expressions of the rulebook against icepool 2.1.3;
* whole procedures against 100 000 sampled resolutions with a fixed seed.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

icepool = pytest.importorskip("icepool")


def _icepool_dist(die):
    return {k: Fraction(v, die.denominator()) for k, v in die.items()}


@pytest.mark.parametrize("calidad,dice,keep", [("green", 3, "lowest"), ("regular", 2, None), ("veteran", 3, "highest"), ("elite", 4, "highest")])
def test_quality_roll_matches_icepool(package, calidad, dice, keep):
    from rulebook import runtime

    dist = runtime.exact(package.PROCEDURES["tirada_calidad"].function, calidad=calidad)
    shooting_die = icepool.Die([1, 1, 0, 0, -1, -1])
    pool = shooting_die.pool(dice)
    oracle = (pool.highest(2) if keep == "highest" else pool.lowest(2) if keep == "lowest" else pool).sum()
    assert dict(dist.items()) == _icepool_dist(oracle)


def test_variation_dice_match_icepool(package):
    from rulebook import runtime

    data = package.data
    die = data.DIE_DadoVariacion
    rv = runtime.pool_sum(die, 2)
    oracle = 2 @ icepool.Die([1, -1, 0, 0, 0, 0])
    assert dict(rv.outcomes()) == _icepool_dist(oracle)


@pytest.mark.parametrize(
    "name,inputs",
    [
        ("resolucion_impacto", {"i_base": 6, "m": 0, "p": 7, "calidad": "veteran"}),
        ("disparo_directo", {"perfil": "fusiles_seccion", "modo": "area", "distancia": 15, "p": 5, "calidad": "regular"}),
        ("danio_vehiculo", {"d_final": 4, "resistencia": 3, "marcadores_danado": 1}),
        ("chequeo_moral", {"bajas": 4, "tipo": "seccion", "calidad": "regular"}),
        ("planificacion_bombardeo", {"calidad_principal": "veteran", "observadores_adicionales": 1, "fuera_en_blanco": 3}),
        ("robo_emplazamiento", {"terreno": "colinas", "tamano": "grande"}),
        ("tirada_dados_ordenes", {"oficiales": ["regular"]}),
    ],
)
def test_exact_matches_100000_samples(package, name, inputs):
    from rulebook import runtime

    proc = package.PROCEDURES[name]
    kwargs = proc.convert(inputs)
    exact = runtime.exact(proc.function, **kwargs)
    n = 100_000
    counts = runtime.sample_many(proc.function, n, 20261130, **kwargs)
    assert set(counts) <= set(exact)
    for outcome, p in exact.items():
        freq = counts.get(outcome, 0) / n
        se = math.sqrt(float(p) * (1 - float(p)) / n) or 1 / n
        assert abs(freq - float(p)) <= 5 * se + 1e-9, (outcome, freq, float(p))


# --------------------------------------------------------------------------- states against paths
#
# rulebook.runtime.exact explores each distinct state once (what the compiler says the rest of a
# procedure reads after a roll), projects rolls of named faces to the counts read, and
# takes the results of a procedure that rolls dice as one choice. With every_path it
# does none of that: it runs the traced resolvers over every path of every roll, as the
# first runtime did. Both must give the same exact distributions.


def _same_by_both(fn, kwargs):
    from rulebook import runtime

    try:
        fast = runtime.exact(fn, **kwargs)
    except runtime.RuleError:
        # both fail; when several paths fail, which one is met first may differ (a roll
        # seen through some of its counts lists its outcomes in another order)
        with pytest.raises(runtime.RuleError):
            runtime.exact(fn, every_path=True, max_work=10**8, **kwargs)
        return
    assert fast == runtime.exact(fn, every_path=True, max_work=10**8, **kwargs)


def _rulebooks():
    from conftest import DATA, ROOT

    found = sorted(p for p in (ROOT / "content").iterdir() if p.is_dir())
    return found + sorted((DATA / "python").glob("*.rules")) + [DATA / "exact" / "combate_tercios.rules"]


@pytest.mark.parametrize("rulebook", _rulebooks(), ids=lambda p: p.name)  # every path can be enumerated
def test_examples_and_odds_match_every_path_enumeration(rulebook):
    from rulebook.compiler.pipeline import driver, pyload

    checked = driver.check(rulebook)
    assert checked.ok
    pkg = pyload.compile_and_load(checked.program)
    for example in pkg.examples.EXAMPLES:
        _same_by_both(pkg.PROCEDURES[example.procedure].function, example.inputs)
    for odds in pkg.odds.ODDS:
        fn = pkg.PROCEDURES[odds.procedure].function
        for group in odds.each.values if odds.each else [None]:
            for row in odds.rows.values:
                for column in odds.columns.values if odds.columns else [None]:
                    _same_by_both(fn, odds.inputs(row, column, group))


_PRELUDE = """```rules
rulebook azar "Azar" version "1" lang "es"
section A "Azar"
die Moneda "Moneda" = [0, 1, 1]
enum Cara "Cara" {
  a "A"
  b "B"
  c "C"
}
die Letras "Letras" of Cara = [a, b, b, c]
bag Saco "Saco" { a: 2, b: 1, c: 2 }
record Par "Par" {
  x: int "X"
  y: int "Y"
}
procedure ayuda "Ayuda" (n: int) -> Par {
  let u = roll d3
  return Par(x: u + n, y: roll Moneda)
}
"""


def _random_procedure(rng, name: str) -> str:
    """A procedure of lets, sums, conditionals, early returns, rolls of every kind and
    calls, written as a designer would: what the liveness analysis must get right."""
    names = ["a"]

    def pick():
        return rng.choice(names)

    def expr(depth: int = 0) -> str:
        choices = [
            lambda: rng.choice(["roll d2", "roll d3", "roll Moneda", "roll Moneda times 2", "roll d3 times 2 keep highest 1"]),
            lambda: f"roll d2 times {pick()} count >= 2" if depth == 0 else "roll d2",
            lambda: f"(roll Letras times 2).{rng.choice('abc')}",
            lambda: f"(draw 2 from Saco).{rng.choice('abc')}",
            lambda: f"ayuda(n: {pick()}).{rng.choice('xy')}",
            lambda: f"{pick()} + {pick()}",
            lambda: f"{pick()} - {rng.randint(0, 2)}",
            lambda: f"max({pick()}, {expr(depth + 1) if depth < 1 else pick()})",
            lambda: f"(if {pick()} > {rng.randint(0, 2)} then {expr(depth + 1) if depth < 1 else pick()} else {pick()})",
            lambda: f"{pick()} + ({expr(depth + 1)})" if depth < 1 else pick(),
        ]
        return rng.choice(choices)()

    record = rng.random() < 0.3
    lines = []
    for i in range(rng.randint(2, 5)):
        if rng.random() < 0.3:
            inner = f"w{i}"
            lines.append(f"  if {pick()} > {rng.randint(1, 3)} {{")
            lines.append(f"    let {inner} = {expr()}")
            early = f"{inner} + {pick()}"
            lines.append(f"    return Par(x: {early}, y: {pick()})" if record else f"    return {early}")
            lines.append("  }")
        var = f"v{i}"
        lines.append(f"  let {var} = {expr()}")
        names.append(var)
    total = " + ".join(rng.sample(names[1:], k=rng.randint(1, len(names) - 1)))
    if record:
        ending, result = f"return Par(x: {total}, y: {pick()})", "Par"
    else:
        ending, result = rng.choice([f"return {total}", f"return max({total}, {pick()})"]), "int"
    return f'procedure {name} "{name}" (a: int) -> {result} {{\n' + "\n".join(lines) + f"\n  {ending}\n}}\n"


def test_random_procedures_match_every_path_enumeration(tmp_path):
    import random

    from rulebook.compiler.pipeline import driver, pyload

    rng = random.Random(20261201)
    procedures = [_random_procedure(rng, f"p{i}") for i in range(80)]
    path = tmp_path / "azar.rules"
    path.write_text(_PRELUDE + "\n".join(procedures) + "```\n", encoding="utf-8")
    checked = driver.check(path)
    assert checked.ok, [d.render(checked.sources) for d in checked.diagnostics if d.severity == "error"]
    pkg = pyload.compile_and_load(checked.program)
    for i in range(80):
        for a in (0, 1, 2):
            _same_by_both(pkg.PROCEDURES[f"p{i}"].function, {"a": a})


def test_summed_quality_rolls_match_icepool():
    """12 Quality rolls added up: 5^12 paths, explored as 49 totals per roll."""
    from rulebook import runtime
    from rulebook.compiler.pipeline import driver, pyload
    from conftest import DATA

    checked = driver.check(DATA / "exact" / "suma_tiradas.rules")
    pkg = pyload.compile_and_load(checked.program)
    dist = runtime.exact(pkg.PROCEDURES["suma_tiradas"].function)
    oracle = 12 @ (2 @ icepool.Die([1, 1, 0, 0, -1, -1]))
    assert dict(dist.items()) == _icepool_dist(oracle)


def test_many_officers_match_icepool(package):
    """friccion_tras_repeticiones with 8 Élite officers: 40 order dice, seen through their Fricción count."""
    from rulebook import runtime

    proc = package.PROCEDURES["friccion_tras_repeticiones"]
    dist = runtime.exact(proc.function, **proc.convert({"oficiales": ["elite"] * 8}))
    friccion = icepool.Die([0, 0, 0, 0, 0, 1]).pool(40).sum()
    oracle = friccion.map(lambda n: max(0, n - 30))
    assert dict(dist.items()) == _icepool_dist(oracle)


def test_transport_losses_match_icepool(package):
    """bajas_transporte_destruido with 300 Transports: 900 + 600 variation dice (icepool needs
    seconds beyond that; bench/run.py times 1,000)."""
    from rulebook import runtime

    proc = package.PROCEDURES["bajas_transporte_destruido"]
    dist = runtime.exact(proc.function, **proc.convert({"puntos_baja_restantes": 890, "transportes_destruidos": 300}))
    oracle = 900 + 600 @ icepool.Die([1, -1, 0, 0, 0, 0])
    assert dict(dist.map(lambda r: r.bajas).items()) == _icepool_dist(oracle)
    assert dist.probability(lambda r: r.perdidas > 0) == _icepool_dist(oracle.map(lambda b: b > 890)).get(True, 0)
