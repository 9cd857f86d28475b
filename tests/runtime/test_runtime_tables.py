"""Table lookups and ordered-value helpers."""

from fractions import Fraction as F

import pytest

from rulebook.runtime import RuleError, index, lookup, lookup_range, ordinal, shift

SRC = "content/x/03-tablas.rules:40"

# 0..10 | 0 ; >10..20 | -1 ; >20..<30 | -2 ; 30.. | -3
ROWS = (
    (0, True, 10, True, 0),
    (10, False, 20, True, -1),
    (20, False, 30, False, -2),
    (30, True, None, False, -3),
)


@pytest.mark.parametrize(
    "key, expected",
    [(0, 0), (10, 0), (F(21, 2), -1), (11, -1), (20, -1), (F(41, 2), -2), (29, -2), (30, -3), (1000, -3)],
)
def test_lookup_range(key, expected):
    assert lookup_range(ROWS, key, "movimiento", SRC) == expected


def test_lookup_range_missing_and_unbounded_below():
    with pytest.raises(RuleError) as info:
        lookup_range(ROWS, -1, "movimiento", SRC)
    assert str(info.value) == f"{SRC}: error: no hay fila para -1 en la tabla movimiento"
    assert lookup_range(((None, False, 0, False, "neg"), (0, True, None, False, "pos")), -99, "t", SRC) == "neg"


def test_lookup():
    table = {"a": 1, ("a", "b"): 2}
    assert lookup(table, "a", "t", SRC) == 1
    assert lookup(table, ("a", "b"), "t", SRC) == 2
    with pytest.raises(RuleError) as info:
        lookup(table, "zz", "t", SRC)
    assert str(info.value) == f"{SRC}: error: no hay fila para 'zz' en la tabla t"
    with pytest.raises(RuleError):
        lookup(table, ["unhashable"], "t", SRC)


def test_index():
    assert index((5, 6, 7), 2, SRC) == 7
    assert index((5, 6, 7), F(2, 1), SRC) == 7
    for bad in (3, -1, F(1, 2), "0"):
        with pytest.raises(RuleError):
            index((5, 6, 7), bad, SRC)


ORDER = ("v1", "v2", "v3", "v4")


@pytest.mark.parametrize(
    "current, n, expected",
    [("v1", 1, "v2"), ("v4", 1, "v4"), ("v2", -5, "v1"), ("v2", 0, "v2"), ("v1", 3, "v4"), ("v3", -1, "v2")],
)
def test_shift_saturates(current, n, expected):
    assert shift(ORDER, current, n) == expected


def test_ordinal():
    assert [ordinal(ORDER, v) for v in ORDER] == [0, 1, 2, 3]
    with pytest.raises(RuleError):
        ordinal(ORDER, "nope")
