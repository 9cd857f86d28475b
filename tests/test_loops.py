"""Bounded loops (``repeat [at most] N times with (…)``, ``for … in``, ``set``) and recursion.

Reads ``tests/data/loops/loops.rules`` (its worked examples state exact odds) and small
rulebooks written in the test's folder. Checks, through the generated resolvers: exact
distributions equal an independent enumeration in plain Python (a 3-round roll-off, a
``for`` over an enum, a range sum, a loop stopped by its cap, 10 rounds of 2d6) and the
every-path enumeration; sampling counts each run against the work limit and the trace
shows each run; recursion works and an unbounded one stops with a work-limit error; the
checker's errors on misused loops (position, caret, hint); the players' text of a loop in
English and Spanish; the language server on loop variables; the loop examples of
LANGUAGE.md hold.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import lru_cache
from itertools import product

import pytest

from conftest import DATA, ROOT

LOOPS = DATA / "loops"
F = Fraction


@lru_cache(maxsize=None)
def _package():
    from rulebook.compiler.pipeline import driver, pyload

    checked = driver.check(LOOPS)
    assert not [d for d in checked.diagnostics if d.severity == "error"], checked.diagnostics
    return pyload.compile_and_load(checked.program)


def _proc(name: str):
    return _package().PROCEDURES[name].function


# ---------------------------------------------------------------------------- plain-Python odds


def _dice(n: int, bonus: int = 0) -> dict[int, Fraction]:
    """The sum of ``n`` d6 plus ``bonus``."""
    out: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=n):
        out[sum(faces) + bonus] = out.get(sum(faces) + bonus, 0) + F(1, 6**n)
    return out


def _roll_off(rounds: int, target: int, dice: int = 1, a_bonus: int = 0) -> dict[int, Fraction]:
    """A wins − B wins of at most ``rounds`` opposed rolls, stopping at ``target`` wins."""
    a_roll, b_roll = _dice(dice, a_bonus), _dice(dice)
    states, done = {(0, 0): F(1)}, {}
    for _ in range(rounds):
        new: dict = {}
        for (aw, bw), p in states.items():
            for a, pa in a_roll.items():
                for b, pb in b_roll.items():
                    key = (aw + (a > b), bw + (b > a))
                    where = done if target in key else new
                    where[key] = where.get(key, 0) + p * pa * pb
        states = new
    out: dict[int, Fraction] = {}
    for (aw, bw), p in [*done.items(), *states.items()]:
        out[aw - bw] = out.get(aw - bw, 0) + p
    return out


def _bernoullis(ps: list[Fraction]) -> dict[int, Fraction]:
    out = {0: F(1)}
    for p in ps:
        new: dict[int, Fraction] = {}
        for k, q in out.items():
            new[k + 1] = new.get(k + 1, 0) + q * p
            new[k] = new.get(k, 0) + q * (1 - p)
        out = new
    return out


EXPECTED = [
    ("melee", {}, lambda: _roll_off(3, 2)),
    ("melee", {"a_bonus": 1}, lambda: _roll_off(3, 2, a_bonus=1)),
    ("tries", {}, lambda: {1: F(1, 6), 2: F(5, 36), 3: F(25, 216), 4: F(125, 216)}),  # the cap: no six in 4
    ("doubling", {}, lambda: {16: F(1)}),
    ("factions", {}, lambda: _bernoullis([F(5, 6), F(3, 6), F(1, 6)])),  # thresholds 2, 4, 6 in enum order
    ("dice_sum", {"n": 3}, lambda: _dice(3)),
    ("dice_sum", {"n": 0}, lambda: {0: F(1)}),  # 1..0 is empty
    ("lists", {"n": 4}, lambda: {2 * 10 + 12: F(1)}),
    ("first_six", {}, lambda: {0: F(125, 216), 1: F(1, 6), 2: F(5, 36), 3: F(25, 216)}),
    ("factorial", {"n": 6}, lambda: {720: F(1)}),
    ("until_blue", {}, lambda: {1: F(1, 3), 2: F(1, 3), 3: F(1, 3)}),  # R R B drawn in any order
]


@pytest.mark.parametrize("name, kwargs, expected", EXPECTED, ids=[f"{e[0]}{e[1] or ''}" for e in EXPECTED])
def test_exact_odds_equal_plain_python(name, kwargs, expected):
    from rulebook import runtime

    found = runtime.exact(_proc(name), **kwargs)
    want = {k: v for k, v in expected().items() if v}
    assert dict(found.items()) == want


def test_a_for_over_records_counts_hits():
    from rulebook import runtime

    weapon = _package().types.Weapon
    found = runtime.exact(_proc("volley"), weapons=(weapon._new(1), weapon._new(2), weapon._new(3)))
    assert dict(found.items()) == _bernoullis([F(1, 2)] * 6)


@pytest.mark.parametrize("name, kwargs", [("melee", {"a_bonus": 2}), ("factions", {}), ("dice_sum", {"n": 2}),
                                          ("nested", {}), ("nested", {"bonus": 1}), ("first_six", {}), ("tries", {})])
def test_merged_states_agree_with_every_path(name, kwargs):
    """The liveness states of loops (run number, carried values) lose nothing."""
    from rulebook import runtime

    fn = _proc(name)
    assert runtime.exact(fn, **kwargs) == runtime.exact(fn, every_path=True, **kwargs)


def test_ten_rounds_of_2d6_with_two_accumulators_merge_states():
    """11 × 11 outcomes a round, 10 rounds: 121¹⁰ paths, but at most 10 × 36 states."""
    from rulebook import runtime

    start = time.perf_counter()
    found = runtime.exact(_proc("long_fight"))
    elapsed = time.perf_counter() - start
    assert dict(found.items()) == _roll_off(10, 6, dice=2)
    print(f"\n10 rounds of 2d6 against 2d6, two accumulators: exact odds in {elapsed:.2f}s")
    assert elapsed < 30


def test_the_examples_hold():
    from rulebook.compiler.analysis.examples import run_examples

    results = run_examples(_package())
    assert len(results) >= 2
    assert not [(r.title, r.failures, r.error) for r in results if not r.ok]


# ---------------------------------------------------------------------------- sampling, work, trace


def test_sampled_loops_stay_within_the_work_limit_and_agree_with_the_odds():
    from rulebook import runtime

    counts = runtime.sample_many(_proc("tries"), 3000, 7)
    assert set(counts) <= {1, 2, 3, 4}
    assert abs(counts.get(4, 0) / 3000 - 125 / 216) < 0.05


@pytest.mark.parametrize("traced", [False, True])
def test_each_run_counts_as_work(traced):
    from rulebook import runtime

    assert runtime.sample(_proc("endless"), seed=1, trace=traced, n=1000)[0] == 500500
    with pytest.raises(runtime.WorkLimitError) as failure:
        runtime.sample(_proc("endless"), seed=1, trace=traced, max_work=5_000, n=10**9)
    assert "5000" in str(failure.value).replace(",", "").replace(" ", "")
    with pytest.raises(runtime.WorkLimitError):
        runtime.exact(_proc("endless"), max_work=5_000, n=10**9)


def test_the_trace_shows_each_run():
    from rulebook import runtime

    _, trace = runtime.sample(_proc("melee"), seed=3, trace=True)
    text = trace.render_text()
    runs = [line.strip() for line in text.splitlines() if line.strip().startswith("run = ")]
    assert runs[0] == "run = 1" and 2 <= len(runs) <= 3
    assert text.count("until a_wins == 2 or b_wins == 2 = ") == len(runs)
    assert "a_wins = " in text and "b_wins = " in text


def test_unbounded_recursion_stops_with_a_work_limit_error():
    from rulebook import runtime

    for run in (lambda: runtime.exact(_proc("forever"), n=0), lambda: runtime.sample(_proc("forever"), seed=1, n=0)):
        with pytest.raises(runtime.WorkLimitError) as failure:
            run()
        assert "procedure calls" in str(failure.value)


def test_a_procedure_that_calls_itself_on_every_path_is_warned_of():
    from rulebook.compiler.pipeline import driver

    warned = [d for d in driver.check(LOOPS).diagnostics if d.code == "recursion"]
    assert [d.message for d in warned] == ["every return of forever calls forever again: it would never end"]
    assert warned[0].hint


# ---------------------------------------------------------------------------- the checker

HEADER = 'rulebook r "R" lang "en"\nsection I "I"\nconst MAX "Max" = 3\n'


BODY_LINE = 5  # the line before the procedure's body: the fence, the header's 3 lines, the procedure's line


def _check(tmp_path, body: str, params: str = "(n: int)"):
    from rulebook.compiler.pipeline import driver

    text = HEADER + f'procedure p "P" {params} -> int {{\n{body}\n}}\n'
    (tmp_path / "r.rules").write_text("```rules\n" + text + "```\n", encoding="utf-8")
    checked = driver.check(tmp_path)
    return [d for d in checked.diagnostics if d.severity == "error"], checked


ERRORS = [
    ("set of a non-loop value",
     "  let x = 1\n  repeat 3 times with (t: 0) {\n    set x = 2\n  }\n  return t + x",
     "'x' is a value of this procedure, not one the loop carries", 3),
    ("set twice in one run",
     "  repeat 3 times with (t: 0) {\n    set t = t + 1\n    set t = 5\n  }\n  return t",
     "'t' is set twice in one run", 3),
    ("set twice on one path through an if",
     "  repeat 3 times with (t: 0) {\n    if n > 1 {\n      set t = 1\n    }\n    set t = 2\n  }\n  return t",
     "'t' is set twice in one run", 5),
    ("read after set",
     "  repeat 3 times with (t: 0) {\n    set t = t + 1\n    let u = t * 2\n  }\n  return t",
     "'t' is read after its `set` in the same run", 3),
    ("with but no at most",
     "  repeat with (t: 0) {\n    set t = t + roll d6\n  } until t > 10\n  return t",
     "a repeat that carries values needs a bound", 1),
    ("non-constant N",
     "  repeat at most n times with (t: 0) {\n    set t = t + roll d6\n  } until t > 10\n  return t",
     "the number of runs of a repeat must be a constant", 1),
    ("N below 1",
     "  repeat (MAX - 3) times with (t: 0) {\n    set t = t + 1\n  }\n  return t",
     "must be a whole number of at least 1, got 0", 1),
    ("a body's let read after the loop",
     "  repeat at most 3 times with (t: 0) {\n    let r = roll d6\n    set t = t + r\n  } until t > 6\n  return r",
     "'r' belongs to one run of the loop at line 6, and is gone after it", 5),
    ("set outside a loop",
     "  set n = 2\n  return n",
     "`set` stands only inside a loop that carries values", 1),
    ("at most without until",
     "  repeat at most 3 times with (t: 0) {\n    set t = t + 1\n  }\n  return t",
     "`at most` bounds a repeat that ends on `until`", 1),
    ("until without at most",
     "  repeat 3 times with (t: 0) {\n    set t = t + roll d6\n  } until t > 6\n  return t",
     "with `until`, the number of runs is a bound", 1),
    ("a set of another type",
     "  repeat 3 times with (t: 0) {\n    set t = true\n  }\n  return t",
     "'t' starts as int, and this `set` gives it bool", 2),
    ("except instead of with",
     "  repeat 3 times except (t: 0) {\n    set t = t + 1\n  }\n  return t",
     "`except` cannot introduce the values a loop carries", 1),
    ("a repeat that never ends",
     "  repeat with (t: 0) {\n    set t = 1\n  }\n  return t",
     "a repeat that carries values needs a bound", 1),
    ("a set of an outer loop's value",
     "  repeat 2 times with (t: 0) {\n    for i in 1..n {\n      set t = i\n    }\n  }\n  return t",
     "'t' is carried by an outer loop", 3),
    ("a range of text",
     '  for i in 1.."x" with (t: 0) {\n    set t = t + i\n  }\n  return t',
     "a range goes through whole numbers, and this bound is text", 1),
    ("a for over a number",
     "  for i in n with (t: 0) {\n    set t = t + i\n  }\n  return t",
     "'for' needs a list, an enum or a range lo..hi to go through, got int", 1),
    ("a carried value named twice",
     "  repeat 2 times with (t: 0, t: 1) {\n    set t = t + 1\n  }\n  return t",
     "'t' is already defined", 1),
    ("a reserved word as a loop variable",
     "  for most in 1..n {\n    require n > 0, \"x\"\n  }\n  return n",
     "'most' is a reserved word", 1),
]


@pytest.mark.parametrize("label, body, message, line", ERRORS, ids=[e[0] for e in ERRORS])
def test_misused_loops_are_checker_errors(tmp_path, label, body, message, line):
    """``line``: the line of the procedure's body where the error is."""
    errors, checked = _check(tmp_path, body)
    found = [d for d in errors if message in d.message]
    assert found, [d.message for d in errors]
    assert found[0].span.line == BODY_LINE + line, found[0].render(checked.sources)
    assert found[0].hint or found[0].code == "type", found[0].render(checked.sources)


def test_a_loop_error_is_positioned_with_caret_and_hint(tmp_path):
    errors, checked = _check(tmp_path, "  let x = 1\n  repeat 3 times with (t: 0) {\n    set x = 2\n  }\n  return t + x")
    text = errors[0].render(checked.sources)
    assert "r.rules:8:5: error: 'x' is a value of this procedure, not one the loop carries" in text
    assert "^^^" in text and "hint: declare it in the loop's header, with (x: …) (carried now: t)" in text


def test_loops_that_are_right_have_no_errors_nor_unused_warnings(tmp_path):
    body = ("  for i in 1..n with (t: 0, best: 0) {\n    let r = roll d6 + i\n    set t = t + r\n"
            "    if r > best {\n      set best = r\n    }\n  } until t > 20\n  return t + best")
    errors, checked = _check(tmp_path, body)
    assert not errors, [d.message for d in errors]
    assert not [d.message for d in checked.diagnostics if d.code == "unused" and "MAX" not in d.message]


# ---------------------------------------------------------------------------- players' text, editor


@pytest.mark.parametrize("lang, head, body", [
    ("en", "repeat at most Rounds times, until a wins = 2 or b wins = 2:", "in each run: a wins becomes a wins + "),
    ("es", "se repite como mucho Rounds veces, hasta que a wins = 2 o b wins = 2:", "en cada vuelta: a wins pasa a ser "),
])
def test_the_site_reads_a_loop_as_player_text(lang, head, body):
    from rulebook.compiler import ir
    from rulebook.compiler.emit.site.readable import Readable
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.support import i18n

    program = driver.check(LOOPS).program
    readable = Readable(program)
    melee = program.decls["melee"]
    loop = next(s for s in melee.body[0].body if isinstance(s, ir.Loop))
    with i18n.using(lang):
        lines = readable.statement(loop)
        ranged = readable.statement(next(s for s in program.decls["dice_sum"].body if isinstance(s, ir.Loop)))
    assert lines[0] == {"en": "starting with a wins = 0; b wins = 0", "es": "empezando con a wins = 0; b wins = 0"}[lang]
    assert lines[1] == head
    assert any(line.startswith(body) for line in lines[2:]), lines
    assert ("for each i of 1 to n:" if lang == "en" else "para cada i de 1 hasta n:") in ranged


def test_the_language_server_knows_loop_values(tmp_path):
    from pygls.workspace.position_codec import PositionCodec

    from rulebook.compiler.lsp import features
    from rulebook.compiler.lsp.positions import Locator
    from rulebook.compiler.lsp.workspace import Rulebook

    folder = tmp_path / "lsp"
    folder.mkdir()
    (folder / "loops.rules").write_text((LOOPS / "loops.rules").read_text(encoding="utf-8"), encoding="utf-8")
    analysis = Rulebook(folder).analyze()
    locator = Locator(analysis, PositionCodec())
    name = next(k for k in analysis.sources if k.endswith("loops.rules"))
    lines = analysis.sources[name].splitlines()

    def at(fragment: str, offset: int) -> tuple[int, int]:
        line = next(i for i, text in enumerate(lines) if fragment in text)
        return line + 1, lines[line].index(fragment) + offset + 1

    header = at("with (a_wins: 0", len("with ("))
    until = at("} until a_wins == 2", len("} until "))
    assert "a_wins: int" in features.hover(analysis, locator, name, *until).contents.value
    found = features.definition(analysis, locator, name, *until)
    assert [loc.range.start.line + 1 for loc in found] == [header[0]]
    uses = features.references(analysis, locator, name, *header, True)
    used_on = {loc.range.start.line + 1 for loc in uses}
    assert {header[0], at("set a_wins", 4)[0], until[0], at("return a_wins - b_wins", 7)[0]} <= used_on
    for fragment, offset in [("for w in weapons", 4), ("for i in 1..n", 4), ("set hits = hits", 4)]:
        features.hover(analysis, locator, name, *at(fragment, offset))  # no crash
        features.definition(analysis, locator, name, *at(fragment, offset))


# ---------------------------------------------------------------------------- LANGUAGE.md


def test_the_loop_examples_of_language_md_hold(tmp_path):
    from test_language_doc import correct_blocks, write_rulebook

    from rulebook.compiler.analysis.examples import run_examples
    from rulebook.compiler.pipeline import driver, pyload

    write_rulebook(tmp_path, correct_blocks())
    checked = driver.check(tmp_path)
    package = pyload.compile_and_load(checked.program)
    names = {"combate_cuerpo_a_cuerpo", "mejor_de_tres", "impactos_de_andanada", "suma_de_tiradas", "exitos_por_calidad",
             "costes_calidad", "robos_hasta_la_azul"}
    assert names <= set(package.PROCEDURES), sorted(names - set(package.PROCEDURES))
    results = [r for r in run_examples(package) if r.procedure in names]
    assert len(results) >= len(names)
    assert not [(r.title, r.failures, r.error) for r in results if not r.ok]
