"""rulebook.compiler.emit.site.markdown: numbers in the site's notation and prose inlines of the IR."""

from __future__ import annotations

from fractions import Fraction

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import bar_width, exact_probability, inlines, number, percent
from rulebook.rules_dsl.diagnostics import NO_SPAN


def test_numbers_use_a_decimal_comma_and_a_true_minus():
    assert number(12) == "12"
    assert number(-3) == "−3"
    assert number(Fraction(3, 2)) == "1,5"
    assert number(Fraction(-221, 2)) == "−110,5"
    assert number(Fraction(4)) == "4"
    assert number(12.25, 1) == "12,2"


def test_probabilities():
    assert percent(Fraction(3, 8)) == "37,5"
    assert percent(Fraction(1, 3)) == "33,3"
    assert exact_probability(Fraction(1, 3)) == "1/3 (33,3\u00a0%)"
    assert exact_probability(Fraction(1)) == "1 (100,0\u00a0%)"
    assert bar_width(Fraction(1, 3)) == "33.33"


def test_inlines_escape_text_and_link_targets():
    runs = (ir.Text("a *b* "), ir.Strong("c"), ir.Emph("d"), ir.Code("<e>"), ir.Link("lmg", NO_SPAN), ir.Link("nada", NO_SPAN))

    def link(target: str):
        return ("03-reglas.md#lmg", "LMG") if target == "lmg" else (None, target)

    assert inlines(runs, link) == r'a \*b\* **c***d*<code>&lt;e&gt;</code><a href="03-reglas.md#lmg">LMG</a>nada'
