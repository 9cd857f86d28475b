"""Pass 5 — procedures: parameters, defaults and bodies checked and turned into
IR statements.

Entry point: :func:`check_procedures(state)`. Reads the signatures of pass 2
and the data of passes 3–4; adds an IR :class:`~rulebook.compiler.ir.Procedure` per
procedure. Reports type errors, names used before they are defined or defined
twice, paths that end without ``return``, unreachable statements, locals
that are never used, and ``repeat … until`` blocks that could never end
(a condition that reads nothing the body sets, ``until false``, a body with
nothing random) or hold a ``return``. The bounded loops (``repeat … times``,
``for``) and ``set`` are checked by :mod:`.loops`.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.walk import expressions, walk
from rulebook.compiler.ir.types import ANY, assignable
from rulebook.compiler.check.expressions import check_expr, not_none, want_bool
from rulebook.compiler.check.loops import check_loop, check_set, endless_recursion, new_local
from rulebook.compiler.check.signatures import param_title
from rulebook.compiler.check.state import CheckState, Scope


def check_procedures(st: CheckState) -> None:
    """Every procedure → an IR procedure (typed parameters, defaults and body)."""
    for name, d in st.ast.items():
        if isinstance(d, n.ProcedureDecl):
            st.current = name
            st.decls[name] = _procedure(st, d)
    st.current = None


class _Body:
    """Checking one procedure body: its result type and step numbering."""

    def __init__(self, st: CheckState, result):
        self.st = st
        self.result = result
        self.steps = 0
        self.repeats = 0
        self.in_repeat = False  # checking the body of a repeat, where `return` cannot stand
        self.loops = 0  # bounded loops numbered so far
        self.carrying: list[dict] = []  # the values each loop around the statement carries (innermost last)

    def block(self, stmts, scope: Scope) -> tuple[tuple[ir.Stmt, ...], bool]:
        """Check statements; returns them as IR and whether every path returns."""
        st = self.st
        out: list[ir.Stmt] = []
        returned = False
        for stmt in stmts:
            if returned:
                st.warn("this statement is never reached", stmt.span, None, "unreachable")
                break
            if isinstance(stmt, n.Step):
                self.steps += 1
                number = self.steps
                body, returned = self.block(list(stmt.body), scope)
                out.append(ir.Step(number, stmt.label, body, stmt.span))
            elif isinstance(stmt, n.Let):
                value = check_expr(st, stmt.value, scope)
                new_local(st, stmt.name, stmt.span, scope)
                scope.vars[stmt.name] = (ANY if value.type.kind == "none" else value.type, stmt.span)
                st.local_decl[(scope, stmt.name)] = stmt.span
                out.append(ir.Let(stmt.name, value, stmt.span))
            elif isinstance(stmt, n.Return):
                if self.in_repeat:
                    st.err("`return` cannot stand inside `repeat … until`", stmt.span,
                           "bind the values with let inside the repeat and return after `until`", "repeat")
                value = check_expr(st, stmt.value, scope)
                if not assignable(value.type, self.result):
                    st.err(f"returns {value.type}, but the procedure's result is {self.result}", stmt.value.span, None, "type")
                out.append(ir.Return(value, stmt.span))
                returned = True
            elif isinstance(stmt, n.Require):
                cond = want_bool(st, stmt.cond, scope, "require")
                scope.narrowed |= not_none(stmt.cond, True)
                out.append(ir.Require(cond, stmt.message, stmt.span))
            elif isinstance(stmt, n.If):
                all_return = True
                excluded: set[str] = set()  # paths proven not none by earlier failed `x == none` tests
                branches = []
                for cond, body in stmt.branches:
                    c = want_bool(st, cond, Scope(scope, excluded))
                    stmts_ir, ret = self.block(list(body), Scope(scope, excluded | not_none(cond, True)))
                    all_return &= ret
                    branches.append((c, stmts_ir))
                    excluded |= not_none(cond, False)
                orelse = None
                if stmt.orelse is not None:
                    orelse, ret = self.block(list(stmt.orelse), Scope(scope, excluded))
                    all_return &= ret
                else:
                    all_return = False
                out.append(ir.If(tuple(branches), orelse, stmt.span))
                returned = all_return
            elif isinstance(stmt, n.Repeat):
                out.append(self.repeat(stmt, scope))
            elif isinstance(stmt, n.Loop):
                out.append(check_loop(self, stmt, scope))
            elif isinstance(stmt, n.Set):
                out.append(check_set(self, stmt, scope))
        return tuple(out), returned

    def repeat(self, stmt: n.Repeat, scope: Scope) -> ir.Repeat:
        """``repeat { … } until c``: the body in a scope of its own, whose top-level
        lets then belong to the enclosing scope (they keep the last run's values)."""
        st = self.st
        self.repeats += 1
        number = self.repeats
        inner = Scope(scope)
        outer_repeat, self.in_repeat = self.in_repeat, True
        body, _ = self.block(list(stmt.body), inner)
        self.in_repeat = outer_repeat
        cond = want_bool(st, stmt.cond, inner, "until")
        bound = [name for s in body for name in ((s.name,) if isinstance(s, ir.Let) else s.binds if isinstance(s, (ir.Repeat, ir.Loop)) else ())]
        binds = tuple(name for name in bound if inner.vars.get(name) is not None)
        for name in binds:
            scope.vars[name] = inner.vars[name]
            st.local_decl[(scope, name)] = st.local_decl.pop((inner, name), inner.vars[name][1])
            if (inner, name) in st.local_uses:
                st.local_uses.add((scope, name))
        read_in_cond = {x.name for x in walk(cond) if isinstance(x, ir.Local)}
        if isinstance(cond, ir.Literal) and cond.value is False:
            st.err("this `until` condition never holds: the repeat would never end", stmt.cond.span,
                   "write the condition that ends the repetition", "repeat")
        elif cond.type.kind != "any" and not read_in_cond & set(binds):
            st.err("the `until` condition reads nothing the repeat sets: it would hold always or never", stmt.cond.span,
                   "test a value bound with let inside the repeat", "repeat")
        if not any(isinstance(x, (ir.Roll, ir.Draw, ir.ProcedureCall)) for x in _stmt_exprs(body)):
            st.err("nothing inside this repeat is random: each run would give the same values", stmt.span,
                   "roll or draw inside the repeat", "repeat")
        reads = sorted({x.name for x in _stmt_exprs(body) if isinstance(x, ir.Local)} | read_in_cond)
        outer = tuple(name for name in reads if scope.get(name) is not None and name not in binds
                      and name not in _declared_in(body))
        return ir.Repeat(number, body, cond, binds, outer, ir.span_text(st.sources, stmt.cond.span), stmt.span)


def _stmt_exprs(stmts: tuple[ir.Stmt, ...]):
    """Every expression (and sub-expression) of statements, nested blocks included."""
    for top in expressions(stmts):
        yield from walk(top)


def _declared_in(stmts: tuple[ir.Stmt, ...]) -> set[str]:
    """Names bound by lets anywhere in statements (nested blocks included)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, ir.Let):
            out.add(s.name)
        elif isinstance(s, ir.If):
            for _, body in s.branches:
                out |= _declared_in(body)
            out |= _declared_in(s.orelse or ())
        elif isinstance(s, (ir.Repeat, ir.Loop)):
            out |= _declared_in(s.body)
    return out


def _procedure(st: CheckState, d: n.ProcedureDecl) -> ir.Procedure:
    scope = Scope()
    st.local_decl = {}
    st.loop_lets = {}
    result = st.result_types[d.name]
    params = []
    seen = set()
    first_default = None  # the first parameter with a default: the ones after it need one too
    for p, (pname, pt) in zip(d.params, st.param_types[d.name]):
        if pname in KEYWORDS:
            st.reserved(pname, "a parameter", p.span)
        if pname in seen:
            st.err(f"parameter '{pname}' appears twice", p.span, None, "duplicate")
        seen.add(pname)
        if p.default is not None and first_default is None:
            first_default = pname
        elif p.default is None and first_default is not None:
            st.err(
                f"parameter '{pname}' has no default but comes after '{first_default}', which has one", p.span,
                "put the parameters with a default last", "signature",
            )
        default = None
        if p.default is not None:
            default = check_expr(st, p.default, Scope())
            if not assignable(default.type, pt):
                st.err(f"default of '{pname}' has type {default.type}, expected {pt}", p.default.span, None, "type")
        scope.vars[pname] = (pt, p.span)
        st.local_decl[(scope, pname)] = p.span
        text = ir.span_text(st.sources, p.default.span) if p.default is not None else None
        params.append(ir.Param(name=pname, type=pt, default=default, span=p.span, default_text=text, title=param_title(st, p)))
    st.in_body = True
    body, returns = _Body(st, result).block(list(d.body), scope)
    st.in_body = False
    if not returns:
        st.err(f"procedure {d.name} may end without returning a value", d.span, "end every path with `return …`", "no-return")
    for (owner, lname), span in st.local_decl.items():
        if (owner, lname) not in st.local_uses:
            st.warn(f"'{lname}' is never used", span, None, "unused")
    procedure = ir.Procedure(**st.common(d), params=tuple(params), result=result, body=body)
    endless_recursion(st, procedure)
    return procedure
