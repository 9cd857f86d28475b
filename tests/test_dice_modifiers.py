"""Dice modifiers (LANGUAGE.md, "Dice and bags in expressions"): ``reroll``, ``explode … chain K``,
per-die conditions ``each d if …``, several counts from one roll, a random number of dice.

Reads a small rulebook written here (compiled once into a package) and icepool 2.1.3 as the
oracle. Checks, through the generated resolvers: each construct's exact distribution equals
icepool's (``Die.reroll(…, depth=1)``, ``Die.explode(…, depth=K)``, pools and sums) or a plain
enumeration, at several sizes up to 20 dice re-rolling 1s and exploding 6s, on numeric dice
and dice of named faces; the work of a roll is known before it is computed and counted
against the work limit; sampled rolls agree with the exact odds and the trace says what was
rolled; every misuse is a checker diagnostic with its position and a hint.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import icepool
import pytest

RULES = '''```rules
rulebook dados "Dados" version "1" lang "en"
enum Cara "Cara" {
  blanco "Blanco"
  escudo "Escudo"
  espada "Espada"
}
die Especial "Especial" of Cara = [blanco, blanco, escudo, espada, espada, espada]
die Desigual "Desigual" = [1, 1, 2, 3, 5, 8]
die D66 "D66" = [11, 12, 13, 14, 15, 16, 21, 22, 23, 24, 25, 26, 31, 32, 33, 34, 35, 36,
                 41, 42, 43, 44, 45, 46, 51, 52, 53, 54, 55, 56, 61, 62, 63, 64, 65, 66]
record Par "Par" {
  impactos: int "Impactos"
  seises: int "Seises"
}
procedure repite "Repite" (n: int) -> int {
  return roll d6 times n reroll 1
}
procedure explota "Explota" (n: int) -> int {
  return roll d6 times n explode 6
}
procedure cadena "Cadena" (n: int) -> int {
  return roll d6 times n explode >= 5 chain 3
}
procedure ambos "Ambos" (n: int) -> int {
  return roll d6 times n reroll 1 explode 6
}
procedure cuenta "Cuenta" (n: int) -> int {
  return roll d6 times n reroll 1 explode 6 count >= 4
}
procedure fallos "Repite los fallos" (n: int, t: int) -> int {
  return roll d6 times n reroll < t count >= t
}
procedure natural "Natural" (n: int, m: int, t: int) -> int {
  return roll d6 times n count each d if d == 6 or (d != 1 and d + m >= t)
}
procedure condicion "Condición" (n: int, m: int, t: int) -> int {
  return roll d6 times n reroll each d if d + m < t explode each d if d + m >= 6 chain 2 count each d if d + m >= t
}
procedure mejores "Mejores" (n: int) -> int {
  return roll d6 times n reroll 1 explode 6 keep highest 2
}
procedure peor "Peor" (n: int) -> int {
  return roll d6 times n reroll <= 2 explode 6 chain 2 keep lowest 1
}
procedure varias "Varias" (n: int) -> Par {
  let c = roll d6 times n reroll 1 explode 6 count (hits: >= 4, sixes: == 6)
  return Par(impactos: c.hits, seises: c.sixes)
}
procedure extra "Extra" (n: int) -> int {
  let c = roll d6 times n count (hits: >= 4, sixes: 6)
  return c.hits + c.sixes
}
procedure desigual "Desigual" (n: int) -> int {
  return roll Desigual times n reroll 1 explode 8 chain 2
}
procedure metralla "Metralla" () -> int {
  return roll d3 times (roll d6)
}
procedure aleatorios "Aleatorios" () -> int {
  let n = roll d6
  return roll d6 times n reroll 1 explode 6 count >= 4
}
procedure espadas "Espadas" (n: int) -> int {
  return roll Especial times n reroll == Cara.blanco explode == Cara.espada count == Cara.espada
}
procedure escudos "Escudos" (n: int) -> int {
  let caras = roll Especial times n reroll Cara.blanco explode Cara.espada chain 2
  return caras.escudo
}
procedure cara "Cara" () -> Cara {
  return roll Especial reroll == Cara.blanco
}
procedure con_cara "Con cara" (n: int) -> int {
  return roll Especial times n count each c if c != Cara.blanco
}
procedure d66 "D66" () -> int {
  return roll D66
}
procedure d3 "D3" () -> int {
  return roll d3
}
procedure vivo "Una condición lee una tirada anterior" (n: int) -> int {
  let m = roll d3
  let k = roll d6 times 2
  let c = roll d6 times n reroll each d if d + m < 4 count each d if d + m >= 5
  return c + k
}
procedure vivas "Cuentas que leen una tirada anterior" (n: int) -> int {
  let m = roll d3
  let c = roll d6 times n count (a: each d if d + m >= 5, b: == 6)
  if c.b > 0 {
    return c.a + m
  }
  return c.a
}
procedure sumado "Sumado" (n: int) -> int {
  return (roll d6 times n count each d if d >= 5) + 1
}
```
'''


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    from rulebook.compiler.pipeline import driver

    folder = tmp_path_factory.mktemp("dados")
    (folder / "dados.rules").write_text(RULES, encoding="utf-8")
    result = driver.check(folder)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return result


@pytest.fixture(scope="module")
def package(checked):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(checked.program)


def _exact(package, name: str, **kwargs) -> dict:
    from rulebook import runtime

    return dict(runtime.exact(package.PROCEDURES[name].function, **kwargs).items())


def _icepool(die) -> dict:
    den = die.denominator()
    return {outcome: Fraction(q, den) for outcome, q in die.items() if q}


def _rerolled(faces, again):
    return icepool.Die(faces).reroll(list(again), depth=1)


D6 = icepool.d6
U = D6.reroll([1], depth=1)  # a d6 re-rolling 1s


def _chain_count(unit, passes, explodes, depth):
    """How many dice of one original die (with the dice it adds) pass: each face becomes
    10_000·[explodes] + [passes] (the exploding faces stay apart), icepool explodes and sums,
    and the count is what is left below 10_000."""
    marked = unit.map(lambda f: (10_000 if f in explodes else 0) + (f in passes))
    triggers = sorted({10_000 + (f in passes) for f in explodes})
    return marked.explode(triggers, depth=depth).map(lambda t: t % 10_000)


CASES = [
    # (procedure, its arguments, icepool oracle)
    *[("repite", {"n": n}, n @ U) for n in (1, 3, 20)],
    *[("explota", {"n": n}, n @ D6.explode([6], depth=1)) for n in (1, 3, 20)],
    *[("cadena", {"n": n}, n @ D6.explode([5, 6], depth=3)) for n in (1, 4, 10)],
    *[("ambos", {"n": n}, n @ U.explode([6], depth=1)) for n in (1, 5, 20)],
    *[("cuenta", {"n": n}, n @ _chain_count(U, {4, 5, 6}, {6}, 1)) for n in (1, 5, 20)],
    *[("fallos", {"n": n, "t": t}, n @ D6.reroll(list(range(1, t)), depth=1).map(lambda f, t=t: int(f >= t)))
      for n, t in ((4, 3), (20, 5))],
    *[("natural", {"n": n, "m": m, "t": t}, n @ D6.map(lambda d, m=m, t=t: int(d == 6 or (d != 1 and d + m >= t))))
      for n, m, t in ((5, 1, 5), (20, -3, 4), (3, 9, 20))],
    *[("condicion", {"n": n, "m": m, "t": t},
       n @ _chain_count(D6.reroll([f for f in range(1, 7) if f + m < t], depth=1), {f for f in range(1, 7) if f + m >= t},
                        {f for f in range(1, 7) if f + m >= 6}, 2))
      for n, m, t in ((3, 1, 4), (12, 0, 5))],
    *[("mejores", {"n": n}, U.explode([6], depth=1).pool(n).highest(2).sum()) for n in (3, 8, 20)],
    *[("peor", {"n": n}, D6.reroll([1, 2], depth=1).explode([6], depth=2).pool(n).lowest(1).sum()) for n in (2, 6)],
    *[("extra", {"n": n}, n @ D6.map(lambda f: int(f >= 4) + int(f == 6))) for n in (1, 7, 20)],
    *[("desigual", {"n": n}, n @ icepool.Die([1, 1, 2, 3, 5, 8]).reroll([1], depth=1).explode([8], depth=2)) for n in (1, 6)],
    ("metralla", {}, D6 @ icepool.d3),
    ("aleatorios", {}, D6 @ _chain_count(U, {4, 5, 6}, {6}, 1)),
    ("d66", {}, icepool.Die([10 * a + b for a in range(1, 7) for b in range(1, 7)])),
    ("d3", {}, icepool.d3),
    *[("sumado", {"n": n}, n @ D6.map(lambda f: int(f >= 5)) + 1) for n in (0, 4)],
]


@pytest.mark.parametrize("name, kwargs, oracle", CASES, ids=[f"{c[0]}-{'-'.join(map(str, c[1].values()))}" for c in CASES])
def test_exact_distribution_matches_icepool(package, name, kwargs, oracle):
    assert _exact(package, name, **kwargs) == _icepool(oracle)


ESPECIAL = ["blanco", "blanco", "escudo", "espada", "espada", "espada"]


@pytest.mark.parametrize("n", [1, 4, 12])
def test_named_faces_rerolled_and_exploding_match_icepool(package, n):
    unit = icepool.Die(ESPECIAL).reroll(["blanco"], depth=1)
    swords = unit.map(lambda f: 10_001 if f == "espada" else 0).explode([10_001], depth=1).map(lambda t: t % 10_000)
    assert _exact(package, "espadas", n=n) == _icepool(n @ swords)
    shields = unit.map(lambda f: 10_000 if f == "espada" else int(f == "escudo")).explode([10_000], depth=2)
    assert _exact(package, "escudos", n=n) == _icepool(n @ shields.map(lambda t: t % 10_000))
    others = icepool.Die(ESPECIAL).map(lambda f: int(f != "blanco"))
    assert _exact(package, "con_cara", n=n) == _icepool(n @ others)


def test_one_named_face_rerolled(package):
    assert _exact(package, "cara") == {"blanco": Fraction(1, 9), "escudo": Fraction(2, 9), "espada": Fraction(2, 3)}


@pytest.mark.parametrize("n", [1, 3, 20])
def test_several_counts_from_one_roll_match_enumeration(package, n):
    """The joint distribution of (hits, sixes): icepool sums a two-digit code per die."""
    unit = U.map(lambda f: 1000 * (f >= 4) + (f == 6) + (1_000_000 if f == 6 else 0))
    per_die = unit.explode([1_001_001], depth=1).map(lambda t: t % 1_000_000)
    oracle = _icepool(n @ per_die)
    found = {(r.impactos, r.seises): p for r, p in _exact(package, "varias", n=n).items()}
    assert found == {(t // 1000, t % 1000): p for t, p in oracle.items()}


def test_small_pools_match_every_path_enumeration(package):
    """Also where a per-die condition reads an earlier roll: the states of exact enumeration keep it."""
    from rulebook import runtime

    for name, kwargs in [("cuenta", {"n": 2}), ("varias", {"n": 2}), ("escudos", {"n": 2}), ("aleatorios", {}),
                         ("condicion", {"n": 2, "m": 1, "t": 4}), ("mejores", {"n": 3}), ("vivo", {"n": 3}),
                         ("vivas", {"n": 3})]:
        fn = package.PROCEDURES[name].function
        assert runtime.exact(fn, **kwargs) == runtime.exact(fn, every_path=True, **kwargs), name


# ----------------------------------------------------------------------------- the runtime


def test_cost_is_known_before_and_counted_against_the_work_limit(package):
    from rulebook import runtime

    rv = runtime.dice_pool(runtime.std_die(6), 19, reroll=("==", 1), explode=("==", 6), test=(">=", 4))
    assert not rv.is_computed() and 0 < rv.cost() < 100_000
    rv.weighted()
    assert rv.is_computed()
    big = runtime.dice_pool(runtime.std_die(6), 1000, reroll=("==", 1), explode=("==", 6), chain=100,
                            tests={"a": (">=", 4), "b": ("==", 6), "c": ("==", 1)})
    assert big.cost() > runtime.DEFAULT_MAX_WORK and not big.is_computed()
    with pytest.raises(runtime.WorkLimitError):
        runtime.exact(package.PROCEDURES["cuenta"].function, n=20, max_work=100)


def test_reroll_and_explode_tests_take_a_function_of_the_face():
    from rulebook import runtime

    d6 = runtime.std_die(6)
    by_function = runtime.dice_pool(d6, 5, reroll=lambda f: f < 3, explode=lambda f: f == 6, test=lambda f: f >= 4)
    by_comparison = runtime.dice_pool(d6, 5, reroll=("<", 3), explode=("==", 6), test=(">=", 4))
    assert by_function is by_comparison  # one random variable: the tests are the same sets of faces
    with pytest.raises(runtime.RuleError, match=r"true (or|o) false"):
        runtime.dice_pool(d6, 2, reroll=lambda f: f + 1)
    with pytest.raises(runtime.RuleError, match=r"cannot be ordered|no se pueden ordenar"):
        runtime.dice_pool(runtime.Die("Letras", ("a", "b")), 2, reroll=(">=", "a"))
    with pytest.raises(runtime.RuleError, match=r"from 1 to 100|de 1 a 100"):
        runtime.dice_pool(d6, 2, explode=("==", 6), chain=0)


def test_counting_only_some_names_is_the_marginal():
    from rulebook import runtime

    rv = runtime.dice_pool(runtime.std_die(6), 6, explode=("==", 6), tests={"hits": (">=", 4), "sixes": ("==", 6)})
    hits = rv.counting(("hits",))
    joint = {}
    for counts, p in rv.outcomes():
        joint[counts["hits"]] = joint.get(counts["hits"], 0) + p
    assert {c["hits"]: p for c, p in hits.outcomes()} == joint


@pytest.mark.parametrize("n", [0, 1, 5, 12])
def test_vectors_of_counts_by_digits_and_by_dice_agree(n):
    from rulebook.runtime.dice_mods import _digits_power, _vector_power

    one = {(0, 0, 0): 3, (1, 0, 0): 2, (1, 1, 0): 1, (2, 1, 1): 5, (0, 0, 2): 4}
    assert _digits_power(one, n, max(2, 2 * n + 1)) == _vector_power(one, n)


def test_sampling_agrees_with_the_exact_odds():
    import random

    from rulebook import runtime

    rv = runtime.dice_pool(runtime.std_die(6), 5, reroll=("==", 1), explode=("==", 6), test=(">=", 4))
    exact_mean = sum(v * p for v, p in rv.outcomes())
    rng = random.Random(2026)
    samples = [rv.sample(rng) for _ in range(20_000)]
    mean = sum(samples) / len(samples)
    assert abs(mean - float(exact_mean)) < 0.05
    assert max(samples) <= 10 and min(samples) >= 0
    assert abs(samples.count(0) / len(samples) - float(rv.probability(0))) < 0.01


def test_sampling_rolls_each_reroll_and_each_added_die():
    """A scripted rng: 1 (re-rolled) → 6 (explodes) → 1 (re-rolled) → 4; then 3."""
    from rulebook import runtime

    class Scripted:
        def __init__(self, faces):
            self.faces = list(faces)

        def choice(self, faces):
            return self.faces.pop(0)

    rv = runtime.dice_pool(runtime.std_die(6), 2, reroll=("==", 1), explode=("==", 6))
    rng = Scripted([1, 6, 1, 4, 3])
    assert rv.sample(rng) == 6 + 4 + 3 and rng.faces == []
    rv = runtime.dice_pool(runtime.std_die(6), 1, explode=("==", 6), chain=2)
    assert rv.sample(Scripted([6, 6, 6])) == 18  # the third 6 adds nothing: two added dice at most


def test_trace_says_what_was_rolled(package):
    from rulebook import runtime

    _, trace = runtime.sample(package.PROCEDURES["cuenta"].function, seed=7, n=20)
    assert "20d6, re-roll 1, explode 6, count ≥ 4" in trace.render_text()
    rv = runtime.dice_pool(runtime.std_die(6), 3, reroll=("<=", 2), explode=(">=", 5), chain=3, keep="highest", keep_n=2)
    assert rv.describe("en") == "3d6, re-roll ≤ 2, explode ≥ 5, chain 3, keep 2 highest"
    assert rv.describe("es") == "3d6, repite ≤ 2, explota ≥ 5, cadena 3, conserva 2 mejores"
    rv = runtime.dice_pool(runtime.std_die(6), 4, tests={"hits": (">=", 4), "sixes": ("==", 6)})
    assert rv.describe("en") == "4d6, count hits ≥ 4, sixes = 6"


def _returned(program, name: str):
    from rulebook.compiler import ir

    return next(s.value for s in program.decls[name].body if isinstance(s, ir.Return))


def test_readable_text_of_the_modifiers(checked):
    from rulebook.compiler.emit.site.readable import Readable
    from rulebook.compiler.support.i18n import using

    program = checked.program
    with using("en"):
        readable = Readable(program)
        assert readable.expr(_returned(program, "cuenta")) == (
            "roll of d6 × n, re-rolls once the dice = 1, the dice = 6 explode (one more die each), counts the dice ≥ 4")
        assert readable.expr(_returned(program, "natural")) == (
            "roll of d6 × n, counts the dice d such that d = 6 or d ≠ 1 and d + m ≥ t")
        condicion = readable.expr(_returned(program, "condicion"))
        assert "the dice d such that d + m ≥ 6 explode (up to 2 more dice each)" in condicion
        varias = next(s.value for s in program.decls["varias"].body if hasattr(s, "name") and s.name == "c")
        assert readable.expr(varias).endswith("counts hits: the dice ≥ 4; sixes: the dice = 6")
    with using("es"):
        assert "repite una vez los dados = 1" in Readable(program).expr(_returned(program, "cuenta"))


# ----------------------------------------------------------------------------- the checker

ERRORS = [
    ("let x = roll d6 times 3 count each d if d.x", "int has no fields", "is the face of one die"),
    ("let x = roll Saco reroll 1", "Saco is a bag, not a die", "draw"),
    ("let x = roll Especial times 2 reroll >= Cara.blanco", "tested with == or != against a Cara", "reroll == Cara"),
    ("let x = roll Especial times 2 reroll == 3", "tested with == or != against a Cara, got == int", None),
    ("let x = roll d6 times 2 explode == Cara.espada", "tests them against a number, got Cara", None),
    ("let x = roll d6 explode 6 chain k", "chain needs a whole number of at least 1", "chain 3"),
    ("let x = roll d6 explode 6 chain 0", "chain needs a whole number of at least 1", None),
    ("let x = roll d6 explode 6 chain 101", "at most 100 dice", None),
    ("let x = roll d6 times 2 count each k if k > 2", "'k' is already defined or reserved", None),
    ("let x = roll d6 times 2 count each d if d + 1", "must be true/false, got int", None),
    ("let x = roll d6 times 2 count each d if d > f(k: 1)", "cannot roll, draw or call a procedure", "roll first"),
    ("let x = roll Especial explode Cara.espada", "an exploding die adds dice", "times 1"),
    ("let x = roll d6 times 2 count (a: >= 4, a: == 6)", "'a' is counted twice", None),
    ("let x = roll d6 times 3 reroll 1 keep highest 2 count >= 4", "use either keep or count", None),
    ("let x = (roll d6 times 2 count (a: >= 4, b: 6)).c", "'c' is not a kind of", "kinds: a, b"),
    ("let x = roll Especial times 2 count each f if f > 1", "cannot compare Cara with int", None),
    ("let x = 1 + roll d6 times 3 count each d if d > 3", "unexpected 'd'", "put it in brackets"),
    ("let x = roll d6 times 3 count each d if d > roll d6", "unexpected 'roll'", "cannot roll or draw"),
]

ERROR_PRELUDE = '''```rules
rulebook errores "Errores" version "1" lang "en"
enum Cara "Cara" {
  blanco "Blanco"
  espada "Espada"
}
die Especial "Especial" of Cara = [blanco, espada, espada]
bag Saco "Saco" { a: 2, b: 1 }
procedure f "F" (k: int) -> int {
  return k
}
procedure p "P" (k: int) -> int {
  LINE
  return 0
}
```
'''


@pytest.mark.parametrize("line, message, hint", ERRORS, ids=[e[1][:40] for e in ERRORS])
def test_misuse_is_a_checker_error_with_position_and_hint(tmp_path, line, message, hint):
    from rulebook.compiler.pipeline import driver

    (tmp_path / "errores.rules").write_text(ERROR_PRELUDE.replace("LINE", line), encoding="utf-8")
    checked = driver.check(tmp_path)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert errors, line
    found = [d for d in errors if message in d.message]
    assert found, [d.message for d in errors]
    d = found[0]
    assert d.span.line == 13 and d.span.col > 3, d.span  # the line of the roll, at the mistake
    rendered = d.render(checked.sources)
    assert "^" in rendered and "errores.rules:13:" in rendered
    if hint is not None:
        assert d.hint and hint in d.hint, d.hint


def test_the_bundled_rulebooks_use_no_new_keyword_as_a_name():
    root = Path(__file__).resolve().parent.parent
    import re

    words = re.compile(r"\b(reroll|explode|chain)\b")
    fences = re.compile(r"```rules\n(.*?)```", re.S)
    strings_and_comments = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')
    for path in sorted((root / "content").rglob("*.rules")):
        for fence in fences.findall(path.read_text(encoding="utf-8")):  # the declarations, not the prose
            assert not words.search(strings_and_comments.sub("", fence)), path
