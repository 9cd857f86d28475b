"""The IR of bounded loops: ``repeat [at most] N times``, ``for … in``, ``set`` and ranges.

Reads: nothing (built by :mod:`rulebook.compiler.check.loops`). Produces: the classes
:class:`Loop` and :class:`Set` (statements), :class:`IntRange` (an expression, only where a
loop or a comprehension goes through values), and :func:`counter` (the name under which
the analyses and the emitters know a loop's run number). :mod:`rulebook.compiler.ir`
re-exports them and keeps them in its ``Stmt`` and ``Expr`` unions.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.ir.types import T


def counter(number: int) -> str:
    """The run number of the loop ``number`` of a procedure, as a local of the analyses
    (``#1``: no rules name has a ``#``); the emitters write it ``_run1``."""
    return f"#{number}"


@dataclass(frozen=True, slots=True)
class IntRange:
    """``lo..hi``: the whole numbers from ``lo`` to ``hi``, both included (empty when
    ``hi < lo``)."""

    lo: "Expr"  # noqa: F821 - the union of rulebook.compiler.ir
    hi: "Expr"  # noqa: F821
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Loop:
    """A bounded loop. ``repeat [at most] N times [with (…)] { … } [until c]``: ``times`` is
    N (a constant expression), ``count`` its value; ``for var in iterable [with (…)] { … }
    [until c]``: ``times``/``count`` are None. ``carried``: the values handed on from run
    to run, ``(name, initial value)`` in order; ``set`` gives them their next value, and
    after the loop they hold the last one. The body's own ``let``s are fresh each run.
    ``number`` counts the loops of a procedure from 1 (:func:`counter`); ``text`` is the
    condition as written ("" without ``until``)."""

    number: int
    times: "Expr | None"  # noqa: F821
    count: int | None
    var: str | None
    iterable: "Expr | None"  # noqa: F821
    carried: tuple[tuple[str, "Expr"], ...]  # noqa: F821
    body: tuple["Stmt", ...]  # noqa: F821
    cond: "Expr | None"  # noqa: F821
    text: str
    span: Span

    @property
    def binds(self) -> tuple[str, ...]:
        """The values readable after the loop: the carried ones."""
        return tuple(name for name, _ in self.carried)


@dataclass(frozen=True, slots=True)
class Set:
    """``set name = value``: the carried value ``name`` of the loop around it, from the
    next run on (and after the loop)."""

    name: str
    value: "Expr"  # noqa: F821
    span: Span
