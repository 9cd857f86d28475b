"""Fuzz ``rulebook resolve --batch`` on demand: N batches (5,000 by default), failures counted by class.

    python bench/fuzz_batch.py                       # 5,000 batches in this process, 1 in 50 through the command
    python bench/fuzz_batch.py --cases 20000 --start 5000 --command-every 0

Case ``i`` is :func:`fuzz_batch.make_case` with ``random.Random(i)`` (see ``tests/fuzz_batch.py``):
request lines for the procedures of ``tests/data/python/shooting.rules``, mutated, with noise,
invalid UTF-8, lines over the 1 MiB limit, read in random pieces. Each runs in this process
(:func:`fuzz_batch.batch_failure`, with a time limit: past ``--limit`` it counts as ``timeout``);
every ``--command-every``-th case also runs through the command, its reads written to its pipe one
by one (:func:`fuzz_batch.command_failure`: exit status, stderr). Prints the number of cases, the
rate, and one line per failure class with its count and first case. Exit status 1 when any failed.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_batch  # noqa: E402
import fuzz_harness  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = fuzz_harness.options(__doc__, cases=5000, jobs=False)
    parser.add_argument("--command-every", type=int, default=50, help="run every Nth case through the command too (0: never)")
    args = parser.parse_args(argv)

    from rulebook.compiler.commands import resolve

    resolver = resolve.Resolver(*resolve.load(fuzz_batch.RULEBOOK, "json"))
    procedures = fuzz_batch.procedures_of(resolver)

    fuzz_harness.start_alarm(args.limit)
    tally = fuzz_harness.Tally()
    through_command = 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rulebook-fuzz-batch-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "xdg")}
        for i in range(args.start, args.start + args.cases):
            reads, how = fuzz_batch.make_case(random.Random(i), procedures)
            problem = fuzz_harness.within_limit(lambda: fuzz_batch.batch_failure(resolver, reads))
            if args.command_every and i % args.command_every == 0:
                through_command += 1
                if not problem:
                    seen = fuzz_batch.command_failure(fuzz_batch.RULEBOOK, reads, env)
                    problem = seen and f"command: {seen}"
            if problem:
                tally.add(problem, i, how)
    elapsed = time.perf_counter() - t0
    done = args.cases
    return tally.report(f"{done} cases ({args.start}..{args.start + done - 1}), {through_command} also through the command, in {elapsed:.0f} s: "
                        f"{done / elapsed:.0f} cases/s")


if __name__ == "__main__":
    sys.exit(main())
