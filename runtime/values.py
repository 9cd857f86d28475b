"""Values produced by resolvers, and how to order, show and serialise them.

Takes: any value a resolver can produce — ``int``, ``Fraction``, ``str``,
``bool``, ``None``, tuples/lists, dicts, :class:`Counts`, records
(:class:`Record`), (frozen) dataclasses, ``enum.Enum`` members.
Produces:

* :class:`Counts`, the immutable "how many of each kind" record returned by
  drawing from a bag or rolling named-face dice;
* :class:`Record`, the base class of the records generated packages declare
  (immutable values with slots, built as cheaply as mutable objects);
  :func:`record`, the frozen dataclass records of packages generated before it;
* :func:`sort_key`, a total, deterministic order over mixed values (numbers by
  value, then strings, tuples element-wise, records and dataclasses field by
  field...);
* :func:`to_jsonable`, JSON-safe data (``Fraction`` -> ``"n/d"``);
* :func:`format_value`, a short human-readable text for traces;
* :func:`number_text`, an exact number as text (``"n/d"``), however many digits;
* :func:`smallest` / :func:`largest`, ``min``/``max`` of a list, with a
  :class:`~rulebook.runtime.errors.RuleError` for an empty one;
* :func:`granted`, a list of special rules with the rules they grant;
* :func:`stacked_param`, a parameter of a rule applied several times, combined.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from operator import attrgetter
from typing import Any, ClassVar, dataclass_transform

from .errors import RuleError
from .messages import N_

__all__ = ["Counts", "Record", "record", "to_jsonable", "sort_key", "format_value", "number_text", "smallest", "largest", "granted", "stacked_param"]


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
# Records
# ---------------------------------------------------------------------------

@dataclass_transform(eq_default=True, frozen_default=True)  # checkers: fields annotated, frozen, built by keyword
class Record:
    """Base class of the records a generated package declares (``types.py``).

    A record is an immutable value. Its fields are the class's ``__slots__``,
    read as attributes (``r.impacto``). Assigning or deleting an attribute raises
    AttributeError. Two records are equal when they are of the same class with
    equal fields, and equal records hash alike; ordering comparisons raise
    TypeError; ``repr`` is ``Name(field=value, …)``. ``_fields`` lists the
    Python names of the fields and ``_names`` their names in the rules (the JSON
    keys; the class may set it when they differ).

    ``Name(field=value, …)`` builds a record. Resolvers build one per result, so
    each generated class also writes out ``_new``, the same with one parameter per
    field: it fills a writable twin of the class (``_writable``: same slots, plain
    attribute assignment, built by a call without arguments that runs no Python
    code) and then turns it into the read-only class. That costs what building a
    mutable object costs, and spares the dictionary of keywords a class call
    builds::

        class Impacto(Record):
            __slots__ = ("impacto", "bajas")

            @staticmethod
            def _new(impacto, bajas):
                self = Impacto._writable()
                self.impacto = impacto
                self.bajas = bajas
                self.__class__ = Impacto
                return self

    A resolver whose record's fields all hold bools, ints, strings or None builds
    it with ``Record._shared(R._new)``, which gives back the equal record built
    already.

    A generated class also annotates each field (``impacto: bool``, not evaluated at run
    time): type checkers read a record as a frozen dataclass (``dataclass_transform``), so a
    misspelt field, a field of the wrong type or an assignment is an error for them.
    """

    __slots__ = ()
    _shared_limit: ClassVar[int] = 1024
    _fields: ClassVar[tuple[str, ...]] = ()
    _names: ClassVar[tuple[str, ...]] = ()
    _writable: ClassVar[type]
    _values: ClassVar[Callable[[Any], tuple]]

    def __init_subclass__(cls, writable: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if writable:
            return
        if any(base._fields for base in cls.__mro__[1:] if issubclass(base, Record)):
            raise TypeError(f"record {cls.__name__}: a record with fields cannot be extended")
        fields = cls.__dict__.get("__slots__")
        if not isinstance(fields, tuple) or not all(isinstance(f, str) and not f.startswith("_") for f in fields):
            raise TypeError(f"record {cls.__name__}: __slots__ must be a tuple of field names (not starting with '_')")
        names = tuple(cls.__dict__.get("_names", fields))
        if len(names) != len(fields):
            raise TypeError(f"record {cls.__name__}: {len(names)} names for {len(fields)} fields")
        cls._fields, cls._names, cls.__match_args__ = fields, names, fields
        cls._values = staticmethod(_values_getter(fields))
        # object.__init__ (a C slot) makes ``_writable()`` as cheap as building a plain object
        twin = {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
                "__init__": object.__init__, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
        cls._writable = type(cls.__name__, (cls,), twin, writable=True)

    @staticmethod
    def _shared(new: Callable[..., Any]) -> Callable[..., Any]:
        """``new`` (a record class's ``_new``), giving back the record it built already
        for equal fields, among the last ``Record._shared_limit`` distinct ones (a cache
        in C code: a hit runs no Python code). Records are immutable, so an equal one is
        as good, and a resolver's results repeat. Only for fields that hold bools, ints,
        strings or None: hashed by C code, and of one Python type per field (``1`` and
        ``True`` are equal keys)."""
        from functools import lru_cache

        return lru_cache(maxsize=Record._shared_limit)(new)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fields = cls._fields
        if fields and hasattr(self, fields[0]):  # built already: initialising it again would change it
            raise AttributeError(f"{cls.__name__} is immutable: cannot initialise it again")
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} fields, {len(args)} given")
        values = list(args)
        for name in fields[len(args):]:
            if name not in kwargs:
                raise TypeError(f"{cls.__name__}() missing field {name!r}")
            values.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"{cls.__name__}() got an unknown field {sorted(kwargs)[0]!r}")
        for name, value in zip(fields, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot assign to {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self._values(self) == other._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __repr__(self) -> str:
        """``Name(field=value, …)``; past :data:`_LONG_REPR` characters (a catalog entry with its
        texts), each value cut short (:func:`rulebook.runtime.records.shown`)."""
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self._values(self)))
        if len(inner) > _LONG_REPR:
            from .records import shown

            inner = ", ".join(f"{name}={shown(value)}" for name, value in zip(self._fields, self._values(self)))
        return f"{type(self).__qualname__}({inner})"

    def __reduce__(self) -> tuple:
        return (type(self), self._values(self))


_LONG_REPR = 300
"""Characters of a record's fields that its repr shows whole."""


def _values_getter(fields: tuple[str, ...]) -> Callable[[Any], tuple]:
    """A function giving the tuple of a record's field values, in order."""
    if len(fields) > 1:
        return attrgetter(*fields)
    if fields:
        get = attrgetter(fields[0])
        return lambda record: (get(record),)
    return lambda record: ()


def record(cls: type) -> type:
    """Make ``cls`` (fields annotated in its body) a frozen dataclass with slots:
    immutable, compared and hashed by value. The records of packages generated
    before :class:`Record` existed; generated packages now subclass Record."""
    cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
    if any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING for f in dataclasses.fields(cls)):
        raise TypeError(f"record {cls.__name__}: fields have no defaults")
    return cls


# ---------------------------------------------------------------------------
# Ordering
# ---------------------------------------------------------------------------

def sort_key(value: Any) -> tuple:
    """A key giving a total, deterministic order over mixed resolver values.

    Every key is ``(group, payload)``; payloads are only compared within the
    same group, so values of different kinds never raise ``TypeError``.
    Numbers (``int``, ``Fraction``, ``float``) share one group and sort by value;
    dataclasses sort by type name, then field by field. The way to key a type is
    worked out once per type (results are often thousands of records).
    """
    cls = type(value)
    group = _PLAIN_GROUPS.get(cls)
    if group is not None:
        return (group, value)
    try:
        keyer = _KEYERS[cls]
    except KeyError:
        keyer = _per_type(_KEYERS, cls, _keyer_for(cls, sort_key))
    return keyer(value)


_PLAIN_GROUPS = {int: "2:number", str: "3:str"}
"""The groups of the commonest kinds of values, keyed without a call."""

_KEYERS: dict[type, Callable[[Any], tuple]] = {}

_PER_TYPE_LIMIT = 4096
"""Types remembered by :func:`sort_key` and :func:`to_jsonable` before they start
over: each build in a long-lived process (``rulebook serve``) brings new generated
record classes, which the tables would otherwise keep alive."""


def _per_type(table: dict[type, Callable], cls: type, how: Callable) -> Callable:
    """Remember ``how`` for ``cls`` in ``table`` (emptied past :data:`_PER_TYPE_LIMIT` types)."""
    if len(table) >= _PER_TYPE_LIMIT:
        table.clear()
    table[cls] = how
    return how


def sorted_by_key(items: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``(value, x)`` pairs sorted by :func:`sort_key` of the value (stable), as
    ``sorted(items, key=lambda item: sort_key(item[0]))``; a record or tuple that
    several values hold (the same object: a table's row inside many results) is
    keyed once. Many nested results (thousands of records) sort several times faster."""
    items = list(items)
    if len(items) < 2:
        return items
    key = _shared_keys()
    return sorted(items, key=lambda item: key(item[0]))


def _shared_keys() -> Callable[[Any], tuple]:
    """A :func:`sort_key` that remembers the key of each record and tuple it meets, by
    identity, for as long as it lives (the values keyed must be alive meanwhile: the
    records and tuples hold their parts)."""
    shared: dict[int, tuple] = {}
    keyers: dict[type, tuple[Callable[[Any], tuple], bool]] = {}

    def key(value: Any) -> tuple:
        cls = type(value)
        group = _PLAIN_GROUPS.get(cls)
        if group is not None:
            return (group, value)
        try:
            keyer, remembered = keyers[cls]
        except KeyError:
            keyer, remembered = keyers[cls] = (_keyer_for(cls, key), cls is tuple or issubclass(cls, Record))
        if not remembered:
            return keyer(value)
        found = shared.get(id(value))
        if found is None:
            found = shared[id(value)] = keyer(value)
        return found

    return key


def _keyer_for(cls: type, sort_key: Callable[[Any], tuple]) -> Callable[[Any], tuple]:
    """How :func:`sort_key` keys the values of type ``cls``, keying their parts with ``sort_key``."""
    if cls is type(None):
        return lambda value: ("0:none", 0)
    if issubclass(cls, bool):
        return lambda value: ("1:bool", int(value))
    if issubclass(cls, (int, Fraction, float)):
        return lambda value: ("2:number", value)
    if issubclass(cls, str):
        return lambda value: ("3:str", value)
    if issubclass(cls, enum.Enum):
        group = "4:enum:" + cls.__qualname__
        position = {member: i for i, member in enumerate(cls)}
        return lambda value: (group, position[value])
    if issubclass(cls, Counts):
        return lambda value: ("5:counts", value.as_tuple())
    if issubclass(cls, Record):  # ordered as the dataclass records before it
        group = f"7:dc:{cls.__module__}.{cls.__qualname__}"
        values = cls._values
        return lambda value: (group, tuple(map(sort_key, values(value))))
    if issubclass(cls, (tuple, list)):
        return lambda value: ("6:seq", tuple(map(sort_key, value)))
    if dataclasses.is_dataclass(cls):
        group = f"7:dc:{cls.__module__}.{cls.__qualname__}"
        names = tuple(f.name for f in dataclasses.fields(cls))
        if not names:
            return lambda value: (group, ())
        fields = attrgetter(*names) if len(names) > 1 else lambda value: (getattr(value, names[0]),)
        return lambda value: (group, tuple(map(sort_key, fields(value))))
    if issubclass(cls, (frozenset, set)):
        return lambda value: ("8:set", tuple(sorted(map(sort_key, value))))
    if issubclass(cls, Mapping):
        return lambda value: ("9:map", tuple((sort_key(k), sort_key(v)) for k, v in value.items()))
    group = "z:" + cls.__qualname__
    return lambda value: (group, repr(value))


# ---------------------------------------------------------------------------
# JSON and text
# ---------------------------------------------------------------------------

def to_jsonable(value: Any) -> Any:
    """Convert a resolver value into JSON-safe data.

    ``Fraction`` -> ``"n/d"`` (whole fractions -> ``int``), ``Counts`` and
    mappings -> ``dict`` (keys as strings), dataclasses -> ``dict`` of fields,
    tuples/lists/sets -> ``list``, enum members -> their value; ``int``, ``str``,
    ``bool``, ``None`` and ``float`` are kept.

    The way to convert a type is worked out once per type, and the parts of a
    record or list that are kept as they are (ints, strings…) are taken without a
    call: results are often thousands of nested records.
    """
    cls = type(value)
    if cls in _KEPT:
        return value
    try:
        convert = _JSONERS[cls]
    except KeyError:
        convert = _per_type(_JSONERS, cls, _jsoner_for(cls))
    return convert(value)


_KEPT = frozenset((int, str, bool, float, type(None)))
"""The types :func:`to_jsonable` returns unchanged (their subclasses too, found per type)."""

_JSONERS: dict[type, Callable[[Any], Any]] = {}


def _jsoner_for(cls: type) -> Callable[[Any], Any]:
    """How :func:`to_jsonable` converts the values of type ``cls``."""
    kept, convert = _KEPT, to_jsonable
    if cls is type(None) or issubclass(cls, (bool, int, str, float)):
        return lambda value: value
    if issubclass(cls, Fraction):
        return lambda value: value.numerator if value.denominator == 1 else number_text(value)
    if issubclass(cls, enum.Enum):
        return lambda value: convert(value.value)
    if issubclass(cls, Mapping):
        return lambda value: {_json_key(k): convert(v) for k, v in value.items()}
    if issubclass(cls, Record):
        names, values = cls._names, cls._values
        return lambda value: {name: v if type(v) in kept else convert(v) for name, v in zip(names, values(value))}
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        fields = tuple((f.metadata.get("name", f.name), f.name) for f in dataclasses.fields(cls))
        return lambda value: {name: convert(getattr(value, attr)) for name, attr in fields}
    if issubclass(cls, (tuple, list)):
        return lambda value: [v if type(v) in kept else convert(v) for v in value]
    if issubclass(cls, (set, frozenset)):
        return lambda value: [convert(v) for v in sorted(value, key=sort_key)]
    return str


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
    if isinstance(value, (int, Fraction)):
        return number_text(value)
    if isinstance(value, (str, float)):
        return str(value)
    if isinstance(value, enum.Enum):
        return format_value(value.value)
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in value.items()) + ")"
    if isinstance(value, Record):
        fields = ", ".join(f"{name}: {format_value(v)}" for name, v in zip(value._names, value._values(value)))
        return f"{shown_type_name(type(value))}({fields})"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ", ".join(
            f"{f.name}: {format_value(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return f"{shown_type_name(type(value))}({fields})"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(format_value(v) for v in sorted(value, key=sort_key)) + "}"
    return repr(value)


ROW_CLASS_PREFIX = "_Row_"
"""How a generated package names the record class of a table's rows (``_Row_<table>``)."""


def shown_type_name(cls: type) -> str:
    """The name of a record type as the rules write it, never a Python-internal one: a
    table's row record (``_Row_dados_calidad``) reads as its table (``dados_calidad``)."""
    name = cls.__name__
    if name.startswith(ROW_CLASS_PREFIX):
        name = name[len(ROW_CLASS_PREFIX):]
    return name.lstrip("_") or name


def number_text(value: int | Fraction) -> str:
    """An exact number as text: ``"7"``, ``"-1/3"``. Exact probabilities can have
    thousands of digits, past the length Python's ``str(int)`` accepts; those are
    written in halves."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return _int_text(value.numerator)
        return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"
    return _int_text(int(value))


def _int_text(n: int) -> str:
    limit = sys.get_int_max_str_digits()
    digits = n.bit_length() * 30103 // 100000 + 1  # at least the number of decimal digits
    if limit == 0 or digits < limit:
        return str(n)
    if n < 0:
        return "-" + _int_text(-n)
    half = digits // 2
    high, low = divmod(n, 10**half)
    return (_int_text(high) if high else "") + _int_text(low).zfill(half if high else 1)


def smallest(values: Iterable, src: str | None = None) -> Any:
    """The smallest element of a list: a RuleError citing ``src`` when it is empty."""
    values = tuple(values)
    if not values:
        raise RuleError(N_("min() of an empty list: there is no value"), src, {})
    return min(values)


def largest(values: Iterable, src: str | None = None) -> Any:
    """The largest element of a list: a RuleError citing ``src`` when it is empty."""
    values = tuple(values)
    if not values:
        raise RuleError(N_("max() of an empty list: there is no value"), src, {})
    return max(values)


def granted(rules: Iterable, grants: Mapping[str, tuple]) -> tuple:
    """``rules`` (special-rule applications) followed by the applications they grant
    (``grants``: rule name → the applications it grants directly), followed down the
    chain depth first, each rule once per listed rule. A rule listed itself comes
    first, so its own parameters win over granted ones."""
    rules = tuple(rules)
    found = list(rules)
    for r in rules:
        seen = {r.rule}
        pending = list(grants.get(r.rule, ()))
        pending.reverse()  # a stack: the last item is the next one, as in reading order
        while pending:
            app = pending.pop()
            if app.rule in seen:
                continue
            seen.add(app.rule)
            found.append(app)
            pending.extend(reversed(grants.get(app.rule, ())))
    return tuple(found)


def stacked_param(rules: Iterable, rule: str, param: str, how: str) -> Any:
    """The values of ``param`` in every application of ``rule`` in ``rules``, combined
    as the rule declares (``stacking sum|max|min``); None when the rule is absent."""
    values = [dict(r.args).get(param) for r in rules if r.rule == rule]
    values = [v for v in values if v is not None]
    if not values:
        return None
    if how == "sum":
        return sum(values)
    return max(values) if how == "max" else min(values)
