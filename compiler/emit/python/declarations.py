"""Declarations → ``types.py`` (enums and record classes) and ``data.py`` (constants, catalogs, tables, dice, bags).

Reads: the enums, records, constants, catalogs, tables, dice, bags and special rules of a
checked program, in the order of :mod:`.plan`. Produces: the text of ``types.py``
(:meth:`DeclarationWriter.types_module`: per enum its values, titles and order; one
``rulebook.runtime.Record`` class per record and per table whose rows are records) and of
``data.py`` (:meth:`DeclarationWriter.data_module`: the data as Python literals, and
``GRANTS``, the special rules each rule grants directly).
"""

from __future__ import annotations

from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.python import annotations, plan
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.layout import Doc, Group, Seq, Text, call, dict_of, flat, tuple_of
from rulebook.compiler.emit.python.literals import literal_doc
from rulebook.compiler.emit.python.module_frame import module_text, write_piece
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.emit.python.writer import Writer
from rulebook.compiler.ir.types import T
from rulebook.compiler.support import i18n


class DeclarationWriter:
    """The modules of the rulebook's types and data."""

    def __init__(self, generation: Generation) -> None:
        self.generation = generation
        self.p = generation.p

    def types_module(self) -> str:
        w = Writer()
        taken: dict[str, str] = {}  # the module's names: what declared each (a clash is refused)
        for e in plan.enums(self.p):
            m = py_name(e.name)
            alias = annotations.enum_alias(e.name)
            _take(taken, [alias, f"VALUES_{m}", f"TITLES_{m}", f"ORD_{m}"], f"enum {e.name}")
            w.line()
            w.comment(f"enum {e.name} ({e.span.src})")
            w.code(Seq((f"{alias} = ", _literal([x.name for x in e.members]))))
            w.code(Seq((f"VALUES_{m}: tuple[{alias}, ...] = ", tuple_of([Text(x.name) for x in e.members]))))
            w.code(Seq((f"TITLES_{m} = ", dict_of([(Text(x.name), Text(x.title)) for x in e.members]))))
            w.code(Seq((f"ORD_{m} = ", dict_of([(Text(x.name), str(i)) for i, x in enumerate(e.members)]))))
        for name, ids, src in self.id_sets():
            alias = annotations.catalog_alias(name)
            _take(taken, [alias], f"catalog {name}")
            w.line()
            w.comment(f"ids of {name} ({src}): a ref {name} is one of them")
            w.code(Seq((f"{alias} = ", _literal(ids))))
        escaped: set[str] = set()
        for r in plan.records(self.p):
            _take(taken, [py_name(r.name)], f"record {r.name}")
            escaped |= self.record_class(w, py_name(r.name), [(f.name, f.type, f.title) for f in r.fields], r.title,
                                         r.span.src)
        row_of = i18n.language(i18n.of_rulebook(self.p)).gettext("Row of the table %(table)s")  # the rulebook's language
        for t in plan.tables(self.p):
            if plan.has_row_record(t):
                fields = [(c.name, c.type, c.title) for c in t.columns]
                escaped |= self.record_class(w, f"_Row_{py_name(t.name)}", fields, row_of % {"table": t.name},
                                             t.span.src)
        if escaped:
            w.line()
            w.line()
            w.comment("types that a field of the same name hides in its record's class, for type checkers")
            for name in sorted(escaped):
                w.line(f"_type_{name} = {name}")
        return module_text(self.generation, "Enumerations and record types of the rulebook.", w, imports=(),
                           typing=True)

    def id_sets(self) -> list[tuple[str, list[str], str]]:
        """``(name, ids, src)`` of each catalog and each table keyed by id (what a ``ref`` names), by name."""
        sets = [(c.name, list(c.entries), c.span.src) for c in plan.catalogs(self.p)]
        sets += [(t.name, list(t.row_ids), t.span.src) for t in plan.tables(self.p) if t.keyed_by_id]
        return sorted(sets, key=lambda s: s[0])

    def record_class(self, w: Writer, cls: str, fields: list[tuple[str, T, str | None]], title: str, src: str) -> set[str]:
        """``class R(_rt.Record)``: its fields as slots (each with its type and title), their
        names in the rules when one differs (``_names``), each field annotated with its Python
        type (for type checkers only), and ``R._new(field, …)``, which resolvers call to build
        one: it fills in a writable twin, then makes it read-only (see
        :class:`rulebook.runtime.Record`). Returns the types the annotations read through
        ``_type_<name>`` (a field of that name hides them in the class)."""
        names = [py_name(name) for name, _, _ in fields]
        hidden = frozenset(names) & set().union(*(annotations.names_in(ftype) for _, ftype, _ in fields))
        w.line()
        w.line()
        w.line(f"class {cls}(_rt.Record):")
        w.indent()
        w.docstring([f"{title} ({src})."])
        w.line()
        if fields:
            w.line("__slots__ = (")
            w.indent()
            for (_, ftype, ftitle), field in zip(fields, names):
                w.code(Seq((Text(field), ",")), note=str(ftype) + (f" — {ftitle}" if ftitle else ""))
            w.outdent()
            w.line(")")
            for (_, ftype, _), field in zip(fields, names):
                w.code(Seq((f"{field}: ", annotations.annotation(ftype, types="", escaped=hidden))))
        else:
            w.line("__slots__ = ()")
        if any(field != name for field, (name, _, _) in zip(names, fields)):
            w.code(Seq(("_names = ", tuple_of([Text(name) for name, _, _ in fields]))))
        # the class by its name, unless a field (a parameter of _new) has that name: then by
        # the cell Python gives methods for their own class
        me = "__class__" if cls in names else cls
        w.line()
        w.line("@staticmethod")
        w.code(Seq(("def ", Group("_new", tuple(names)), ":")))
        w.indent()
        w.line(f"self = {me}._writable()")
        for field in names:
            w.line(f"self.{field} = {field}")
        w.line(f"self.__class__ = {me}  # read-only from here on")
        w.line("return self")
        w.outdent()
        w.outdent()
        return set(hidden)

    # ------------------------------------------------------------------ data.py
    def value(self, v: Any, t: T) -> Doc:
        """The doc of data value ``v`` of type ``t`` (record classes from ``types``); a list is
        a tuple with a comma after each item (``(a, b,)``)."""
        k = t.kind
        if v is None:
            return "None"
        if k == "opt":
            return self.value(v, t.args[0])
        if k == "list":
            return data_tuple([self.value(x, t.args[0]) for x in v])
        if k == "map":
            return dict_of([(Text(key) if isinstance(key, str) else repr(key), self.value(x, t.args[0])) for key, x in v.items()])
        if k == "record":
            fields = self.p.records[t.name].fields
            return call(f"_t.{py_name(t.name)}", *[Seq((f"{py_name(f.name)}=", self.value(v.get(f.name), f.type))) for f in fields])
        if k == "rule":
            args = [tuple_of([Text(a), repr(x) if isinstance(x, (list, dict)) else literal_doc(x)]) for a, x in v["args"].items()]
            return call("_rt.RuleApp", Text(v["rule"]), tuple_of(args))
        return literal_doc(v)

    def data_module(self) -> str:
        w = Writer()
        for k in plan.consts(self.p):
            w.line()
            w.comment(f"const {k.name} ({k.span.src}): {k.title}")
            w.code(Seq((f"CONST_{py_name(k.name)} = ", literal_doc(k.value))))
        for c in plan.catalogs(self.p):
            write_piece(self.generation, w, c.name, self.catalog_data)
        for t in plan.tables(self.p):
            write_piece(self.generation, w, t.name, self.table_data)
        if self.generation.grants:
            w.line()
            w.comment("special rules each rule grants directly (runtime.granted follows the chain): has_rule and rule_param see them")
            w.line("GRANTS = {")
            w.indent()
            for name, apps in self.generation.grants.items():
                w.code(Seq((Text(name), ": ", data_tuple([self.rule_app(a) for a in apps]), ",")))
            w.outdent()
            w.line("}")
        for d in plan.dice(self.p):
            w.line()
            w.comment(f"die {d.name} ({d.span.src})")
            w.code(Seq((f"DIE_{py_name(d.name)} = ", call("_rt.Die", Text(d.title), tuple_of([literal_doc(f) for f in d.faces])))))
        for b in plan.bags(self.p):
            tokens = tuple_of([tuple_of([Text(kind), str(count)]) for kind, count in b.tokens])
            w.line()
            w.comment(f"bag {b.name} ({b.span.src})")
            w.code(Seq((f"BAG_{py_name(b.name)} = ", call("_rt.Bag", Text(b.title), tokens))))
        return module_text(self.generation, "Constants, catalogs, tables, dice and bags of the rulebook, as Python data.", w, imports=("types",))

    def catalog_data(self, w: Writer, c: ir.Catalog) -> None:
        """``CATALOG_<name> = {id: record, …}``, one entry per line (an entry too long broken over several)."""
        record = T("record", c.record)
        w.line()
        w.comment(f"catalog {c.name} ({c.span.src})")
        w.line(f"CATALOG_{py_name(c.name)} = {{")
        w.indent()
        for ident, entry in c.entries.items():
            w.code(Seq((Text(ident), ": ", self.value(entry, record), ",")))
        w.outdent()
        w.line("}")

    def rule_app(self, app: ir.RuleApp) -> Doc:
        """``_rt.RuleApp('rule', (('X', 2),))``: a special rule applied with its arguments."""
        return self.value({"rule": app.rule, "args": dict(app.args)}, T("rule"))

    def row_value(self, t: ir.Table, row: ir.TableRow) -> Doc:
        if t.across is not None:
            column = t.columns[0].type
            return dict_of([(literal_doc(a), self.value(v, column)) for a, v in zip(t.across_values, row.across)])
        if len(t.columns) == 1:
            return self.value(row.values[t.columns[0].name], t.columns[0].type)
        return call(f"_t._Row_{py_name(t.name)}", *[Seq((f"{py_name(c.name)}=", self.value(row.values[c.name], c.type))) for c in t.columns])

    def range_row(self, t: ir.Table, row: ir.TableRow, pos: int = 0) -> Doc:
        """``(lo, lo_inclusive, hi, hi_inclusive, value),`` of a row keyed by a range (at key ``pos``)."""
        r = row.keys[pos]
        bounds = [literal_doc(r.lo), repr(r.lo_inclusive), literal_doc(r.hi), repr(r.hi_inclusive)]
        return Seq((tuple_of([*bounds, self.row_value(t, row)]), ","))

    def table_data(self, w: Writer, t: ir.Table) -> None:
        """``TABLE_<name> = …``, one row per line (a row too long broken over several): keyed by
        a range, a tuple of rows each noted with its position; else a dict by key."""
        w.line()
        w.comment(f"table {t.name} ({t.span.src})")
        if t.ranged and len(t.keys) == 1:
            w.line(f"TABLE_{py_name(t.name)} = (")
            w.indent()
            for row in t.rows:
                w.code(self.range_row(t, row), note=row.span.src)
            w.outdent()
            w.line(")")
            return
        if t.ranged:
            # the other keys pick a tuple of range rows: {other keys: ((lo, lo_in, hi, hi_in, value), …)}
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            groups: dict[str, tuple[Doc, list[ir.TableRow]]] = {}
            for row in t.rows:
                key = _key([k for i, k in enumerate(row.keys) if i != pos])
                groups.setdefault(flat(key), (key, []))[1].append(row)
            w.line(f"TABLE_{py_name(t.name)} = {{")
            w.indent()
            for key, rows in groups.values():
                w.code(Seq((key, ": (")))
                w.indent()
                for row in rows:
                    w.code(self.range_row(t, row, pos), note=row.span.src)
                w.outdent()
                w.line("),")
            w.outdent()
            w.line("}")
            return
        w.line(f"TABLE_{py_name(t.name)} = {{")
        w.indent()
        for row in t.rows:
            w.code(Seq((_key(row.keys), ": ", self.row_value(t, row), ",")))
        w.outdent()
        w.line("}")


def _literal(values: list[str]) -> Doc:
    """``_rt.Literal['a', 'b', …]``: the type of one of ``values`` (``str`` when there is none)."""
    return Group("_rt.Literal", tuple(Text(v) for v in values), "[", "]") if values else "str"


def _take(taken: dict[str, str], names: list[str], what: str) -> None:
    """Note that ``what`` declares ``names`` in ``types.py``; a name declared twice is refused."""
    for name in names:
        if name in taken:
            raise ValueError(f"{what} and {taken[name]} both become {name} in the generated types.py: rename one")
        taken[name] = what


def data_tuple(items: list[Doc]) -> Group:
    """``(a, b,)``: a tuple of data, with a comma after each item (``()`` when empty)."""
    return Group("", tuple(items), trailing_comma=bool(items))


def _key(keys: list) -> Doc:
    """The key of a table row: its one value, or the tuple of its values."""
    return literal_doc(keys[0]) if len(keys) == 1 else tuple_of([literal_doc(k) for k in keys])
