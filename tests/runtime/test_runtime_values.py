"""Counts, ordering of mixed values, JSON conversion."""

import enum
import json
from dataclasses import dataclass
from fractions import Fraction as F

import pytest

from rulebook.runtime import Counts, Distribution, Record, format_value, sort_key, to_jsonable


def test_counts_mapping_and_attributes():
    c = Counts((("exito", 2), ("fallo", 1), ("especial", 0)))
    assert c["exito"] == 2 and c.fallo == 1 and c.especial == 0
    assert list(c) == ["exito", "fallo", "especial"]
    assert len(c) == 3 and c.total() == 3
    assert "fallo" in c and "otro" not in c
    assert dict(c) == {"exito": 2, "fallo": 1, "especial": 0}
    with pytest.raises(AttributeError):
        c.otro
    with pytest.raises(KeyError):
        c["otro"]
    with pytest.raises(AttributeError):
        c.exito = 3


def test_counts_hash_and_equality():
    a = Counts({"a": 1, "b": 2})
    b = Counts((("a", 1), ("b", 2)))
    c = Counts({"a": 2, "b": 1})
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2
    assert a == {"a": 1, "b": 2}
    assert repr(a) == "Counts(a=1, b=2)"


def test_counts_sorting_is_by_items():
    values = [Counts({"a": 2, "b": 0}), Counts({"a": 0, "b": 2}), Counts({"a": 1, "b": 1})]
    assert sorted(values) == [Counts({"a": 0, "b": 2}), Counts({"a": 1, "b": 1}), Counts({"a": 2, "b": 0})]
    assert Counts({"a": 0}) < Counts({"a": 1}) <= Counts({"a": 1})


def test_counts_pickles():
    import pickle

    c = Counts({"a": 1})
    assert pickle.loads(pickle.dumps(c)) == c


@dataclass(frozen=True)
class Res:
    ok: bool
    value: F


def test_sort_key_is_total_over_mixed_values():
    values = [
        "b", 3, F(1, 2), None, True, (1, "x"), Counts({"a": 1}), Res(True, F(1, 3)),
        Res(False, 2), "a", -1, False, (1,),
    ]
    ordered = sorted(values, key=sort_key)
    assert ordered == sorted(reversed(values), key=sort_key)
    numbers = [v for v in ordered if type(v) in (int, F)]
    assert numbers == [-1, F(1, 2), 3]
    assert ordered.index(Res(False, 2)) < ordered.index(Res(True, F(1, 3)))


def test_to_jsonable():
    value = {
        "f": F(1, 3),
        "whole": F(4, 2),
        "c": Counts({"a": 1}),
        "t": (1, 2),
        "r": Res(True, F(-1, 2)),
        1: None,
    }
    data = to_jsonable(value)
    assert data == {
        "f": "1/3",
        "whole": 2,
        "c": {"a": 1},
        "t": [1, 2],
        "r": {"ok": True, "value": "-1/2"},
        "1": None,
    }
    json.dumps(data)


def test_format_value():
    assert format_value(F(1, 3)) == "1/3"
    assert format_value(True) == "true"
    assert format_value(None) == "-"
    assert format_value(Counts({"a": 1, "b": 2})) == "(a: 1, b: 2)"
    assert format_value(Res(False, F(1, 2))) == "Res(ok: false, value: 1/2)"


class Level(enum.IntEnum):
    LOW = 1


class Side(enum.Enum):
    ATTACKER = "atacante"


class Part(Record):
    __slots__ = ("name", "amount")


class Sector(Record):
    __slots__ = ("number", "parts", "side")
    _names = ("número", "parts", "side")


def test_to_jsonable_of_nested_records_and_every_kind_of_value():
    shared = (Part("bosque", F(3, 2)), Part("río", 1))
    value = (
        Sector(1, shared, Side.ATTACKER), Sector(2, shared, None), Level.LOW, frozenset({3, 1, 2}),
        True, 2.5, F(6, 3), Counts({"a": 1}), Res(False, F(1, 4)), [None, "x"],
    )
    parts = [{"name": "bosque", "amount": "3/2"}, {"name": "río", "amount": 1}]
    assert to_jsonable(value) == [
        {"número": 1, "parts": parts, "side": "atacante"}, {"número": 2, "parts": parts, "side": None},
        1, [1, 2, 3], True, 2.5, 2, {"a": 1}, {"ok": False, "value": "1/4"}, [None, "x"],
    ]
    assert type(to_jsonable(Level.LOW)) is Level  # an int: kept as it is, as json writes it


def test_a_distribution_of_records_sharing_parts_is_in_sort_key_order():
    shared = (Part("bosque", 2), Part("río", F(1, 2)))
    outcomes = [Sector(n % 5, shared if n % 2 else (Part("río", n), *shared), Side.ATTACKER if n % 3 else None) for n in range(40)]
    weights = {o: 1 + i for i, o in enumerate(outcomes)}
    dist = Distribution.from_weights(weights, sum(weights.values()))
    assert list(dist) == sorted(weights, key=sort_key)
    copies = {Sector(o.number, tuple(Part(p.name, p.amount) for p in o.parts), o.side): w for o, w in weights.items()}
    assert list(Distribution.from_weights(copies, sum(weights.values()))) == list(dist)  # the same order, nothing shared
    total = sum(weights.values())
    assert dist.items() == Distribution({o: F(w, total) for o, w in weights.items()}).items()
