"""Fuzz the compiler on demand: N cases (100,000 by default), failures counted by class.

    python bench/fuzz.py                     # 100,000 cases on every core
    python bench/fuzz.py --cases 5000 --jobs 2 --start 100000

Case ``i`` is :func:`fuzzing.make_case` with ``random.Random(i)`` (see
``tests/fuzzing.py``): a generated rulebook, or a file of the repository under
mutations. Each runs under :func:`fuzzing.failure` with a time limit
(``--limit``, 10 s: past it the case counts as ``timeout``). Prints the number
of cases, the rate, and one line per failure class with its count and the
first case that showed it (replay it with ``--start I --cases 1 --show``).
Exit status 1 when any case failed.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_harness  # noqa: E402
import fuzzing  # noqa: E402

_folder: Path | None = None


def _start_worker() -> None:
    global _folder
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    _folder = Path(tempfile.mkdtemp(prefix="rulebook-fuzz-"))


def run_case(i: int) -> tuple[int, str | None, str]:
    """(case number, failure class or None, how the case was made)."""
    assert _folder is not None
    text, how = fuzzing.make_case(random.Random(i))
    return i, fuzz_harness.within_limit(lambda: fuzzing.failure(text, _folder), "fuzzing.failure"), how


def main(argv: list[str] | None = None) -> int:
    return fuzz_harness.run(
        __doc__, run_case, cases=100_000, start_worker=_start_worker, chunksize=50, progress_every=5000,
        show="print the text of each failing case", shown=lambda i: fuzzing.make_case(random.Random(i))[0], argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
