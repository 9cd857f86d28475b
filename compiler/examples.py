"""``rulebook test``: run the rulebook's worked examples over exact distributions."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

from . import resolve


@dataclass
class ExampleResult:
    procedure: str
    title: str
    src: str
    failures: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None


def run_examples(package) -> list[ExampleResult]:
    """Evaluate every example of a generated package."""
    import runtime

    results = []
    for proc_name, title, src, kwargs, expects, expected_error in package.examples.EXAMPLES:
        res = ExampleResult(proc_name, title, src)
        try:
            dist = runtime.exact(package.PROCEDURES[proc_name].function, **kwargs)
        except runtime.RuleError as exc:
            if expected_error is None:
                res.error = str(exc)
            elif expected_error not in exc.message:
                res.failures.append(f"{src}: expected an error containing {expected_error!r}, got: {exc}")
            results.append(res)
            continue
        if expected_error is not None:
            res.failures.append(f"{src}: expected an error{f' containing {expected_error!r}' if expected_error else ''}, but the procedure resolved")
            results.append(res)
            continue
        for text, esrc, check in expects:
            try:
                bad = [o for o in dist if not check(o, dist)]
            except runtime.RuleError as exc:
                res.failures.append(f"{esrc}: expect {text}: {exc}")
                continue
            if bad:
                shown = ", ".join(
                    f"{json.dumps(runtime.to_jsonable(o), ensure_ascii=False)} (p={dist[o]})" for o in bad[:3]
                )
                res.failures.append(f"{esrc}: expect {text} does not hold for: {shown}")
        results.append(res)
    return results


def main(args) -> int:
    loaded = resolve.load(args.rulebook, args.format)
    if loaded is None:
        return 1
    _program, package = loaded
    results = run_examples(package)
    failed = [r for r in results if not r.ok]
    if args.format == "json":
        print(json.dumps([
            {"procedure": r.procedure, "title": r.title, "src": r.src, "ok": r.ok, "failures": r.failures, "error": r.error}
            for r in results
        ], ensure_ascii=False, indent=2))
    else:
        for r in results:
            mark = "ok  " if r.ok else "FAIL"
            print(f"{mark} {r.procedure}: {r.title} ({r.src})")
            for f in r.failures:
                print(f"       {f}")
            if r.error:
                print(f"       error: {r.error}")
        print(f"{len(results) - len(failed)} passed, {len(failed)} failed", file=sys.stderr)
    return 1 if failed else 0
