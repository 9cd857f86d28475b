"""The IR of matchups and engagements: how a pairing of units is resolved and measured.

Reads: nothing (built by :mod:`rulebook.compiler.check.matchups`). Produces: the classes
:class:`MatchupSide`, :class:`MatchupEach` and :class:`Matchup` (a declaration kept in
``Program.matchups``, not among the procedures the backends walk). :mod:`rulebook.compiler.ir`
re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulebook.rules_dsl.diagnostics import Span

Expr = Any  # an expression of rulebook.compiler.ir (its Expr union)


@dataclass(slots=True, kw_only=True)
class MatchupSide:
    """A side of a matchup: ``name`` takes each entry of ``catalogs`` (the attacker, the
    target), or only the entries ``ids`` when the side lists them."""

    name: str
    title: str
    catalogs: tuple[str, ...]
    span: Span
    ids: tuple[str, ...] | None = None


@dataclass(slots=True, kw_only=True)
class MatchupEach:
    """An axis over a list an earlier axis gives (``weapon w in a.armas``), or over an
    enum (``quality q in Calidad``: ``items`` None, ``enum`` its name)."""

    name: str
    title: str
    items: Expr | None
    enum: str | None
    span: Span


@dataclass(slots=True, kw_only=True)
class Matchup:
    """``matchup``: how one pairing of units is resolved and what is measured.

    The attacker and the target go through entries of catalogs; ``weapon`` through a
    list the attacker holds (``combine`` says how its weapons add up: "best" or "sum");
    ``quality`` through an enum. ``args`` give the procedure's inputs over those
    names; ``when`` skips the pairings it is false for; ``measure`` is read on each
    outcome (``measure_kind`` "mean": its expected value; "probability": the
    probability that it holds). ``cost`` (optional) overrides the attacker's
    ``@cost_field``; ``category`` (optional) groups the attackers for outliers (default: their catalog).
    An engagement (``start`` given) repeats the procedure: ``state`` is its result,
    ``start`` the first state, ``ends`` the conditions that end it
    (("win" | "loss" | "draw", condition)), ``rounds`` the N of "still fighting after N".
    Matchups are not procedures: the JavaScript backend does not walk them. Like every
    declaration, it has a name, a title, a reference, a status, a doc and its source (the
    fields of :class:`rulebook.compiler.ir.Decl`, which it does not extend: the IR package
    re-exports this module)."""

    name: str
    title: str
    ref: str
    status: str
    doc: str | None
    file: str
    span: Span
    source_text: str
    has_title: bool = True
    doc_is_prose: bool = False
    procedure: str = ""
    args: tuple[tuple[str, Expr], ...] = ()
    attacker: MatchupSide | None = None
    target: MatchupSide | None = None
    weapon: MatchupEach | None = None
    combine: str = "best"
    quality: MatchupEach | None = None
    option: MatchupEach | None = None  # an enum whose every value is tried (the fire mode): the best is taken
    when: Expr | None = None
    measure_kind: str = "mean"
    measure: Expr | None = None
    cost: Expr | None = None
    category: Expr | None = None
    weight: Expr | None = None  # each target's weight in the field (over the target alone; None: 1)
    start: Expr | None = None
    ends: tuple[tuple[str, Expr], ...] = ()
    rounds: int = 10
