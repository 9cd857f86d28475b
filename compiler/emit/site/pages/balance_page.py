"""The balance section of the designers' page: heatmaps, rankings and engagement odds.

Reads the checked program and its generated package (its ``matchups``, computed exactly by
:mod:`rulebook.compiler.analysis.matchups` and ranked by :mod:`rulebook.compiler.analysis.balance`).
Produces the view of :func:`balance_view(program, package) -> list[dict]` that
``disenadores.md.j2`` lays out: per matchup, the ranking per category (at the quality the heatmap shows) (value per 100 points,
outliers marked), a heatmap of the effect per point of every attacker against every target
(at the quality whose cost modifier is 0, when the matchup has qualities), and for an
engagement the odds of every pairing (win, draw, loss as a bar, and the expected rounds).
Every text is escaped here (:func:`attr`): names come from the rules files.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

from rulebook.compiler import ir
from rulebook.compiler.analysis import balance as bal
from rulebook.compiler.analysis import matchups
from rulebook.compiler.emit.site.markdown import attr, number as _number


def number(value, decimals: int) -> str:
    """A value as the site writes numbers, with ``decimals`` digits (a Fraction through float)."""
    return _number(float(value), decimals)

HEAT_LEVELS = 6
MAX_MATRIX_ROWS = 200
MAX_ENGAGEMENT_ROWS = 400


def compute(program: ir.Program, package: ModuleType) -> bal.Balance | None:
    """The balance of the program's matchups (None when it declares none or a fight is too large)."""
    if not program.matchups or not hasattr(package, "matchups"):
        return None
    from rulebook.compiler.analysis.reads import procedure_keys

    procedure_keys(package)
    try:
        return bal.analyse(matchups.compute(program, package))
    except matchups.EngagementTooLarge:
        return None


def _shown_quality(program: ir.Program, m: bal.MatchupBalance) -> str | None:
    """The quality the heatmap shows: the one whose cost modifier is 0, else the first."""
    qualities = [u.quality for u in m.units if u.quality is not None]
    if not qualities:
        return None
    for c in program.catalogs.values():
        if c.cost is not None and c.cost.levels:
            for member, _title, pct in c.cost.levels:
                if pct == 0 and member in qualities:
                    return member
    return qualities[0]


def _level(value: Fraction | None, top: Fraction) -> int:
    if value is None or top <= 0:
        return 0
    return min(HEAT_LEVELS - 1, int(value / top * (HEAT_LEVELS - 1) + Fraction(1, 2)))


def balance_view(program: ir.Program, b: bal.Balance | None) -> list[dict]:
    if b is None:
        return []
    out = []
    for m in b.matchups:
        quality = _shown_quality(program, m)
        rows = [u for u in m.units if u.quality == quality][:MAX_MATRIX_ROWS]
        per_point = lambda u, t: (u.effects.get(t) * bal.PER_POINTS / u.cost) if (u.cost and u.effects.get(t) is not None) else None  # noqa: E731
        priced = any(u.cost for u in rows)
        cells = [[(per_point(u, t) if priced else u.effects.get(t)) for t, _n in m.targets] for u in rows]
        top = max((v for line in cells for v in line if v is not None), default=Fraction(0))
        heat = {
            "quality": attr(rows[0].quality_title) if rows and rows[0].quality_title else None,
            "per_point": priced,
            "targets": [attr(name) for _t, name in m.targets],
            "rows": [{"label": attr(u.name), "cells": [{"text": number(v, 2) if v is not None else "—", "level": _level(v, top)} for v in line]}
                     for u, line in zip(rows, cells)],
        }
        categories = []
        for name, stats in m.categories.items():
            members = sorted((u for u in m.units if u.category == name and u.rank is not None), key=lambda u: u.category_rank)
            if quality is not None and members and members[0].quality != quality:
                continue  # the categories at the quality the heatmap shows
            categories.append({
                "name": attr(name), "median": number(stats.median, 2),
                "fences": (number(stats.low, 2), number(stats.high, 2)) if stats.low is not None else None,
                "units": [{"rank": u.category_rank, "label": attr(u.label), "cost": number(u.cost, 0), "effect": number(u.effect, 3),
                           "per_point": number(u.per_point, 3), "outlier": u.outlier} for u in members],
            })
        unranked = sorted({attr(u.name) for u in m.units if u.rank is None})
        engagements = []
        for u in m.units:
            for t, e in u.engagements.items():
                if len(engagements) >= MAX_ENGAGEMENT_ROWS:
                    break
                target = next((attr(n) for tid, n in m.targets if tid == t), attr(t))
                engagements.append({
                    "attacker": attr(u.label), "target": target,
                    "win": number(float(e.win) * 100, 1), "draw": number(float(e.draw) * 100, 1), "loss": number(float(e.loss) * 100, 1),
                    "win_width": f"{float(e.win) * 100:.2f}", "draw_width": f"{float(e.draw) * 100:.2f}", "loss_width": f"{float(e.loss) * 100:.2f}",
                    "unfinished": number(float(e.unfinished) * 100, 1), "rounds": e.rounds,
                    "expected": number(e.expected_rounds, 2) if e.expected_rounds is not None else "∞",
                })
        out.append({"name": attr(m.name), "title": attr(m.title), "kind": m.kind, "heat": heat, "categories": categories,
                    "unranked": unranked, "engagements": engagements})
    return out
