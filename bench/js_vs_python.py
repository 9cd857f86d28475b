"""JS exact vs Python exact on the same rows: the worked examples' inputs of each bundled rulebook.

For each rulebook (built once into a temporary folder, no site), every worked example that
resolves (no expected error) is a row: its procedure's exact distribution is computed by the
generated Python package (``rulebook.runtime.exact``, in this process) and by the generated
JavaScript package (``bench/js_exact_rows.mjs``, one Node process), each the best of
``--repeats`` runs after a warm-up (random variables' distributions are then computed once,
in both). Prints, per rulebook: the rows, the total time of each backend, their ratio
(JS ÷ Python: below 1, JavaScript is faster), the median and the extremes of the per-row
ratios, and the slowest row.

    python bench/js_vs_python.py [--repeats 3] [--rulebook 1936 …]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ("1936", "tercios", "napoleonico")


def python_times(package, rows: list[tuple[str, dict]], repeats: int) -> list[float | None]:
    from rulebook import runtime

    out: list[float | None] = []
    for name, data in rows:
        proc = package.PROCEDURES[name]
        try:
            kwargs = proc.convert(data)
            runtime.exact(proc.function, **kwargs)
            best = float("inf")
            for _ in range(repeats):
                t = time.perf_counter()
                runtime.exact(proc.function, **kwargs)
                best = min(best, (time.perf_counter() - t) * 1000)
            out.append(best)
        except runtime.RuleError:
            out.append(None)
    return out


def js_times(folder: Path, rows: list[tuple[str, dict]], repeats: int) -> list[float | None]:
    proc = subprocess.run(["node", str(ROOT / "bench" / "js_exact_rows.mjs"), str(folder / "js"), str(repeats)],
                          input=json.dumps(rows), capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rulebook", nargs="*", default=list(RULEBOOKS))
    args = parser.parse_args()
    from rulebook.compiler.pipeline import driver, pyload

    print(f"{'rulebook':<12} {'rows':>5} {'python ms':>10} {'js ms':>10} {'js/py':>7} {'median':>7} {'min':>6} {'max':>6}  slowest row")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rulebook:
            folder = Path(tmp) / name
            result = driver.build(ROOT / "content" / name, folder, site=False)
            if not result.ok:
                print(f"{name}: the build failed", file=sys.stderr)
                return 1
            vectors = json.loads((folder / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
            rows = [(v["procedure"], v["input"]) for v in vectors if v["error"] is None]
            py = python_times(pyload.load_package(folder / "python"), rows, args.repeats)
            js = js_times(folder, rows, args.repeats)
            pairs = [(p, j, row) for p, j, row in zip(py, js, rows) if p is not None and j is not None]
            ratios = [j / p for p, j, _ in pairs if p > 0]
            total_py, total_js = sum(p for p, _, _ in pairs), sum(j for _, j, _ in pairs)
            slowest = max(pairs, key=lambda x: x[0] + x[1])
            print(f"{name:<12} {len(pairs):>5} {total_py:>10.1f} {total_js:>10.1f} {total_js / total_py:>7.2f} "
                  f"{statistics.median(ratios):>7.2f} {min(ratios):>6.2f} {max(ratios):>6.2f}  "
                  f"{slowest[2][0]} (py {slowest[0]:.1f} ms, js {slowest[1]:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
