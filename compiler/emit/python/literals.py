"""Plain values of a rulebook spelled as Python literals.

Reads: scalars of the IR (str, int, bool, None, :class:`fractions.Fraction`) and constants
made of tuples of them. Produces: their Python source, as a string
(:func:`python_literal`) or as a doc that the layout may break (:func:`literal_doc`,
:func:`constant_doc`); a fraction is ``_rt.Fraction(n, d)`` (the runtime's).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.python.layout import Doc, Text, call, tuple_of


def python_literal(v: Any) -> str:
    """A Python literal for a plain data value (str/int/bool/None/Fraction)."""
    if isinstance(v, Fraction):
        return f"_rt.Fraction({v.numerator}, {v.denominator})"
    if isinstance(v, (str, int, bool)) or v is None:
        return repr(v)
    raise TypeError(type(v))


def literal_doc(v: ir.Scalar) -> Doc:
    """The doc of a literal in code."""
    if isinstance(v, Fraction):
        return call("_rt.Fraction", str(v.numerator), str(v.denominator))
    if isinstance(v, str):
        return Text(v)
    return python_literal(v)


def constant_doc(v: Any) -> Doc:
    """The doc of a constant made of tuples, strings and plain values (type descriptors)."""
    if isinstance(v, tuple):
        return tuple_of([constant_doc(x) for x in v])
    return literal_doc(v)
