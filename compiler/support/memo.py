"""What the memos of a long-running build (``rulebook serve``) share to compare one build's
inputs with the previous build's: values pickled for comparison, and mappings that tell
who reads them which keys they read.

Reads: any value (usually the IR's nodes) or mapping. Produces: :func:`pickled` (bytes
that depend only on a value's types and contents) and :class:`NotedMapping` (a read-only
view of a dict that reports each key looked up, and :data:`ALL` when it is iterated).
Used by :class:`rulebook.compiler.emit.site.to_pages.PageMemo`, :class:`rulebook.compiler.emit.python.to_python.ModuleMemo`,
:class:`rulebook.compiler.emit.data.to_json.JsonMemo` and :mod:`rulebook.compiler.commands.serve`.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from typing import Any

ALL = object()
"""The key a :class:`NotedMapping` reports when it is iterated or sized: its reader depends on all of it."""


class NotedMapping(Mapping):
    """A read-only view of ``data`` that calls ``note(key)`` for each key looked up (``[]``,
    ``get``, ``in``) and ``note(ALL)`` when it is iterated or sized."""

    __slots__ = ("data", "note")

    def __init__(self, data: dict, note: Callable[[Any], None]) -> None:
        self.data, self.note = data, note

    def __getitem__(self, key):
        self.note(key)
        return self.data[key]

    def get(self, key, default=None):
        self.note(key)
        return self.data.get(key, default)

    def __contains__(self, key) -> bool:
        self.note(key)
        return key in self.data

    def __iter__(self):
        self.note(ALL)
        return iter(self.data)

    def __len__(self) -> int:
        self.note(ALL)
        return len(self.data)


def pickled(value: Any) -> bytes | None:
    """``value`` pickled without the memo, so that the bytes depend on the values and not on
    which objects are shared (a rebuild reuses the unchanged files' parse trees); None when
    it does not pickle. A dataclass with slots (the IR's nodes) is written as its class and
    its fields' values in order (:class:`_FieldReducers`): what pickle writes for it by
    default, without the Python-level ``__getstate__`` that dataclasses give such classes
    (the bytes differ from ``pickle.dumps``'s; they are only compared with each other)."""
    import io
    import pickle

    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dispatch_table = _REDUCERS
    try:
        pickler.dump(value)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return out.getvalue()


class _FieldReducers(dict):
    """A pickler's ``dispatch_table`` (:func:`pickled`): for each dataclass with slots whose state is
    the default one (``dataclasses``' ``__getstate__``: every field's value, in field order), a
    reducer giving its class and those values (made on first use); ``copyreg``'s reducers (which a
    pickler with a table of its own no longer sees) for the types they are for; other types are not
    in it (a ``KeyError``), so pickle writes them its own way."""

    def __missing__(self, cls: type):
        import copyreg

        if cls in copyreg.dispatch_table:
            return copyreg.dispatch_table[cls]
        if (not dataclasses.is_dataclass(cls) or getattr(cls, "__getstate__", None) is not getattr(dataclasses, "_dataclass_getstate", None)
                or cls.__reduce_ex__ is not object.__reduce_ex__ or cls.__reduce__ is not object.__reduce__):
            raise KeyError(cls)
        names = tuple(f.name for f in dataclasses.fields(cls))
        if not names:
            def reduce(obj: Any) -> tuple:
                return cls, ()
        elif len(names) == 1:
            one = operator.attrgetter(names[0])

            def reduce(obj: Any) -> tuple:
                return cls, (one(obj),)
        else:
            every = operator.attrgetter(*names)

            def reduce(obj: Any) -> tuple:
                return cls, every(obj)
        self[cls] = reduce
        return reduce


_REDUCERS = _FieldReducers()
