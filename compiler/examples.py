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


@dataclass
class Evaluation:
    """One example evaluated: its distribution (or the error it stopped with) and a
    verdict per expectation."""

    distribution: object | None
    error: Exception | None
    checks: list[tuple[str, str, bool, str | None]]  # (text, source, ok, failure detail)
    expected_error: str | None


def evaluate(package, entry) -> Evaluation:
    """Evaluate one entry of ``package.examples.EXAMPLES`` over its exact distribution."""
    import runtime

    proc_name, _title, src, kwargs, expects, expected_error = entry
    try:
        dist = runtime.exact(package.PROCEDURES[proc_name].function, **kwargs)
    except runtime.RuleError as exc:
        return Evaluation(None, exc, [], expected_error)
    checks = []
    for text, esrc, check, per_outcome in expects:
        try:
            if per_outcome:
                bad = [o for o in dist if not check(o, dist)]
            else:
                bad = [] if check(next(iter(dist)), dist) else list(dist)
        except runtime.RuleError as exc:
            checks.append((text, esrc, False, str(exc)))
            continue
        detail = None
        if bad:
            shown = ", ".join(f"{json.dumps(runtime.to_jsonable(o), ensure_ascii=False)} (p={dist[o]})" for o in bad[:3])
            detail = f"does not hold for: {shown}"
        checks.append((text, esrc, not bad, detail))
    return Evaluation(dist, None, checks, expected_error)


def run_examples(package) -> list[ExampleResult]:
    """Evaluate every example of a generated package."""
    results = []
    for entry in package.examples.EXAMPLES:
        proc_name, title, src = entry[0], entry[1], entry[2]
        res = ExampleResult(proc_name, title, src)
        ev = evaluate(package, entry)
        if ev.error is not None:
            if ev.expected_error is None:
                res.error = str(ev.error)
            elif ev.expected_error not in ev.error.message:
                res.failures.append(f"{src}: expected an error containing {ev.expected_error!r}, got: {ev.error}")
        elif ev.expected_error is not None:
            res.failures.append(f"{src}: expected an error{f' containing {ev.expected_error!r}' if ev.expected_error else ''}, but the procedure resolved")
        for text, esrc, ok, detail in ev.checks:
            if not ok:
                res.failures.append(f"{esrc}: expect {text} {detail or 'fails'}")
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
