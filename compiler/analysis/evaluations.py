"""The worked examples of a generated package, resolved once per package.

Reads: a generated package (imported by :func:`rulebook.compiler.pipeline.pyload.load_package`,
which stamps it with the hash of its sources) and an example's index in
``package.examples.EXAMPLES``. Produces: the example's
:class:`rulebook.compiler.analysis.examples.Evaluation` and the actual value of each of its
checks. Entry point: :func:`evaluated(package, index) -> (Evaluation, actuals)`.

Results are remembered under each example's key (:func:`rulebook.compiler.analysis.reads.example_keys`:
the generated code and data its result can depend on, source positions blanked), for
the examples of the latest package. Within a build, every stage that shows or exports
the examples (the pages, the test vectors) shares one resolution of each. Across
builds in one process — ``rulebook serve`` after an edit — an example whose key is
unchanged reuses its result: the same code on the same data computes the same values.
So a data edit resolves again only the examples that read the edited declaration (and
a procedure edit, the examples of that procedure and of those calling it). A prose
edit that adds or removes a line moves every ``file.rules:LINE`` cited below it, so a
reused result takes this package's positions (each check's ``src``, from this
package's expectations); a result that cites a position elsewhere (a rule error's
message, a check that failed with one) is reused only by a package with the very same
sources (:func:`rulebook.compiler.pipeline.pyload.source_hash`), and resolved again otherwise.
Everything kept for one example was computed with one package's objects (its
distribution and its checks together).
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType
from typing import Any

from rulebook.compiler.analysis.examples import Evaluation, evaluate
from rulebook.compiler.analysis.reads import POSITION, example_keys


class Kept:
    """Values by key, for the keys of the latest package: when a package is first seen,
    the values of keys it does not have are dropped (so the memory held is one package's)."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.values: dict[str, Any] = {}

    def of(self, package: ModuleType, keys: list[str] | None) -> dict[str, Any]:
        """The values, pruned to ``keys`` (the package's) when ``package`` is new."""
        source = getattr(package, "__rulebook_source_hash__", None)
        if source != self.source:
            self.source = source
            live = set(keys or ())
            self.values = {k: v for k, v in self.values.items() if k in live}
        return self.values


_LATEST = Kept()
"""Example key → (source hash of the package it was resolved with, Evaluation, actuals)."""


def evaluated(package: ModuleType, index: int) -> tuple[Evaluation, list[Any]]:
    """Example ``index`` of ``package`` resolved and checked, and the actual value of
    each of its expectations (None where it has none, or when it cannot be computed);
    no actuals when the resolution failed."""
    source = getattr(package, "__rulebook_source_hash__", None)
    keys = example_keys(package)
    key = keys[index] if keys is not None else None
    results = _LATEST.of(package, keys)
    generated = package.examples.EXAMPLES[index]
    if key is not None and key in results:
        kept, ev, actuals = results[key]
        if kept == source:
            return ev, actuals
        if _position_free(ev):  # the same code with positions moved: this package's positions, the same values
            ev = replace(ev, expected_error=generated.expected_error,
                         checks=[replace(c, src=x.src) for c, x in zip(ev.checks, generated.expectations)])
            results[key] = (source, ev, actuals)
            return ev, actuals
    ev = evaluate(package, generated)
    actuals: list[Any] = []
    if ev.error is None:
        for expectation in generated.expectations:
            try:
                actuals.append(expectation.actual(ev.distribution) if expectation.op is not None else None)
            except Exception:  # noqa: BLE001 - a check that cannot be computed is reported by its verdict
                actuals.append(None)
    if key is not None:
        results[key] = (source, ev, actuals)
    return ev, actuals


def evaluate_all(package: ModuleType) -> None:
    """Every worked example of ``package`` resolved and remembered (:func:`evaluated`), for
    the stages that read them after: a one-shot build does it while a worker computes the
    odds (:func:`rulebook.compiler.analysis.odds.ahead`)."""
    for index in range(len(package.examples.EXAMPLES)):
        evaluated(package, index)


def _position_free(ev: Evaluation) -> bool:
    """Whether nothing of ``ev`` but its checks' ``src`` cites a source position: no rule
    error (it carries one), no check whose detail cites one."""
    return ev.error is None and not any(c.detail is not None and cites_position(c.detail) for c in ev.checks)


def cites_position(text: str) -> bool:
    """Whether ``text`` cites a source position (``file.rules:LINE``)."""
    return POSITION.search(text.encode()) is not None
