"""The AST builder's expressions: operators, names, calls, comprehensions, and dice.

Reads the Lark trees of expressions (``if … then … else``, ``or``/``and``/``not``,
comparisons, ``in``, arithmetic, attributes, indexing, literals, calls with positional and
named arguments, list literals and comprehensions, dice rolls, ``draw … from`` a bag,
``stack``). Produces :mod:`rulebook.rules_dsl.nodes` expressions; a chain of operators
folds to the left, each step spanning its operands.
"""

from __future__ import annotations

from lark import v_args

from . import nodes as n
from .ast_builder import AstBuilder, join_spans, number, unquote
from .diagnostics import Diagnostic, Span


class ExpressionsToAst(AstBuilder):
    """Expressions."""

    # -- expressions
    @v_args(meta=True)
    def if_expr(self, meta, c):
        return n.IfExpr(c[0], c[1], c[2], self.sp(meta))

    @v_args(meta=True)
    def or_(self, meta, c):
        return self._fold("or", c, meta)

    @v_args(meta=True)
    def and_(self, meta, c):
        return self._fold("and", c, meta)

    def _fold(self, op, c, meta):
        acc = c[0]
        for x in c[1:]:
            acc = n.Binary(op, acc, x, join_spans(acc.span, x.span))
        return acc

    @v_args(meta=True)
    def not_(self, meta, c):
        return n.Unary("not", c[0], self.sp(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return n.Binary(c[1], c[0], c[2], self.sp(meta))

    @v_args(meta=True)
    def in_(self, meta, c):
        return n.Binary("in", c[0], c[1], self.sp(meta))

    def cmp_op(self, c):
        return str(c[0])

    add_op = mul_op = cmp_op

    @v_args(meta=True)
    def arith(self, meta, c):
        for i in range(0, len(c) - 1, 2):
            self._open_roll_before_operator(c[i], c[i + 1], c[i + 2])
        acc = c[0]
        for i in range(1, len(c), 2):
            acc = n.Binary(c[i], acc, c[i + 1], join_spans(acc.span, c[i + 1].span))
        return acc

    def _open_roll_before_operator(self, left, op: str, right) -> None:
        """``roll … count > leadership - 1`` reads as ``(roll … count > leadership) - 1``:
        an arithmetic operator right after the value of ``count``, ``keep``, ``reroll`` or
        ``explode`` (``chain``) of a roll not in brackets is an error at the operator (the
        roll's span ends at its last operand: a ``)`` right after it means the roll was in
        brackets)."""
        if not isinstance(left, n.Roll) or (left.keep is None and left.count is None and left.mods is None):
            return
        found = self._next_char(left.span)
        if found is None or found[0] != op:
            return
        mods = left.mods
        if left.count is not None:
            last, value = "count", left.count[1]
        elif mods is not None and mods.counts:
            last, value = "count", None
        elif left.keep is not None:
            last, value = "keep", None
        elif mods is not None and mods.explode is not None:
            last, value = ("chain", mods.chain) if mods.chain is not None else ("explode", mods.explode.value)
        else:
            last, value = "reroll", mods.reroll.value if mods and mods.reroll else None
        _c, line, col = found
        at = Span(left.span.file, line, col, line, col + len(op))
        roll_text = " ".join(self.text_of(left.span).split())
        right_text = " ".join(self.text_of(right.span).split())
        if value is not None and value.span.line == value.span.end_line:
            value_text = self.text_of(value.span)
            grouped = roll_text[: len(roll_text) - len(value_text)] + f"({value_text} {op} {right_text})"
            first = f"write '{grouped}'"
        else:
            first = f"write the value after '{last}' in brackets"
        head = "'keep' takes a number written as is" if last == "keep" else f"the value after '{last}' is a single value: {first}"
        hint = (f"{head}, or put the roll in brackets "
                f"to {'add to' if op in '+-' else 'multiply'} its result: '({roll_text}) {op} {right_text}'")
        self.problems.append(Diagnostic(
            "error", f"'{op}' here applies to the whole roll, not to the value after '{last}'", at, hint, "syntax"))

    def _next_char(self, span):
        """The first character after ``span`` that is not a space (across lines), with its
        line and column in the file; None at the end of the declaration."""
        row, col = span.end_line - 1 - self.off, span.end_col - 1
        while 0 <= row < len(self.lines):
            text = self.lines[row]
            rest = text[col:]
            stripped = rest.lstrip()
            if stripped and not stripped.startswith("#"):
                return stripped[0], row + 1 + self.off, col + 1 + len(rest) - len(stripped)
            row, col = row + 1, 0
        return None

    @v_args(meta=True)
    def neg(self, meta, c):
        return n.Unary("-", c[0], self.sp(meta))

    @v_args(meta=True)
    def pos(self, meta, c):
        return n.Unary("+", c[0], self.sp(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return n.Attr(c[0], str(c[1]), self.sp(meta), self.tsp(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return n.Index(c[0], tuple(c[1:]), self.sp(meta))

    @v_args(meta=True)
    def num(self, meta, c):
        return n.Num(number(c[0]), self.sp(meta))

    @v_args(meta=True)
    def str_(self, meta, c):
        return n.Str(unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def true_(self, meta, c):
        return n.Bool(True, self.sp(meta))

    @v_args(meta=True)
    def false_(self, meta, c):
        return n.Bool(False, self.sp(meta))

    @v_args(meta=True)
    def none_(self, meta, c):
        return n.NoneLit(self.sp(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return n.Name(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        return n.Call(str(c[0]), tuple(a for a in c[1:] if a is not None), self.sp(meta), self.tsp(c[0]))

    @v_args(meta=True)
    def list_(self, meta, c):
        return n.ListExpr(tuple(x for x in c if x is not None), self.sp(meta))

    @v_args(meta=True)
    def range_(self, meta, c):
        return n.Range(c[0], c[1], self.sp(meta))

    @v_args(meta=True)
    def comprehension(self, meta, c):
        return n.Comprehension(c[0], str(c[1]), c[2], c[3], self.sp(meta))

    @v_args(meta=True)
    def removed(self, meta, c):
        return n.Arg(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def named_arg(self, meta, c):
        return n.Arg(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def pos_arg(self, meta, c):
        return n.Arg(None, c[0], self.sp(meta))

    @v_args(meta=True)
    def roll(self, meta, c):
        d = c[0]
        return n.Roll(d["die"], d["n"], d["times"], d["keep"], d["count"], self.sp(meta), d["span"], d["mods"])

    @v_args(meta=True)
    def draw(self, meta, c):
        count, bag, mode, *changes = c
        return n.Draw(count, str(bag), self.sp(meta), tuple(a for a in changes if a is not None), str(mode) if mode else "except")

    @v_args(meta=True)
    def stack(self, meta, c):
        name, *rest = c
        args = tuple(a for a in rest if isinstance(a, n.Arg))
        sources = tuple(x for x in rest if isinstance(x, tuple))
        return n.Stack(str(name), args, sources, self.sp(meta), self.tsp(name))

    @v_args(meta=True)
    def source(self, meta, c):
        return (unquote(c[0]), c[1], self.sp(meta))

    def std_dice(self, c):
        tok = c[0]
        num, sides = str(tok).split("d")
        return self._dice(f"d{sides}", int(num) if num else 1, tok, c[1:])

    def named_dice(self, c):
        return self._dice(str(c[0]), None, c[0], c[1:])

    def _dice(self, die, count, tok, clauses):
        """The parts of a roll; each clause is a tagged tuple (``("keep", (which, n))``…)."""
        parts = dict(c for c in clauses if c is not None)
        mods = None
        if parts.keys() & {"reroll", "explode", "counts"}:
            reroll = parts.get("reroll")
            explode, chain = parts.get("explode", (None, None))
            mods = n.DiceMods(reroll, explode, chain, parts.get("counts"))
        return {"die": die, "n": count, "times": parts.get("times"), "keep": parts.get("keep"), "count": parts.get("count"),
                "span": self.tsp(tok), "mods": mods}

    def times(self, c):
        return ("times", c[0])

    def reroll(self, c):
        return ("reroll", c[0])

    def explode(self, c):
        return ("explode", (c[0], c[1]))

    def chain(self, c):
        return c[0]

    def keep(self, c):
        return ("keep", (str(c[0]), self.whole(c[1])))

    def count(self, c):
        return ("count", (c[0], c[1]))

    def count_equal(self, c):
        return ("count", ("==", c[0]))

    def count_test(self, c):
        return ("counts", ((None, c[0], c[0].span),))

    @v_args(meta=True)
    def counts(self, meta, c):
        return ("counts", tuple(x for x in c if x is not None))

    @v_args(meta=True)
    def count_item(self, meta, c):
        return (str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def test_compare(self, meta, c):
        return n.DieTest(c[0], c[1], None, self.sp(meta))

    @v_args(meta=True)
    def test_equal(self, meta, c):
        return n.DieTest("==", c[0], None, self.sp(meta))

    @v_args(meta=True)
    def each_test(self, meta, c):
        return n.DieTest(None, c[1], str(c[0]), self.sp(meta))
