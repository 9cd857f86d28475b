"""Pass 6 — worked examples: each names a procedure, gives its inputs and says
what must hold of the result.

Entry point: :func:`check_examples(state)`. Reads the procedures' signatures;
adds the IR :class:`~rulebook.compiler.ir.Example` list (in rulebook order). An
expectation that reads ``result`` outside ``probability(…)`` must hold for
every outcome (``per_outcome``); the others are evaluated once.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Edit

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, BOOL
from rulebook.compiler.ir.walk import children
from rulebook.compiler.check.expressions import bind_args, check_expr
from rulebook.compiler.check.state import CheckState, Scope


def check_examples(st: CheckState) -> None:
    """Every worked example, in rulebook order → IR examples."""
    for mod in st.modules:
        for item in mod.items:
            if isinstance(item, n.ExampleDecl):
                example = _example(st, item)
                if example is not None:
                    st.examples.append(example)
    st.current = None


def _example(st: CheckState, ex: n.ExampleDecl) -> ir.Example | None:
    d = st.ast.get(ex.procedure)
    if not isinstance(d, n.ProcedureDecl):
        st.unknown("procedure", ex.procedure, ex.procedure_span or ex.span, st.names_of(n.ProcedureDecl))
        return None
    st.current = "example:" + ex.procedure
    st.uses[ex.procedure].add(st.current)
    optional = {p.name for p in d.params if p.default is not None}
    given = bind_args(st, ex.given, st.param_types[ex.procedure], optional, f"procedure {ex.procedure}", ex.span, Scope(), False)
    scope = Scope()
    scope.vars["result"] = (st.result_types[ex.procedure], ex.span)
    if any(x.expr is None for x in ex.expects) and len(ex.expects) > 1:
        st.err("an example that expects an error cannot expect anything else", ex.span, None, "example")
    expects = []
    for x in ex.expects:
        if x.expr is None:
            expects.append(ir.Expect(text="error", span=x.span, expr=None, error=x.error, per_outcome=False))
            continue
        seen = len(st.rep.diagnostics)
        cond = check_expr(st, x.expr, scope, in_expect=True)
        per_outcome = reads_result(x.expr)
        if per_outcome:
            _forgotten_probability(st, cond, seen)
        if cond.type not in (BOOL, ANY):
            st.err(f"expect needs a true/false statement, got {cond.type}", x.expr.span, "for example: expect result == 3", "type")
        text = ir.span_text(st.sources, x.expr.span)
        expects.append(ir.Expect(text=text, span=x.span, expr=cond, error=None, per_outcome=per_outcome))
    if not ex.expects:
        st.err("an example needs at least one expect", ex.span, None, "missing")
    by_name = {a.name: a for a in ex.given if a.name}
    positional = [a for a in ex.given if a.name is None]
    texts = {}
    names = [p for p, _ in st.param_types[ex.procedure]]
    for i, a in enumerate(positional):
        if i < len(names):
            texts[names[i]] = ir.span_text(st.sources, a.value.span)
    for name, a in by_name.items():
        texts[name] = ir.span_text(st.sources, a.value.span)
    return ir.Example(
        procedure=ex.procedure, title=ex.title or ex.procedure, span=ex.span,
        given=tuple((p, value, texts.get(p, "")) for p, value in given), expects=tuple(expects),
    )


def _forgotten_probability(st: CheckState, cond: ir.Expr, seen: int) -> None:
    """An ``expect`` without ``probability()`` holds for every outcome: a whole number
    (``int``) or a true/false value of the result compared (``==``, ``!=``) with a number
    that is not whole (``5/48``, ``0.25``) never holds, and is almost surely a chance
    written without ``probability(…)``. One error at the comparison, with the rewrite (for
    true/false, exact: ``expect probability(result.hit) == 1/3``); the type error the
    comparison already got (true/false against a number) is replaced by it. ``seen``: the
    diagnostics before this expect's."""
    for e in _comparisons(cond):
        for side, other in ((e.left, e.right), (e.right, e.left)):
            value = _constant(other)
            kind = side.type.inner.kind
            if value is None or value.denominator == 1 or kind not in ("int", "bool") or not _reads_result_ir(side):
                continue
            side_text, other_text = ir.span_text(st.sources, side.span), ir.span_text(st.sources, other.span)
            if kind == "bool":
                st.rep.diagnostics[seen:] = [d for d in st.rep.diagnostics[seen:] if not (d.span == e.span and d.message.startswith("cannot compare"))]
                rewrite = f"probability({side_text}) {e.op} {other_text}"
                st.err(
                    f"{side_text} is true or false, never {other_text}: an expect without probability() must hold for every outcome",
                    e.span, f"to state its chance, write: {rewrite}", "probability", (Edit(e.span, rewrite),),
                )
            else:
                st.err(
                    f"{side_text} is a whole number, never {other_text}: an expect without probability() must hold for every outcome",
                    e.span, f"to state a chance, write: probability({side_text} == N) {e.op} {other_text}, with N the value whose chance it is",
                    "probability",
                )
            break


def _comparisons(e: ir.Expr):
    """The ``==``/``!=`` comparisons of an expect's condition, through ``and``, ``or`` and ``not``."""
    if isinstance(e, ir.Binary) and e.op in ("==", "!="):
        yield e
    elif isinstance(e, ir.Binary) and e.op in ("and", "or"):
        yield from _comparisons(e.left)
        yield from _comparisons(e.right)
    elif isinstance(e, ir.Unary) and e.op == "not":
        yield from _comparisons(e.operand)


def _constant(e: ir.Expr) -> Fraction | None:
    """The value of a constant number (``5/48``, ``-0.25``), else None."""
    if isinstance(e, ir.Literal) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool):
        return Fraction(e.value)
    if isinstance(e, ir.Unary) and e.op == "-":
        inner = _constant(e.operand)
        return -inner if inner is not None else None
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*", "/"):
        a, b = _constant(e.left), _constant(e.right)
        if a is None or b is None or (e.op == "/" and b == 0):
            return None
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[e.op]
    return None


def _reads_result_ir(e: ir.Expr) -> bool:
    """Does ``e`` read ``result`` (not inside ``probability()``)?"""
    if isinstance(e, ir.Local):
        return e.name == "result"
    if isinstance(e, ir.BuiltinCall) and e.name == "probability":
        return False
    return any(_reads_result_ir(c) for c in children(e))


def reads_result(expr) -> bool:
    """Does ``expr`` read ``result`` outside ``probability(…)``?"""
    if isinstance(expr, n.Name):
        return expr.name == "result"
    if isinstance(expr, n.Call) and expr.func == "probability":
        return False
    if isinstance(expr, tuple):
        return any(reads_result(x) for x in expr)
    names = _node_fields(type(expr))
    return any(reads_result(getattr(expr, name)) for name in names) if names else False


@functools.cache
def _node_fields(cls) -> tuple[str, ...]:
    """The fields of a node class that may hold expressions (none for a class that is not a dataclass)."""
    if not dataclasses.is_dataclass(cls):
        return ()
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
