"""Expressions and blocks of the IR as trees: their children, in the order the
generated code evaluates them.

Reads: IR expressions and statements (:mod:`rulebook.compiler.ir`). Produces: iterators —
:func:`children(expr)`, :func:`walk(expr)` (the expression and every sub-expression,
depth first) and :func:`expressions(block)` (every top-level expression of a block,
nested blocks included). Used by the checker and the analyses alike.
"""

from __future__ import annotations

from rulebook.compiler import ir
from rulebook.compiler.ir.dice import mod_exprs


def children(e: ir.Expr) -> list[ir.Expr]:
    """Sub-expressions in the order the generated Python evaluates them."""
    match e:
        case ir.FieldAccess() | ir.CountOf():
            return [e.obj]
        case ir.TableLookup():
            return list(e.keys)
        case ir.CatalogLookup():
            return [e.key]
        case ir.MapIndex():
            return [e.obj, e.key]
        case ir.ListIndex():
            return [e.obj, e.index]
        case ir.ProcedureCall():
            return [value for _, value in e.args]
        case ir.RecordNew():
            return [value for _, value in e.args]
        case ir.BuiltinCall():
            return list(e.args)
        case ir.Unary():
            return [e.operand]
        case ir.Binary():
            return [e.left, e.right]
        case ir.Conditional():
            return [e.cond, e.then, e.other]
        case ir.ListOf():
            return list(e.items)
        case ir.Comprehension():
            return [e.iterable, e.body] + ([e.cond] if e.cond is not None else [])
        case ir.Roll():
            return ([e.times] if e.times is not None else []) + mod_exprs(e.mods) + ([e.test[1]] if e.test is not None else [])
        case ir.Draw():
            return [value for _, value in e.removed] + [e.count]
        case ir.Sources():
            return [value for _, value in e.items]
        case ir.IntRange():
            return [e.lo, e.hi]
    return []


def walk(e: ir.Expr):
    yield e
    for child in children(e):
        yield from walk(child)


def expressions(stmts: tuple[ir.Stmt, ...]):
    """Every top-level expression of a block, nested blocks included."""
    for st in stmts:
        if isinstance(st, ir.Let):
            yield st.value
        elif isinstance(st, (ir.Return,)):
            yield st.value
        elif isinstance(st, ir.Require):
            yield st.cond
        elif isinstance(st, ir.Step):
            yield from expressions(st.body)
        elif isinstance(st, ir.If):
            for cond, body in st.branches:
                yield cond
                yield from expressions(body)
            if st.orelse is not None:
                yield from expressions(st.orelse)
        elif isinstance(st, ir.Repeat):
            yield from expressions(st.body)
            yield st.cond
        elif isinstance(st, ir.Set):
            yield st.value
        elif isinstance(st, ir.Loop):
            yield from loop_header(st)
            yield from expressions(st.body)
            if st.cond is not None:
                yield st.cond


def loop_header(st: ir.Loop):
    """The expressions a loop evaluates before its first run, in order: its count, the
    initial values it carries, the values it goes through."""
    if st.times is not None:
        yield st.times
    for _, init in st.carried:
        yield init
    if st.iterable is not None:
        yield st.iterable
