"""Odds tables: run a generated package's resolvers over a grid of inputs.

Entry point: :func:`compute(package) -> list[OddsTable]`. Each cell is the
exact value asked by the table's ``show`` (a probability, as a Fraction), or,
for ``show outcomes(e)``, the exact probability of each value of ``e``.
Used by the JSON emitter (``json/odds.json``) and the site.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    cells: list[list[Any]]  # cells[r][c]; None when the procedure refuses those inputs
    errors: list[str]


def compute(package) -> list[OddsTable]:
    import runtime

    tables = []
    for name, title, ref, src, proc_name, rows, cols, inputs, kind, cell in package.odds.ODDS:
        fn = package.PROCEDURES[proc_name].function
        row_var, row_title, row_values = rows
        col_values = list(cols[2]) if cols else [None]
        grid: list[list[Any]] = []
        errors: list[str] = []
        outcome_cols: list[Any] = []
        dists = []
        for r in row_values:
            line = []
            for c in col_values:
                try:
                    dist = runtime.exact(fn, **inputs(r, c))
                except runtime.RuleError as exc:
                    errors.append(f"{row_var}={r}" + (f", {cols[0]}={c}" if cols else "") + f": {exc.message}")
                    line.append(None)
                    continue
                if kind == "outcomes":
                    grouped: dict[Any, Fraction] = {}
                    for outcome, p in dist.items():
                        key = cell(outcome)
                        grouped[key] = grouped.get(key, 0) + p
                    for key in grouped:
                        if key not in outcome_cols:
                            outcome_cols.append(key)
                    line.append(grouped)
                else:
                    first = next(iter(dist))
                    line.append(cell(first, dist))
            grid.append(line)
            dists.append(line)
        if kind == "outcomes":
            outcome_cols.sort(key=runtime.sort_key)
            grid = [[(g or {}).get(k, Fraction(0)) if g is not None else None for k in outcome_cols] for (g,) in grid]
            tables.append(OddsTable(name, title, ref, src, proc_name, row_var, row_title, list(row_values), None, "Resultado", outcome_cols, grid, errors))
        else:
            tables.append(OddsTable(name, title, ref, src, proc_name, row_var, row_title, list(row_values),
                                    cols[0] if cols else None, cols[1] if cols else None, list(col_values) if cols else [None], grid, errors))
    return tables
