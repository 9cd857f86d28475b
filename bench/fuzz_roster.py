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

import argparse
import collections
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_roster  # noqa: E402

_folder: Path | None = None
_build: Path | None = None
_limit = 10.0


class _Timeout(BaseException):
    pass


def _start_worker(limit: float) -> None:
    global _folder, _build, _limit
    from rulebook.compiler.pipeline import driver

    _folder = Path(tempfile.mkdtemp(prefix="rulebook-fuzz-roster-"))
    _build = _folder / "skirmish-build"
    result = driver.build(fuzz_roster.RULEBOOKS["skirmish"], _build, site=False)
    assert result.ok, "the skirmish rulebook must build"
    for folder in fuzz_roster.RULEBOOKS.values():
        fuzz_roster.armies(folder)
        fuzz_roster.armies(folder.resolve())
    _limit = limit

    def timeout(signum, frame):
        raise _Timeout

    signal.signal(signal.SIGALRM, timeout)


def run_case(i: int) -> tuple[int, str | None, str]:
    """(case number, failure class or None, how the case was made)."""
    assert _folder is not None
    rng = random.Random(i)
    try:
        data, rulebook, how = fuzz_roster.make_case(rng)
    except Exception as exc:  # the harness itself must not stop the run
        return i, f"fuzz_roster.make_case raised {type(exc).__name__}", ""
    signal.setitimer(signal.ITIMER_REAL, _limit)
    try:
        problem = fuzz_roster.failure(data, rulebook, _folder, _build if rulebook == "skirmish" else None, rng)
    except _Timeout:
        problem = "timeout"
    except Exception as exc:  # the harness itself must not stop the run
        problem = f"fuzz_roster.failure raised {type(exc).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return i, problem, how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=5_000, help="how many cases (default 5000)")
    parser.add_argument("--start", type=int, default=0, help="the first case number (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: every core)")
    parser.add_argument("--limit", type=float, default=10.0, help="seconds per case before it counts as a timeout")
    parser.add_argument("--show", action="store_true", help="print the bytes of each failing case")
    args = parser.parse_args(argv)

    counts: collections.Counter[str] = collections.Counter()
    first: dict[str, tuple[int, str]] = {}
    done = 0
    t0 = time.perf_counter()
    cases = range(args.start, args.start + args.cases)
    with multiprocessing.Pool(args.jobs, initializer=_start_worker, initargs=(args.limit,)) as pool:
        for i, problem, how in pool.imap_unordered(run_case, cases, chunksize=20):
            done += 1
            if problem:
                counts[problem] += 1
                if problem not in first or i < first[problem][0]:
                    first[problem] = (i, how)
                if args.show:
                    print(f"--- case {i}: {problem} ({how})\n{fuzz_roster.make_case(random.Random(i))[0][:3000]!r}")
            if done % 1000 == 0:
                print(f"  {done} cases, {sum(counts.values())} failures, {done / (time.perf_counter() - t0):.1f} cases/s", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    print(f"{done} cases ({args.start}..{args.start + done - 1}) in {elapsed:.0f} s on {args.jobs} processes: {done / elapsed:.1f} cases/s")
    print(f"{sum(counts.values())} failures" + (":" if counts else ""))
    for problem, count in counts.most_common():
        i, how = first[problem]
        print(f"  {count:>7}  {problem}  (first: case {i}, {how[:100]})")
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
