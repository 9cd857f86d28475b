"""Each dice and loop mechanic of issue 23 (points 1 and 2): how many lines its procedure takes in
the cookbook (``content/cookbook``), and how long its exact distribution takes at a realistic size.

Run: ``python bench/cookbook_mechanics.py``. The cookbook is checked and compiled once; mechanics
the cookbook does not use are small procedures written below (``SNIPPETS``, lines "—"). Times are
those of ``runtime.exact`` (one process, one core), in milliseconds: the first run, and the
best of three.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COOKBOOK = ROOT / "content" / "cookbook"

SNIPPETS = '''```rules
rulebook bench "Bench" version "1" lang "en"
section I "Bench"
enum Step "Step" {
  a "A"
  b "B"
  c "C"
  d "D"
}
record Gun "Gun" {
  shots: int "Shots"
}
bag Tokens "Tokens" { red: 9, blue: 1 }
procedure pool_reroll_explode "20 dice" (n: int) -> int {
  return roll d6 times n reroll 1 explode 6 count >= 4
}
procedure keep_after "Keep after reroll/explode" (n: int) -> int {
  return roll d6 times n reroll 1 explode 6 keep highest 3
}
procedure best_of "Best of N" () -> int {
  repeat 10 times with (best: 0) {
    let r = roll d6
    if r > best {
      set best = r
    }
  }
  return best
}
procedure over_enum "Over an enum" () -> int {
  for s in Step with (hits: 0) {
    set hits = hits + roll d6 times 3 count >= 4
  }
  return hits
}
procedure over_list "Over a list" (guns: list[Gun]) -> int {
  for g in guns with (hits: 0) {
    set hits = hits + roll d6 times g.shots count >= 4
  }
  return hits
}
procedure until_blue "Recursion" (red_out: int = 0) -> int {
  let t = draw 1 from Tokens except (red: red_out)
  if t.blue == 1 {
    return red_out + 1
  }
  return until_blue(red_out: red_out + 1)
}
```
'''

# mechanic, cookbook procedure (None: a snippet), procedure to time, its inputs
MECHANICS = [
    ("reroll (20 dice re-rolling 1s)", "reroll_ones", "reroll_ones", dict(attacks=20, skill=4)),
    ("reroll + explode (20 dice, 1s, 6s, count 4+)", None, "pool_reroll_explode", dict(n=20)),
    ("explode (one D6, chain 2)", "exploding_d6", "exploding_d6", dict(target=8)),
    ("explode … chain 10 (20 D10, ten-again)", "ten_again", "ten_again", dict(dice=20)),
    ("per-die condition (20 dice, natural 1/6)", "modified_hits", "modified_hits", dict(attacks=20, skill=3, modifier=-1)),
    ("several counts (20 dice, hits and sixes)", "sustained_hits", "sustained_hits", dict(attacks=20, skill=3, extra=1)),
    ("several counts, then a roll of the rest", "lethal_hits", "lethal_hits", dict(attacks=20, skill=3, strength=4, toughness=4)),
    ("random number of dice (10 wounds of D6, FNP)", "feel_no_pain", "feel_no_pain", dict(unsaved=10, damage="d6", ward=5)),
    ("keep after reroll/explode (20 dice, best 3)", None, "keep_after", dict(n=20)),
    ("bounded repeat with state (roll-off, 10 rounds)", "roll_off_rounds", "roll_off_rounds", dict(bonus=1, rounds=10)),
    ("bounded repeat with state (panic, 3 + 5 units)", "panic_cascade", "panic_cascade", dict(nearby=3, others=5, leadership=7)),
    ("bounded repeat with a bag (12 tokens drawn)", "initiative_changes", "initiative_changes", dict(mine=6, theirs=6)),
    ("bounded repeat with a deck (8 leaders)", "leaders_acting", "leaders_acting", dict(leaders=8)),
    ("repeat N times (best of 10 dice)", None, "best_of", {}),
    ("for over an enum (4 values, 3 dice each)", None, "over_enum", {}),
    ("for over a range (damage over 10 hits, D3)", "allocate_damage", "allocate_damage", dict(unsaved=10, damage="d3", wounds=3, models=10)),
    ("for over a range (damage over 10 hits, D6+1)", "allocate_damage", "allocate_damage", dict(unsaved=10, damage="d6_plus_1", wounds=6, models=10)),
    ("for over a list (4 guns, 20 shots)", None, "over_list", dict(guns=[dict(shots=s) for s in (2, 4, 6, 8)])),
    ("recursion (draw until the blue token, 10)", None, "until_blue", {}),
]


def _package(folder: Path):
    from rulebook.compiler.pipeline import driver, pyload

    checked = driver.check(folder)
    errors = [d.message for d in checked.diagnostics if d.severity == "error"]
    assert not errors, errors
    return pyload.compile_and_load(checked.program)


def _lines(name: str) -> int:
    """Lines of ``procedure name`` in the cookbook, from its first line to its closing brace."""
    for path in sorted(COOKBOOK.glob("*.rules")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if re.match(rf"procedure {name} ", line):
                end = next(j for j in range(i + 1, len(lines)) if lines[j] == "}")
                return end - i + 1
    raise LookupError(name)


def _time(package, name: str, inputs: dict) -> tuple[float, float, int]:
    """The first run's time (nothing cached yet) and the best of three, in ms; the outcomes."""
    from rulebook import runtime

    proc = package.PROCEDURES[name]
    times, outcomes = [], 0
    for _ in range(3):
        start = time.perf_counter()
        dist = runtime.exact(proc.function, **proc.convert(inputs))
        times.append(time.perf_counter() - start)
        outcomes = len(dist)
    return times[0] * 1000, min(times) * 1000, outcomes


def main() -> None:
    cookbook = _package(COOKBOOK)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "00-bench.rules").write_text(SNIPPETS, encoding="utf-8")
        snippets = _package(Path(tmp))
    print(f"{'mechanic':52} {'procedure':20} {'lines':>5} {'first ms':>9} {'best ms':>9} {'outcomes':>8}")
    for mechanic, in_cookbook, name, inputs in MECHANICS:
        package = cookbook if in_cookbook else snippets
        lines = str(_lines(in_cookbook)) if in_cookbook else "—"
        first, best, outcomes = _time(package, name, inputs)
        print(f"{mechanic:52} {name:20} {lines:>5} {first:9.1f} {best:9.1f} {outcomes:8d}")


if __name__ == "__main__":
    main()
