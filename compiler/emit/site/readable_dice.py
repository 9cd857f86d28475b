"""The modifiers of a roll in the players' words: re-rolls, explosions, per-die tests.

Reads: the :class:`~rulebook.compiler.ir.dice.DiceMods` of a roll and the
:class:`.readable.Readable` rendering its expressions (handed in: this module is
below it). Produces: the phrases :meth:`.readable.Readable._roll` adds after the
dice (``re-rolls once the dice = 1``, ``the dice = 6 explode``) and after its
``keep`` (``counts hits: the dice ≥ 4; sixes: the dice = 6``), in the rulebook's
language (:mod:`rulebook.compiler.support.i18n`).
"""

from __future__ import annotations

from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.support.i18n import _


def _test(readable: Any, test: ir.DieTest, operator: Any) -> str:
    """``≥ 4``, or ``d such that d + M ≥ T`` for a per-die condition."""
    if test.op is not None:
        return f"{operator(test.op)} {readable.expr(test.value)}"
    return _("%(name)s such that %(condition)s") % {"name": test.var, "condition": readable.expr(test.value)}


def before_keep(readable: Any, mods: ir.DiceMods, operator: Any) -> str:
    """``, re-rolls once the dice = 1, the dice = 6 explode (up to 3 more dice each)``."""
    text = ""
    if mods.reroll is not None:
        text += ", " + _("re-rolls once the dice %(test)s") % {"test": _test(readable, mods.reroll, operator)}
    if mods.explode is not None:
        test = _test(readable, mods.explode, operator)
        if mods.chain == 1:
            text += ", " + _("the dice %(test)s explode (one more die each)") % {"test": test}
        else:
            text += ", " + _("the dice %(test)s explode (up to %(n)s more dice each)") % {"test": test, "n": mods.chain}
    return text


def counts(readable: Any, mods: ir.DiceMods, operator: Any) -> str:
    """``, counts the dice d such that …`` or ``, counts hits: the dice ≥ 4; sixes: the dice = 6``."""
    if mods.counts is None:
        return ""
    if not mods.named_counts:
        return ", " + _("counts the dice %(test)s") % {"test": _test(readable, mods.counts[0][1], operator)}
    parts = [_("%(name)s: the dice %(test)s") % {"name": readable.name(name), "test": _test(readable, test, operator)}
             for name, test in mods.counts]
    return ", " + _("counts %(counts)s") % {"counts": "; ".join(parts)}
