"""Fuzz the language server's input on demand: N batches of random and broken LSP
frames (1,000 by default, about 4,500 frames), failures counted by class.

    python bench/fuzz_lsp.py                          # 1,000 batches on 2 processes
    python bench/fuzz_lsp.py --batches 200 --jobs 1 --start 5000

Batch ``i`` is :func:`fuzz_lsp.make_batch` with ``random.Random(i)`` (see
``tests/fuzz_lsp.py``: edits, requests at random places, renames to good, taken,
reserved and malformed names, code actions, signature help and inlay hints over
random ranges, and the formatting requests of the fmt branch's hook), sent to a ``rulebook lsp`` process (one per worker, started
again after a failure, so that the next batches meet a fresh server). After each
batch the server must be alive, answer a hover within ``fuzz_lsp.ANSWER_SECONDS``,
have answered every well-formed request of the batch and never have written a
traceback; each worker ends its server with ``shutdown`` and ``exit``. Prints the
number of batches and frames, the rate, and one line per failure class with its
count and the first batch that showed it (replay it with ``--start I --batches 1``).
Exit status 1 when any batch failed.

A surface of its own (not in ``bench/fuzz.py``, which fuzzes the compiler).
"""

from __future__ import annotations

import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_harness  # noqa: E402
import fuzz_lsp  # noqa: E402


def run_batches(seeds: list[int]) -> list[tuple[int, int, str | None, str]]:
    """(batch number, frames sent, failure class or None, how the batch was made) for each seed."""
    out = []
    with tempfile.TemporaryDirectory(prefix="rulebook-fuzz-lsp-") as tmp:
        server = None
        for i in seeds:
            if server is None:
                folder = Path(tmp) / f"reglamento-{i}"
                folder.mkdir()
                server = fuzz_lsp.LspServer(folder)
            frames, how = fuzz_lsp.make_batch(random.Random(i), server.folder, server.next_id)
            problem = fuzz_lsp.failure(server, frames)
            out.append((i, len(frames), problem, how))
            if problem is not None:  # the next batches meet a fresh server
                server.close()
                server = None
        if server is not None:
            ending = fuzz_lsp.ends_cleanly(server)
            if ending is not None:
                out.append((seeds[-1], 0, f"at the end: {ending}", "shutdown, exit"))
            server.close()
    return out


def main(argv: list[str] | None = None) -> int:
    args = fuzz_harness.options(__doc__, cases=1000, unit="batches", jobs=2, limit=False).parse_args(argv)

    seeds = list(range(args.start, args.start + args.batches))
    chunks = [seeds[k :: args.jobs] for k in range(args.jobs) if seeds[k :: args.jobs]]
    tally = fuzz_harness.Tally("batch")
    batches = frames = 0
    t0 = time.perf_counter()
    with multiprocessing.Pool(len(chunks)) as pool:
        for results in pool.imap_unordered(run_batches, chunks):
            for i, sent, problem, how in results:
                batches += sent > 0
                frames += sent
                if problem:
                    tally.add(problem, i, how)
    elapsed = time.perf_counter() - t0
    return tally.report(f"{batches} batches ({args.start}..{args.start + args.batches - 1}), {frames} frames in {elapsed:.0f} s on {len(chunks)} processes: {frames / elapsed:.0f} frames/s")


if __name__ == "__main__":
    sys.exit(main())
