"""Values generated code builds from data: records, rule applications, inputs.

Takes JSON-like inputs and type descriptors emitted by the compiler; produces
the Python values resolvers work with (and back). Type descriptors are nested
tuples: ``("int",)``, ``("decimal",)``, ``("text",)``, ``("bool",)``, ``("id",)``,
``("enum", name)``, ``("record", name)``, ``("ref", catalog)``, ``("rule",)``,
``("list", inner)``, ``("map", enum, inner)``, ``("opt", inner)``.
An input of the wrong type is an :class:`~rulebook.runtime.errors.InputError` naming its
JSON path and showing the value cut short (:func:`shown`), however big it is.
"""

from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from .errors import InputError, RuleError
from .messages import N_

__all__ = ["RuleApp", "field", "has_rule", "rule_param", "Schema", "from_input", "shown"]

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6
_DECIMAL_TEXT = re.compile(r"[+-]?\d{1,100}(?:\.\d{1,100})?(?:/\d{1,100})?")


def shown(value: Any) -> str:
    """``repr(value)`` cut short (a few levels, a few items, 60 characters of text), so
    that an error about a huge or deeply nested input stays one readable line."""
    return _SHORT.repr(value)


@dataclass(frozen=True, slots=True)
class RuleApp:
    """A special rule applied with arguments, e.g. ``lmg(X=2)``."""

    rule: str
    args: tuple[tuple[str, Any], ...] = ()

    def arg(self, name: str) -> Any:
        return dict(self.args)[name]


def has_rule(rules, rule: str) -> bool:
    """Whether a list of rule applications includes ``rule``."""
    return any(r.rule == rule for r in rules)


def rule_param(rules, rule: str, param: str) -> Any:
    """The value of ``param`` in the first application of ``rule``, or None when absent."""
    for r in rules:
        if r.rule == rule:
            return dict(r.args).get(param)
    return None


def field(obj: Any, name: str, src: str | None = None) -> Any:
    """``obj.name`` for an optional ``obj``: a RuleError citing ``src`` when it is none."""
    if obj is None:
        raise RuleError(N_("there is no value to read '%(name)s' from"), src, {"name": name})
    return getattr(obj, name)


@dataclass(frozen=True)
class Schema:
    """What :func:`from_input` needs to rebuild values of a rulebook's types."""

    records: Mapping[str, tuple[type, tuple[tuple[str, str, tuple], ...]]]  # name -> (class, ((dsl name, py name, desc), …))
    enums: Mapping[str, tuple[str, ...]]
    catalogs: Mapping[str, Mapping[str, Any]]


def from_input(value: Any, desc: tuple, schema: Schema, path: str = "$") -> Any:
    """Convert JSON input to a resolver value of type ``desc``; InputError names the JSON path."""
    kind = desc[0]
    if kind == "opt":
        return None if value is None else from_input(value, desc[1], schema, path)
    if value is None:
        raise InputError(N_("%(path)s: a value is missing"), None, {"path": path})
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(N_("%(path)s: an integer was expected, not %(value)s"), None, {"path": path, "value": shown(value)})
        return value
    if kind == "decimal":
        if isinstance(value, bool) or (isinstance(value, str) and not _DECIMAL_TEXT.fullmatch(value)):
            raise InputError(N_("%(path)s: a number was expected, not %(value)s"), None, {"path": path, "value": shown(value)})
        try:
            f = Fraction(value) if isinstance(value, (int, str, Fraction)) else Fraction(str(value))
        except (ValueError, ZeroDivisionError, TypeError):
            raise InputError(N_("%(path)s: a number was expected, not %(value)s"), None, {"path": path, "value": shown(value)}) from None
        return f.numerator if f.denominator == 1 else f
    if kind in ("text", "id"):
        if not isinstance(value, str):
            raise InputError(N_("%(path)s: a text was expected, not %(value)s"), None, {"path": path, "value": shown(value)})
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise InputError(N_("%(path)s: true or false was expected, not %(value)s"), None, {"path": path, "value": shown(value)})
        return value
    if kind == "enum":
        values = schema.enums[desc[1]]
        if not isinstance(value, str) or value not in values:
            raise InputError(N_("%(path)s: %(value)s is not a value of %(enum)s (%(values)s)"), None, {"path": path, "value": shown(value), "enum": desc[1], "values": ", ".join(values)})
        return value
    if kind == "ref":
        rows = schema.catalogs[desc[1]]
        if not isinstance(value, str) or value not in rows:
            raise InputError(N_("%(path)s: %(value)s is not in the catalog %(catalog)s"), None, {"path": path, "value": shown(value), "catalog": desc[1]})
        return value
    if kind == "rule":
        if isinstance(value, str):
            return RuleApp(value)
        if isinstance(value, Mapping) and isinstance(value.get("rule"), str) and isinstance(value.get("args") or {}, Mapping):
            return RuleApp(value["rule"], tuple(sorted((str(k), v) for k, v in dict(value.get("args") or {}).items())))
        raise InputError(N_("%(path)s: a special rule was expected, not %(value)s"), None, {"path": path, "value": shown(value)})
    if kind == "list":
        if not isinstance(value, list):
            raise InputError(N_("%(path)s: a list was expected"), None, {"path": path})
        return tuple(from_input(v, desc[1], schema, f"{path}[{i}]") for i, v in enumerate(value))
    if kind == "map":
        if not isinstance(value, Mapping):
            raise InputError(N_("%(path)s: an object with keys of %(enum)s was expected"), None, {"path": path, "enum": desc[1]})
        return {k: from_input(value.get(k), desc[2], schema, f"{path}.{k}") for k in schema.enums[desc[1]]}
    if kind == "record":
        cls, fields = schema.records[desc[1]]
        if not isinstance(value, Mapping):
            raise InputError(N_("%(path)s: an object %(record)s was expected"), None, {"path": path, "record": desc[1]})
        unknown = set(value) - {f[0] for f in fields}
        if unknown:
            raise InputError(N_("%(path)s: unknown field %(field)s in %(record)s"), None, {"path": path, "field": shown(sorted(map(str, unknown))[0]), "record": desc[1]})
        kwargs = {}
        for dsl_name, py_name, fdesc in fields:
            v = value.get(dsl_name)
            if v is None and fdesc[0] == "list":
                v = []
            kwargs[py_name] = from_input(v, fdesc, schema, f"{path}.{dsl_name}")
        return cls(**kwargs)
    raise RuleError(N_("unknown type %(type)r"), None, {"type": desc})
