"""``rulebook balance`` at scale: the whole 1936 matrix, first run and after a cost edit.

Reads content/1936 (or the rulebook given). Prints, for each matchup, how many units (at each
quality) × targets it computes, and the wall and CPU time of: checking and compiling the
rulebook, the first full analysis (no distribution known), a second analysis of the same
package (every distribution reused), and the analysis after a cost edit in a copy of the
rulebook (compiled again: the procedures' keys are unchanged, so no distribution is resolved
again), with how many distributions each resolved and reused. Target: the first full
analysis ≤ 60 s on 2 cores.

    python bench/balance.py [RULEBOOK] [--edit "old text" "new text"]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDIT = ("02-costes-listas.rules", '  n_infanteria_linea | "Sección Infantería de Línea" | 80 |', '  n_infanteria_linea | "Sección Infantería de Línea" | 70 |')


def timed(label: str, fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    print(f"{label:<44} {time.perf_counter() - wall:8.2f} s wall {time.process_time() - cpu:8.2f} s cpu")
    return value


def summary(analysed) -> None:
    for m in analysed.balance.matchups:
        targets = len(m.targets)
        print(f"  {m.name:<40} {len(m.units):>4} units × {targets:>3} targets = {len(m.units) * targets:>6} cells; "
              f"resolved {m.resolved}, reused {m.reused}")


def main() -> None:
    from rulebook.compiler.analysis import matchups
    from rulebook.compiler.commands import balance
    from rulebook.compiler.pipeline import driver

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulebook", nargs="?", type=Path, default=ROOT / "content" / "1936")
    parser.add_argument("--edit", nargs=3, metavar=("FILE", "OLD", "NEW"), default=EDIT)
    args = parser.parse_args()

    matchups.DISTRIBUTIONS.clear()
    checked = timed("check", lambda: driver.check(args.rulebook))
    package = timed("generate and load the package", lambda: balance.load_package(checked.program))
    first = timed("first full analysis", lambda: balance.analyse_program(checked.program, package))
    summary(first)
    again = timed("same package again (distributions kept)", lambda: balance.analyse_program(checked.program, package))
    summary(again)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.rulebook.name
        shutil.copytree(args.rulebook, copy)
        name, old, new = args.edit
        text = (copy / name).read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"{name}: the edit's old text is not there")
        (copy / name).write_text(text.replace(old, new, 1), encoding="utf-8")
        edited = timed("check the edited copy", lambda: driver.check(copy))
        package2 = timed("generate and load its package", lambda: balance.load_package(edited.program))
        after = timed("analysis after the edit", lambda: balance.analyse_program(edited.program, package2))
        summary(after)
    from rulebook.compiler.analysis.balance import shifts

    for s in shifts(first.balance, after.balance)[:8]:
        print(f"  shift: {s.label} [{s.matchup}] {float(s.old or 0):.3f} → {float(s.new or 0):.3f}; #{s.old_rank} → #{s.new_rank} of {s.size}")


if __name__ == "__main__":
    main()
