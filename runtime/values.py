"""Values produced by resolvers, and how to order, show and serialise them.

Takes: any value a resolver can produce — ``int``, ``Fraction``, ``str``,
``bool``, ``None``, tuples/lists, dicts, :class:`Counts`, (frozen) dataclasses,
``enum.Enum`` members.
Produces:

* :class:`Counts`, the immutable "how many of each kind" record returned by
  drawing from a bag or rolling named-face dice;
* :func:`sort_key`, a total, deterministic order over mixed values (numbers by
  value, then strings, tuples element-wise, dataclasses field by field...);
* :func:`to_jsonable`, JSON-safe data (``Fraction`` -> ``"n/d"``);
* :func:`format_value`, a short human-readable text for traces.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any

__all__ = ["Counts", "to_jsonable", "sort_key", "format_value"]


class Counts(Mapping):
    """An immutable, hashable, ordered mapping ``str -> int``.

    Keys keep the order they were given in (a die's face order, a bag's token
    order). Counts are read as ``c["rojo"]`` or ``c.rojo`` (attribute access
    works for any key that is not also a method name such as ``items``).

    Two ``Counts`` are equal when they have the same items in the same order;
    a ``Counts`` also equals a plain mapping with the same items. Counts are
    ordered by their tuple of items so outcomes can be sorted.
    """

    __slots__ = ("_items", "_map", "_hash")

    def __init__(self, items: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        pairs = tuple(items.items()) if isinstance(items, Mapping) else tuple(items)
        mapping: dict[str, int] = {}
        for key, value in pairs:
            if not isinstance(key, str):
                raise TypeError(f"Counts keys must be str, got {key!r}")
            if key in mapping:
                raise ValueError(f"repeated key {key!r} in Counts")
            mapping[key] = value
        object.__setattr__(self, "_items", tuple(mapping.items()))
        object.__setattr__(self, "_map", mapping)
        object.__setattr__(self, "_hash", hash(self._items))

    # Mapping protocol -------------------------------------------------------
    def __getitem__(self, key: str) -> int:
        return self._map[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._map

    # Attribute access and immutability -------------------------------------
    def __getattr__(self, name: str) -> int:
        # Only called when normal lookup fails, i.e. for count names.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._map[name]
        except KeyError:
            raise AttributeError(f"Counts has no entry {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Counts is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Counts is immutable")

    def __reduce__(self) -> tuple:
        return (Counts, (self._items,))

    # Value semantics -------------------------------------------------------
    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Counts):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._map == dict(other.items())
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __lt__(self, other: Counts) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return self._items < other._items

    def __le__(self, other: Counts) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return self._items <= other._items

    def __gt__(self, other: Counts) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return self._items > other._items

    def __ge__(self, other: Counts) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return self._items >= other._items

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._items)
        return f"Counts({inner})"

    # Helpers ---------------------------------------------------------------
    def total(self) -> int:
        """Sum of all counts."""
        return sum(v for _, v in self._items)

    def as_tuple(self) -> tuple[tuple[str, int], ...]:
        """The items as a tuple of ``(key, count)`` pairs, in order."""
        return self._items


# ---------------------------------------------------------------------------
# Ordering
# ---------------------------------------------------------------------------

def sort_key(value: Any) -> tuple:
    """A key giving a total, deterministic order over mixed resolver values.

    Every key is ``(group, payload)``; payloads are only compared within the
    same group, so values of different kinds never raise ``TypeError``.
    Numbers (``int``, ``Fraction``, ``float``) share one group and sort by value;
    dataclasses sort by type name, then field by field.
    """
    if value is None:
        return ("0:none", 0)
    if isinstance(value, bool):
        return ("1:bool", int(value))
    if isinstance(value, (int, Fraction, float)):
        return ("2:number", value)
    if isinstance(value, str):
        return ("3:str", value)
    if isinstance(value, enum.Enum):
        members = list(type(value))
        return ("4:enum:" + type(value).__qualname__, members.index(value))
    if isinstance(value, Counts):
        return ("5:counts", value.as_tuple())
    if isinstance(value, (tuple, list)):
        return ("6:seq", tuple(sort_key(v) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = f"7:dc:{type(value).__module__}.{type(value).__qualname__}"
        return (name, tuple(sort_key(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, (frozenset, set)):
        return ("8:set", tuple(sorted(sort_key(v) for v in value)))
    if isinstance(value, Mapping):
        return ("9:map", tuple((sort_key(k), sort_key(v)) for k, v in value.items()))
    return ("z:" + type(value).__qualname__, repr(value))


# ---------------------------------------------------------------------------
# JSON and text
# ---------------------------------------------------------------------------

def to_jsonable(value: Any) -> Any:
    """Convert a resolver value into JSON-safe data.

    ``Fraction`` -> ``"n/d"`` (whole fractions -> ``int``), ``Counts`` and
    mappings -> ``dict`` (keys as strings), dataclasses -> ``dict`` of fields,
    tuples/lists/sets -> ``list``, enum members -> their value; ``int``, ``str``,
    ``bool``, ``None`` and ``float`` are kept.
    """
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Mapping):
        return {_json_key(k): to_jsonable(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.metadata.get("name", f.name): to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [to_jsonable(v) for v in sorted(value, key=sort_key)]
    return str(value)


def _json_key(key: Any) -> str:
    converted = to_jsonable(key)
    return converted if isinstance(converted, str) else format_value(key)


def format_value(value: Any) -> str:
    """A short human-readable text for a value, as shown in traces.

    ``Fraction(1, 3)`` -> ``1/3``, ``True`` -> ``true``, ``None`` -> ``-``,
    ``Counts(a=1, b=2)`` -> ``(a: 1, b: 2)``, a dataclass ``R(f=1)`` -> ``R(f: 1)``.
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (int, str, float)):
        return str(value)
    if isinstance(value, enum.Enum):
        return format_value(value.value)
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in value.items()) + ")"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ", ".join(
            f"{f.name}: {format_value(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return f"{type(value).__name__}({fields})"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(format_value(v) for v in sorted(value, key=sort_key)) + "}"
    return repr(value)
