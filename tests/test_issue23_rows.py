"""Issue 23's table, one case per row: each mechanic the cookbook's author could not write is now
written directly (a small snippet compiled, its exact odds or its result checked) or refused with a
clear diagnostic (one error, its message, its hint, its line). ``ROWS`` is the table: (row, snippet,
check); a check receives the pytest ``tmp_path`` and the snippet."""

from __future__ import annotations

from fractions import Fraction

import icepool
import pytest

from test_data_types import (ARMY, LISTS, NAMED, ODDS, PRICED, SEVERAL, _army_document, _errors, _load, _odds_tables, _ok,
                             _run)


def _exact(package, name: str, **kwargs) -> dict:
    from rulebook import runtime

    proc = package.PROCEDURES[name]
    return dict(runtime.exact(proc.function, **proc.convert(kwargs)).items())


def _die(die: icepool.Die) -> dict:
    return {o: Fraction(q, die.denominator()) for o, q in die.items() if q}


def _one_error(tmp_path, body: str, message: str, hint: str = "", line: int | None = None, col: int | None = None):
    got = _errors(tmp_path, body)
    assert len(got) == 1, got
    m, h, at = got[0]
    assert message in m and hint in h, got[0]
    if line is not None:
        assert at == line, got[0]
    return got[0]


# ---- the snippets -------------------------------------------------------------------------------

REROLL_COUNTS = """
procedure extra_hits "Re-roll 1s; a 6 is an extra hit" (n: int) -> int {
  let rolled = roll d6 times n reroll 1 count (hits: >= 4, sixes: == 6)
  return rolled.hits + rolled.sixes
}
"""


def check_reroll_counts(tmp_path, body):
    one = icepool.d6.reroll([1], depth=1).map(lambda x: int(x >= 4) + int(x == 6))
    package = _load(tmp_path, body)
    for n in (0, 1, 3, 8):
        assert _exact(package, "extra_hits", n=n) == (_die(n @ one) if n else {0: 1})


ROLL_OFF_ROUNDS = """
procedure melee "Three rounds; two won rounds end it" (bonus: int) -> int {
  repeat at most 3 times with (won_a: 0, won_d: 0, rounds: 0) {
    let a = roll d6 + bonus
    let d = roll d6
    set won_a = won_a + (if a > d then 1 else 0)
    set won_d = won_d + (if d > a then 1 else 0)
    set rounds = rounds + 1
  } until won_a == 2 or won_d == 2
  return won_a - won_d
}
"""


def check_roll_off_rounds(tmp_path, body):
    dist = _exact(_load(tmp_path, body), "melee", bonus=0)
    assert sum(p for r, p in dist.items() if r > 0) == Fraction(355, 864) and dist[0] == Fraction(77, 432)


LOOPS = """
enum Step "Step" {
  first "First"
  second "Second"
  third "Third"
}

procedure per_step "One die per step of the enum, 4+" () -> int {
  for s in Step with (hits: 0) {
    if roll d6 >= 4 {
      set hits = hits + 1
    }
  }
  return hits
}

procedure one_to_n "n dice added one by one" (n: int) -> int {
  for i in 1..n with (total: 0) {
    set total = total + roll d6
  }
  return total
}
"""


def check_loops(tmp_path, body):
    package = _load(tmp_path, body)
    assert _exact(package, "per_step") == {k: Fraction(c, 8) for k, c in enumerate((1, 3, 3, 1))}
    assert _exact(package, "one_to_n", n=3) == _die(3 @ icepool.d6)
    assert _exact(package, "one_to_n", n=0) == {0: 1}


def check_army_side(tmp_path, body):
    from rulebook.compiler.commands import roster

    doc = _army_document(_ok(tmp_path, body), "skirmish")
    result = roster.validate(doc, {"format": 1, "rulebook": "skirm", "army": "skirmish", "side": "red", "size": "normal",
                                   "units": [{"entry": "red_guard"}, {"entry": "blue_guard"}]})
    assert [e["code"] for e in result["errors"]] == ["entry-wrong-side"]


def check_several_catalogs(tmp_path, body):
    package = _load(tmp_path, body)
    assert (_run(package, "to_hit", shooter="tank"), _run(package, "to_hit", shooter="rifles")) == (6, 5)


RESERVED = """
procedure two_dice "Two dice" () -> int {
  let roll = roll 2d6
  return roll
}
"""


def check_reserved(tmp_path, body):
    from rulebook.compiler.pipeline import driver

    _one_error(tmp_path, body, "'roll' is a reserved word", "e.g. 'roll_'", line=3)
    error = [d for d in driver.check(tmp_path).diagnostics if d.severity == "error"][0]
    assert error.span.col == 7  # at the word after `let`


def check_lists(tmp_path, body):
    package = _load(tmp_path, body)
    assert _run(package, "joined", xs=[1, 2], ys=(3,), y=4) == (1, 2, 3, 4)
    assert _run(package, "least", ws=[None, 5, 3, None]) == 3


def check_odds_axes(tmp_path, body):
    tables = _odds_tables(_ok(tmp_path, body))
    assert tables["by_unit"]["rows"]["values"] == ["red_guard", "blue_guard"]
    assert tables["by_unit"]["columns"]["values"] == [True, False]
    assert tables["by_unit"]["cells"] == [["1/3", "1/6"], ["1/6", "0/1"]]


def check_cost_field(tmp_path, body):
    from rulebook.compiler import ir

    cost = _ok(tmp_path, body).program.get("units", ir.Catalog).cost
    assert (cost.field, cost.table, cost.levels) == ("points", None, ())


PROBABILITY = """
record Outcome "Outcome" {
  casualties: int "Casualties"
}

procedure fight "Fight" () -> Outcome {
  return Outcome(casualties: roll d6 times 2 count 6)
}

example fight "Two sixes" {
  given ()
  expect result.casualties == 5/48
}
"""


def check_probability(tmp_path, body):
    _one_error(tmp_path, body, "result.casualties is a whole number, never 5/48", "probability(result.casualties == N) == 5/48", line=12)


CLASH = """
record MeleeResult "Melee result" {
  won: bool "Won"
}

procedure melee "Melee" () -> bool {
  return roll d6 >= 4
}
"""


def check_clash(tmp_path, body):
    _one_error(tmp_path, body, "the result of procedure melee would be named MeleeResult", "record MeleeResult is declared at",
               line=6)


LONG_ROW = """
record Squad "Squad" {
  name: text "Name"
  move: int "Move"
  shoot: int "Shoot"
  melee: int "Melee"
  armour: int "Armour"
  wounds: int "Wounds"
  points: int "Points"
}

catalog squads "Squads" of Squad {
  rangers | "Rangers" | 6 | 4 | 3 | 4 | 1 | 12
  raiders | "Raiders" | 5 | 3 | 5 | 2 | 1
}
"""


def check_missing_cell(tmp_path, body):
    _one_error(tmp_path, body, "row 'raiders' has 6 values but catalog squads has 7 columns", "nothing for points", line=14)


def check_named_cells(tmp_path, body):
    from rulebook.compiler import ir

    named = body.replace('  raiders | "Raiders" | 5 | 3 | 5 | 2 | 1\n',
                         '  raiders | "Raiders" | (move: 5, shoot: 3, melee: 5, armour: 2, wounds: 1, points: 9)\n')
    entries = _ok(tmp_path, named).program.get("squads", ir.Catalog).entries
    assert entries["raiders"] == {"name": "Raiders", "move": 5, "shoot": 3, "melee": 5, "armour": 2, "wounds": 1, "points": 9}
    entries2 = _ok(tmp_path, NAMED).program.get("troopers", ir.Catalog).entries
    assert entries2["rifles"]["shoot"] == 4 and entries2["tank"]["note"] == "Big"


ROWS = [
    ("re-roll 1s / extra hit on 6: one roll, several counts", REROLL_COUNTS, check_reroll_counts),
    ("a 3-round roll-off with a counter", ROLL_OFF_ROUNDS, check_roll_off_rounds),
    ("a loop over an enum and over 1..n", LOOPS, check_loops),
    ("an army side from a catalog field (entry-wrong-side)", ARMY, check_army_side),
    ("ref a_units | b_units reading a shared field", SEVERAL, check_several_catalogs),
    ("let roll = roll 2d6: reserved word, at the word", RESERVED, check_reserved),
    ("list concat and filter narrowing with min()", LISTS, check_lists),
    ("odds axes over true/false and unit ids", ODDS, check_odds_axes),
    ("a cost field without a quality table", PRICED, check_cost_field),
    ("expect result.casualties == 5/48: use probability()", PROBABILITY, check_probability),
    ("record MeleeResult + procedure melee: a check error", CLASH, check_clash),
    ("one missing cell in a long row: exactly one error", LONG_ROW, check_missing_cell),
    ("a long row with named cells (shoot: 4, …)", LONG_ROW, check_named_cells),
]


@pytest.mark.parametrize("row, body, check", ROWS, ids=[r[0] for r in ROWS])
def test_issue23_row(tmp_path, row, body, check):
    check(tmp_path, body)
