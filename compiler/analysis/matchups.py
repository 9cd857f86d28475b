"""Matchups and engagements: run a generated package's resolvers over every pairing, exactly.

Reads the :class:`rulebook.runtime.Matchup` objects of ``package.matchups.MATCHUPS`` and the
catalogs, enums and cost layout (``@cost_field``/``@cost_modifier``) of the checked program.
Produces a :class:`MatchupResult` per matchup (entry point
:func:`compute(program, package) -> list[MatchupResult]`): for each attacker (at each
quality), its cost, its category and its effect against each target, as exact fractions.

* A **matchup** resolves ``procedure`` for each (attacker, weapon, target, quality) the
  ``when`` condition lets through and takes the expected value of its ``measure`` over the
  exact distribution (``probability(c)``: the chance that ``c`` holds). The weapons of an
  attacker combine as ``best`` (the one it would choose: the largest effect) or ``sum``. A
  pairing the procedure refuses (a rule error: a profile without that mode) has no effect.
* An **engagement** repeats the procedure from ``start`` (its result is the next state)
  until one of its end conditions holds: an absorbing Markov chain over the states reached,
  equal states merged, solved exactly with fractions — the probability that the attacker
  wins, loses or draws, that it is still fighting after ``rounds`` rounds, and the expected
  number of rounds (None when some fights never end). Its size (states × transitions) is
  bounded by the work limit: past it, :class:`EngagementTooLarge` says which pairing.

Every distribution is kept in :data:`DISTRIBUTIONS` under the key of its procedure (the
generated code and data it can read, :func:`rulebook.compiler.analysis.reads.procedure_keys`)
and its inputs as JSON: after an edit, a pairing whose procedure and inputs are unchanged
is not resolved again (a cost edit resolves nothing again).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from rulebook import runtime

from rulebook.compiler import ir
from rulebook.compiler.analysis.reads import procedure_keys

MAX_WORK = 5_000_000
"""Units of work (transitions explored, plus the solve's eliminations) one engagement may take."""

DISTRIBUTIONS: dict[tuple[str, str], Any] = {}
"""(procedure key, inputs as JSON) → the exact distribution, or the RuleError message."""

MAX_KEPT = 200_000


class EngagementTooLarge(Exception):
    """An engagement's chain needs more work than :data:`MAX_WORK`."""


@dataclass
class Engagement:
    """The exact odds of one engagement: ``win``, ``loss``, ``draw`` (probabilities that the
    fight ends so), ``unfinished`` (still fighting after ``rounds`` rounds), ``never``
    (never ends), ``expected_rounds`` (None when ``never`` > 0), ``states`` (distinct states)."""

    win: Fraction
    loss: Fraction
    draw: Fraction
    unfinished: Fraction
    never: Fraction
    expected_rounds: Fraction | None
    rounds: int
    states: int


@dataclass
class Row:
    """One attacker at one quality: its cost (None: none declared), category, and its effect
    against each target (None: no pairing is fought), with the weapon that gives it."""

    attacker: str
    catalog: str
    name: str
    quality: str | None
    quality_title: str | None
    cost: Fraction | None
    category: str
    effects: dict[str, Fraction | None] = field(default_factory=dict)
    weapons: dict[str, str | None] = field(default_factory=dict)
    engagements: dict[str, Engagement] = field(default_factory=dict)


@dataclass
class MatchupResult:
    name: str
    title: str
    ref: str
    src: str
    kind: str  # "mean", "probability" or "win" (an engagement)
    targets: list[tuple[str, str]]  # (id, name)
    weights: dict[str, Fraction]
    rows: list[Row]
    errors: list[str]
    resolved: int = 0  # distributions computed (not found in DISTRIBUTIONS)
    reused: int = 0


def _key(inputs: dict) -> str:
    return json.dumps(runtime.to_jsonable(inputs), sort_keys=True, ensure_ascii=False, default=str)


class _Resolver:
    """Exact distributions of one package's procedures, remembered across packages."""

    def __init__(self, package: ModuleType) -> None:
        self.package = package
        self.keys = procedure_keys(package) or {}
        self.local: dict[tuple[str, str], Any] = {}
        self.resolved = self.reused = 0

    def dist(self, procedure: str, inputs: dict):
        pkey = self.keys.get(procedure)
        key = (pkey or procedure, _key(inputs))  # no key: this package's own store
        store = DISTRIBUTIONS if pkey is not None else self.local
        found = store.get(key)
        if found is not None:
            self.reused += 1
            if isinstance(found, str):
                raise runtime.RuleError(found)
            return found
        self.resolved += 1
        try:
            found = runtime.exact(self.package.PROCEDURES[procedure].function, **inputs)
        except runtime.RuleError as exc:
            found = str(getattr(exc, "message", exc))
        if len(store) >= MAX_KEPT:
            store.clear()
        store[key] = found
        if isinstance(found, str):
            raise runtime.RuleError(found)
        return found


def cost_at(base: int, pct: int | Fraction) -> int:
    """A cost ``base`` with ``pct`` percent added, rounded half up (as the datasheets show it)."""
    return math.floor(Fraction(base) * (100 + Fraction(pct)) / 100 + Fraction(1, 2))


def _entries(package: ModuleType, side: runtime.MatchupSide) -> list[tuple[str, str, Any]]:
    """(catalog, id, record) of every entry of the side's catalogs (those it lists), in order."""
    found = {}
    for c, entries in zip(side.catalogs, side.data):
        for ident, record in entries.items():
            found.setdefault(ident, (c, ident, record))
    if side.ids is not None:
        return [found[i] for i in side.ids if i in found]
    return list(found.values())


def _name(record: Any, ident: str) -> str:
    for f in ("nombre", "name", "title", "titulo"):
        v = getattr(record, f, None)
        if isinstance(v, str) and v:
            return v
    return ident


def compute(program: ir.Program, package: ModuleType, only: set[str] | None = None,
            max_work: int = MAX_WORK) -> list[MatchupResult]:
    """Every matchup of ``package`` (those named in ``only``), computed exactly."""
    resolver = _Resolver(package)
    enums = program.enums
    out = []
    for m in package.matchups.MATCHUPS:
        if only is not None and m.name not in only:
            continue
        before = (resolver.resolved, resolver.reused)
        result = _matchup(program, package, m, resolver, enums, max_work)
        result.resolved, result.reused = resolver.resolved - before[0], resolver.reused - before[1]
        out.append(result)
    return out


def _matchup(program: ir.Program, package: ModuleType, m: runtime.Matchup, resolver: _Resolver, enums, max_work: int) -> MatchupResult:
    catalogs = program.catalogs
    attackers = _entries(package, m.attacker)
    targets = _entries(package, m.target)
    qualities: list[Any] = list(m.quality.values) if m.quality is not None else [None]
    options: list[Any] = list(m.option.values) if m.option is not None else [None]
    declared = program.matchups.get(m.name)
    quality_enum = enums.get(declared.quality.enum) if declared is not None and declared.quality is not None else None
    option_enum = enums.get(declared.option.enum) if declared is not None and declared.option is not None else None
    errors: list[str] = []
    weights = {t: Fraction(m.weight(t)) if m.weight is not None else Fraction(1) for _c, t, _r in targets}
    rows: list[Row] = []
    for cat, a, a_rec in attackers:
        catalog = catalogs.get(cat)
        weapons = list(m.weapons(a)) if m.weapons is not None else [None]
        for q in qualities:
            cost = _cost(m, catalog, a, a_rec, q)
            category = _category(m, declared, enums, catalog, cat, a, q)
            q_title = _member_title(quality_enum, q)
            if q_title is not None and m.category is None:
                category = f"{category} · {q_title}"
            row = Row(a, cat, _name(a_rec, a), q, q_title, cost, category)
            for _tc, t, _t_rec in targets:
                if m.start is not None:
                    try:
                        eng = engage(m, resolver, a, t, q, max_work)
                    except runtime.RuleError as exc:
                        errors.append(f"{a} × {t}: {getattr(exc, 'message', exc)}")
                        row.effects[t] = None
                        continue
                    row.engagements[t] = eng
                    row.effects[t] = eng.win
                    continue
                best: Fraction | None = None
                best_weapon = None
                for i, w in enumerate(weapons):
                    value, choice = _best_option(m, resolver, options, a, w, t, q)
                    if value is None:
                        continue
                    if best is None:
                        best, best_weapon = value, (i, choice)
                    elif m.combine == "sum":
                        best += value
                    elif value > best:
                        best, best_weapon = value, (i, choice)
                row.effects[t] = best
                row.weapons[t] = _weapon_name(weapons, best_weapon, option_enum) if m.combine == "best" else None
            rows.append(row)
    return MatchupResult(m.name, m.title, m.ref, m.src, m.measure_kind, [(t, _name(r, t)) for _c, t, r in targets], weights, rows, errors)


def _category(m: runtime.Matchup, declared: ir.Matchup | None, enums, catalog: ir.Catalog | None, cat: str, a: Any, q: Any) -> str:
    """The attacker's category: the matchup's ``category`` (an enum value by its title), else its catalog's title."""
    if m.category is None:
        return catalog.title if catalog is not None else cat
    value = m.category(a, None, None, q, None, None)
    t = declared.category.type if declared is not None and declared.category is not None else None
    if t is not None and t.kind == "enum" and t.name in enums:
        return _member_title(enums[t.name], value) or str(value)
    return str(value)


def _best_option(m: runtime.Matchup, resolver: _Resolver, options: list, a: Any, w: Any, t: Any, q: Any) -> tuple[Fraction | None, Any]:
    """The effect of one weapon: with an option axis, the best over its values (and which)."""
    best, choice = None, None
    for o in options:
        if m.when is not None and not m.when(a, w, t, q, None, o):
            continue
        try:
            dist = resolver.dist(m.procedure, m.inputs(a, w, t, q, None, o))
        except runtime.RuleError:
            continue
        if m.measure_kind == "probability":
            value = sum((p for r, p in dist.items() if m.measure(r, a, w, t, q, None, o)), Fraction(0))
        else:
            value = sum((p * Fraction(m.measure(r, a, w, t, q, None, o)) for r, p in dist.items()), Fraction(0))
        if best is None or value > best:
            best, choice = value, o
    return best, choice


def _weapon_name(weapons: list, chosen: tuple[int, Any] | None, option_enum: ir.Enum | None) -> str | None:
    """The weapon (and option) that gives the effect: «Fusiles · Fuego de Área»."""
    if chosen is None:
        return None
    index, option = chosen
    w = weapons[index]
    name = None if w is None else (_name(w, str(index + 1)) if not isinstance(w, str) else w)
    shown = _member_title(option_enum, option) if option is not None else None
    return " · ".join(x for x in (name, shown) if x) or None


def _member_title(enum: ir.Enum | None, value: Any) -> str | None:
    if value is None:
        return None
    if enum is not None:
        for member in enum.members:
            if member.name == value:
                return member.title or value
    return str(value)


def _cost(m: runtime.Matchup, catalog: ir.Catalog | None, a: str, record: Any, q: Any) -> Fraction | None:
    """The attacker's cost: the matchup's ``cost``, else its catalog's ``@cost_field`` (at the
    quality, with ``@cost_modifier`` keyed by the quality's enum); None when none is declared."""
    if m.cost is not None:
        return Fraction(m.cost(a, None, None, q, None, None))
    display = catalog.cost if catalog is not None else None
    if display is None:
        return None
    base = getattr(record, display.field, None)
    if base is None:
        return None
    if display.table is None or q is None:
        return Fraction(base)
    pct = next((p for member, _title, p in display.levels if member == q), None)
    return Fraction(cost_at(base, pct)) if pct is not None else None


def engage(m: runtime.Matchup, resolver: _Resolver, a: Any, t: Any, q: Any, max_work: int = MAX_WORK) -> Engagement:
    """The exact odds of the engagement ``m`` between ``a`` and ``t``: an absorbing chain
    over the states the procedure reaches from ``start``.

    Raises:
        EngagementTooLarge: more than ``max_work`` transitions and elimination steps.
        RuleError: the procedure refuses a state.
    """
    start = m.start(a, None, t, q, None, None)
    ends = m.ends

    def end_of(state) -> str | None:
        for kind, cond in ends:
            if cond(a, None, t, q, state, None):
                return kind
        return None

    index: dict[Any, int] = {}
    states: list[Any] = []
    absorbing: list[str | None] = []
    moves: list[list[tuple[int, Fraction]]] = []
    work = 0

    def state_id(s) -> int:
        i = index.get(s)
        if i is None:
            i = index[s] = len(states)
            states.append(s)
            absorbing.append(end_of(s))
            moves.append([])
        return i

    state_id(start)
    frontier = [0]
    while frontier:
        i = frontier.pop()
        if absorbing[i] is not None:
            continue
        dist = resolver.dist(m.procedure, m.inputs(a, None, t, q, states[i], None))
        for nxt, p in dist.items():
            known = nxt in index
            j = state_id(nxt)
            moves[i].append((j, p))
            if not known:
                frontier.append(j)
        work += len(moves[i]) + 1
        if work > max_work:
            raise EngagementTooLarge(_too_large(m, a, t, len(states), max_work))
    n = len(states)
    # still fighting after N rounds: the mass left in the transient states
    mass = {0: Fraction(1)}
    for _ in range(m.rounds):
        step: dict[int, Fraction] = {}
        for i, p in mass.items():
            if absorbing[i] is not None:
                step[i] = step.get(i, 0) + p
                continue
            for j, pj in moves[i]:
                step[j] = step.get(j, 0) + p * pj
        mass = step
        work += len(mass)
    unfinished = sum((p for i, p in mass.items() if absorbing[i] is None), Fraction(0))
    outcome, expected, work = _absorb(moves, absorbing, work, max_work, lambda: _too_large(m, a, t, n, max_work))
    never = 1 - sum(outcome.values(), Fraction(0))
    return Engagement(
        win=outcome.get("win", Fraction(0)), loss=outcome.get("loss", Fraction(0)), draw=outcome.get("draw", Fraction(0)),
        unfinished=unfinished, never=never, expected_rounds=expected if never == 0 else None, rounds=m.rounds, states=n,
    )


def _too_large(m: runtime.Matchup, a: Any, t: Any, states: int, limit: int) -> str:
    return (f"engagement {m.name} ({a} × {t}): too much work: its chain grew past {limit} units "
            f"({states} states); raise the work limit (--max-work) or bound the state (fewer rounds, smaller counts)")


def _absorb(moves: list[list[tuple[int, Fraction]]], absorbing: list[str | None], work: int, max_work: int, too_large):
    """Absorption probabilities from state 0 by kind, and the expected number of steps.

    When every cycle of the chain is a self-loop (the usual case: wear only grows), one pass
    in reverse topological order solves it; otherwise Gaussian elimination over the
    transient states, exactly."""
    n = len(moves)
    order = _topological(moves, absorbing)
    if order is not None:
        reach: list[dict[str, Fraction] | None] = [None] * n
        steps: list[Fraction | None] = [None] * n
        for i in order:
            if absorbing[i] is not None:
                reach[i], steps[i] = {absorbing[i]: Fraction(1)}, Fraction(0)
                continue
            stay = sum((p for j, p in moves[i] if j == i), Fraction(0))
            if stay == 1:
                reach[i], steps[i] = {}, None
                continue
            acc: dict[str, Fraction] = {}
            e = Fraction(1)
            for j, p in moves[i]:
                if j == i:
                    continue
                for kind, pk in reach[j].items():
                    acc[kind] = acc.get(kind, 0) + p * pk
                e = e + p * steps[j] if steps[j] is not None and e is not None else None
            scale = 1 / (1 - stay)
            reach[i] = {k: v * scale for k, v in acc.items()}
            steps[i] = e * scale if e is not None else None
            work += len(moves[i])
            if work > max_work:
                raise EngagementTooLarge(too_large())
        return reach[0], steps[0], work
    transient = [i for i in range(n) if absorbing[i] is None]
    pos = {s: k for k, s in enumerate(transient)}
    kinds = sorted({k for k in absorbing if k is not None})
    size = len(transient)
    if size * size * (size + len(kinds)) + work > max_work:
        raise EngagementTooLarge(too_large())
    # (I - Q) X = [R | 1]
    matrix = [[Fraction(0)] * (size + len(kinds) + 1) for _ in range(size)]
    for r, i in enumerate(transient):
        matrix[r][r] += 1
        for j, p in moves[i]:
            if absorbing[j] is None:
                matrix[r][pos[j]] -= p
            else:
                matrix[r][size + kinds.index(absorbing[j])] += p
        matrix[r][-1] = Fraction(1)
    for col in range(size):
        pivot = next((r for r in range(col, size) if matrix[r][col] != 0), None)
        if pivot is None:
            continue
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        head = matrix[col]
        inv = 1 / head[col]
        for c in range(col, len(head)):
            head[c] *= inv
        for r in range(size):
            if r != col and matrix[r][col] != 0:
                f = matrix[r][col]
                row = matrix[r]
                for c in range(col, len(head)):
                    row[c] -= f * head[c]
    first = matrix[pos[0]] if 0 in pos else None
    if first is None:
        return {absorbing[0]: Fraction(1)}, Fraction(0), work
    reach = {k: first[size + x] for x, k in enumerate(kinds) if first[size + x]}
    total = sum(reach.values(), Fraction(0))
    return reach, (first[-1] if total == 1 else None), work


def _topological(moves: list[list[tuple[int, Fraction]]], absorbing: list[str | None]) -> list[int] | None:
    """States ordered so that each comes after every state it moves to (self-loops aside),
    or None when the chain has a longer cycle."""
    n = len(moves)
    color = [0] * n
    order: list[int] = []
    for root in range(n):
        if color[root]:
            continue
        stack = [(root, 0)]
        color[root] = 1
        while stack:
            i, k = stack[-1]
            succ = [j for j, _p in moves[i] if j != i] if absorbing[i] is None else []
            if k < len(succ):
                stack[-1] = (i, k + 1)
                j = succ[k]
                if color[j] == 1:
                    return None
                if color[j] == 0:
                    color[j] = 1
                    stack.append((j, 0))
            else:
                color[i] = 2
                order.append(i)
                stack.pop()
    return order
