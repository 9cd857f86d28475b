"""Exact arithmetic, rounding, capped sums and error formatting."""

from fractions import Fraction as F

import pytest

from rulebook.runtime import (
    InputError,
    RuleError,
    capped_sum,
    ceil_,
    clamp,
    div,
    floor_,
    normalize,
    round_,
    trunc_,
)


@pytest.mark.parametrize(
    "x, floor, ceil, rnd, trunc",
    [
        (F(5, 2), 2, 3, 3, 2),
        (F(-5, 2), -3, -2, -3, -2),
        (F(-1, 2), -1, 0, -1, 0),
        (F(1, 2), 0, 1, 1, 0),
        (F(-3, 2), -2, -1, -2, -1),
        (F(7, 3), 2, 3, 2, 2),
        (F(-7, 3), -3, -2, -2, -2),
        (F(-8, 3), -3, -2, -3, -2),
        (4, 4, 4, 4, 4),
        (-4, -4, -4, -4, -4),
        (0, 0, 0, 0, 0),
    ],
)
def test_rounding(x, floor, ceil, rnd, trunc):
    assert floor_(x) == floor and type(floor_(x)) is int
    assert ceil_(x) == ceil and type(ceil_(x)) is int
    assert round_(x) == rnd and type(round_(x)) is int
    assert trunc_(x) == trunc and type(trunc_(x)) is int


@pytest.mark.parametrize(
    "a, b, expected",
    [(6, 3, 2), (1, 3, F(1, 3)), (-3, 6, F(-1, 2)), (F(3, 2), F(1, 2), 3), (0, 5, 0)],
)
def test_div_is_exact_and_normalised(a, b, expected):
    result = div(a, b)
    assert result == expected
    assert type(result) is type(expected)


def test_div_by_zero_names_the_rule():
    with pytest.raises(RuleError) as info:
        div(1, 0, src="content/a/01-x.rules:7")
    assert str(info.value).startswith("content/a/01-x.rules:7: error: ")
    assert info.value.src == "content/a/01-x.rules:7"


def test_normalize():
    assert type(normalize(F(4, 2))) is int
    assert normalize(F(1, 2)) == F(1, 2)
    assert normalize(3) == 3


@pytest.mark.parametrize(
    "x, lo, hi, expected", [(5, 0, 3, 3), (-2, 0, 3, 0), (2, 0, 3, 2), (F(7, 2), 0, 3, 3), (F(1, 2), 0, 3, F(1, 2))]
)
def test_clamp(x, lo, hi, expected):
    assert clamp(x, lo, hi) == expected


def test_clamp_inverted_bounds():
    with pytest.raises(RuleError):
        clamp(1, 3, 0)


@pytest.mark.parametrize(
    "cap, terms, expected",
    [
        (4, (3, 3, -2), 2),  # +6 potential capped at +4, then -2
        (4, (1, -1), 0),
        (4, (6, -2), 2),
        (2, (6, -2), 0),
        (4, (), 0),
        (4, (-1, -2), -3),
        (4, (0, 0, 2), 2),
        (3, (F(1, 2), F(1, 2)), 1),
        (10, (3, 3, -2), 4),
    ],
)
def test_capped_sum(cap, terms, expected):
    assert capped_sum(cap, *terms) == expected


def test_rule_error_format():
    e = RuleError("no hay fila", "content/1936/06-x.rules:123")
    assert str(e) == "content/1936/06-x.rules:123: error: no hay fila"
    assert e.message == "no hay fila" and e.src == "content/1936/06-x.rules:123"
    assert str(RuleError("solo mensaje")) == "solo mensaje"
    assert RuleError("m").src is None
    assert issubclass(InputError, RuleError)
    assert str(InputError("mal", "f.rules:1")) == "f.rules:1: error: mal"
