"""Which declarations each module of the package holds, in the order they are written.

Reads: a checked program (through a :mod:`.program_views` view, so that what is read is
noted). Produces: the declarations of each module in order — by name for the types and
data (a build does not depend on the order of the files), in the program's order for the
procedures and the odds tables — and :func:`type_desc`, the runtime's descriptor of a
type. Nothing here is Python spelling: another backend writes the same declarations in the
same order.
"""

from __future__ import annotations

from typing import Any, Iterable

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T


def by_name(decls: Iterable[Any]) -> list:
    return sorted(decls, key=lambda d: d.name)


# ---------------------------------------------------------------------------- types
def enums(p: ir.Program) -> list[ir.Enum]:
    return by_name(p.enums.values())


def records(p: ir.Program) -> list[ir.Record]:
    return by_name(p.records.values())


def tables(p: ir.Program) -> list[ir.Table]:
    return by_name(p.tables.values())


def has_row_record(t: ir.Table) -> bool:
    """Are the rows of ``t`` records of a class of their own (several columns, not spread across a key)?"""
    return len(t.columns) > 1 and t.across is None


# ---------------------------------------------------------------------------- data
def consts(p: ir.Program) -> list[ir.Const]:
    return by_name(p.of(ir.Const))


def catalogs(p: ir.Program) -> list[ir.Catalog]:
    return by_name(p.catalogs.values())


def dice(p: ir.Program) -> list[ir.Die]:
    return by_name(p.of(ir.Die))


def bags(p: ir.Program) -> list[ir.Bag]:
    return by_name(p.of(ir.Bag))


# ---------------------------------------------------------------------------- the public API
def enum_names(p: ir.Program) -> list[str]:
    return sorted(p.enums)


def catalog_names(p: ir.Program) -> list[str]:
    return sorted(p.catalogs)


def type_desc(t: T) -> tuple:
    """The runtime descriptor of a type (see rulebook.runtime.records)."""
    k = t.kind
    if k == "opt":
        return ("opt", type_desc(t.args[0]))
    if k == "list":
        return ("list", type_desc(t.args[0]))
    if k == "map":
        return ("map", t.name, type_desc(t.args[0]))
    if k in ("enum", "record", "ref"):
        return (k, t.name)
    if k == "refs":
        return ("id",)
    if k == "any":
        return ("text",)
    return (k,)
