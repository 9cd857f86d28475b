"""Fuzz ``rulebook roster`` on demand: N rosters (5,000 by default), failures counted by class.

    python bench/fuzz_roster.py                      # 5,000 cases on every core
    python bench/fuzz_roster.py --cases 20000 --jobs 2 --start 5000

Case ``i`` is :func:`fuzz_roster.make_case` with ``random.Random(i)`` (see
``tests/fuzz_roster.py``): a roster built from an army document of the rulebooks there,
or one of the repository's, under mutations; it runs through ``roster validate`` (text
and JSON) and ``roster print`` in the worker's process, against the rulebook's sources
or (skirmish) a build of it, with a time limit (``--limit``, 10 s: past it the case
counts as ``timeout``). Prints the number of cases, the rate, and one line per failure
class with its count and the first case that showed it (replay it with ``--start I
--cases 1 --show``). Exit status 1 when any case failed. (The compiler's own fuzzing
is ``bench/fuzz.py``.)
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_harness  # noqa: E402
import fuzz_roster  # noqa: E402

_folder: Path | None = None
_build: Path | None = None


def _start_worker() -> None:
    global _folder, _build
    from rulebook.compiler.pipeline import driver

    _folder = Path(tempfile.mkdtemp(prefix="rulebook-fuzz-roster-"))
    _build = _folder / "skirmish-build"
    result = driver.build(fuzz_roster.RULEBOOKS["skirmish"], _build, site=False)
    assert result.ok, "the skirmish rulebook must build"
    for folder in fuzz_roster.RULEBOOKS.values():
        fuzz_roster.armies(folder)
        fuzz_roster.armies(folder.resolve())


def run_case(i: int) -> tuple[int, str | None, str]:
    """(case number, failure class or None, how the case was made)."""
    assert _folder is not None
    rng = random.Random(i)
    try:
        data, rulebook, how = fuzz_roster.make_case(rng)
    except Exception as exc:  # the harness itself must not stop the run
        return i, f"fuzz_roster.make_case raised {type(exc).__name__}", ""
    build = _build if rulebook == "skirmish" else None
    return i, fuzz_harness.within_limit(lambda: fuzz_roster.failure(data, rulebook, _folder, build, rng), "fuzz_roster.failure"), how


def main(argv: list[str] | None = None) -> int:
    return fuzz_harness.run(
        __doc__, run_case, cases=5_000, start_worker=_start_worker, chunksize=20, progress_every=1000, rate=".1f",
        show="print the bytes of each failing case", shown=lambda i: repr(fuzz_roster.make_case(random.Random(i))[0][:3000]), argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
