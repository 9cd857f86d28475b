"""Bench ``rulebook fmt`` on the largest bundled rulebook (content/1936).

Reads content/1936/*.rules. Prints the time to format every file (the work of
``rulebook fmt --check`` on a formatted rulebook: nothing is parsed), the whole command
``rulebook fmt --check`` in a new process on a formatted copy, the time of the
safety checks a write adds (syntax trees before and after; the checked IR before and
after), best of 3 runs each. Run: ``python bench/fmt.py``.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rulebook.compiler.format import format_source, same_meaning
from rulebook.compiler.format.safety import program_shape

BOOK = Path(__file__).resolve().parent.parent / "content" / "1936"


def best(fn, runs: int = 3) -> float:
    """The shortest wall time of ``runs`` calls (the others waited for a busy machine)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def cpu_of(fn) -> float:
    """The CPU time (user and system) of one call in this process."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(BOOK.glob("*.rules"))}
    size = sum(len(t.encode()) for t in sources.values())
    formatted = {name: format_source(text).text for name, text in sources.items()}
    fmt = best(lambda: [format_source(t) for t in sources.values()])
    print(f"content/1936: {len(sources)} files, {size / 1024:.0f} KiB")
    fmt_cpu = min(cpu_of(lambda: [format_source(t) for t in sources.values()]) for _ in range(3))
    print(f"format every file (fmt --check): {fmt * 1000:.0f} ms wall, {fmt_cpu * 1000:.0f} ms CPU  (target <= 1000 ms)")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "1936"
        shutil.copytree(BOOK, copy)
        for name, text in formatted.items():
            (copy / name).write_text(text, encoding="utf-8")
        command = [sys.executable, "-m", "rulebook.compiler.commands.cli", "fmt", "--check", str(copy)]
        cpu: list[float] = []

        def run() -> None:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, capture_output=True, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

        cli = best(run)
    print(f"rulebook fmt --check content/1936 (a new process, formatted files): {cli * 1000:.0f} ms wall, "
          f"{min(cpu) * 1000:.0f} ms CPU (start-up and imports included)")
    trees = best(lambda: [same_meaning(sources[n], formatted[n], n) for n in sources], runs=1)
    print(f"syntax trees compared (a write): {trees * 1000:.0f} ms")
    ir = best(lambda: (program_shape(sources), program_shape(formatted)), runs=1)
    print(f"checked IR compared (a write of a folder): {ir * 1000:.0f} ms")


if __name__ == "__main__":
    main()
