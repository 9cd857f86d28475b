"""Pass 6 — worked examples: each names a procedure, gives its inputs and says
what must hold of the result.

Entry point: :func:`check_examples(state)`. Reads the procedures' signatures;
adds the IR :class:`~rulebook.compiler.ir.Example` list (in rulebook order). An
expectation that reads ``result`` outside ``probability(…)`` must hold for
every outcome (``per_outcome``); the others are evaluated once.
"""

from __future__ import annotations

import dataclasses

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, BOOL
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
        cond = check_expr(st, x.expr, scope, in_expect=True)
        if cond.type not in (BOOL, ANY):
            st.err(f"expect needs a true/false statement, got {cond.type}", x.expr.span, "for example: expect result == 3", "type")
        text = ir.span_text(st.sources, x.expr.span)
        expects.append(ir.Expect(text=text, span=x.span, expr=cond, error=None, per_outcome=reads_result(x.expr)))
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


def reads_result(expr) -> bool:
    """Does ``expr`` read ``result`` outside ``probability(…)``?"""
    if isinstance(expr, n.Name):
        return expr.name == "result"
    if isinstance(expr, n.Call) and expr.func == "probability":
        return False
    if dataclasses.is_dataclass(expr):
        return any(reads_result(getattr(expr, f.name)) for f in dataclasses.fields(expr) if f.name != "span")
    if isinstance(expr, tuple):
        return any(reads_result(x) for x in expr)
    return False
