"""Rolls with modifiers (``reroll``, ``explode … chain K``, per-die tests, several counts)
→ the call of the JavaScript runtime that builds their random variable.

Reads: an :class:`~rulebook.compiler.ir.Roll` whose ``mods`` is set
(:mod:`rulebook.compiler.ir.dice`) and the writer of its expressions (an
:class:`.expressions.ExpressionWriter`, handed in: this module is below it). Produces: for
:meth:`.expressions.ExpressionWriter.visit_Roll`, whether the roll's shape is fixed (every
test a constant: built once) and the text of ``$rt.dicePool(die, n, {reroll: ["==", 1],
explode: …, test: …}, src)`` for ``n`` dice; a test is ``[op, value]`` or, for ``each d if
…``, ``(d) => …`` (worked out by the runtime once per face) — what
:mod:`rulebook.compiler.emit.python.dice_rolls` writes for the Python resolvers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.js.names import js_name, js_string
from rulebook.compiler.analysis.rolls import fixed_shape


def modded_pool(writer: Any, e: ir.Roll, die: str, src: str) -> tuple[bool, Callable[[str], str]]:
    """(whether the random variable has a fixed shape but for its number of dice, its text for ``n`` dice)."""
    mods = e.mods
    assert mods is not None
    fixed = fixed_shape(e)
    options: list[str] = []
    if mods.reroll is not None:
        options.append(f"reroll: {_test(writer, mods.reroll)}")
    if mods.explode is not None:
        options.append(f"explode: {_test(writer, mods.explode)}")
        if mods.chain != 1:
            options.append(f"chain: {mods.chain}")
    if e.keep is not None:
        options.append(f"keep: {js_string(e.keep[0])}")
        options.append(f"keepN: {e.keep[1]}")
    if e.test is not None:
        options.append(f"test: [{js_string(e.test[0])}, {writer.expr(e.test[1])}]")
    elif mods.counts is not None and not mods.named_counts:
        options.append(f"test: {_test(writer, mods.counts[0][1])}")
    elif mods.counts is not None:
        tests = ", ".join(f"[{js_string(name)}, {_test(writer, test)}]" for name, test in mods.counts)
        options.append(f"tests: [{tests}]")
    elif e.named_faces and e.times is not None:
        options.append("tally: true")
    given = "{ " + ", ".join(options) + " }" if options else "{}"

    def of(n: str) -> str:
        return f"$rt.dicePool({die}, {n}, {given}, {src})"

    return fixed, of


def _test(writer: Any, test: ir.DieTest) -> str:
    """``[op, value]``, or ``(d) => cond`` for a per-die condition."""
    if test.op is not None:
        return f"[{js_string(test.op)}, {writer.expr(test.value)}]"
    return f"({js_name(test.var or '')}) => {writer.expr(test.value)}"
