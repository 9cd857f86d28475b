"""Worked examples evaluated over exact distributions.

Reads a generated package and its :class:`rulebook.runtime.Example` objects
(``package.examples.EXAMPLES``). Produces, for one example, an
:class:`Evaluation` — :func:`evaluate(package, example) -> Evaluation`, a pure
function used by ``rulebook test`` and the site — and for a whole package the
verdicts of :func:`run_examples`. Imports only the runtime (no driver, no CLI).
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from rulebook import runtime

SHOWN_OUTCOMES = 3  # failing outcomes named in a check's detail


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one ``expect``: ``detail`` says why it failed (None when ``ok``)."""

    text: str
    src: str
    ok: bool
    detail: str | None


@dataclass(frozen=True)
class Evaluation:
    """One example evaluated: its distribution, or the rule error it stopped with
    (``error``), the error it was expected to stop with, and a verdict per expectation."""

    distribution: runtime.Distribution | None
    error: runtime.RuleError | None
    expected_error: str | None
    checks: list[CheckResult]


@dataclass
class ExampleResult:
    """What ``rulebook test`` reports of one example: what went wrong, if anything."""

    procedure: str
    title: str
    src: str
    failures: list[str] = field(default_factory=list)
    error: str | None = None
    distribution: list[tuple[Any, Fraction]] = field(default_factory=list)  # in outcome order

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None


def evaluate(package: ModuleType, example: runtime.Example) -> Evaluation:
    """Resolve one example exactly and check each of its expectations.

    Examples of one package that give one procedure the same inputs (several
    expectations about one roll, written as separate examples) share one
    resolution: the same code on the same inputs has one distribution."""
    procedure = package.PROCEDURES[example.procedure]
    try:
        dist = _resolved(package, procedure, example)
    except runtime.RuleError as exc:
        return Evaluation(None, exc, example.expected_error, [])
    checks = [_check(procedure, expectation, dist) for expectation in example.expectations]
    return Evaluation(dist, None, example.expected_error, checks)


_RESOLVED: dict[str, Any] = {"package": None, "known": {}}
"""The distributions resolved for the latest package (a weak reference to it), by
procedure and inputs (:func:`same_inputs`); a new package starts afresh."""


def _resolved(package: ModuleType, procedure: runtime.Procedure, example: runtime.Example) -> runtime.Distribution:
    """``runtime.exact`` of the example's procedure on its inputs, once per package and inputs."""
    key = same_inputs(example)
    if key is None:
        return runtime.exact(procedure.function, **example.inputs)
    latest = _RESOLVED["package"]
    if latest is None or latest() is not package:
        _RESOLVED["package"], _RESOLVED["known"] = weakref.ref(package), {}
    known = _RESOLVED["known"]
    dist = known.get(key)
    if dist is None:
        dist = known[key] = runtime.exact(procedure.function, **example.inputs)
    return dist


def same_inputs(example: runtime.Example) -> tuple | None:
    """A key that two examples share only when they give the same procedure the same
    inputs: equal values of the same ``repr`` (``1``, ``True`` and ``1.0`` are equal but
    not the same input). None when an input cannot be hashed."""
    key = (example.procedure, tuple(example.inputs.items()), repr(example.inputs))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _check(procedure: runtime.Procedure, x: runtime.Expectation, dist: runtime.Distribution) -> CheckResult:
    try:
        if x.op is not None:
            actual, expected = x.actual(dist), x.expected(dist)
            ok = x.holds(None, dist)
            detail = None if ok else f"actual {_number(actual)}, expected {'' if x.op == '==' else x.op + ' '}{_number(expected)}"
            return CheckResult(x.text, x.src, ok, detail)
        if x.per_outcome:
            bad = [(o, p) for o, p in procedure.in_outcome_order(dist) if not x.holds(o, dist)]
        else:
            bad = [] if x.holds(next(iter(dist)), dist) else procedure.in_outcome_order(dist)
    except runtime.RuleError as exc:
        return CheckResult(x.text, x.src, False, str(exc))
    if not bad:
        return CheckResult(x.text, x.src, True, None)
    shown = ", ".join(f"{_outcome(o)} (p={p})" for o, p in bad[:SHOWN_OUTCOMES])
    more = f" and {len(bad) - SHOWN_OUTCOMES} more" if len(bad) > SHOWN_OUTCOMES else ""
    return CheckResult(x.text, x.src, False, f"does not hold for: {shown}{more}")


def _outcome(value: Any) -> str:
    return json.dumps(runtime.to_jsonable(value), ensure_ascii=False)


def _number(value: Any) -> str:
    """A value as the designer wrote it, with its decimal value when it is a fraction."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{runtime.format_value(value)} (≈ {float(value):.4f})"
    return runtime.format_value(value)


def run_examples(package: ModuleType) -> list[ExampleResult]:
    """Evaluate every example of a generated package, in rulebook order."""
    return [verdict(package, example, evaluate(package, example)) for example in package.examples.EXAMPLES]


def verdict(package: ModuleType, example: runtime.Example, ev: Evaluation, with_distribution: bool = True) -> ExampleResult:
    """What went wrong with one evaluated example, if anything (``rulebook test``'s
    verdict; a build refuses to publish an example whose verdict is not ``ok``), with the
    distribution of results in outcome order unless ``with_distribution`` is false."""
    res = ExampleResult(example.procedure, example.title, example.src)
    if ev.error is not None:
        if ev.expected_error is None:
            res.error = str(ev.error)
        elif ev.expected_error not in ev.error.message:
            res.failures.append(f"{example.src}: expected an error containing {ev.expected_error!r}, got: {ev.error}")
    elif ev.expected_error is not None:
        containing = f" containing {ev.expected_error!r}" if ev.expected_error else ""
        res.failures.append(f"{example.src}: expected an error{containing}, but the procedure resolved")
    for check in ev.checks:
        if not check.ok:
            res.failures.append(f"{check.src}: expect {check.text}: {check.detail or 'fails'}")
    if with_distribution and ev.distribution is not None:
        res.distribution = package.PROCEDURES[example.procedure].in_outcome_order(ev.distribution)
    return res
