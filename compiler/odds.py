"""Odds tables: run a generated package's resolvers over a grid of inputs.

Entry point: :func:`compute(package) -> list[OddsTable]`. Each cell is the
exact value asked by the table's ``show`` (a probability, as a Fraction), or,
for ``show outcomes(e)``, the exact probability of each value of ``e``. A table
with ``each x in catalog`` holds one grid per catalog entry. Used by the JSON
emitter (``json/odds.json``) and the site.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


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


def _grid(runtime, fn, inputs, rows, cols, kind, cell, group, label):
    """One grid of cells; for outcome tables also the outcome values seen."""
    row_var, _row_title, row_values = rows
    col_values = list(cols[2]) if cols else [None]
    grid, errors, seen = [], [], []
    for r in row_values:
        line = []
        for c in col_values:
            try:
                dist = runtime.exact(fn, **inputs(r, c, group))
            except runtime.RuleError as exc:
                where = f"{row_var}={r}" + (f", {cols[0]}={c}" if cols else "")
                errors.append(f"{label}{where}: {exc.message}")
                line.append(None)
                continue
            if kind == "outcomes":
                grouped: dict[Any, Fraction] = {}
                for outcome, p in dist.items():
                    key = cell(outcome)
                    grouped[key] = grouped.get(key, 0) + p
                seen.extend(k for k in grouped if k not in seen)
                line.append(grouped)
            else:
                line.append(cell(next(iter(dist)), dist))
        grid.append(line)
    return grid, errors, seen


def compute(package) -> list[OddsTable]:
    import runtime

    tables = []
    for name, title, ref, src, proc_name, each, rows, cols, inputs, kind, cell in package.odds.ODDS:
        fn = package.PROCEDURES[proc_name].function
        groups = list(each[2]) if each else [None]
        grids, errors, outcome_cols = [], [], []
        for g in groups:
            label = f"{each[0]}={g}, " if each else ""
            grid, errs, seen = _grid(runtime, fn, inputs, rows, cols if kind != "outcomes" else None, kind, cell, g, label)
            grids.append(grid)
            errors.extend(errs)
            outcome_cols.extend(k for k in seen if k not in outcome_cols)
        if kind == "outcomes":
            outcome_cols.sort(key=runtime.sort_key)
            grids = [[[(line[0] or {}).get(k, Fraction(0)) if line[0] is not None else None for k in outcome_cols] for line in grid] for grid in grids]
            col_var, col_title, columns = None, "Resultado", outcome_cols
        else:
            col_var, col_title = (cols[0], cols[1]) if cols else (None, None)
            columns = list(cols[2]) if cols else [None]
        tables.append(OddsTable(
            name, title, ref, src, proc_name, rows[0], rows[1], list(rows[2]), col_var, col_title, columns,
            grids if each else grids[0], errors,
            group_var=each[0] if each else None, group_title=each[1] if each else None, groups=groups if each else [],
        ))
    return tables
