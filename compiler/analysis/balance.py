"""Balance: what each unit's points buy against the field, ranked, with its outliers.

Reads the :class:`rulebook.compiler.analysis.matchups.MatchupResult` of every matchup of a
rulebook. Produces a :class:`Balance` (entry point :func:`analyse(results) -> Balance`):
for each matchup, each attacker (at each quality) with its effect against the field (the
mean of its effects against every target; a pairing that is not fought counts 0), that
effect per 100 points of its cost, its rank among all the attackers and within its
category, and whether it is an **outlier** of its category (:data:`OUTLIER_RULE`):

* a category of 4 or more units with a cost: outside the fences
  ``Q1 − 1.5 × IQR`` and ``Q3 + 1.5 × IQR`` of its values per point (Tukey's rule; the
  quartiles are the medians of the lower and upper halves);
* a category of 2 or 3: below half or above twice its median;
* a unit without a cost (none declared) has no value per point and no rank.

Also :func:`as_json` (the document ``schemas/balance.schema.json`` describes, :data:`BALANCE_BODY`),
:func:`csv_rows` and :func:`shifts` (what changed between two analyses: ``rulebook diff``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulebook.compiler.analysis.matchups import Engagement, MatchupResult
from rulebook.compiler.support.i18n import N_

OUTLIER_RULE = N_("Outliers: in a category of 4 or more units, a value per point outside Q1 − 1.5 × IQR … Q3 + 1.5 × IQR "
                  "(Tukey's fences); in a category of 2 or 3, below half or above twice the category's median.")

PER_POINTS = 100
"""The effect is given per this many points."""


@dataclass
class UnitBalance:
    attacker: str
    name: str
    catalog: str
    quality: str | None
    quality_title: str | None
    category: str
    cost: Fraction | None
    effect: Fraction  # against the field
    per_point: Fraction | None  # effect per PER_POINTS points
    effects: dict[str, Fraction | None]
    weapons: dict[str, str | None]
    engagements: dict[str, Engagement]
    rank: int | None = None  # among every unit with a cost, best first
    category_rank: int | None = None
    category_size: int = 0
    outlier: str | None = None  # "high", "low" or None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.quality_title})" if self.quality_title else self.name


@dataclass
class CategoryStats:
    name: str
    size: int
    median: Fraction
    low: Fraction | None  # the fences (None: too few units)
    high: Fraction | None
    rule: str  # "iqr", "factor" or "none"


@dataclass
class MatchupBalance:
    name: str
    title: str
    ref: str
    src: str
    kind: str
    targets: list[tuple[str, str]]
    units: list[UnitBalance]
    categories: dict[str, CategoryStats]
    errors: list[str]
    resolved: int = 0
    reused: int = 0


@dataclass
class Balance:
    matchups: list[MatchupBalance] = field(default_factory=list)

    def get(self, name: str) -> MatchupBalance | None:
        return next((m for m in self.matchups if m.name == name), None)


def _median(values: list[Fraction]) -> Fraction:
    v = sorted(values)
    k = len(v)
    return v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2


def fences(values: list[Fraction]) -> CategoryStats:
    """The outlier fences of one category's values per point (:data:`OUTLIER_RULE`)."""
    v = sorted(values)
    k = len(v)
    med = _median(v)
    if k >= 4:
        q1, q3 = _median(v[: k // 2]), _median(v[(k + 1) // 2:])
        iqr = q3 - q1
        return CategoryStats("", k, med, q1 - Fraction(3, 2) * iqr, q3 + Fraction(3, 2) * iqr, "iqr")
    if k >= 2:
        return CategoryStats("", k, med, med / 2, med * 2, "factor")
    return CategoryStats("", k, med, None, None, "none")


def analyse(results: list[MatchupResult]) -> Balance:
    """Rank every matchup's attackers by their effect per point against the field."""
    out = Balance()
    for r in results:
        units = []
        for row in r.rows:
            values = [v if v is not None else Fraction(0) for v in row.effects.values()]
            weights = [r.weights.get(t, Fraction(1)) for t in row.effects]
            total = sum(weights, Fraction(0))
            effect = sum((v * w for v, w in zip(values, weights)), Fraction(0)) / total if total else Fraction(0)
            per_point = effect * PER_POINTS / row.cost if row.cost else None
            units.append(UnitBalance(row.attacker, row.name, row.catalog, row.quality, row.quality_title, row.category, row.cost,
                                     effect, per_point, row.effects, row.weapons, row.engagements))
        ranked = sorted((u for u in units if u.per_point is not None), key=lambda u: (-u.per_point, u.name, u.quality or ""))
        for i, u in enumerate(ranked):
            u.rank = i + 1
        categories: dict[str, CategoryStats] = {}
        by_category: dict[str, list[UnitBalance]] = {}
        for u in ranked:
            by_category.setdefault(u.category, []).append(u)
        for name, members in by_category.items():
            stats = fences([u.per_point for u in members])
            stats.name = name
            categories[name] = stats
            for i, u in enumerate(members):
                u.category_rank, u.category_size = i + 1, len(members)
                if stats.low is not None and u.per_point < stats.low:
                    u.outlier = "low"
                elif stats.high is not None and u.per_point > stats.high:
                    u.outlier = "high"
        out.matchups.append(MatchupBalance(r.name, r.title, r.ref, r.src, r.kind, r.targets, units, categories, r.errors, r.resolved, r.reused))
    return out


# ---------------------------------------------------------------------------- output


def fraction_text(v: Fraction | None) -> str | None:
    if v is None:
        return None
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def decimal(v: Fraction | None, places: int = 4) -> float | None:
    return None if v is None else round(float(v), places)


FORMAT = "rulebook-balance/1"


def as_json(b: Balance, rulebook: str, version: str, schema: str | None = None) -> dict:
    """The analysis for tools, as :data:`BALANCE_BODY` describes it."""

    def engagement(e: Engagement) -> dict:
        return {"win": fraction_text(e.win), "loss": fraction_text(e.loss), "draw": fraction_text(e.draw),
                "unfinished": fraction_text(e.unfinished), "never": fraction_text(e.never), "rounds": e.rounds,
                "expected_rounds": fraction_text(e.expected_rounds), "states": e.states}

    def unit(u: UnitBalance) -> dict:
        return {
            "id": u.attacker, "name": u.name, "catalog": u.catalog, "quality": u.quality, "category": u.category,
            "cost": fraction_text(u.cost), "effect": fraction_text(u.effect), "per_point": fraction_text(u.per_point),
            "per_point_value": decimal(u.per_point), "rank": u.rank, "category_rank": u.category_rank, "category_size": u.category_size,
            "outlier": u.outlier,
            "effects": {t: fraction_text(v) for t, v in u.effects.items()},
            "engagements": {t: engagement(e) for t, e in u.engagements.items()},
        }

    doc: dict[str, Any] = {}
    if schema is not None:
        doc["$schema"] = schema
    doc.update({
        "format": FORMAT, "rulebook": rulebook, "version": version, "per_points": PER_POINTS, "outlier_rule": OUTLIER_RULE,
        "matchups": [{
            "name": m.name, "title": m.title, "source": m.ref, "kind": m.kind,
            "targets": [{"id": t, "name": name} for t, name in m.targets],
            "units": [unit(u) for u in m.units],
            "categories": [{"name": c.name, "size": c.size, "median": fraction_text(c.median), "low": fraction_text(c.low),
                            "high": fraction_text(c.high), "rule": c.rule} for c in m.categories.values()],
            "errors": list(m.errors),
        } for m in b.matchups],
    })
    return doc


CSV_HEADER = ("matchup", "unit", "name", "quality", "category", "cost", "effect", "per_100_points", "rank", "category_rank", "category_size", "outlier")
MATRIX_HEADER = ("matchup", "unit", "quality", "target", "effect", "effect_value", "weapon")


def csv_rows(b: Balance, matrix: bool = False) -> list[tuple]:
    """The ranking (one row per unit and quality), or with ``matrix`` every pair."""
    rows: list[tuple] = [MATRIX_HEADER if matrix else CSV_HEADER]
    for m in b.matchups:
        for u in m.units:
            if matrix:
                for t, v in u.effects.items():
                    rows.append((m.name, u.attacker, u.quality or "", t, fraction_text(v) or "", "" if v is None else decimal(v, 6), u.weapons.get(t) or ""))
            else:
                rows.append((m.name, u.attacker, u.name, u.quality or "", u.category, fraction_text(u.cost) or "", fraction_text(u.effect),
                             "" if u.per_point is None else decimal(u.per_point, 6), u.rank or "", u.category_rank or "", u.category_size or "", u.outlier or ""))
    return rows


_FRACTION = {"type": ["string", "null"], "pattern": r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$", "maxLength": 400}

BALANCE_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["format", "rulebook", "version", "per_points", "outlier_rule", "matchups"],
    "properties": {
        "$schema": {"type": "string", "description": N_("The $id of this schema.")},
        "format": {"const": FORMAT, "description": N_("The version of this output's shape.")},
        "rulebook": {"type": "string", "description": N_("The rulebook's id.")},
        "version": {"type": "string", "description": N_("The rulebook's version.")},
        "per_points": {"type": "integer", "description": N_("The effect per point is given per this many points.")},
        "outlier_rule": {"type": "string", "description": N_("The rule that marks a unit an outlier of its category.")},
        "matchups": {"type": "array", "description": N_("One analysis per matchup of the rulebook."), "items": {"$ref": "#/$defs/BalanceMatchup"}},
    },
    "$defs": {
        "BalanceMatchup": {
            "type": "object", "additionalProperties": False, "description": N_("A matchup: every attacker against every target."),
            "required": ["name", "title", "source", "kind", "targets", "units", "categories", "errors"],
            "properties": {
                "name": {"type": "string", "description": N_("The matchup's id.")},
                "title": {"type": "string", "description": N_("Its title.")},
                "source": {"type": "string", "description": N_("Its reference in the manual.")},
                "kind": {"enum": ["mean", "probability", "win"], "description": N_(
                    "What is measured: mean (an expected value), probability (a chance) or win (an engagement: the chance of winning).")},
                "targets": {"type": "array", "description": N_("The targets, in order."), "items": {
                    "type": "object", "additionalProperties": False, "required": ["id", "name"], "description": N_("A target."),
                    "properties": {"id": {"type": "string", "description": N_("Its id.")}, "name": {"type": "string", "description": N_("Its name.")}}}},
                "units": {"type": "array", "description": N_("Each attacker at each quality."), "items": {"$ref": "#/$defs/BalanceUnit"}},
                "categories": {"type": "array", "description": N_("Each category's median and outlier fences."), "items": {"$ref": "#/$defs/BalanceCategory"}},
                "errors": {"type": "array", "items": {"type": "string"}, "description": N_("Pairings that could not be computed, and why.")},
            },
        },
        "BalanceUnit": {
            "type": "object", "additionalProperties": False, "description": N_("An attacker at one quality."),
            "required": ["id", "name", "catalog", "quality", "category", "cost", "effect", "per_point", "per_point_value", "rank",
                         "category_rank", "category_size", "outlier", "effects", "engagements"],
            "properties": {
                "id": {"type": "string", "description": N_("Its id.")},
                "name": {"type": "string", "description": N_("Its name.")},
                "catalog": {"type": "string", "description": N_("Its catalog.")},
                "quality": {"type": ["string", "null"], "description": N_("Its quality (null: the matchup has none).")},
                "category": {"type": "string", "description": N_("Its category (outliers are found within it).")},
                "cost": {**_FRACTION, "description": N_("Its cost (null: none declared).")},
                "effect": {**_FRACTION, "description": N_("Its effect against the field: the mean over the targets, exact.")},
                "per_point": {**_FRACTION, "description": N_("Its effect per per_points points, exact (null: no cost).")},
                "per_point_value": {"type": ["number", "null"], "description": N_("The same, rounded to 4 decimals.")},
                "rank": {"type": ["integer", "null"], "description": N_("Its rank among every unit, best first (null: no cost).")},
                "category_rank": {"type": ["integer", "null"], "description": N_("Its rank within its category.")},
                "category_size": {"type": "integer", "description": N_("How many units of its category have a cost.")},
                "outlier": {"enum": ["high", "low", None], "description": N_("high or low when it is an outlier of its category.")},
                "effects": {"type": "object", "additionalProperties": _FRACTION, "description": N_(
                    "Its effect against each target, exact (null: no pairing fought).")},
                "engagements": {"type": "object", "description": N_("For an engagement, its odds against each target."),
                                "additionalProperties": {"$ref": "#/$defs/BalanceEngagement"}},
            },
        },
        "BalanceEngagement": {
            "type": "object", "additionalProperties": False, "description": N_("The exact odds of an engagement fought to the end."),
            "required": ["win", "loss", "draw", "unfinished", "never", "rounds", "expected_rounds", "states"],
            "properties": {
                "win": {**_FRACTION, "description": N_("The chance that the attacker wins.")},
                "loss": {**_FRACTION, "description": N_("The chance that the attacker loses.")},
                "draw": {**_FRACTION, "description": N_("The chance of a draw.")},
                "unfinished": {**_FRACTION, "description": N_("The chance that it is still fighting after rounds rounds.")},
                "never": {**_FRACTION, "description": N_("The chance that it never ends.")},
                "rounds": {"type": "integer", "description": N_("The N of still fighting after N rounds.")},
                "expected_rounds": {**_FRACTION, "description": N_("The expected number of rounds (null: some fights never end).")},
                "states": {"type": "integer", "description": N_("How many distinct states the fight goes through.")},
            },
        },
        "BalanceCategory": {
            "type": "object", "additionalProperties": False, "description": N_("A category of attackers."),
            "required": ["name", "size", "median", "low", "high", "rule"],
            "properties": {
                "name": {"type": "string", "description": N_("Its name.")},
                "size": {"type": "integer", "description": N_("How many units with a cost it holds.")},
                "median": {**_FRACTION, "description": N_("The median effect per point.")},
                "low": {**_FRACTION, "description": N_("Below this, a unit is a low outlier (null: too few units).")},
                "high": {**_FRACTION, "description": N_("Above this, a unit is a high outlier (null: too few units).")},
                "rule": {"enum": ["iqr", "factor", "none"], "description": N_("Which rule gave the fences.")},
            },
        },
    },
}
"""The body of the schema of ``rulebook balance --format json`` (``schemas/balance.schema.json``)."""


# ---------------------------------------------------------------------------- shifts (rulebook diff)


@dataclass
class Shift:
    matchup: str
    matchup_title: str
    attacker: str
    label: str
    category: str
    old: Fraction | None
    new: Fraction | None
    old_rank: int | None
    new_rank: int | None
    size: int


def shifts(old: Balance, new: Balance, threshold: Fraction = Fraction(1, 100)) -> list[Shift]:
    """The units whose effect per point moved by more than ``threshold`` (relative) between two
    analyses, with their rank in their category before and after (the units an edit only
    pushed up or down a place are not listed)."""
    out = []
    for m in new.matchups:
        before = old.get(m.name)
        if before is None:
            continue
        was = {(u.attacker, u.quality): u for u in before.units}
        for u in m.units:
            w = was.get((u.attacker, u.quality))
            if w is None:
                continue
            moved = (w.per_point != u.per_point) and (
                w.per_point is None or u.per_point is None or w.per_point == 0 or abs(u.per_point - w.per_point) / w.per_point > threshold)
            if moved:
                out.append(Shift(m.name, m.title, u.attacker, u.label, u.category, w.per_point, u.per_point, w.category_rank, u.category_rank, u.category_size))
    return out
