"""Worked examples → ``examples.py``; odds tables → ``odds.py``.

Reads: the worked examples and the odds tables of a checked program (their expressions
through an :class:`.expressions.ExpressionWriter`). Produces: the text of ``examples.py``
(``EXAMPLES``: one ``rulebook.runtime.Example`` per worked example, in rulebook order,
each kept across generations as a piece of its own) and of ``odds.py`` (``ODDS``: one
``rulebook.runtime.Odds`` per odds table); expectations and cells are lambdas over the
exact distribution the runtime computes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.python.expressions import ExpressionWriter, is_none
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.layout import Doc, Seq, Text, call, dict_of, kwargs_call, tuple_of
from rulebook.compiler.emit.python.literals import constant_doc, python_literal
from rulebook.compiler.emit.python.module_frame import cite, module_text
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.emit.python.writer import Writer

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_MIRRORED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class ExampleWriter:
    """The worked examples and the odds tables, as the runtime's protocol objects."""

    def __init__(self, generation: Generation, exprs: ExpressionWriter) -> None:
        self.generation = generation
        self.p = generation.p
        self.exprs = exprs

    def cite(self, span) -> str:
        return cite(self.generation, span)

    def expr(self, e: ir.Expr) -> Doc:
        return self.exprs.expr(e)

    def examples_module(self) -> str:
        w = Writer()
        w.line()
        examples = self.p.examples
        pieces = self.generation.pieces
        digests = pieces[2].examples if pieces is not None else None
        docs = [self.example(ex) if digests is None else self.generation.piece_value(("example", digests[i]), set(), lambda ex=ex: self.example(ex))
                for i, ex in enumerate(examples)]
        w.code(Seq(("EXAMPLES = ", tuple_of(docs, always_break=True))))
        return module_text(
            self.generation,
            "The rulebook's worked examples, as checks over exact distributions.\n\n"
            "``EXAMPLES`` lists ``runtime.Example`` objects, in rulebook order: a procedure,\n"
            "its inputs (keyword arguments) and the expectations that must hold over the\n"
            "exact distribution of its results, or the rule error it must stop with\n"
            "(see ``runtime.protocol``).",
            w, helpers=True,
        )

    def example(self, ex: ir.Example) -> Doc:
        src = self.cite(ex.span)
        inputs = dict_of([(Text(py_name(name)), self.expr(value)) for name, value, _text in ex.given])
        expectations = [self.expectation(x) for x in ex.expects if x.expr is not None]
        fields: list[tuple[str, Doc]] = [
            ("procedure", Text(ex.procedure)), ("title", Text(ex.title)), ("src", src), ("inputs", inputs),
        ]
        if expectations:
            fields.append(("expectations", tuple_of(expectations, always_break=True)))
        if ex.expected_error is not None:
            fields.append(("expected_error", Text(ex.expected_error)))
        return kwargs_call("_rt.Example", fields)

    def expectation(self, x: ir.Expect) -> Doc:
        fields: list[tuple[str, Doc]] = [("text", Text(x.text)), ("src", self.cite(x.span))]
        e = x.expr
        if isinstance(e, ir.Binary) and not x.per_outcome and _is_comparison(e):
            op, actual, expected = e.op, e.left, e.right
            if _reads_probability(expected) and not _reads_probability(actual):
                op, actual, expected = _MIRRORED[op], expected, actual
            fields += [
                ("op", Text(op)),
                ("actual", Seq(("lambda _dist: ", self.expr(actual)))),
                ("expected", Seq(("lambda _dist: ", self.expr(expected)))),
            ]
        else:
            fields.append(("check", Seq(("lambda result, _dist: ", call("bool", self.expr(e))))))
            if x.per_outcome:
                fields.append(("per_outcome", "True"))
        return kwargs_call("_rt.Expectation", fields)

    # ------------------------------------------------------------------ odds.py
    def odds_module(self) -> str:
        w = Writer()
        w.line()
        w.code(Seq(("ODDS = ", tuple_of([self.odds(d) for d in self.p.of(ir.Odds)], always_break=True))))
        return module_text(
            self.generation,
            "Odds tables: exact probabilities computed by the resolvers for a grid of inputs.\n\n"
            "``ODDS`` lists ``runtime.Odds`` objects: a procedure, its axes (rows, optional\n"
            "columns, optional ``each`` for one grid per value), ``inputs(row, column, group)``\n"
            "giving the procedure's keyword arguments and the ``cell`` shown (see\n"
            "``runtime.protocol``).",
            w, helpers=True,
        )

    def axis(self, axis: ir.OddsAxis) -> Doc:
        values = axis.values
        if axis.source == "enum":
            shown: Doc = f"_t.VALUES_{py_name(axis.of)}"
        elif axis.source == "catalog":
            shown = call("tuple", f"_d.CATALOG_{py_name(axis.of)}")
        elif axis.source == "range" and values and values == tuple(range(values[0], values[-1] + 1)):
            shown = call("tuple", call("range", python_literal(values[0]), python_literal(values[-1] + 1)))
        else:
            shown = constant_doc(tuple(values))
        return call("_rt.OddsAxis", Seq(("name=", Text(axis.name))), Seq(("title=", Text(axis.title))), Seq(("values=", shown)))

    def odds(self, d: ir.Odds) -> Doc:
        variables = [py_name(d.rows.name), py_name(d.columns.name) if d.columns is not None else "_column=None"]
        variables.append(f"{py_name(d.each.name)}=None" if d.each is not None else "_group=None")
        inputs = dict_of([(Text(py_name(name)), self.expr(value)) for name, value in d.args])
        fields: list[tuple[str, Doc]] = [
            ("name", Text(d.name)), ("title", Text(d.title)), ("ref", Text(d.ref)), ("src", self.cite(d.span)),
            ("procedure", Text(d.procedure)), ("rows", self.axis(d.rows)),
        ]
        if d.columns is not None:
            fields.append(("columns", self.axis(d.columns)))
        if d.each is not None:
            fields.append(("each", self.axis(d.each)))
        fields.append(("inputs", Seq((f"lambda {', '.join(variables)}: ", inputs))))
        # the cell may read the axes too (cell probability(result >= at_least) with rows at_least in …)
        if d.show_kind == "outcomes":
            fields += [("kind", Text("outcomes")), ("cell", Seq((f"lambda result, {', '.join(variables)}: ", self.expr(d.show))))]
        else:
            fields.append(("cell", Seq((f"lambda result, _dist, {', '.join(variables)}: ", self.expr(d.show)))))
        return kwargs_call("_rt.Odds", fields)


def _is_comparison(e: ir.Binary) -> bool:
    """A comparison of two values whose sides can be shown on their own."""
    return e.op in _COMPARISONS and e.enum is None and not is_none(e.left) and not is_none(e.right)


def _reads_probability(e: Any) -> bool:
    """Does the expression call ``probability(…)``?"""
    if isinstance(e, ir.BuiltinCall) and e.name == "probability":
        return True
    if isinstance(e, tuple):
        return any(_reads_probability(x) for x in e)
    if dataclasses.is_dataclass(e) and not isinstance(e, type):
        return any(_reads_probability(getattr(e, f.name)) for f in dataclasses.fields(e) if f.name not in ("type", "span"))
    return False
