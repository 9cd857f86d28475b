"""The checked program: what the emitters consume.

:func:`compiler.from_ast.translate` builds a :class:`Program` from parsed
modules: every declaration resolved, every data value converted to plain
Python data (ints, Fractions, strings, lists, dicts) of a known type, every
expression annotated with its type and meaning. Emitters never re-check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules_dsl import nodes as n

from .types import T


@dataclass
class Section:
    """One page of the site: a section declaration and what follows it."""

    name: str  # the numeral, e.g. "VI"
    title: str
    file: str
    items: list = field(default_factory=list)  # prose nodes and declarations, in order
    slug: str = ""


@dataclass
class TableInfo:
    """A checked table: key/column types and its rows as data."""

    decl: n.TableDecl
    key_types: list[T]
    across_type: T | None
    col_types: list[T]
    # rows: (keys as data (RangeKey kept for ranges), title, values as data dict col->value, row node)
    rows: list[tuple[tuple, str | None, dict[str, Any], n.TableRow]] = field(default_factory=list)
    across_values: list[Any] = field(default_factory=list)

    @property
    def ranged(self) -> bool:
        return any(k.ranged for k in self.decl.keys)

    @property
    def single_column(self) -> bool:
        return len(self.decl.columns) == 1


@dataclass
class Program:
    """Everything the emitters need, resolved and typed."""

    rulebook: n.RulebookDecl | None
    modules: list[n.Module]
    sources: dict[str, str]
    decls: dict[str, Any]  # global name -> declaration node
    decl_file: dict[str, str]
    refs: dict[str, str]  # global name -> source reference ("VI.13")
    sections: list[Section]
    front: list  # items before the first section (title page)
    record_fields: dict[str, list[tuple[str, T, str | None]]]
    enum_members: dict[str, list[tuple[str, str]]]  # enum -> [(id, title)]
    catalogs: dict[str, dict[str, dict[str, Any]]]  # catalog -> id -> field -> value
    tables: dict[str, TableInfo]
    rule_params: dict[str, list[tuple[str, T]]]
    expr_types: dict[int, T]  # id(expr node) -> type
    expr_info: dict[int, Any]  # id(node) -> resolution detail for the emitters
    param_types: dict[str, list[tuple[str, T]]]  # procedure -> params
    result_types: dict[str, T]
    examples: list[n.ExampleDecl]
    uses: dict[str, set[str]]  # declaration -> names of declarations that use it
    status: dict[str, str]

    def source_text(self, span, keep_lines: bool = False) -> str:
        """The rules text a span covers. Multi-line text is joined into one line,
        or with ``keep_lines`` kept as lines re-indented relative to the first."""
        lines = self.sources.get(span.file, "").splitlines()
        if span.line < 1 or span.line > len(lines):
            return ""
        if span.line == span.end_line:
            return lines[span.line - 1][span.col - 1 : span.end_col - 1]
        chunk = lines[span.line - 1 : span.end_line]
        chunk[-1] = chunk[-1][: span.end_col - 1]
        indent = span.col - 1
        chunk[0] = chunk[0][indent:]
        if keep_lines:
            return "\n".join([chunk[0]] + [c[indent:] if not c[:indent].strip() else c.lstrip() for c in chunk[1:]])
        return " ".join(c.strip() for c in chunk)

    def kind(self, name: str) -> str:
        return type(self.decls[name]).__name__.removesuffix("Decl").lower()

    def of_kind(self, cls) -> list:
        return [d for d in self.decls.values() if isinstance(d, cls)]
