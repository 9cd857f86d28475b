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
        acc = c[0]
        for i in range(1, len(c), 2):
            acc = n.Binary(c[i], acc, c[i + 1], join_spans(acc.span, c[i + 1].span))
        return acc

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
