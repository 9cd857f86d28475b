"""The names in declarations: what each declares, and the names its parts refer to.

Reads one declaration of the parsed modules (``const``, ``enum``, ``record``, ``catalog``,
``table``, ``die``, ``bag``, ``rule``, ``procedure``, ``example``, ``odds``) and its
annotations. Produces, in the :class:`~rulebook.compiler.lsp.index_builder.IndexBuilder`,
the definitions it makes (enum values, fields, keys and columns, entries and id-keyed rows,
kinds of tokens of a bag, parameters, odds axes) and the names it refers to, through
:mod:`~rulebook.compiler.lsp.index_values` (types, data) and
:mod:`~rulebook.compiler.lsp.index_expressions` (procedures, expressions); for
annotations, the ``@name``, the kind of ``@allow``, the fields of ``@display "{…}"`` and
the ids of ``@as_printed``.
"""

from __future__ import annotations

import re

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T
from rulebook.compiler.check.data import named_cells
from rulebook.compiler.lsp.index_builder import IndexBuilder
from rulebook.compiler.lsp.index_expressions import ExpressionNames
from rulebook.compiler.lsp.index_values import TypeAndValueNames
from rulebook.compiler.lsp.symbols import Scope, Target, head_span


class DeclarationNames:
    """Names in declarations (but armies: :mod:`~rulebook.compiler.lsp.index_armies`)."""

    def __init__(self, index: IndexBuilder, values: TypeAndValueNames, expressions: ExpressionNames):
        self.index, self.values, self.expressions = index, values, expressions

    def const(self, d: n.ConstDecl) -> None:
        self.values.value(d.value, None)

    def enum(self, d: n.EnumDecl) -> None:
        for m in d.members:
            self.index.add(head_span(m.span, m.name), Target("member", d.name, m.name), True)

    def record(self, d: n.RecordDecl) -> None:
        fields = self.index.record_fields(d.name)
        for f in d.fields:
            self.index.add(head_span(f.span, f.name), Target("field", d.name, f.name), True, fields.get(f.name))
            self.values.type_ref(f.type)

    def catalog(self, d: n.CatalogDecl) -> None:
        self.index.add(d.record_span, Target("decl", "", d.record))
        fields = self.index.record_fields(d.record)
        columns = list(d.columns) if d.columns is not None else list(fields)
        if d.columns_span is not None:
            col = d.columns_span.col + len("columns")
            for c in d.columns:
                where = self.index.find(d.columns_span, c, col)
                self.index.add(where, Target("field", d.record, c))
                col = where.end_col if where else col
        for row in d.rows:
            quoted = self.index.lines[row.span.file][row.span.line - 1][row.span.col - 1 : row.span.col] == '"'
            start = row.span.col + (1 if quoted else 0)
            self.index.add(Span(row.span.file, row.span.line, start, row.span.line, start + len(row.id)), Target("entry", d.name, row.id), True)
            named = named_cells(row.values, columns, fields)  # a row may end with (field: value, …)
            for column, value in zip(columns, row.values[:-1] if named is not None else row.values):
                self.values.value(value, fields.get(column))
            for column, value in named or ():
                self.values.value(value, fields.get(column))

    def table(self, d: n.TableDecl) -> None:
        table = self.index.decl(d.name)
        types = {}
        if isinstance(table, ir.Table):
            types = {k.name: k.type for k in (*table.keys, *table.columns, *((table.across,) if table.across else ()))}
        specs = (*d.keys, *((d.across,) if d.across else ()), *d.columns)
        for spec in specs:
            self.index.add(head_span(spec.span, spec.name), Target("field", d.name, spec.name), True, types.get(spec.name))
            self.values.type_ref(spec.type)
        across_type = types.get(d.across.name) if d.across else None
        for v in d.header or ():
            self.values.value(v, across_type)
        id_keyed = len(d.keys) == 1 and d.keys[0].type.kind == "id" and d.across is None
        for row in d.rows:
            for spec, key in zip(d.keys, row.keys):
                if id_keyed and isinstance(key, (n.VName, n.VStr)):
                    ident = key.name if isinstance(key, n.VName) else key.value
                    span = key.span if isinstance(key, n.VName) else Span(key.span.file, key.span.line, key.span.col + 1, key.span.line, key.span.end_col - 1)
                    self.index.add(span, Target("entry", d.name, ident), True)
                elif not isinstance(key, n.RangeKey):
                    self.values.value(key, types.get(spec.name))
            columns = [c.name for c in d.columns] * (len(row.values) if d.across else 1)
            for column, value in zip(columns, row.values):
                self.values.value(value, types.get(column))

    def die(self, d: n.DieDecl) -> None:
        if d.face_enum:
            self.index.add(self.index.find(d.span, d.face_enum, d.span.col + len("die") + len(d.name)), Target("decl", "", d.face_enum))
        for face in d.faces:
            self.values.value(face, T("enum", d.face_enum) if d.face_enum else None)

    def bag(self, d: n.BagDecl) -> None:
        for kind, _, span in d.tokens:
            self.index.add(head_span(span, kind), Target("member", d.name, kind), True)

    def rule(self, d: n.RuleDecl) -> None:
        self.expressions.params(d.name, d.params, {})
        for grant in d.grants:
            self.values.value(grant, T("rule"))
        if d.combine is not None:
            self.index.add(d.combine[1], Target("clause", "stacking", d.combine[0]))

    def procedure(self, d: n.ProcedureDecl) -> None:
        scope: Scope = {}
        self.expressions.params(d.name, d.params, scope)
        self.values.type_ref(d.result)
        self.expressions.block(d.name, d.body, scope)

    def example(self, d: n.ExampleDecl) -> None:
        self.index.add(d.procedure_span, Target("decl", "", d.procedure))
        scope: Scope = {}
        self.expressions.args(d.procedure, d.given, scope, "param")
        for x in d.expects:
            if x.expr is not None:
                self.expressions.expr(d.procedure, x.expr, scope)

    def odds(self, d: n.OddsDecl) -> None:
        self.index.add(d.procedure_span, Target("decl", "", d.procedure))
        scope: Scope = {}
        for axis in (d.each, d.rows, d.columns):
            if axis is None:
                continue
            name = self.index.find(axis.span, axis.name)
            target = Target("local", d.name, axis.name, name)
            self.index.add(name, target, True)
            scope[axis.name] = target
            if axis.enum and axis.enum in self.index.ast_decls:  # not `in bool`
                self.index.add(self.index.find(axis.span, axis.enum, name.end_col if name else None), Target("decl", "", axis.enum))
        self.expressions.args(d.procedure, d.args, scope, "param", owner=d.name)
        self.expressions.expr(d.name, d.show, scope)

    # ------------------------------------------------------------------ annotations
    def annotations(self, item) -> None:
        """``@name`` of every annotation; the warning kind of ``@allow``, the
        fields of ``@display`` and the ids of ``@as_printed``."""
        for ann in getattr(item, "annotations", ()):
            self.index.add(head_span(ann.span, "@" + ann.name), Target("annotation", "", ann.name))
            v = ann.value
            if ann.name == "allow" and isinstance(v, (n.VApply, n.VName)):
                self.index.add(head_span(v.span, v.name), Target("warning", "", v.name))
            elif ann.name == "display" and isinstance(v, n.VStr) and isinstance(item, n.RecordDecl):
                self._display_fields(item.name, v.span)
            elif ann.name == "as_printed" and isinstance(v, n.VRecord):
                for key, ids in v.fields:
                    if key == "ids" and isinstance(ids, n.VList):
                        for x in ids.items:
                            if isinstance(x, n.VName):
                                self.index.add(x.span, self._printed_id(item, x.name))

    def _display_fields(self, record: str, span: Span) -> None:
        """Each ``{field}`` of a record's ``@display`` text."""
        lines = self.index.lines.get(span.file, [])
        if not 0 < span.line <= len(lines) or span.end_line != span.line:
            return
        text = lines[span.line - 1]
        for m in re.finditer(r"\{([^\W\d]\w*)\}", text[span.col - 1 : span.end_col - 1]):
            col = span.col + m.start(1)
            self.index.add(Span(span.file, span.line, col, span.line, col + len(m.group(1))), Target("field", record, m.group(1)))

    def _printed_id(self, item, ident: str) -> Target:
        """An id of ``@as_printed``: the entry target its uses in the declaration have."""
        for occ in self.index.symbols.by_file.get(item.span.file, ()):
            t = occ.target
            if t.kind == "entry" and t.name == ident and item.span.line <= occ.span.line <= item.span.end_line:
                return t
        catalogs = [name for name, d in (self.index.program.decls.items() if self.index.program is not None else ()) if isinstance(d, ir.Catalog)]
        owner = self.index.entry_owner("|".join(catalogs), ident) if catalogs else None
        return Target("entry", owner or "", ident)
