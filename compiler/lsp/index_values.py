"""The names in types and in data values: field types, catalog rows, table cells, constants.

Reads a :class:`~rulebook.rules_dsl.nodes.TypeRef` or a data value with the type expected
where it is written (a field's, a column's, a parameter's). Produces, in the
:class:`~rulebook.compiler.lsp.index_builder.IndexBuilder`, the occurrences of the names in
them: the declarations a type names; what a bare name in data is (an enum value, an entry
id of the right catalog, a declaration), ``Enum.value``, and the fields of a record or the
parameters of a rule application.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T
from rulebook.compiler.lsp.index_builder import IndexBuilder
from rulebook.compiler.lsp.symbols import Target, head_span, tail_span


class TypeAndValueNames:
    """Names in types and data values."""

    def __init__(self, index: IndexBuilder):
        self.index = index

    def type_ref(self, t: n.TypeRef) -> None:
        if t.kind == "named" and t.name in self.index.ast_decls:
            self.index.add(head_span(t.span, t.name), Target("decl", "", t.name))
        elif t.kind in ("map", "ref"):
            col = t.span.col + len(t.kind)
            for name in (t.name or "").split("|"):
                where = self.index.find(t.span, name, col)
                self.index.add(where, Target("decl", "", name))
                col = where.end_col if where else col
        for arg in t.args:
            self.type_ref(arg)

    def value(self, v, t: T | None) -> None:
        t = t.inner if t is not None else None
        if isinstance(v, n.VName):
            self.index.add(v.span, self._bare_name(v.name, t))
        elif isinstance(v, n.VQualified):
            self.index.add(head_span(v.span, v.qualifier), Target("decl", "", v.qualifier))
            owner = self.index.decl(v.qualifier)
            kind = "member" if isinstance(owner, ir.Enum) else "entry"
            self.index.add(tail_span(v.span, v.name), Target(kind, v.qualifier, v.name))
        elif isinstance(v, n.VApply):
            self.index.add(self.index.find(v.span, v.name) or head_span(v.span, v.name), Target("decl", "", v.name))
            applied = self.index.decl(v.name)
            if isinstance(applied, ir.Rule):
                kind, types = "param", [(p.name, p.type) for p in applied.params]
            else:
                kind, types = "field", list(self.index.record_fields(v.name).items())
            self._fields(v.name, kind, v.args, types)
        elif isinstance(v, n.VRecord):
            record = t.name if t is not None and t.kind == "record" else None
            self._fields(record, "field", v.fields, list(self.index.record_fields(record).items()) if record else [])
        elif isinstance(v, n.VList):
            item = t.args[0] if t is not None and t.kind == "list" else None
            for x in v.items:
                self.value(x, item)

    def _bare_name(self, name: str, t: T | None) -> Target:
        """What a bare name in data stands for, given the type expected there."""
        if t is not None and t.kind == "enum":
            return Target("member", t.name, name)
        if t is not None and t.kind in ("ref", "refs"):
            return Target("entry", self.index.entry_owner(t.name, name) or t.name.split("|")[0], name)
        return Target("decl", "", name)

    def _fields(self, owner: str | None, kind: str, args, types: list[tuple[str, T]]) -> None:
        """``(name: value, …)`` / ``(value, …)`` of a record or a rule application."""
        by_name = dict(types)
        for i, (name, value) in enumerate(args):
            if name is not None:
                if owner:
                    self.index.add(self.index.arg_name(name, value.span), Target(kind, owner, name))
                self.value(value, by_name.get(name))
            else:
                self.value(value, types[i][1] if i < len(types) else None)
