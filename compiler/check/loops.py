"""Pass 5, bounded loops: ``repeat [at most] N times``, ``for … in`` and ``set``.

Reads the AST of a loop or a ``set`` inside a procedure body being checked (a
:class:`~rulebook.compiler.check.procedures._Body`, which checks the statements of the
loop's body) and the constants of pass 2. Produces the IR
:class:`~rulebook.compiler.ir.Loop` and :class:`~rulebook.compiler.ir.Set`, and reports:
a number of runs that is not a positive constant, ``at most`` without ``until`` (or
``until`` without ``at most``), a ``repeat`` carrying values without a bound, ``set`` of a
value the innermost loop does not carry, a value set twice in one run or read after its
``set`` in the same run, and a body's ``let`` read after the loop.

Scopes: the carried values and the ``for`` variable live in the loop's header scope, the
body's ``let``s in a scope of their own, fresh each run; after the loop the carried values
belong to the enclosing scope (they hold the last run's values), the body's lets are gone.
"""

from __future__ import annotations

from typing import Protocol

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, assignable
from rulebook.compiler.ir.walk import children, loop_header, walk
from rulebook.compiler.check.expressions import check_expr, check_iterable, want_bool
from rulebook.compiler.check.state import CheckState, Scope



class Body(Protocol):
    """What checks a procedure body (:class:`rulebook.compiler.check.procedures._Body`)."""

    st: CheckState
    loops: int  # bounded loops numbered so far
    carrying: list[dict]  # the values each loop around the statement carries, innermost last

    def block(self, stmts: list, scope: Scope) -> tuple[tuple[ir.Stmt, ...], bool]: ...


def new_local(st: CheckState, name: str, span: Span, scope: Scope) -> None:
    """Report a new local ``name`` (a ``let``, a loop's carried value or variable) that is a
    reserved word, is defined already or would hide a declaration."""
    if name in KEYWORDS:
        st.reserved(name, "a value", span)
    if scope.get(name) is not None:
        st.err(f"'{name}' is already defined", span, f"first defined at {scope.get(name)[1]}", "duplicate")
    if isinstance(st.ast.get(name), (n.EnumDecl, n.TableDecl, n.CatalogDecl, n.ConstDecl)):
        st.err(f"'{name}' would hide the declaration at {st.ast[name].span}", span, "choose another name", "shadow")


def check_loop(body: Body, stmt: n.Loop, scope: Scope) -> ir.Loop:
    """A bounded loop: its header, its body (statements checked by ``body``) and its ``until``."""
    st = body.st
    body.loops += 1
    number = body.loops
    times, count = _times(st, stmt, scope)
    iterable = check_iterable(st, stmt.iterable, scope) if stmt.iterable is not None else None
    if stmt.word != "with":
        st.err(f"`{stmt.word}` cannot introduce the values a loop carries", stmt.span,
               "write with (name: initial value, …)", "loop")
    head = Scope(scope)
    carried: list[tuple[str, ir.Expr]] = []
    for c in stmt.carried:
        init = check_expr(st, c.init, scope)
        new_local(st, c.name, c.span, head)
        if c.name in head.vars:
            continue  # named twice in the header: reported above
        head.vars[c.name] = (ANY if init.type.kind == "none" else init.type, c.span)
        st.local_decl[(head, c.name)] = c.span
        carried.append((c.name, init))
    if stmt.var is not None and iterable is not None:
        new_local(st, stmt.var, stmt.span, head)
        head.vars[stmt.var] = (iterable.type.args[0] if iterable.type.kind == "list" else ANY, stmt.span)
        st.local_uses.add((head, stmt.var))
    inner = Scope(head)
    body.carrying.append({name: head.vars[name][0] for name, _ in carried})
    stmts, _ = body.block(list(stmt.body), inner)
    body.carrying.pop()
    cond = want_bool(st, stmt.cond, inner, "until") if stmt.cond is not None else None
    _sets_in_order(st, stmts, set())
    for name, _ in carried:  # after the loop: the last run's values
        scope.vars[name] = head.vars[name]
        st.local_decl[(scope, name)] = st.local_decl.pop((head, name), head.vars[name][1])
        if (head, name) in st.local_uses:
            st.local_uses.add((scope, name))
    for name in inner.vars:
        st.loop_lets.setdefault(name, stmt.span)
    text = ir.span_text(st.sources, stmt.cond.span) if stmt.cond is not None else ""
    return ir.Loop(number, times, count, stmt.var, iterable, tuple(carried), stmts, cond, text, stmt.span)


def _times(st: CheckState, stmt: n.Loop, scope: Scope) -> tuple[ir.Expr | None, int | None]:
    """The number of runs of a ``repeat`` (and its value), with what the header lacks reported."""
    if stmt.times is None:
        if stmt.var is not None:
            return None, None
        if stmt.carried:
            st.err("a repeat that carries values needs a bound on its runs", stmt.span,
                   "write `repeat at most N times with (…) { … } until c`", "loop")
        else:
            st.err("this repeat has neither `until` nor a number of runs: it would never end", stmt.span,
                   "write `repeat { … } until c`, or `repeat N times { … }`", "loop")
        return None, None
    times = check_expr(st, stmt.times, scope)
    count = constant(st, times)
    if count is None:
        st.err("the number of runs of a repeat must be a constant", stmt.times.span,
               "write a whole number or a const: `repeat at most 3 times`", "loop")
    elif isinstance(count, bool) or not isinstance(count, int) or count < 1:
        st.err(f"the number of runs of a repeat must be a whole number of at least 1, got {count}", stmt.times.span,
               "a loop runs at least once: `repeat 1 times` or more", "loop")
        count = None
    if stmt.at_most and stmt.cond is None:
        st.err("`at most` bounds a repeat that ends on `until`, and this one has no `until`", stmt.span,
               "add `until c` after the block, or write `repeat N times` for exactly N runs", "loop")
    elif not stmt.at_most and stmt.cond is not None:
        st.err("with `until`, the number of runs is a bound: write `repeat at most N times`", stmt.times.span,
               "`repeat N times` runs exactly N times, and has no `until`", "loop")
    return times, count


def constant(st: CheckState, e: ir.Expr):
    """The value of a constant expression (numbers, ``const``s, ``-``, ``+``, ``*``), or None."""
    if isinstance(e, ir.Literal):
        return e.value
    if isinstance(e, ir.ConstRef):
        d = st.decls.get(e.name)
        return d.value if isinstance(d, ir.Const) else None
    if isinstance(e, ir.Unary) and e.op == "-":
        v = constant(st, e.operand)
        return -v if isinstance(v, int) else None
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*"):
        a, b = constant(st, e.left), constant(st, e.right)
        if not (isinstance(a, int) and isinstance(b, int)):
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def check_set(body: Body, stmt: n.Set, scope: Scope) -> ir.Set:
    """``set name = value``: ``name`` must be carried by the innermost loop, the value of its type."""
    st = body.st
    value = check_expr(st, stmt.value, scope)
    if not body.carrying:
        st.err("`set` stands only inside a loop that carries values (`repeat … with (…)`, `for … with (…)`)",
               stmt.span, "outside a loop, name a new value with let", "loop")
        return ir.Set(stmt.name, value, stmt.span)
    carried = body.carrying[-1]
    if stmt.name in carried:
        if not assignable(value.type, carried[stmt.name]):
            st.err(f"'{stmt.name}' starts as {carried[stmt.name]}, and this `set` gives it {value.type}", stmt.value.span,
                   "a carried value keeps the type of its initial value", "type")
    elif any(stmt.name in outer for outer in body.carrying):
        st.err(f"'{stmt.name}' is carried by an outer loop: `set` gives values only to the innermost loop's", stmt.span,
               "carry it in this loop too, or set it after this loop ends", "loop")
    else:
        what = "a value of this procedure" if scope.get(stmt.name) is not None else "unknown here"
        shown = ", ".join(carried) or "none"
        st.err(f"'{stmt.name}' is {what}, not one the loop carries: only those of its `with (…)` can be set", stmt.span,
               f"declare it in the loop's header, with ({stmt.name}: …) (carried now: {shown})", "loop")
    return ir.Set(stmt.name, value, stmt.span)


def _sets_in_order(st: CheckState, stmts: tuple[ir.Stmt, ...], done: set[str], own: bool = True) -> set[str]:
    """Walk one run of a loop's body in order: a value set twice on one path, or read after
    its ``set`` (the new value counts from the next run), is an error. Returns the names
    set on some path. Not ``own``: the body of a loop inside, whose own ``set``s its own
    check reports; only reads of the names in ``done`` are looked at."""
    def reads(e: ir.Expr) -> None:
        for x in walk(e):
            if isinstance(x, ir.Local) and x.name in done:
                st.err(f"'{x.name}' is read after its `set` in the same run", x.span,
                       "`set` gives the value of the next run: read it before the set, or name the new value "
                       "with let and read that", "loop")
    for s in stmts:
        if isinstance(s, (ir.Let, ir.Return)):
            reads(s.value)
        elif isinstance(s, ir.Require):
            reads(s.cond)
        elif isinstance(s, ir.Set):
            reads(s.value)
            if not own:
                continue
            if s.name in done:
                st.err(f"'{s.name}' is set twice in one run", s.span,
                       "set it once on each path: work the new value out with let, then set it", "loop")
            done = done | {s.name}
        elif isinstance(s, ir.If):
            after = set(done)
            for cond, branch in s.branches:
                reads(cond)
                after |= _sets_in_order(st, branch, set(done), own)
            after |= _sets_in_order(st, s.orelse or (), set(done), own)
            done = after
        elif isinstance(s, ir.Loop):
            for e in loop_header(s):
                reads(e)
            _sets_in_order(st, s.body, set(done), False)
            if s.cond is not None:
                reads(s.cond)
        elif isinstance(s, ir.Repeat):
            _sets_in_order(st, s.body, set(done), False)
            reads(s.cond)
    return done


def endless_recursion(st: CheckState, proc: ir.Procedure) -> None:
    """Warn when every ``return`` of ``proc`` calls ``proc`` itself whatever the values
    (not only in one branch of an ``if … then … else``, nor right of ``and``/``or``)."""
    returns = list(_returns(proc.body))
    if returns and all(_always_calls(r.value, proc.name) for r in returns):
        st.warn(f"every return of {proc.name} calls {proc.name} again: it would never end", proc.span,
                "return a value without the call on some path (the case that ends the recursion)", "recursion")


def _returns(stmts: tuple[ir.Stmt, ...]):
    for s in stmts:
        if isinstance(s, ir.Return):
            yield s
        elif isinstance(s, (ir.Step, ir.Loop, ir.Repeat)):
            yield from _returns(s.body)
        elif isinstance(s, ir.If):
            for _, body in s.branches:
                yield from _returns(body)
            yield from _returns(s.orelse or ())


def _always_calls(e: ir.Expr, name: str) -> bool:
    """Whether evaluating ``e`` calls the procedure ``name`` whatever the values."""
    if isinstance(e, ir.ProcedureCall) and e.procedure == name:
        return True
    if isinstance(e, ir.Conditional):
        return _always_calls(e.cond, name) or (_always_calls(e.then, name) and _always_calls(e.other, name))
    if isinstance(e, ir.Binary) and e.op in ("and", "or"):
        return _always_calls(e.left, name)
    if isinstance(e, ir.Comprehension):
        return _always_calls(e.iterable, name)
    return any(_always_calls(x, name) for x in children(e))
