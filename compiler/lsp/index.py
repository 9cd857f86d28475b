"""Every name written in a rulebook: where it is and what it stands for.

Entry point: :func:`build_index(analysis) -> SymbolIndex`.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis`: the parsed modules give the
position of every declaration, value and expression (spans); the checked
program says what each name resolves to (the typed IR expression at the same
span: a local, an enum value, a field of which record, an entry of which
catalog) and the declared types of fields and columns, which tell what a bare
name in a catalog row or a table cell is (an enum value, an entry id, a rule).

The clauses of an ``army`` are read the same way: the declaration a clause
names (``units catálogo``), the fields of that catalog's record (``cost:
coste``), the ids of the right catalog (``entries: [a, b]``) and the sides,
sizes and options the army defines in place. Annotations are names too: the
``@name``, the kind of ``@allow``, the fields of ``@display "{…}"`` and the ids
of ``@as_printed``.

Produces a :class:`SymbolIndex` of :class:`Occurrence` s, each the span of one
name, the :class:`Target` it stands for and whether it defines it. Hover,
go to definition, find references, document highlights and semantic tokens
read it.
"""

from __future__ import annotations

import functools
import re
import typing
from dataclasses import dataclass, field

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.ir.types import T
from rulebook.compiler.lsp.workspace import Analysis

_IR_EXPRS = typing.get_args(ir.Expr)
_IR_RECORDED = (*_IR_EXPRS, ir.Let)  # what the index looks up by span
_IR_WALKED = (*_IR_RECORDED, ir.Return, ir.Require, ir.If, ir.Step, ir.Param, ir.Repeat)
# ``army`` clauses whose first value names a declaration, and those whose first value defines an id of the army
_ARMY_NAMES_DECL = ("sides", "roles", "sizes", "quality", "units", "options", "limits")
_ARMY_DEFINES = ("side", "size", "option")


@functools.cache
def _child_fields(cls) -> tuple[str, ...]:
    """The fields of an IR class that may hold expressions or statements."""
    return tuple(f for f in cls.__dataclass_fields__ if f not in ("type", "span", "name", "op", "text", "mode", "label", "number"))


def find_word(lines: list[str], span: Span, name: str, start_col: int | None = None) -> Span | None:
    """The span of the word ``name`` inside ``span`` of a file's ``lines``
    (from column ``start_col`` on its first line)."""
    for line in range(span.line, min(span.end_line, len(lines)) + 1):
        text = lines[line - 1]
        lo = (start_col or span.col) - 1 if line == span.line else 0
        hi = span.end_col - 1 if line == span.end_line else len(text)
        at = _word(text, name, lo, hi)
        if at >= 0:
            return Span(span.file, line, at + 1, line, at + 1 + len(name))
    return None


def declaration_keyword(item) -> str:
    """The keyword that starts a declaration node (``enum``, ``catalog``…)."""
    return item.keyword if isinstance(item, n.BrokenDecl) else type(item).__name__.removesuffix("Decl").lower()


def _word(text: str, word: str, lo: int, hi: int) -> int:
    """The index of ``word`` as a whole word in ``text[lo:hi]``, or -1."""
    at = text.find(word, max(lo, 0), hi)
    while at >= 0:
        end = at + len(word)
        if not (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")) and not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
            return at
        at = text.find(word, at + 1, hi)
    return -1


@dataclass(frozen=True, slots=True)
class Target:
    """What a name stands for.

    ``kind``: ``decl`` (a declaration; ``owner`` is empty), ``member`` (a value
    of enum ``owner``, or a kind of token of bag ``owner``), ``field`` (a field
    of record ``owner`` or a key or column of table ``owner``), ``entry`` (an
    entry of catalog ``owner`` or a row of id-keyed table ``owner``), ``param``
    (a parameter of procedure or special rule ``owner``), ``local`` (a ``let``
    value, loop variable, odds axis or ``result`` in ``owner``; ``where`` is its
    definition, so two values of one name are two targets), ``builtin``,
    ``choice`` (a side, size or option that army ``owner`` defines in place),
    ``clause`` (a clause word of an army block; ``owner`` is ``army`` or
    ``units``), ``annotation`` (an ``@name``) or ``warning`` (a kind of warning
    named by ``@allow``).
    """

    kind: str
    owner: str
    name: str
    where: Span | None = None


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One name written in a file: its span, target, and type where known."""

    span: Span
    target: Target
    definition: bool
    type: T | None = None


@dataclass(slots=True)
class SymbolIndex:
    """The occurrences of a rulebook, by file and by target."""

    by_file: dict[str, list[Occurrence]] = field(default_factory=dict)
    by_target: dict[Target, list[Occurrence]] = field(default_factory=dict)

    def at(self, file: str, line: int, col: int) -> Occurrence | None:
        """The occurrence covering (or ending right at) ``line:col`` (1-based)."""
        best = None
        for occ in self.by_file.get(file, ()):
            s = occ.span
            if s.line == line and s.col <= col <= s.end_col:
                if best is None or (s.end_col - s.col) < (best.span.end_col - best.span.col):
                    best = occ
        return best

    def definitions(self, target: Target) -> list[Occurrence]:
        return [o for o in self.by_target.get(target, ()) if o.definition]

    def references(self, target: Target) -> list[Occurrence]:
        return list(self.by_target.get(target, ()))


def build_index(analysis: Analysis) -> SymbolIndex:
    """Index every name of the analysed rulebook (kept in ``analysis.cache``)."""
    cached = analysis.cache.get("index")
    if cached is None:
        cached = analysis.cache["index"] = _Indexer(analysis).run()
    return cached


Scope = dict[str, Target]


class _Indexer:
    """One walk over the modules, resolving names with the program."""

    def __init__(self, analysis: Analysis):
        self.modules = analysis.modules
        self.program = analysis.program
        self.lines = {name: text.splitlines() for name, text in analysis.sources.items()}
        self.ast_decls: dict[str, object] = {}
        for module in self.modules.values():
            for item in module.items:
                name = getattr(item, "name", None)
                if name and not isinstance(item, (n.ShowDecl, n.SectionDecl, n.RulebookDecl)):
                    self.ast_decls.setdefault(name, item)
        self.ir_at: dict[Span, list] = {}
        self.ids: dict[str, set] = {}  # catalog or id table -> its ids
        if self.program is not None:
            self._collect_ir(self.program)
        self.index = SymbolIndex()

    # ------------------------------------------------------------------ output
    def add(self, span: Span | None, target: Target, definition: bool = False, type_: T | None = None) -> None:
        if span is None:
            return
        occ = Occurrence(span, target, definition, type_)
        self.index.by_file.setdefault(span.file, []).append(occ)
        self.index.by_target.setdefault(target, []).append(occ)

    def find(self, span: Span, name: str, start_col: int | None = None) -> Span | None:
        return find_word(self.lines.get(span.file, []), span, name, start_col)

    @staticmethod
    def head(span: Span, name: str) -> Span:
        """The span of ``name`` written at the start of ``span``."""
        return Span(span.file, span.line, span.col, span.line, span.col + len(name))

    @staticmethod
    def tail(span: Span, name: str) -> Span:
        """The span of ``name`` written at the end of ``span``."""
        return Span(span.file, span.end_line, span.end_col - len(name), span.end_line, span.end_col)

    def arg_name(self, name: str, value_span: Span) -> Span | None:
        """The span of ``name`` in ``name: value`` / ``name=value`` right before ``value_span``."""
        lines = self.lines.get(value_span.file, [])
        if not 0 < value_span.line <= len(lines):
            return None
        before = lines[value_span.line - 1][: value_span.col - 1].rstrip()
        if not before.endswith((":", "=")):
            return None
        end = len(before[:-1].rstrip())
        at = _word(before, name, end - len(name), end)
        return Span(value_span.file, value_span.line, at + 1, value_span.line, at + 1 + len(name)) if at >= 0 else None

    # ------------------------------------------------------------------ the program
    def _collect_ir(self, program: ir.Program) -> None:
        for d in program.decls.values():
            if isinstance(d, ir.Procedure):
                self._ir_walk(d.params)
                self._ir_walk(d.body)
            elif isinstance(d, ir.Odds):
                self._ir_walk(d.args)
                self._ir_walk(d.show)
        for ex in program.examples:
            self._ir_walk(ex.given)
            self._ir_walk(tuple(x.expr for x in ex.expects))

    def _ir_walk(self, node) -> None:
        if isinstance(node, (tuple, list)):
            for x in node:
                self._ir_walk(x)
        elif isinstance(node, _IR_WALKED):
            if isinstance(node, _IR_RECORDED):
                self.ir_at.setdefault(node.span, []).append(node)
            for name in _child_fields(type(node)):
                self._ir_walk(getattr(node, name))

    def ir_of(self, span: Span, *classes):
        return next((x for x in self.ir_at.get(span, ()) if isinstance(x, classes)), None)

    def decl(self, name: str):
        return self.program.decls.get(name) if self.program is not None else None

    def record_fields(self, record: str) -> dict[str, T]:
        d = self.decl(record)
        return {f.name: f.type for f in d.fields} if isinstance(d, ir.Record) else {}

    def entry_owner(self, refs: str, ident: str) -> str | None:
        """Which of the catalogs/tables ``refs`` (``a|b``) holds the id ``ident``."""
        for c in refs.split("|"):
            if c not in self.ids:
                self.ids[c] = set(self.program.ids_of(c)) if self.program is not None else set()
            if ident in self.ids[c]:
                return c
        return None

    # ------------------------------------------------------------------ walk
    def run(self) -> SymbolIndex:
        for module in self.modules.values():
            for item in module.items:
                self._item(item)
        for occs in self.index.by_file.values():
            occs.sort(key=lambda o: (o.span.line, o.span.col))
        return self.index

    def _item(self, item) -> None:
        if isinstance(item, (n.Paragraph, n.Heading, n.Note)):
            self._inlines(item.inlines)
        elif isinstance(item, n.ListBlock):
            for inlines in item.items:
                self._inlines(inlines)
        elif isinstance(item, n.ShowDecl):
            self.add(self.find(item.span, item.name, item.span.col + 4), Target("decl", "", item.name))
        elif isinstance(item, n.ExampleDecl):
            self._example(item)
        elif hasattr(item, "name") and not isinstance(item, (n.SectionDecl, n.RulebookDecl)):
            keyword = declaration_keyword(item)
            self.add(self.find(item.span, item.name, item.span.col + len(keyword)), Target("decl", "", item.name), True)
            handler = getattr(self, "_" + keyword, None)
            if handler is not None and not isinstance(item, n.BrokenDecl):
                handler(item)
        self._annotations(item)

    def _annotations(self, item) -> None:
        """``@name`` of every annotation; the warning kind of ``@allow``, the
        fields of ``@display`` and the ids of ``@as_printed``."""
        for ann in getattr(item, "annotations", ()):
            self.add(self.head(ann.span, "@" + ann.name), Target("annotation", "", ann.name))
            v = ann.value
            if ann.name == "allow" and isinstance(v, (n.VApply, n.VName)):
                self.add(self.head(v.span, v.name), Target("warning", "", v.name))
            elif ann.name == "display" and isinstance(v, n.VStr) and isinstance(item, n.RecordDecl):
                self._display_fields(item.name, v.span)
            elif ann.name == "as_printed" and isinstance(v, n.VRecord):
                for key, ids in v.fields:
                    if key == "ids" and isinstance(ids, n.VList):
                        for x in ids.items:
                            if isinstance(x, n.VName):
                                self.add(x.span, self._printed_id(item, x.name))

    def _display_fields(self, record: str, span: Span) -> None:
        """Each ``{field}`` of a record's ``@display`` text."""
        lines = self.lines.get(span.file, [])
        if not 0 < span.line <= len(lines) or span.end_line != span.line:
            return
        text = lines[span.line - 1]
        for m in re.finditer(r"\{([^\W\d]\w*)\}", text[span.col - 1 : span.end_col - 1]):
            col = span.col + m.start(1)
            self.add(Span(span.file, span.line, col, span.line, col + len(m.group(1))), Target("field", record, m.group(1)))

    def _printed_id(self, item, ident: str) -> Target:
        """An id of ``@as_printed``: the entry target its uses in the declaration have."""
        for occ in self.index.by_file.get(item.span.file, ()):
            t = occ.target
            if t.kind == "entry" and t.name == ident and item.span.line <= occ.span.line <= item.span.end_line:
                return t
        catalogs = [name for name, d in (self.program.decls.items() if self.program is not None else ()) if isinstance(d, ir.Catalog)]
        owner = self.entry_owner("|".join(catalogs), ident) if catalogs else None
        return Target("entry", owner or "", ident)

    def _inlines(self, inlines) -> None:
        for run in inlines:
            if isinstance(run, n.Ref):
                name, _, ident = run.target.partition("#")
                start = Span(run.span.file, run.span.line, run.span.col + 2, run.span.line, run.span.col + 2 + len(name))
                self.add(start, Target("decl", "", name))
                if ident:
                    owner = self.entry_owner(name, ident) or name
                    self.add(Span(start.file, start.line, start.end_col + 1, start.line, start.end_col + 1 + len(ident)), Target("entry", owner, ident))

    # ------------------------------------------------------------------ declarations
    def _const(self, d: n.ConstDecl) -> None:
        self._value(d.value, None)

    def _enum(self, d: n.EnumDecl) -> None:
        for m in d.members:
            self.add(self.head(m.span, m.name), Target("member", d.name, m.name), True)

    def _record(self, d: n.RecordDecl) -> None:
        fields = self.record_fields(d.name)
        for f in d.fields:
            self.add(self.head(f.span, f.name), Target("field", d.name, f.name), True, fields.get(f.name))
            self._type(f.type)

    def _catalog(self, d: n.CatalogDecl) -> None:
        self.add(d.record_span, Target("decl", "", d.record))
        fields = self.record_fields(d.record)
        columns = list(d.columns) if d.columns is not None else list(fields)
        if d.columns_span is not None:
            col = d.columns_span.col + len("columns")
            for c in d.columns:
                where = self.find(d.columns_span, c, col)
                self.add(where, Target("field", d.record, c))
                col = where.end_col if where else col
        for row in d.rows:
            quoted = self.lines[row.span.file][row.span.line - 1][row.span.col - 1 : row.span.col] == '"'
            start = row.span.col + (1 if quoted else 0)
            self.add(Span(row.span.file, row.span.line, start, row.span.line, start + len(row.id)), Target("entry", d.name, row.id), True)
            for column, value in zip(columns, row.values):
                self._value(value, fields.get(column))

    def _table(self, d: n.TableDecl) -> None:
        table = self.decl(d.name)
        types = {}
        if isinstance(table, ir.Table):
            types = {k.name: k.type for k in (*table.keys, *table.columns, *((table.across,) if table.across else ()))}
        specs = (*d.keys, *((d.across,) if d.across else ()), *d.columns)
        for spec in specs:
            self.add(self.head(spec.span, spec.name), Target("field", d.name, spec.name), True, types.get(spec.name))
            self._type(spec.type)
        across_type = types.get(d.across.name) if d.across else None
        for v in d.header or ():
            self._value(v, across_type)
        id_keyed = len(d.keys) == 1 and d.keys[0].type.kind == "id" and d.across is None
        for row in d.rows:
            for spec, key in zip(d.keys, row.keys):
                if id_keyed and isinstance(key, (n.VName, n.VStr)):
                    ident = key.name if isinstance(key, n.VName) else key.value
                    span = key.span if isinstance(key, n.VName) else Span(key.span.file, key.span.line, key.span.col + 1, key.span.line, key.span.end_col - 1)
                    self.add(span, Target("entry", d.name, ident), True)
                elif not isinstance(key, n.RangeKey):
                    self._value(key, types.get(spec.name))
            columns = [c.name for c in d.columns] * (len(row.values) if d.across else 1)
            for column, value in zip(columns, row.values):
                self._value(value, types.get(column))

    def _die(self, d: n.DieDecl) -> None:
        if d.face_enum:
            self.add(self.find(d.span, d.face_enum, d.span.col + len("die") + len(d.name)), Target("decl", "", d.face_enum))
        for face in d.faces:
            self._value(face, T("enum", d.face_enum) if d.face_enum else None)

    def _bag(self, d: n.BagDecl) -> None:
        for kind, _, span in d.tokens:
            self.add(self.head(span, kind), Target("member", d.name, kind), True)

    def _rule(self, d: n.RuleDecl) -> None:
        self._params(d.name, d.params, {})
        for grant in d.grants:
            self._value(grant, T("rule"))
        if d.combine is not None:
            self.add(d.combine[1], Target("clause", "stacking", d.combine[0]))

    def _army(self, d: n.ArmyDecl) -> None:
        named = [(c.word, c.args[0][1].name) for c in d.clauses if c.args and c.args[0][0] is None and isinstance(c.args[0][1], n.VName)]
        army = self.program.armies.get(d.name) if self.program is not None else None
        context = {
            "sides": next((name for word, name in named if word == "sides"), None),
            "roles": next((name for word, name in named if word == "roles"), None),
            "units": "|".join(name for word, name in named if word == "units"),
            "troops": army.troop_catalog if army is not None else None,
            "categories": self._category_enum(d),
        }
        for c in d.clauses:
            self._army_clause(d.name, c, None, context)

    def _category_enum(self, d: n.ArmyDecl) -> str | None:
        """The enum of the units' categories: the type of the field each ``units``
        clause names with ``category:`` (what ``limit category:`` names a value of)."""
        for c in d.clauses:
            first = c.args[0][1] if c.args and c.args[0][0] is None else None
            field = dict((k, v) for k, v in c.args if k is not None).get("category") if c.word == "units" else None
            catalog = self.decl(first.name) if isinstance(first, n.VName) else None
            if isinstance(field, n.VName) and isinstance(catalog, ir.Catalog):
                t = self.record_fields(catalog.record).get(field.name)
                t = t.inner if t is not None else None
                if t is not None and t.kind == "enum":
                    return t.name
        return None

    def _army_clause(self, army: str, c: n.ArmyClause, units: str | None, context: dict) -> None:
        """One clause of an army: its word, the declarations, fields and ids it names."""
        self.add(c.word_span, Target("clause", "units" if units is not None else "army", c.word))
        first = c.args[0][1] if c.args and c.args[0][0] is None else None
        named_decl = first.name if isinstance(first, n.VName) and c.word in _ARMY_NAMES_DECL else None
        if named_decl is not None:
            self.add(first.span, Target("decl", "", named_decl))
        elif isinstance(first, n.VName) and c.word in _ARMY_DEFINES:
            self.add(first.span, Target("choice", army, first.name), True)
        decl = self.decl(named_decl) if named_decl else None
        record = decl.record if isinstance(decl, ir.Catalog) else None
        fields = self.record_fields(record) if record else {}
        table_columns = {x.name for x in (*decl.keys, *decl.columns)} if isinstance(decl, ir.Table) else set()
        roles = self.decl(context["roles"] or "")
        for key, value in c.args:
            if key is None:
                continue
            if isinstance(roles, ir.Enum) and key in roles.values:
                self.add(self.arg_name(key, value.span), Target("member", roles.name, key))
            if isinstance(value, n.VList) or key == "entry":
                owner = {"only": named_decl, "remove": context["troops"], "add": context["troops"]}.get(key, units or context["units"]) or ""
                for x in value.items if isinstance(value, n.VList) else (value,):
                    if isinstance(x, n.VName):
                        self.add(x.span, Target("entry", self.entry_owner(owner, x.name) or owner.split("|")[0], x.name))
                continue
            if not isinstance(value, n.VName):
                continue
            if key == "side":
                sides = self.decl(context["sides"] or "")
                self.add(value.span, Target("member", sides.name, value.name) if isinstance(sides, ir.Enum) else Target("choice", army, value.name))
            elif key == "percent":
                self.add(value.span, Target("decl", "", value.name))
            elif key == "category" and c.word == "limit" and context["categories"]:
                self.add(value.span, Target("member", context["categories"], value.name))
            elif key == "column" and c.word == "quality" and isinstance(percent := dict(c.args).get("percent"), n.VName):
                table = self.decl(percent.name)
                if isinstance(table, ir.Table) and any(x.name == value.name for x in table.columns):
                    self.add(value.span, Target("field", percent.name, value.name))
            elif value.name in fields:
                self.add(value.span, Target("field", record, value.name), type_=fields[value.name])
            elif value.name in table_columns:
                self.add(value.span, Target("field", named_decl, value.name))
            elif key in ("amount", "alternatives") and "composition" in dict(c.args):
                line = self.record_fields(record or "").get(getattr(dict(c.args)["composition"], "name", ""))
                inner = line.inner.args[0].inner if line is not None and line.inner.kind == "list" and line.inner.args else None
                if inner is not None and inner.kind == "record" and value.name in self.record_fields(inner.name):
                    self.add(value.span, Target("field", inner.name, value.name))
        for sub in c.clauses:
            self._army_clause(army, sub, named_decl or "", context)

    def _procedure(self, d: n.ProcedureDecl) -> None:
        scope: Scope = {}
        self._params(d.name, d.params, scope)
        self._type(d.result)
        self._block(d.name, d.body, scope)

    def _params(self, owner: str, params, scope: Scope) -> None:
        d = self.decl(owner)
        types = {p.name: p.type for p in d.params} if isinstance(d, (ir.Procedure, ir.Rule)) else {}
        for p in params:
            target = Target("param", owner, p.name)
            self.add(self.head(p.span, p.name), target, True, types.get(p.name))
            self._type(p.type)
            if p.default is not None:
                self._expr(owner, p.default, scope)
            scope[p.name] = target

    def _example(self, d: n.ExampleDecl) -> None:
        self.add(d.procedure_span, Target("decl", "", d.procedure))
        scope: Scope = {}
        self._args(d.procedure, d.given, scope, "param")
        for x in d.expects:
            if x.expr is not None:
                self._expr(d.procedure, x.expr, scope)

    def _odds(self, d: n.OddsDecl) -> None:
        self.add(d.procedure_span, Target("decl", "", d.procedure))
        scope: Scope = {}
        for axis in (d.each, d.rows, d.columns):
            if axis is None:
                continue
            name = self.find(axis.span, axis.name)
            target = Target("local", d.name, axis.name, name)
            self.add(name, target, True)
            scope[axis.name] = target
            if axis.enum:
                self.add(self.find(axis.span, axis.enum, name.end_col if name else None), Target("decl", "", axis.enum))
        self._args(d.procedure, d.args, scope, "param", owner=d.name)
        self._expr(d.name, d.show, scope)

    def _type(self, t: n.TypeRef) -> None:
        if t.kind == "named" and t.name in self.ast_decls:
            self.add(self.head(t.span, t.name), Target("decl", "", t.name))
        elif t.kind in ("map", "ref"):
            col = t.span.col + len(t.kind)
            for name in (t.name or "").split("|"):
                where = self.find(t.span, name, col)
                self.add(where, Target("decl", "", name))
                col = where.end_col if where else col
        for arg in t.args:
            self._type(arg)

    # ------------------------------------------------------------------ data values
    def _value(self, v, t: T | None) -> None:
        t = t.inner if t is not None else None
        if isinstance(v, n.VName):
            self.add(v.span, self._bare_name(v.name, t))
        elif isinstance(v, n.VQualified):
            self.add(self.head(v.span, v.qualifier), Target("decl", "", v.qualifier))
            owner = self.decl(v.qualifier)
            kind = "member" if isinstance(owner, ir.Enum) else "entry"
            self.add(self.tail(v.span, v.name), Target(kind, v.qualifier, v.name))
        elif isinstance(v, n.VApply):
            self.add(self.head(v.span, v.name), Target("decl", "", v.name))
            applied = self.decl(v.name)
            if isinstance(applied, ir.Rule):
                kind, types = "param", [(p.name, p.type) for p in applied.params]
            else:
                kind, types = "field", list(self.record_fields(v.name).items())
            self._fields(v.name, kind, v.args, types)
        elif isinstance(v, n.VRecord):
            record = t.name if t is not None and t.kind == "record" else None
            self._fields(record, "field", v.fields, list(self.record_fields(record).items()) if record else [])
        elif isinstance(v, n.VList):
            item = t.args[0] if t is not None and t.kind == "list" else None
            for x in v.items:
                self._value(x, item)

    def _bare_name(self, name: str, t: T | None) -> Target:
        """What a bare name in data stands for, given the type expected there."""
        if t is not None and t.kind == "enum":
            return Target("member", t.name, name)
        if t is not None and t.kind in ("ref", "refs"):
            return Target("entry", self.entry_owner(t.name, name) or t.name.split("|")[0], name)
        return Target("decl", "", name)

    def _fields(self, owner: str | None, kind: str, args, types: list[tuple[str, T]]) -> None:
        """``(name: value, …)`` / ``(value, …)`` of a record or a rule application."""
        by_name = dict(types)
        for i, (name, value) in enumerate(args):
            if name is not None:
                if owner:
                    self.add(self.arg_name(name, value.span), Target(kind, owner, name))
                self._value(value, by_name.get(name))
            else:
                self._value(value, types[i][1] if i < len(types) else None)

    # ------------------------------------------------------------------ procedures
    def _block(self, owner: str, stmts, scope: Scope) -> None:
        for s in stmts:
            if isinstance(s, n.Step):
                self._block(owner, s.body, scope)
            elif isinstance(s, n.Let):
                self._expr(owner, s.value, scope)
                name = self.find(s.span, s.name, s.span.col + 3)
                let = self.ir_of(s.span, ir.Let)
                target = Target("local", owner, s.name, name)
                self.add(name, target, True, let.value.type if let is not None else None)
                scope[s.name] = target
            elif isinstance(s, n.Repeat):
                self._block(owner, s.body, scope)  # the body's lets stay visible after ``until``
                self._expr(owner, s.cond, scope)
            elif isinstance(s, (n.Return, n.Require)):
                self._expr(owner, s.value if isinstance(s, n.Return) else s.cond, scope)
            elif isinstance(s, n.If):
                for cond, body in s.branches:
                    self._expr(owner, cond, scope)
                    self._block(owner, body, dict(scope))
                if s.orelse is not None:
                    self._block(owner, s.orelse, dict(scope))

    def _args(self, callee: str, args, scope: Scope, kind: str, owner: str | None = None) -> None:
        for a in args:
            if a.name is not None:
                self.add(self.head(a.span, a.name), Target(kind, callee, a.name))
            self._expr(owner or callee, a.value, scope)

    def _expr(self, owner: str, e, scope: Scope) -> None:
        if isinstance(e, n.Name):
            self._name(owner, e, scope)
        elif isinstance(e, n.Attr):
            self._expr(owner, e.obj, scope)
            self.add(e.name_span, self._member(e), type_=getattr(self.ir_of(e.span, *_IR_EXPRS), "type", None))
        elif isinstance(e, n.Index):
            self._expr(owner, e.obj, scope)
            for k in e.keys:
                self._expr(owner, k, scope)
        elif isinstance(e, n.Call):
            self._call(owner, e, scope)
        elif isinstance(e, n.Unary):
            self._expr(owner, e.operand, scope)
        elif isinstance(e, n.Binary):
            self._expr(owner, e.left, scope)
            self._expr(owner, e.right, scope)
        elif isinstance(e, n.IfExpr):
            for x in (e.cond, e.then, e.other):
                self._expr(owner, x, scope)
        elif isinstance(e, n.ListExpr):
            for x in e.items:
                self._expr(owner, x, scope)
        elif isinstance(e, n.Comprehension):
            self._expr(owner, e.iterable, scope)
            var = self.find(e.span, e.name, (self.find(e.span, "for") or e.span).end_col)
            inner = {**scope, e.name: Target("local", owner, e.name, var)}
            self.add(var, inner[e.name], True)
            self._expr(owner, e.expr, inner)
            if e.cond is not None:
                self._expr(owner, e.cond, inner)
        elif isinstance(e, n.Roll):
            if e.die in self.ast_decls:
                self.add(e.die_span, Target("decl", "", e.die))
            for x in (e.times, e.count[1] if e.count else None):
                if x is not None:
                    self._expr(owner, x, scope)
        elif isinstance(e, n.Stack):
            if e.procedure_span is not None:
                self.add(e.procedure_span, Target("decl", "", e.procedure))
            self._args(e.procedure, e.args, scope, "param", owner)
            for _, value, _ in e.sources:
                self._expr(owner, value, scope)
        elif isinstance(e, n.Draw):
            self._expr(owner, e.count, scope)
            self.add(self.find(e.span, e.bag, (self.find(e.span, "from") or e.span).end_col), Target("decl", "", e.bag))
            self._args(e.bag, e.removed, scope, "member", owner)

    def _name(self, owner: str, e: n.Name, scope: Scope) -> None:
        resolved = self.ir_of(e.span, ir.Local, ir.ConstRef)
        if isinstance(resolved, ir.ConstRef) or (resolved is not None and resolved.type.kind in ("enum_type", "table", "catalog")):
            self.add(e.span, Target("decl", "", e.name))
        elif resolved is not None:
            self.add(e.span, scope.get(e.name) or Target("local", owner, e.name), type_=resolved.type)
        elif e.name in scope:
            self.add(e.span, scope[e.name])
        elif e.name in self.ast_decls:
            self.add(e.span, Target("decl", "", e.name))

    def _member(self, e: n.Attr) -> Target:
        """What the name after the dot of ``e`` stands for."""
        resolved = self.ir_of(e.span, *_IR_EXPRS)
        if isinstance(resolved, ir.EnumValue):
            return Target("member", resolved.enum, e.name)
        if isinstance(resolved, ir.EntryId):
            return Target("entry", resolved.catalog, e.name)
        if isinstance(resolved, ir.CountOf):
            return Target("member", resolved.obj.type.inner.name or "", e.name)
        if isinstance(resolved, ir.FieldAccess):
            base = resolved.obj.type.inner
            if resolved.via == "catalog":
                catalog = self.decl(resolved.owner or "")
                return Target("field", catalog.record if isinstance(catalog, ir.Catalog) else "", e.name)
            return Target("field", resolved.owner if resolved.via == "table" else base.name or "", e.name)
        return Target("field", "", e.name)

    def _call(self, owner: str, e: n.Call, scope: Scope) -> None:
        resolved = self.ir_of(e.span, ir.ProcedureCall, ir.RecordNew, ir.BuiltinCall)
        if e.func in BUILTINS:
            self.add(e.func_span, Target("builtin", "", e.func))
        elif e.func in self.ast_decls:
            self.add(e.func_span, Target("decl", "", e.func))
        kind = "field" if isinstance(resolved, ir.RecordNew) else "param"
        if isinstance(resolved, ir.BuiltinCall) and resolved.rule is not None:
            for i, a in enumerate(e.args):
                if i == 1 and isinstance(a.value, n.Name):
                    self.add(a.value.span, Target("decl", "", resolved.rule))
                elif i == 2 and isinstance(a.value, n.Name) and resolved.param:
                    self.add(a.value.span, Target("param", resolved.rule, resolved.param))
                else:
                    self._expr(owner, a.value, scope)
            return
        for a in e.args:
            if a.name is not None and e.func not in BUILTINS:
                self.add(self.head(a.span, a.name), Target(kind, e.func, a.name))
            self._expr(owner, a.value, scope)
