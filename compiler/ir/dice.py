"""The IR of dice modifiers: re-rolls, explosions, per-die tests, several counts.

Reads: nothing (built by the checker, :mod:`rulebook.compiler.check.dice_mods`).
Produces: :class:`DieTest`, :class:`DiceMods` (the ``mods`` of an
:class:`~rulebook.compiler.ir.Roll`) and :class:`DieFace` (the face of one die
in a per-die condition), re-exported by :mod:`rulebook.compiler.ir`; and
:func:`mod_exprs`, the expressions of a roll's modifiers in the order the
generated code evaluates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.ir.types import T


@dataclass(frozen=True, slots=True)
class DieTest:
    """A test of one die's face: ``face <op> value`` (``op`` set), or a per-die
    condition ``each var if value`` (``op`` None; ``value`` reads the face as a
    :class:`DieFace` named ``var``, and non-random values)."""

    op: str | None
    value: Any  # an expression
    var: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class DiceMods:
    """What a roll does to each die: ``reroll`` (faces re-rolled once), ``explode``
    (faces that add a die; ``chain``: at most that many added dice per die, 1 without
    ``chain``), ``counts``: ``(("", test),)`` for one ``count TEST`` (an int) or
    ``((name, test), …)`` for ``count (name: TEST, …)`` (a count per name)."""

    reroll: DieTest | None
    explode: DieTest | None
    chain: int
    counts: tuple[tuple[str, DieTest], ...] | None

    @property
    def named_counts(self) -> bool:
        """``count (name: TEST, …)``: the outcome has one count per name."""
        return self.counts is not None and any(name for name, _ in self.counts)


@dataclass(frozen=True, slots=True)
class DieFace:
    """The face of one die, named ``name`` in a per-die condition (``each d if d >= 4``)."""

    name: str
    type: T
    span: Span


def mod_exprs(mods: DiceMods | None) -> list[Any]:
    """The expressions of ``mods`` in evaluation order: re-roll, explosion, counts."""
    if mods is None:
        return []
    tests = [mods.reroll, mods.explode, *(test for _, test in mods.counts or ())]
    return [test.value for test in tests if test is not None]
