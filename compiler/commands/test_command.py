"""``rulebook test``: run the rulebook's worked examples over exact distributions.

Reads a rulebook (checked and compiled by :func:`rulebook.compiler.commands.resolve.load`);
prints one line per example (``ok`` or ``FAIL`` with what failed: the outcomes
an expectation does not hold for, or a probability next to the expected one,
and the distribution of results in outcome order), then the summary
``N passed, M failed`` on its own line; or, with ``--format json``, a list of
verdicts. Entry point: :func:`main(args) -> int` (exit status: 1 when an
example fails).
"""

from __future__ import annotations

import argparse
import json

from rulebook.compiler.commands import resolve
from rulebook.compiler.analysis.examples import ExampleResult, run_examples
from rulebook.compiler.support.i18n import tell as _
from rulebook.compiler.support.i18n import tell_n as ngettext

SHOWN_DISTRIBUTION = 20  # outcomes listed under a failed example


def main(args: argparse.Namespace) -> int:
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
            print(f"{'ok  ' if r.ok else 'FAIL'} {r.procedure}: {r.title} ({r.src})")
            for line in _failure_lines(r):
                print(f"       {line}")
        print()
        print(summary(len(results) - len(failed), len(failed)))
    return 1 if failed else 0


def summary(passed: int, failed: int) -> str:
    """``309 passed, 0 failed`` in the user's language."""
    return (ngettext("%(num)d passed", "%(num)d passed", passed) % {"num": passed} + ", "
            + ngettext("%(num)d failed", "%(num)d failed", failed) % {"num": failed})


def _failure_lines(r: ExampleResult) -> list[str]:
    """What went wrong with one example, and the distribution it resolved to."""
    if r.ok:
        return []
    lines = list(r.failures)
    if r.error:
        lines.append(_("error: %(message)s") % {"message": r.error})
    if r.failures and r.distribution:
        lines.append(_("distribution of results:"))
        lines.extend(f"  {resolve.distribution_line(o, p)}" for o, p in r.distribution[:SHOWN_DISTRIBUTION])
        if len(r.distribution) > SHOWN_DISTRIBUTION:
            more = len(r.distribution) - SHOWN_DISTRIBUTION
            lines.append("  " + ngettext("… and %(num)d more outcome", "… and %(num)d more outcomes", more) % {"num": more})
    return lines

