"""Rolls with modifiers (``reroll``, ``explode … chain K``, per-die tests, several counts)
→ the call of the runtime that builds their random variable.

Reads: an :class:`~rulebook.compiler.ir.Roll` whose ``mods`` is set
(:mod:`rulebook.compiler.ir.dice`) and the writer of its expressions (an
:class:`.expressions.ExpressionWriter`, handed in: this module is below it). Produces: for
:meth:`.expressions.ExpressionWriter.visit_Roll`, whether the roll's shape is fixed
(every test a constant: built once) and the doc of
``_rt.dice_pool(die, n, reroll=("==", 1), explode=…, test=…, src=…)`` for ``n`` dice;
a test is ``(op, value)`` or, for ``each d if …``, ``lambda d: …`` (worked out by the
runtime once per face).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.python.layout import Doc, Seq, Text, dict_of, tuple_of
from rulebook.compiler.emit.python.layout import call as call_doc
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.analysis.rolls import fixed_shape


def modded_pool(writer: Any, e: ir.Roll, die: Doc, src: Doc) -> tuple[bool, Callable[[Doc], Doc]]:
    """(whether the random variable has a fixed shape but for its number of dice, its doc for ``n`` dice)."""
    mods = e.mods
    assert mods is not None
    fixed = fixed_shape(e)
    kwargs: list[Doc] = []

    def keyword(name: str, value: Doc) -> None:
        kwargs.append(Seq((name + "=", value)))

    if mods.reroll is not None:
        keyword("reroll", _test(writer, mods.reroll))
    if mods.explode is not None:
        keyword("explode", _test(writer, mods.explode))
        if mods.chain != 1:
            keyword("chain", str(mods.chain))
    if e.keep is not None:
        keyword("keep", Text(e.keep[0]))
        keyword("keep_n", str(e.keep[1]))
    if e.test is not None:
        keyword("test", tuple_of([Text(e.test[0]), writer.expr(e.test[1])]))
    elif mods.counts is not None and not mods.named_counts:
        keyword("test", _test(writer, mods.counts[0][1]))
    elif mods.counts is not None:
        keyword("tests", dict_of([(Text(name), _test(writer, test)) for name, test in mods.counts]))
    elif e.named_faces and e.times is not None:
        keyword("tally", "True")

    def of(n: Doc) -> Doc:
        return call_doc("_rt.dice_pool", die, n, *kwargs, src)

    return fixed, of


def _test(writer: Any, test: ir.DieTest) -> Doc:
    """``(op, value)``, or ``lambda d: cond`` for a per-die condition."""
    if test.op is not None:
        return tuple_of([Text(test.op), writer.expr(test.value)])
    return Seq((f"lambda {py_name(test.var or '')}: ", writer.expr(test.value)))
