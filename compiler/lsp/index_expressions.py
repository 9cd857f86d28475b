"""The names in procedures and expressions: parameters, locals, calls, fields, dice, bags.

Reads the parameters, statements and expressions of a procedure (or the arguments and
expressions of an example, an odds table, a rule's parameters), with the names in scope.
Produces, in the :class:`~rulebook.compiler.lsp.index_builder.IndexBuilder`, the
occurrences of the names in them, resolved with the typed IR at the same span: a
parameter, a ``let`` value or a loop variable (each definition its own target), a
declaration, a built-in, the field after a dot (of which record, or which table), an enum
value or an entry id, the named arguments of a call, a die, a bag and its kinds of tokens.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.lsp.index_builder import IR_EXPRS, IndexBuilder
from rulebook.compiler.lsp.index_values import TypeAndValueNames
from rulebook.compiler.lsp.symbols import Scope, Target, head_span


class ExpressionNames:
    """Names in parameters, statements and expressions."""

    def __init__(self, index: IndexBuilder, values: TypeAndValueNames):
        self.index, self.values = index, values

    def params(self, owner: str, params, scope: Scope) -> None:
        d = self.index.decl(owner)
        types = {p.name: p.type for p in d.params} if isinstance(d, (ir.Procedure, ir.Rule)) else {}
        for p in params:
            target = Target("param", owner, p.name)
            self.index.add(head_span(p.span, p.name), target, True, types.get(p.name))
            self.values.type_ref(p.type)
            if p.default is not None:
                self.expr(owner, p.default, scope)
            scope[p.name] = target

    def block(self, owner: str, stmts, scope: Scope) -> None:
        for s in stmts:
            if isinstance(s, n.Step):
                self.block(owner, s.body, scope)
            elif isinstance(s, n.Let):
                self.expr(owner, s.value, scope)
                name = self.index.find(s.span, s.name, s.span.col + 3)
                let = self.index.ir_of(s.span, ir.Let)
                target = Target("local", owner, s.name, name)
                self.index.add(name, target, True, let.value.type if let is not None else None)
                scope[s.name] = target
            elif isinstance(s, n.Repeat):
                self.block(owner, s.body, scope)  # the body's lets stay visible after ``until``
                self.expr(owner, s.cond, scope)
            elif isinstance(s, n.Loop):
                self._loop(owner, s, scope)
            elif isinstance(s, n.Set):
                self.expr(owner, s.value, scope)
                if s.name in scope:
                    self.index.add(self.index.find(s.span, s.name, s.span.col + 3), scope[s.name])
            elif isinstance(s, (n.Return, n.Require)):
                self.expr(owner, s.value if isinstance(s, n.Return) else s.cond, scope)
            elif isinstance(s, n.If):
                for cond, body in s.branches:
                    self.expr(owner, cond, scope)
                    self.block(owner, body, dict(scope))
                if s.orelse is not None:
                    self.block(owner, s.orelse, dict(scope))

    def _loop(self, owner: str, s: n.Loop, scope: Scope) -> None:
        """A bounded loop: the values it carries and its variable are defined in its header;
        the carried ones stay known after it, the body's lets do not."""
        for x in (s.times, *(c.init for c in s.carried), s.iterable):
            if x is not None:
                self.expr(owner, x, scope)
        loop = self.index.ir_of(s.span, ir.Loop)
        types = {name: init.type for name, init in loop.carried} if loop is not None else {}
        head = dict(scope)
        for c in s.carried:
            target = Target("local", owner, c.name, head_span(c.span, c.name))
            self.index.add(head_span(c.span, c.name), target, True, types.get(c.name))
            head[c.name] = target
        if s.var is not None:
            var = self.index.find(s.span, s.var, (self.index.find(s.span, "for") or s.span).end_col)
            head[s.var] = Target("local", owner, s.var, var)
            self.index.add(var, head[s.var], True)
        inner = dict(head)
        self.block(owner, s.body, inner)
        if s.cond is not None:
            self.expr(owner, s.cond, inner)
        for c in s.carried:
            scope[c.name] = head[c.name]

    def args(self, callee: str, args, scope: Scope, kind: str, owner: str | None = None) -> None:
        for a in args:
            if a.name is not None:
                self.index.add(head_span(a.span, a.name), Target(kind, callee, a.name))
            self.expr(owner or callee, a.value, scope)

    def expr(self, owner: str, e, scope: Scope) -> None:
        if isinstance(e, n.Name):
            self._name(owner, e, scope)
        elif isinstance(e, n.Attr):
            self.expr(owner, e.obj, scope)
            self.index.add(e.name_span, self._member(e), type_=getattr(self.index.ir_of(e.span, *IR_EXPRS), "type", None))
        elif isinstance(e, n.Index):
            self.expr(owner, e.obj, scope)
            for k in e.keys:
                self.expr(owner, k, scope)
        elif isinstance(e, n.Call):
            self._call(owner, e, scope)
        elif isinstance(e, n.Unary):
            self.expr(owner, e.operand, scope)
        elif isinstance(e, n.Binary):
            self.expr(owner, e.left, scope)
            self.expr(owner, e.right, scope)
        elif isinstance(e, n.IfExpr):
            for x in (e.cond, e.then, e.other):
                self.expr(owner, x, scope)
        elif isinstance(e, n.ListExpr):
            for x in e.items:
                self.expr(owner, x, scope)
        elif isinstance(e, n.Comprehension):
            self.expr(owner, e.iterable, scope)
            after = Span(e.span.file, e.expr.span.end_line, e.expr.span.end_col, e.span.end_line, e.span.end_col)  # the element may hold a comprehension too
            var = self.index.find(after, e.name, (self.index.find(after, "for") or after).end_col)
            inner = {**scope, e.name: Target("local", owner, e.name, var)}
            self.index.add(var, inner[e.name], True)
            self.expr(owner, e.expr, inner)
            if e.cond is not None:
                self.expr(owner, e.cond, inner)
        elif isinstance(e, n.Range):
            self.expr(owner, e.lo, scope)
            self.expr(owner, e.hi, scope)
        elif isinstance(e, n.Roll):
            if e.die in self.index.ast_decls:
                self.index.add(e.die_span, Target("decl", "", e.die))
            for x in (e.times, e.count[1] if e.count else None):
                if x is not None:
                    self.expr(owner, x, scope)
            if e.mods is not None:
                tests = [e.mods.reroll, e.mods.explode, *(test for _, test, _ in e.mods.counts or ())]
                for test in tests:
                    if test is not None:
                        self.expr(owner, test.value, scope)
        elif isinstance(e, n.Stack):
            if e.procedure_span is not None:
                self.index.add(e.procedure_span, Target("decl", "", e.procedure))
            self.args(e.procedure, e.args, scope, "param", owner)
            for _, value, _ in e.sources:
                self.expr(owner, value, scope)
        elif isinstance(e, n.Draw):
            self.expr(owner, e.count, scope)
            self.index.add(self.index.find(e.span, e.bag, (self.index.find(e.span, "from") or e.span).end_col), Target("decl", "", e.bag))
            self.args(e.bag, e.removed, scope, "member", owner)

    def _name(self, owner: str, e: n.Name, scope: Scope) -> None:
        resolved = self.index.ir_of(e.span, ir.Local, ir.ConstRef)
        if isinstance(resolved, ir.ConstRef) or (resolved is not None and resolved.type.kind in ("enum_type", "table", "catalog")):
            self.index.add(e.span, Target("decl", "", e.name))
        elif resolved is not None:
            self.index.add(e.span, scope.get(e.name) or Target("local", owner, e.name), type_=resolved.type)
        elif e.name in scope:
            self.index.add(e.span, scope[e.name])
        elif e.name in self.index.ast_decls:
            self.index.add(e.span, Target("decl", "", e.name))

    def _member(self, e: n.Attr) -> Target:
        """What the name after the dot of ``e`` stands for."""
        resolved = self.index.ir_of(e.span, *IR_EXPRS)
        if isinstance(resolved, ir.EnumValue):
            return Target("member", resolved.enum, e.name)
        if isinstance(resolved, ir.EntryId):
            return Target("entry", resolved.catalog, e.name)
        if isinstance(resolved, ir.CountOf):
            return Target("member", resolved.obj.type.inner.name or "", e.name)
        if isinstance(resolved, ir.FieldAccess):
            base = resolved.obj.type.inner
            if resolved.via in ("catalog", "catalogs"):
                catalog = self.index.decl((resolved.owner or "").split("|")[0])
                return Target("field", catalog.record if isinstance(catalog, ir.Catalog) else "", e.name)
            return Target("field", resolved.owner if resolved.via == "table" else base.name or "", e.name)
        return Target("field", "", e.name)

    def _call(self, owner: str, e: n.Call, scope: Scope) -> None:
        resolved = self.index.ir_of(e.span, ir.ProcedureCall, ir.RecordNew, ir.BuiltinCall)
        if e.func in BUILTINS:
            self.index.add(e.func_span, Target("builtin", "", e.func))
        elif e.func in self.index.ast_decls:
            self.index.add(e.func_span, Target("decl", "", e.func))
        kind = "field" if isinstance(resolved, ir.RecordNew) else "param"
        if isinstance(resolved, ir.BuiltinCall) and resolved.rule is not None:
            for i, a in enumerate(e.args):
                if i == 1 and isinstance(a.value, n.Name):
                    self.index.add(a.value.span, Target("decl", "", resolved.rule))
                elif i == 2 and isinstance(a.value, n.Name) and resolved.param:
                    self.index.add(a.value.span, Target("param", resolved.rule, resolved.param))
                else:
                    self.expr(owner, a.value, scope)
            return
        for a in e.args:
            if a.name is not None and e.func not in BUILTINS:
                self.index.add(head_span(a.span, a.name), Target(kind, e.func, a.name))
            self.expr(owner, a.value, scope)
