"""The harness the large-run fuzz scripts of ``bench/`` share (``fuzz.py``, ``fuzz_roster.py``,
``fuzz_serve.py``, ``fuzz_batch.py``, ``fuzz_lsp.py``); each script only defines its surface.

Reads: the command line (:func:`options`: ``--cases``/``--start``/``--jobs``/``--limit``/``--show``,
as a surface takes them) and the results of a surface's cases. Produces: the run of a surface's
per-case function, on a pool of worker processes or in this process, each case under a time
limit (:func:`within_limit`, SIGALRM; past it the case counts as ``timeout``); progress lines on
stderr; and the summary on stdout (:class:`Tally`): a headline with the number of cases and the
rate, the number of failures, one line per failure class with its count and the first case that
showed it. The exit status is 1 when any case failed.

:func:`run` is the whole run of a surface whose cases are independent (``fuzz.py``,
``fuzz_roster.py``); the surfaces that keep one process or server across cases use the parts.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable

_limit = 10.0
_ONE = {"cases": "case", "batches": "batch"}


class Timeout(BaseException):
    """A case ran past the time limit (raised by SIGALRM)."""


def start_alarm(limit: float) -> None:
    """Let :func:`within_limit` stop a case after ``limit`` seconds in this process."""
    global _limit
    _limit = limit

    def timeout(signum, frame):
        raise Timeout

    signal.signal(signal.SIGALRM, timeout)


def within_limit(call: Callable[[], str | None], raiser: str | None = None) -> str | None:
    """The failure class ``call()`` returns, ``"timeout"`` past the time limit, and, when
    ``raiser`` names it, ``"<raiser> raised <exception>"`` if it raised (the harness itself
    must not stop the run)."""
    signal.setitimer(signal.ITIMER_REAL, _limit)
    try:
        return call()
    except Timeout:
        return "timeout"
    except Exception as exc:
        if raiser is None:
            raise
        return f"{raiser} raised {type(exc).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def options(doc: str, *, cases: int, unit: str = "cases", jobs: int | None | bool = None,
            limit: bool = True, show: str | None = None) -> argparse.ArgumentParser:
    """The command line of a fuzz script: ``--<unit>`` (``cases`` default), ``--start``, ``--jobs``
    (``None``: every core; ``False``: not taken), ``--limit`` and ``--show`` (its help, if taken)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument(f"--{unit}", type=int, default=cases, help=f"how many {unit} (default {cases})")
    parser.add_argument("--start", type=int, default=0, help=f"the first {_ONE[unit]} number (default 0)")
    if jobs is None:
        parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: every core)")
    elif jobs is not False:
        parser.add_argument("--jobs", type=int, default=jobs, help=f"worker processes, each with its own server (default {jobs})")
    if limit:
        parser.add_argument("--limit", type=float, default=10.0, help="seconds per case before it counts as a timeout")
    if show is not None:
        parser.add_argument("--show", action="store_true", help=show)
    return parser


class Tally:
    """Failures counted by class, with the first (lowest-numbered) case of each."""

    def __init__(self, unit: str = "case") -> None:
        self.unit = unit
        self.counts: collections.Counter[str] = collections.Counter()
        self.first: dict[str, tuple[int, str]] = {}

    def add(self, problem: str, i: int, how: str) -> None:
        self.counts[problem] += 1
        if problem not in self.first or i < self.first[problem][0]:
            self.first[problem] = (i, how)

    def total(self) -> int:
        return sum(self.counts.values())

    def report(self, headline: str) -> int:
        """Print the summary under ``headline``; the exit status (1 when any case failed)."""
        print(headline)
        print(f"{self.total()} failures" + (":" if self.counts else ""))
        for problem, count in self.counts.most_common():
            i, how = self.first[problem]
            print(f"  {count:>7}  {problem}  (first: {self.unit} {i}, {how[:100]})")
        return 1 if self.counts else 0


def _start_worker(limit: float, start_worker: Callable[[], None] | None) -> None:
    if start_worker is not None:
        start_worker()
    start_alarm(limit)


def run(doc: str, run_case: Callable[[int], tuple[int, str | None, str]], *, cases: int,
        start_worker: Callable[[], None] | None = None, show: str, shown: Callable[[int], str],
        chunksize: int, progress_every: int, rate: str = ".0f", argv: list[str] | None = None) -> int:
    """Run the cases of a surface on a pool of workers (each started by ``start_worker``, then
    given the time limit); ``run_case(i)`` is ``(i, failure class or None, how it was made)``
    and ``shown(i)`` the text of case ``i`` for ``--show``. Returns the exit status."""
    args = options(doc, cases=cases, show=show).parse_args(argv)
    tally = Tally()
    done = 0
    t0 = time.perf_counter()
    numbers = range(args.start, args.start + args.cases)
    with multiprocessing.Pool(args.jobs, initializer=_start_worker, initargs=(args.limit, start_worker)) as pool:
        for i, problem, how in pool.imap_unordered(run_case, numbers, chunksize=chunksize):
            done += 1
            if problem:
                tally.add(problem, i, how)
                if args.show:
                    print(f"--- case {i}: {problem} ({how})\n{shown(i)}")
            if done % progress_every == 0:
                print(f"  {done} cases, {tally.total()} failures, {done / (time.perf_counter() - t0):{rate}} cases/s", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    return tally.report(f"{done} cases ({args.start}..{args.start + done - 1}) in {elapsed:.0f} s on {args.jobs} processes: {done / elapsed:{rate}} cases/s")
