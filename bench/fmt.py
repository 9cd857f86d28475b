"""Bench ``rulebook fmt`` on the largest bundled rulebook (content/1936).

Reads content/1936/*.rules. Prints the time to format every file (the work of
``rulebook fmt --check`` on a formatted rulebook: nothing is parsed), the time of the
safety checks a write adds (syntax trees before and after; the checked IR before and
after), best of 3 runs each. Run: ``python bench/fmt.py``.
"""

from __future__ import annotations

import time
from pathlib import Path

from rulebook.compiler.format import format_source, same_meaning
from rulebook.compiler.format.safety import program_shape

BOOK = Path(__file__).resolve().parent.parent / "content" / "1936"


def best(fn, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(BOOK.glob("*.rules"))}
    size = sum(len(t.encode()) for t in sources.values())
    formatted = {name: format_source(text).text for name, text in sources.items()}
    fmt = best(lambda: [format_source(t) for t in sources.values()])
    print(f"content/1936: {len(sources)} files, {size / 1024:.0f} KiB")
    print(f"format every file (fmt --check): {fmt * 1000:.0f} ms  (target <= 1000 ms)")
    trees = best(lambda: [same_meaning(sources[n], formatted[n], n) for n in sources], runs=1)
    print(f"syntax trees compared (a write): {trees * 1000:.0f} ms")
    ir = best(lambda: (program_shape(sources), program_shape(formatted)), runs=1)
    print(f"checked IR compared (a write of a folder): {ir * 1000:.0f} ms")


if __name__ == "__main__":
    main()
