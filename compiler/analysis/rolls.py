"""Whether a modified roll has one shape whatever the procedure's values (both backends ask).

Reads an :class:`rulebook.compiler.ir.Roll` with modifiers (``reroll``, ``explode``, per-die
tests). Produces :func:`fixed_shape`: True when every test of the roll holds only values
known when the generated module is loaded, so that its random variable can be built once
but for its number of dice.
"""

from __future__ import annotations

from rulebook.compiler import ir
from rulebook.compiler.ir.dice import mod_exprs
from rulebook.compiler.ir.walk import walk

# what a test built once may hold: values known when the module is loaded
_CONSTANT = (ir.Literal, ir.EnumValue, ir.DieFace, ir.Unary)


def _constant(e: ir.Expr) -> bool:
    return all(isinstance(x, _CONSTANT) or (isinstance(x, ir.Binary) and x.op != "/") for x in walk(e))


def fixed_shape(roll: ir.Roll) -> bool:
    """True when the tests of ``roll`` (its modifiers and its count) read only constants."""
    assert roll.mods is not None
    return all(_constant(x) for x in mod_exprs(roll.mods)) and (roll.test is None or _constant(roll.test[1]))
