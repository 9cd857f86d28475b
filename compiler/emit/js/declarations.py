"""Declarations → the data part of ``index.js``: enums, records, constants, catalogs,
tables, special-rule grants, dice and bags, as JavaScript values built through the runtime.

Reads: the declarations of a checked program. Produces: lines of a :class:`.writer.Writer`
(:meth:`DeclarationWriter.write`) and the descriptors of types that input conversion reads
(:func:`type_desc`). Every rules text goes through :func:`.names.js_string`, every name
through :func:`.names.js_name`.
"""

from __future__ import annotations

from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.js.expressions import literal
from rulebook.compiler.emit.js.names import comment, js_json, js_name, js_string
from rulebook.compiler.emit.js.writer import Writer
from rulebook.compiler.ir.types import T


def type_desc(t: T) -> list:
    """The runtime descriptor of a type (as the Python runtime's ``records`` reads them)."""
    k = t.kind
    if k == "opt":
        return ["opt", type_desc(t.args[0])]
    if k == "list":
        return ["list", type_desc(t.args[0])]
    if k == "map":
        return ["map", t.name, type_desc(t.args[0])]
    if k in ("enum", "record", "ref"):
        return [k, t.name]
    if k == "refs":
        return ["id"]
    if k == "any":
        return ["text"]
    return [k]


def has_row_record(t: ir.Table) -> bool:
    """Rows of several columns are records of their own (``$ROW_<table>``)."""
    return t.across is None and len(t.columns) > 1


class DeclarationWriter:
    """The rulebook's types and data as JavaScript."""

    def __init__(self, program: ir.Program, package: str, grants: dict[str, tuple]) -> None:
        self.p = program
        self.records = program.records
        self.package = package
        self.grants = grants

    def value(self, v: Any, t: T) -> str:
        k = t.kind
        if v is None:
            return "null"
        if k == "opt":
            return self.value(v, t.args[0])
        if k == "list":
            return "$rt.list(" + ", ".join(self.value(x, t.args[0]) for x in v) + ")"
        if k == "map":
            keys = "[" + ", ".join(literal(key) for key in v) + "]"
            values = "[" + ", ".join(self.value(x, t.args[0]) for x in v.values()) + "]"
            return f"new $rt.PMap({keys}, {values})"
        if k == "record":
            fields = self.records[t.name].fields
            return f"$R_{js_name(t.name)}.make(" + ", ".join(self.value(v.get(f.name), f.type) for f in fields) + ")"
        if k == "rule":
            return self.rule_app(v["rule"], v["args"].items())
        return literal(v)

    def rule_app(self, rule: str, args) -> str:
        pairs = ", ".join(f"[{js_string(a)}, {js_json(x) if isinstance(x, (list, dict)) else literal(x)}]" for a, x in args)
        return f"new $rt.RuleApp({js_string(rule)}, [{pairs}])"

    def write(self, w: Writer) -> None:
        p = self.p
        for e in p.of(ir.Enum):
            w.line()
            w.comment(f"enum {e.name} ({e.span.src})")
            w.line(f"const $E_{js_name(e.name)} = $rt.enumType([{', '.join(js_string(m.name) for m in e.members)}]);")
        for r in p.of(ir.Record):
            self.record_type(w, f"$R_{js_name(r.name)}", r.name, [f.name for f in r.fields], r.span.src)
        for t in p.of(ir.Table):
            if has_row_record(t):
                self.record_type(w, f"$ROW_{js_name(t.name)}", f"_Row_{t.name}", [c.name for c in t.columns], t.span.src)
        for k in p.of(ir.Const):
            w.line()
            w.comment(f"const {k.name} ({k.span.src}): {k.title}")
            w.line(f"const $C_{js_name(k.name)} = {self.value(k.value, k.type)};")
        for c in p.of(ir.Catalog):
            w.line()
            w.comment(f"catalog {c.name} ({c.span.src})")
            w.line(f"const $CAT_{js_name(c.name)} = $rt.table([")
            w.indent()
            record = T("record", c.record)
            for ident, entry in c.entries.items():
                w.line(f"[{js_string(ident)}, {self.value(entry, record)}],")
            w.outdent()
            w.line("]);")
        for t in p.of(ir.Table):
            self.table(w, t)
        if self.grants:
            w.line()
            w.comment("special rules each rule grants directly ($rt.granted follows the chain): has_rule and rule_param see them")
            w.line("const $GRANTS = new Map([")
            w.indent()
            for name, apps in self.grants.items():
                w.line(f"[{js_string(name)}, [{', '.join(self.rule_app(a.rule, a.args) for a in apps)}]],")
            w.outdent()
            w.line("]);")
        for d in p.of(ir.Die):
            w.line()
            w.comment(f"die {d.name} ({d.span.src})")
            w.line(f"const $D_{js_name(d.name)} = new $rt.Die({js_string(d.title)}, [{', '.join(literal(f) for f in d.faces)}]);")
        for b in p.of(ir.Bag):
            w.line()
            w.comment(f"bag {b.name} ({b.span.src})")
            tokens = ", ".join(f"[{js_string(kind)}, {count}]" for kind, count in b.tokens)
            w.line(f"const $B_{js_name(b.name)} = new $rt.Bag({js_string(b.title)}, [{tokens}]);")

    def record_type(self, w: Writer, const: str, name: str, fields: list[str], src: str) -> None:
        w.line()
        w.comment(f"record {name} ({src})")
        js_fields = ", ".join(js_string(js_name(f)) for f in fields)
        names = ", ".join(js_string(f) for f in fields)
        group = js_string(f"{self.package}.types.{name}")
        w.line(f"const {const} = new $rt.RecordType({js_string(name)}, {group}, [{js_fields}], [{names}]);")

    def row_value(self, t: ir.Table, row: ir.TableRow) -> str:
        if t.across is not None:
            column = t.columns[0].type
            return "$rt.table([" + ", ".join(f"[{literal(a)}, {self.value(v, column)}]" for a, v in zip(t.across_values, row.across)) + "])"
        if len(t.columns) == 1:
            return self.value(row.values[t.columns[0].name], t.columns[0].type)
        return f"$ROW_{js_name(t.name)}.make(" + ", ".join(self.value(row.values[c.name], c.type) for c in t.columns) + ")"

    def range_row(self, t: ir.Table, row: ir.TableRow, pos: int = 0) -> str:
        r = row.keys[pos]
        lo_in = "true" if r.lo_inclusive else "false"
        hi_in = "true" if r.hi_inclusive else "false"
        return f"[{literal(r.lo)}, {lo_in}, {literal(r.hi)}, {hi_in}, {self.row_value(t, row)}],"

    def table(self, w: Writer, t: ir.Table) -> None:
        w.line()
        w.comment(f"table {t.name} ({t.span.src})")
        name = f"$T_{js_name(t.name)}"
        if t.ranged and len(t.keys) == 1:
            w.line(f"const {name} = Object.freeze([")
            w.indent()
            for row in t.rows:
                w.line(self.range_row(t, row) + f" // {comment(row.span.src)}")
            w.outdent()
            w.line("]);")
            return
        if t.ranged:
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            groups: dict[str, list[ir.TableRow]] = {}
            for row in t.rows:
                groups.setdefault(_key([k for i, k in enumerate(row.keys) if i != pos]), []).append(row)
            w.line(f"const {name} = $rt.table([")
            w.indent()
            for key, rows in groups.items():
                w.line(f"[{key}, Object.freeze([")
                w.indent()
                for row in rows:
                    w.line(self.range_row(t, row, pos) + f" // {comment(row.span.src)}")
                w.outdent()
                w.line("])],")
            w.outdent()
            w.line("]);")
            return
        w.line(f"const {name} = $rt.table([")
        w.indent()
        for row in t.rows:
            w.line(f"[{_key(list(row.keys))}, {self.row_value(t, row)}],")
        w.outdent()
        w.line("]);")


def _key(keys: list) -> str:
    return literal(keys[0]) if len(keys) == 1 else "[" + ", ".join(literal(k) for k in keys) + "]"
