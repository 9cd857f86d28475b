"""Exact arithmetic for rules.

Takes: numbers that are ``int`` or ``fractions.Fraction`` (never floats: the
rules language has exact decimals, ``/`` is exact division).
Produces: ``int`` whenever the value is whole (see :func:`normalize`), otherwise
``Fraction``; rounding helpers that turn a number into an ``int``.

Rounding follows the manuals' conventions: :func:`round_` rounds halves away
from zero (``round_(-5/2) == -3``), unlike Python's banker's rounding.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Union

from .errors import RuleError
from .messages import N_

__all__ = [
    "Number",
    "normalize",
    "floor_",
    "ceil_",
    "round_",
    "trunc_",
    "div",
    "clamp",
    "capped_sum",
]

Number = Union[int, Fraction]
"""A rules number: an ``int`` or an exact ``Fraction``."""

_HALF = Fraction(1, 2)


def normalize(x: Number) -> Number:
    """Return ``x`` as an ``int`` when it is a whole ``Fraction``; otherwise ``x``."""
    if type(x) is Fraction and x.denominator == 1:
        return x.numerator
    return x


def floor_(x: Number) -> int:
    """Largest integer ``<= x``."""
    return math.floor(x)


def ceil_(x: Number) -> int:
    """Smallest integer ``>= x``."""
    return math.ceil(x)


def trunc_(x: Number) -> int:
    """Integer part of ``x`` (rounds toward zero)."""
    return math.trunc(x)


def round_(x: Number) -> int:
    """Nearest integer, halves rounded away from zero (``2.5 -> 3``, ``-2.5 -> -3``)."""
    if x >= 0:
        return math.floor(x + _HALF)
    return -math.floor(-x + _HALF)


def div(a: Number, b: Number, src: str | None = None) -> Number:
    """Exact division ``a / b``; an ``int`` when the quotient is whole.

    Raises:
        RuleError: when ``b`` is zero (``src`` locates the rule).
    """
    if b == 0:
        raise RuleError(N_("division by zero (%(a)s / 0)"), src, {"a": a})
    return normalize(Fraction(a) / Fraction(b))


def clamp(x: Number, lo: Number, hi: Number, src: str | None = None) -> Number:
    """``x`` limited to the closed interval ``[lo, hi]``.

    Raises:
        RuleError: when ``lo > hi``.
    """
    if lo > hi:
        raise RuleError(N_("clamp with inverted limits (%(lo)s > %(hi)s)"), src, {"lo": lo, "hi": hi})
    return normalize(min(max(x, lo), hi))


def capped_sum(cap: Number, *terms: Number) -> Number:
    """Sum of the positive terms capped at ``cap``, plus every negative term.

    This is how bonuses usually stack in the manuals: bonuses are limited,
    penalties are not. ``capped_sum(4, 3, 3, -2) == 2``; ``capped_sum(4, 1, -1) == 0``.
    """
    positive = sum((t for t in terms if t > 0), 0)
    negative = sum((t for t in terms if t < 0), 0)
    return normalize(min(positive, cap) + negative)
