"""Odds tables: run a generated package's resolvers over a grid of inputs.

Reads the :class:`rulebook.runtime.Odds` objects of ``package.odds.ODDS``; produces an
:class:`OddsTable` per odds declaration. Entry point:
:func:`compute(package) -> list[OddsTable]`. Each cell is the exact value
asked by the table's ``show`` (a probability, as a Fraction), or, for
``show outcomes(e)``, the exact probability of each value of ``e``. A table
with ``each x in catalog`` holds one grid per catalog entry. Used by the JSON
emitter (``json/odds.json``) and the site.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import ModuleType
from typing import Any

from rulebook import runtime

from rulebook.compiler.support.ahead import Ahead
from rulebook.compiler.analysis.evaluations import Kept, cites_position
from rulebook.compiler.analysis.reads import odds_keys


@dataclass
class OddsTable:
    name: str
    title: str
    ref: str
    src: str
    procedure: str
    row_var: str
    row_title: str
    rows: list[Any]
    col_var: str | None
    col_title: str | None
    columns: list[Any]
    cells: list  # cells[r][c], or cells[g][r][c] with groups; None where the procedure refuses the inputs
    errors: list[str]
    group_var: str | None = None
    group_title: str | None = None
    groups: list[Any] = field(default_factory=list)


def _grid(odds: runtime.Odds, function, group: Any, label: str) -> tuple[list, list[str], list]:
    """One grid of cells; for outcome tables also the outcome values seen."""
    columns = odds.columns if odds.kind != "outcomes" else None
    column_values = list(columns.values) if columns is not None else [None]
    grid, errors, seen = [], [], []
    for r in odds.rows.values:
        line = []
        for c in column_values:
            try:
                dist = runtime.exact(function, **odds.inputs(r, c, group))
            except runtime.RuleError as exc:
                where = f"{odds.rows.name}={r}" + (f", {columns.name}={c}" if columns is not None else "")
                errors.append(f"{label}{where}: {exc.message}")
                line.append(None)
                continue
            if odds.kind == "outcomes":
                grouped: dict[Any, Fraction] = {}
                for outcome, p in dist.items():
                    key = odds.cell(outcome, r, c, group)
                    grouped[key] = grouped.get(key, 0) + p
                seen.extend(k for k in grouped if k not in seen)
                line.append(grouped)
            else:
                line.append(odds.cell(next(iter(dist)), dist, r, c, group))
        grid.append(line)
    return grid, errors, seen


_LATEST = Kept()
"""Odds table key (:func:`rulebook.compiler.analysis.reads.odds_keys`) → (source hash of the package it
was computed with, its :class:`OddsTable`)."""


def ahead(package: ModuleType) -> Ahead | None:
    """:func:`compute` for ``package`` in a forked worker (:class:`rulebook.compiler.support.ahead.Ahead`),
    while the build resolves the worked examples: the same tables, off the build's path. The
    build waits for it as long as it works (the tables would take the build as long)."""
    return Ahead.start(compute, package, wait=None)


def compute(package: ModuleType) -> list[OddsTable]:
    """Every odds table of a generated package, computed exactly; each remembered under its
    key (:func:`rulebook.compiler.analysis.reads.odds_keys`: the code and data it can read, source
    positions blanked), for the tables of the latest package. A table whose key is unchanged
    (``rulebook serve`` after a prose edit, or a data edit of what it does not read) is not
    computed again: it takes the new package's ``src`` and ``ref``, and is computed again
    when one of its error messages cites a position and the package's sources changed."""
    source = getattr(package, "__rulebook_source_hash__", None)
    keys = odds_keys(package)
    kept = _LATEST.of(package, keys)
    tables = []
    for i, odds in enumerate(package.odds.ODDS):
        key = keys[i] if keys is not None else None
        if key is not None and key in kept:
            was, table = kept[key]
            if was == source:
                tables.append(table)
                continue
            if not any(cites_position(e) for e in table.errors):
                table = replace(table, ref=odds.ref, src=odds.src)
                kept[key] = (source, table)
                tables.append(table)
                continue
        table = _table(package, odds)
        if key is not None:
            kept[key] = (source, table)
        tables.append(table)
    return tables


def _table(package: ModuleType, odds: runtime.Odds) -> OddsTable:
    """One odds table computed by the package's resolvers."""
    function = package.PROCEDURES[odds.procedure].function
    each = odds.each
    groups = list(each.values) if each is not None else [None]
    grids, errors, outcome_columns = [], [], []
    for g in groups:
        grid, errs, seen = _grid(odds, function, g, f"{each.name}={g}, " if each is not None else "")
        grids.append(grid)
        errors.extend(errs)
        outcome_columns.extend(k for k in seen if k not in outcome_columns)
    if odds.kind == "outcomes":
        outcome_columns.sort(key=runtime.sort_key)
        grids = [
            [[(line[0] or {}).get(k, Fraction(0)) if line[0] is not None else None for k in outcome_columns] for line in grid]
            for grid in grids
        ]
        col_var, col_title, columns = None, "Resultado", outcome_columns
    elif odds.columns is not None:
        col_var, col_title, columns = odds.columns.name, odds.columns.title, list(odds.columns.values)
    else:
        col_var, col_title, columns = None, None, [None]
    return OddsTable(
        odds.name, odds.title, odds.ref, odds.src, odds.procedure,
        odds.rows.name, odds.rows.title, list(odds.rows.values), col_var, col_title, columns,
        grids if each is not None else grids[0], errors,
        group_var=each.name if each is not None else None,
        group_title=each.title if each is not None else None,
        groups=groups if each is not None else [],
    )
