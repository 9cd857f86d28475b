"""Fuzz ``rulebook serve`` over HTTP on demand: N raw requests (5,000 by default) to one running
serve of a small rulebook, failures counted by class.

    python bench/fuzz_serve.py                    # 5,000 cases
    python bench/fuzz_serve.py --cases 20000 --start 5000

Case ``i`` is :func:`fuzz_serve.make_request` with ``random.Random(i)`` (see
``tests/fuzz_serve.py``). Each must be answered or closed within ``fuzz_serve.SECONDS``; the
server must stay alive; every ``--check-every`` cases (and after the last) a normal request must
be answered and the terminal must hold no traceback (a traceback counts once, against the cases
since the last check). Prints the number of cases, the rate and one line per failure class with
its count and the first case that showed it. Exit status 1 when any case failed.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_harness  # noqa: E402
import fuzz_serve  # noqa: E402

RULES = ROOT / "tests" / "data" / "python" / "shooting.rules"


def start_serve(tmp: Path) -> tuple[subprocess.Popen, int, list[str]]:
    """A serve of a copy of the small rulebook, on a free port, its output gathered by a thread."""
    import socket

    folder = tmp / "reglas"
    folder.mkdir()
    shutil.copy(RULES, folder / "reglas.rules")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rulebook.compiler.commands.cli", "serve", str(folder), "--port", str(port)],
                            cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(proc.stdout), daemon=True).start()
    deadline = time.monotonic() + 300
    while "serving http://" not in "".join(output):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the serve did not start:\n" + "".join(output))
        time.sleep(0.1)
    return proc, port, output


def main(argv: list[str] | None = None) -> int:
    parser = fuzz_harness.options(__doc__, cases=5000, jobs=False, limit=False, show="print the bytes of each failing case")
    parser.add_argument("--check-every", type=int, default=100, help="cases between checks of the terminal and a normal request")
    args = parser.parse_args(argv)

    tally = fuzz_harness.Tally()

    def failed(problem: str, i: int, how: str) -> None:
        tally.add(problem, i, how)
        if args.show:
            print(f"--- case {i}: {problem} ({how})\n{fuzz_serve.make_request(random.Random(i))[0][:2000]!r}")

    with tempfile.TemporaryDirectory(prefix="rulebook-fuzz-serve-") as tmp:
        proc, port, output = start_serve(Path(tmp))
        alive = lambda: proc.poll() is None  # noqa: E731
        seen = 0  # terminal lines already checked
        done = 0
        t0 = time.perf_counter()
        try:
            for i in range(args.start, args.start + args.cases):
                data, how = fuzz_serve.make_request(random.Random(i))
                problem = fuzz_serve.failure(port, data, alive)
                done += 1
                if problem:
                    failed(problem, i, how)
                    if problem == "the server died":
                        break
                if done % args.check_every == 0 or i == args.start + args.cases - 1:
                    time.sleep(0.05)
                    if not fuzz_serve.normal_request(port):
                        failed("a normal request is not answered", i, "after " + how)
                    trace = fuzz_serve.terminal_failure("".join(output[seen:]))
                    if trace:
                        failed(trace, i, f"cases {i - args.check_every + 1}..{i}")
                    seen = len(output)
        finally:
            elapsed = time.perf_counter() - t0
            proc.terminate()
            proc.wait(timeout=60)
    return tally.report(f"{done} cases ({args.start}..{args.start + done - 1}) in {elapsed:.1f} s: {done / elapsed:.0f} cases/s")


if __name__ == "__main__":
    sys.exit(main())
