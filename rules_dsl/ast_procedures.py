"""The AST builder's procedures: parameters, steps, statements, and examples.

Reads the Lark trees of ``procedure`` declarations (parameters, steps, ``let``, ``return``,
``require``, ``if``/``elif``/``else``, ``repeat … until``, the bounded loops
``repeat … times``/``for … in`` and their ``set``) and of ``example`` declarations
(``given`` arguments, ``expect`` and ``expect error``). Produces their nodes
(:mod:`rulebook.rules_dsl.nodes`); the expressions inside come from
:mod:`rulebook.rules_dsl.ast_expressions`.
"""

from __future__ import annotations

from lark import v_args

from . import nodes as n
from .ast_builder import AstBuilder, optional_text, unquote


class ProceduresToAst(AstBuilder):
    """Procedures and their statements; examples of procedures."""

    # -- procedures
    def params(self, c):
        return tuple(p for p in c if p is not None)

    @v_args(meta=True)
    def param(self, meta, c):
        return n.Param(str(c[0]), c[1], c[3], self.sp(meta), optional_text(c[2]))

    @v_args(meta=True)
    def procedure_decl(self, meta, c):
        name, title, params, result, *body = c
        return n.ProcedureDecl(str(name), optional_text(title), params, result, tuple(b for b in body if b is not None), self.sp(meta))

    @v_args(meta=True)
    def step(self, meta, c):
        label, *body = c
        return n.Step(unquote(label), tuple(b for b in body if b is not None), self.sp(meta))

    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return n.Let(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return n.Return(c[0], self.sp(meta))

    @v_args(meta=True)
    def require_stmt(self, meta, c):
        return n.Require(c[0], unquote(c[1]), self.sp(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        cond, *rest = c
        body, branches_extra, orelse = [], [], None
        for x in rest:
            if isinstance(x, tuple) and x and x[0] == "elif":
                branches_extra.append(x[1])
            elif isinstance(x, tuple) and x and x[0] == "else":
                orelse = x[1]
            elif x is not None:
                body.append(x)
        return n.If(((cond, tuple(body)), *branches_extra), orelse, self.sp(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        count, carried, *body, cond = c
        body = tuple(b for b in body if b is not None)
        if count is None and carried is None and cond is not None:
            return n.Repeat(body, cond, self.sp(meta))
        times, at_most = count if count is not None else (None, False)
        word, carried = carried or ("with", ())
        return n.Loop(times, at_most, None, None, carried, body, cond, self.sp(meta), word)

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        var, iterable, carried, *body, cond = c
        word, carried = carried or ("with", ())
        return n.Loop(None, False, str(var), iterable, carried, tuple(b for b in body if b is not None), cond, self.sp(meta), word)

    def at_most(self, c):
        return (c[0], True)

    def exactly(self, c):
        return (c[0], False)

    def carried(self, c):
        word, *values = c
        return (str(word), tuple(x for x in values if x is not None))

    @v_args(meta=True)
    def carried_value(self, meta, c):
        return n.Carried(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def set_stmt(self, meta, c):
        return n.Set(str(c[0]), c[1], self.sp(meta))

    def elif_clause(self, c):
        cond, *body = c
        return ("elif", (cond, tuple(b for b in body if b is not None)))

    def else_clause(self, c):
        return ("else", tuple(b for b in c if b is not None))

    # -- examples
    @v_args(meta=True)
    def example_decl(self, meta, c):
        name, title, *items = c
        given: tuple = ()
        expects = []
        for it in items:
            if isinstance(it, n.Expect):
                expects.append(it)
            elif isinstance(it, tuple):
                given = it
        return n.ExampleDecl(str(name), optional_text(title), given, tuple(expects), self.sp(meta), procedure_span=self.tsp(name))

    def given(self, c):
        return tuple(a for a in c if a is not None)

    @v_args(meta=True)
    def expect(self, meta, c):
        return n.Expect(c[0], self.sp(meta))

    @v_args(meta=True)
    def expect_error(self, meta, c):
        return n.Expect(None, self.sp(meta), unquote(c[0]) if c[0] is not None else "")
