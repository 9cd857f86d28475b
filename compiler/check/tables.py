"""Pass 4 — tables: keys, columns and rows checked and converted; ranges that
are empty or overlap are errors, gaps between ranges and enum values with no
row are warnings.

Entry point: :func:`check_tables(state)`. Reads the signatures (types) of
pass 2; adds an IR :class:`~rulebook.compiler.ir.Table` per table, with its rows as
plain values (range keys as :class:`~rulebook.compiler.ir.Range`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span, counted

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, DEC, INT
from rulebook.compiler.check.data import cells_hint, convert_value
from rulebook.compiler.check.signatures import resolve_type
from rulebook.compiler.check.state import CheckState, describe_value

KEY_KINDS = ("int", "decimal", "enum", "id", "text", "bool", "ref", "refs", "any")


def check_tables(st: CheckState) -> None:
    """Every table of the rulebook → an IR table (rows converted, coverage checked)."""
    for name, d in st.ast.items():
        if isinstance(d, n.TableDecl):
            st.current = name
            _table(st, d)
    st.current = None


def _table(st: CheckState, d: n.TableDecl) -> None:
    keys = []
    for k in d.keys:
        kt = resolve_type(st, k.type)
        if k.ranged and kt not in (INT, DEC):
            st.err(f"a range key must be int or decimal, not {kt}", k.type.span, None, "type")
        if kt.kind not in KEY_KINDS:
            st.err(f"a table key must be an enum, id, text, bool or number, not {kt}", k.type.span, None, "type")
        keys.append(ir.TableKey(name=k.name, type=kt, ranged=k.ranged, title=k.title, span=k.span))
    across = None
    if d.across:
        across = ir.TableKey(name=d.across.name, type=resolve_type(st, d.across.type), ranged=False, title=d.across.title, span=d.across.span)
    columns = tuple(ir.TableColumn(name=c.name, type=resolve_type(st, c.type), title=c.title, span=c.span) for c in d.columns)
    table = ir.Table(**st.common(d), keys=tuple(keys), across=across, across_values=(), columns=columns, rows=())
    st.tables[d.name] = table
    st.decls[d.name] = table
    seen_cols = set()
    for c in d.columns:
        if c.name in seen_cols:
            st.err(f"column '{c.name}' appears twice in table {d.name}", c.span, None, "duplicate")
        seen_cols.add(c.name)
    if across is not None:
        if len(d.columns) != 1:
            st.err("a table with 'across' has exactly one result column", d.span, None, "arity")
        if d.header is None:
            st.err(f"table {d.name} needs a 'header | …' row listing the values of {across.name}", d.span, None, "missing")
        else:
            table.across_values = tuple(convert_value(st, v, across.type, f"{d.name} header") for v in d.header)
    elif d.header is not None:
        st.err("a 'header' row is only allowed in tables with 'across'", d.span, None, "syntax")
    ncols = len(table.across_values) if across is not None else len(d.columns)
    rows = []
    seen_keys: dict[Any, Span] = {}
    any_ranged = any(k.ranged for k in d.keys)
    for row in d.rows:
        if len(row.keys) != len(d.keys):
            st.err(f"table {d.name} has {counted(len(d.keys), 'key')}, this row gives {len(row.keys)}", row.span, None, "arity")
            continue
        row_keys = [_key(st, d, spec, key.type, kv) for spec, key, kv in zip(d.keys, keys, row.keys)]
        if len(row.values) != ncols:
            names = [str(a) for a in table.across_values] if across is not None else [c.name for c in columns]
            types = [columns[0].type if columns else ANY] * ncols if across is not None else [c.type for c in columns]
            st.err(f"row of table {d.name} has {counted(len(row.values), 'value')}, expected {ncols}: {' | '.join(names)}", row.span,
                   cells_hint(st, names, types, row.values) if len(names) == ncols else None, "arity")
            if len(row_keys) == 1 and isinstance(row_keys[0], str):  # declared: a reference to it is no second error
                st.broken_entries.setdefault(d.name, set()).add(row_keys[0])
            continue
        values: dict[str, Any] = {}
        spread: tuple = ()
        if across is not None:
            spread = tuple(convert_value(st, v, columns[0].type if columns else ANY, f"{d.name}") for v in row.values)
        else:
            values = {c.name: convert_value(st, v, c.type, f"{d.name}.{c.name}") for c, v in zip(columns, row.values)}
        if row.title is not None and not any_ranged and not any(k.type.kind in ("id", "text", "enum") for k in keys):
            st.err("only rows keyed by an id, enum or range may have a display name", row.span, None, "syntax")
        if not any_ranged and None not in row_keys:
            if tuple(row_keys) in seen_keys:
                shown = ", ".join(map(str, row_keys))
                st.err(f"key {shown} appears twice in table {d.name}", row.span, f"first at {seen_keys[tuple(row_keys)]}", "duplicate")
                continue
            seen_keys[tuple(row_keys)] = row.span
        rows.append(ir.TableRow(keys=tuple(row_keys), title=row.title, values=values, span=row.span, across=spread))
    table.rows = tuple(rows)
    _check_coverage(st, table)


def _key(st: CheckState, d: n.TableDecl, spec: n.KeySpec, kt, kv):
    """One key of a row: a Range for ranged keys, else a converted value (None if bad)."""
    if spec.ranged:
        if isinstance(kv, n.RangeKey):
            return ir.Range(kv.lo, kv.lo_inclusive, kv.hi, kv.hi_inclusive, kv.span)
        if isinstance(kv, n.VNum):
            return ir.Range(kv.value, True, kv.value, True, kv.span)
        st.err(f"table {d.name}: expected a range such as 0..10 or >10..20, got {describe_value(kv)}", kv.span, None, "type")
        return None
    if isinstance(kv, n.RangeKey):
        st.err(f"table {d.name}: key '{spec.name}' is not a range; declare it as `{spec.name}: {spec.type} range`", kv.span, None, "type")
        return None
    return convert_value(st, kv, kt, f"{d.name} key")


def _check_coverage(st: CheckState, table: ir.Table) -> None:
    ranged = [i for i, k in enumerate(table.keys) if k.ranged]
    if len(ranged) > 1:
        second = table.keys[ranged[1]]
        st.err(f"table {table.name} has more than one range key", second.span, "keep one range key; key the others by value", "range")
        return
    pos = ranged[0] if ranged else 0
    integer = bool(table.keys) and table.keys[pos].type == INT
    for row in table.rows:
        for r in row.keys:
            if isinstance(r, ir.Range) and _range_empty(r, integer):
                st.err(f"range {_fmt_range(r)} of table {table.name} contains no value", r.span, "write the lower bound first: lo..hi", "range")
    if ranged:
        # ranges are checked among the rows that share the other keys' values
        groups: dict[tuple, list[ir.Range]] = {}
        for row in table.rows:
            others = tuple(k for i, k in enumerate(row.keys) if i != pos)
            if row.keys[pos] is not None and None not in others:
                groups.setdefault(others, []).append(row.keys[pos])
        for others, group in groups.items():
            where = f" for {', '.join(map(str, others))}" if others else ""
            ranges = sorted(group, key=lambda r: (_lo_key(r), r.span.line))
            for a, b in zip(ranges, ranges[1:]):
                rel = _range_relation(a, b, integer)
                if rel == "overlap":
                    later, other = (b, a) if b.span.line >= a.span.line else (a, b)
                    msg = f"ranges {_fmt_range(a)} and {_fmt_range(b)} of table {table.name}{where} overlap"
                    st.err(msg, later.span, f"the other range is at line {other.span.line}", "overlap")
                elif rel == "gap":
                    msg = f"gap between ranges {_fmt_range(a)} and {_fmt_range(b)} of table {table.name}{where}: some values have no row"
                    st.warn(msg, b.span, None, "gap")
    for pos, key in enumerate(table.keys):
        if key.type.kind == "enum" and len(table.keys) == 1:
            present = {row.keys[pos] for row in table.rows}
            missing = [m for m in st.members(key.type.name) if m not in present]
            if missing:
                st.warn(f"table {table.name} has no row for {', '.join(missing)} of {key.type.name}", table.span, None, "missing-key")
    if table.across is not None and table.across.type.kind == "enum":
        missing = [m for m in st.members(table.across.type.name) if m not in table.across_values]
        if missing:
            st.warn(f"table {table.name} has no column for {', '.join(missing)} of {table.across.type.name}", table.span, None, "missing-key")


def _lo_key(r: ir.Range):
    return (float("-inf") if r.lo is None else r.lo, 0 if r.lo_inclusive else 1)


def _fmt_num(x) -> str:
    if isinstance(x, Fraction) and x.denominator != 1:
        return format(float(x), "g")
    return str(int(x)) if isinstance(x, Fraction) else str(x)


def _fmt_range(r: ir.Range) -> str:
    lo = "" if r.lo is None else (">" if not r.lo_inclusive else "") + _fmt_num(r.lo)
    hi = "" if r.hi is None else ("<" if not r.hi_inclusive else "") + _fmt_num(r.hi)
    return f"{lo}..{hi}"


def _range_empty(r: ir.Range, integer: bool) -> bool:
    if r.lo is None or r.hi is None:
        return False
    if integer:
        lo = _next_int(r.lo) if not r.lo_inclusive else Fraction(r.lo).__ceil__()
        hi = _prev_int(r.hi) if not r.hi_inclusive else Fraction(r.hi).__floor__()
        return lo > hi
    return r.lo > r.hi or (r.lo == r.hi and not (r.lo_inclusive and r.hi_inclusive))


def _range_relation(a: ir.Range, b: ir.Range, integer: bool) -> str:
    """'ok', 'gap' or 'overlap' between consecutive ranges a (lower) and b."""
    if a.hi is None or b.lo is None:
        return "overlap"
    if integer:
        a_hi = int(Fraction(a.hi).__floor__()) if a.hi_inclusive else _prev_int(a.hi)
        b_lo = int(Fraction(b.lo).__ceil__()) if b.lo_inclusive else _next_int(b.lo)
        if b_lo <= a_hi:
            return "overlap"
        return "ok" if b_lo == a_hi + 1 else "gap"
    if b.lo < a.hi or (b.lo == a.hi and a.hi_inclusive and b.lo_inclusive):
        return "overlap"
    if b.lo == a.hi and (a.hi_inclusive or b.lo_inclusive):
        return "ok"
    return "gap"


def _prev_int(x) -> int:
    f = Fraction(x)
    return int(f) - 1 if f.denominator == 1 else int(f.__floor__())


def _next_int(x) -> int:
    f = Fraction(x)
    return int(f) + 1 if f.denominator == 1 else int(f.__ceil__())
