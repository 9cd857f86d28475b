"""Checked calls of generated resolvers: a direct call validates its arguments as the CLI does.

Takes: a fast generated resolver ``fn(ctx, **params)`` (``procedures.py``), its traced twin
and, once the package's ``__init__`` has built them, its :class:`~rulebook.runtime.protocol.Procedure`
(parameters with their type descriptors, see :mod:`rulebook.runtime.records`, and the schema),
which makes itself known to the resolver it is built with.
Produces: :func:`resolver`, the decorator of the generated resolvers — the public name is a
wrapper that checks each argument (a Python value: an enum member, a catalog id, a record
instance, a tuple…) and raises :class:`~rulebook.runtime.errors.InputError` naming its JSON-like
path (``$.calidad: 'elitee' is not a value of Calidad (green, …)``) before running the
unchecked resolver, its ``__wrapped__``. Calls between procedures use the unchecked resolvers
(``_proc_<name>``) and pay nothing; :func:`rulebook.runtime.exact` and
:func:`rulebook.runtime.sample` check once (:func:`checked_call`), then run the unchecked ones.

Checks are closures compiled once per parameter type (:func:`checker`); a value that passes is
given back as it is, except that a list becomes a tuple, a map gets every key of its enum and a
number an exact ``int`` or ``Fraction``, as :func:`rulebook.runtime.records.from_input` gives them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .context import Context
from .errors import InputError
from .messages import N_, language_of
from .records import RuleApp, Schema, shown

if TYPE_CHECKING:
    from .protocol import Procedure

__all__ = ["resolver", "checker", "checked_call"]

P = ParamSpec("P")
R = TypeVar("R")
Check = Callable[[Any], Any]


class _Bad(Exception):
    """A value that fails a check: the message and its parameters, and the path below the
    parameter where it stands (``at``: segments from the innermost out)."""

    def __init__(self, message: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message, self.params, self.at = message, params or {}, []

    def error(self, path: str) -> InputError:
        return InputError(self.message, None, {**self.params, "path": path + "".join(reversed(self.at))})


def _bad_value(message: str) -> Callable[[Any], _Bad]:
    return lambda value: _Bad(message, {"value": shown(value)})


_NOT_INT = _bad_value(N_("%(path)s: an integer was expected, not %(value)s"))
_NOT_NUMBER = _bad_value(N_("%(path)s: a number was expected, not %(value)s"))
_NOT_TEXT = _bad_value(N_("%(path)s: a text was expected, not %(value)s"))
_NOT_BOOL = _bad_value(N_("%(path)s: true or false was expected, not %(value)s"))
_NOT_RULE = _bad_value(N_("%(path)s: a special rule was expected, not %(value)s"))
_MISSING = N_("%(path)s: a value is missing")


def _refused(value: Any, bad: Callable[[Any], _Bad]) -> _Bad:
    """The error of a value refused: missing when it is none, else ``bad``."""
    return _Bad(_MISSING) if value is None else bad(value)


def _int(value: Any) -> Any:
    if value.__class__ is int or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise _refused(value, _NOT_INT)


def _decimal(value: Any) -> Any:
    if value.__class__ is int:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
        raise _refused(value, _NOT_NUMBER)
    try:
        number = Fraction(value) if isinstance(value, (int, Fraction)) else Fraction(str(value))
    except (ValueError, OverflowError):  # nan, inf
        raise _NOT_NUMBER(value) from None
    return number.numerator if number.denominator == 1 else number


def _text(value: Any) -> Any:
    if isinstance(value, str):
        return value
    raise _refused(value, _NOT_TEXT)


def _bool(value: Any) -> Any:
    if value is True or value is False:
        return value
    raise _refused(value, _NOT_BOOL)


def _rule(value: Any) -> Any:
    if isinstance(value, RuleApp):
        return value
    raise _refused(value, _NOT_RULE)


def _pass(value: Any) -> Any:
    return value


def checker(desc: tuple, schema: Schema, memo: dict[tuple, Check] | None = None) -> Check:
    """The check of a value of type ``desc`` (a descriptor of :mod:`rulebook.runtime.records`):
    the value (normalised) or :class:`_Bad`. ``None`` is refused unless ``desc`` is optional."""
    memo = {} if memo is None else memo
    found = memo.get(desc)
    if found is not None:
        return found
    kind = desc[0]
    check: Check
    if kind == "opt":
        inner = checker(desc[1], schema, memo)
        check = lambda value: None if value is None else inner(value)  # noqa: E731
    elif kind in ("int", "decimal", "text", "id", "bool", "rule"):
        check = {"int": _int, "decimal": _decimal, "text": _text, "id": _text, "bool": _bool, "rule": _rule}[kind]
    elif kind == "enum":
        check = _member(frozenset(schema.enums[desc[1]]), N_("%(path)s: %(value)s is not a value of %(enum)s (%(values)s)"),
                        {"enum": desc[1], "values": ", ".join(schema.enums[desc[1]])})
    elif kind == "ref":
        check = _member(schema.catalogs[desc[1]], N_("%(path)s: %(value)s is not in the catalog %(catalog)s"),
                        {"catalog": desc[1]})
    elif kind == "list":
        check = _list(checker(desc[1], schema, memo))
    elif kind == "map":
        check = _map(tuple(schema.enums[desc[1]]), desc[1], checker(desc[2], schema, memo))
    elif kind == "record":
        fields: list[tuple[str, str, Check]] = []  # filled below: a record may hold itself
        check = _record(schema.records[desc[1]][0], desc[1], fields)
        memo[desc] = check
        fields.extend((dsl, py, checker(fdesc, schema, memo)) for dsl, py, fdesc in schema.records[desc[1]][1])
    else:  # counts and kinds no input has: as they are
        check = _pass
    memo[desc] = check
    return check


def _member(values: Any, message: str, params: dict[str, Any]) -> Check:
    """A value of ``values`` (a set of enum members, a catalog by id): a string."""

    def member(value: Any) -> Any:
        if value.__class__ is str and value in values:
            return value
        if value is None:
            raise _Bad(_MISSING)
        if isinstance(value, str) and str(value) in values:
            return str(value)
        raise _Bad(message, {"value": shown(value), **params})

    return member


def _list(inner: Check) -> Check:
    def items(value: Any) -> Any:
        if value.__class__ is not tuple and not isinstance(value, (list, tuple)):
            raise _Bad(_MISSING) if value is None else _Bad(N_("%(path)s: a list was expected"))
        out = []
        same = value.__class__ is tuple
        for i, item in enumerate(value):
            try:
                checked = inner(item)
            except _Bad as bad:
                bad.at.append(f"[{i}]")
                raise
            same = same and checked is item
            out.append(checked)
        return value if same else tuple(out)

    return items


def _map(keys: tuple[str, ...], enum: str, inner: Check) -> Check:
    def by_key(value: Any) -> Any:
        if not isinstance(value, Mapping) or not set(value) <= set(keys):
            raise _Bad(_MISSING) if value is None else _Bad(N_("%(path)s: an object with keys of %(enum)s was expected"),
                                                           {"enum": enum})
        out = {}
        for key in keys:
            try:
                out[key] = inner(value.get(key))
            except _Bad as bad:
                bad.at.append(f".{key}")
                raise
        return out

    return by_key


def _record(cls: type, name: str, fields: list[tuple[str, str, Check]]) -> Check:
    def record(value: Any) -> Any:
        if value.__class__ is not cls:
            raise _Bad(_MISSING) if value is None else _Bad(N_("%(path)s: an object %(record)s was expected"),
                                                           {"record": name})
        changed = False
        values = {}
        for dsl, py, check in fields:
            old = getattr(value, py)
            try:
                new = check(old)
            except _Bad as bad:
                bad.at.append(f".{dsl}")
                raise
            changed = changed or new is not old
            values[py] = new
        return cls(**values) if changed else value

    return record


def _arguments(proc: Procedure, memo: dict[tuple, Check]) -> Callable[[tuple, dict], dict[str, Any]]:
    """The checked keyword arguments of a call of ``proc.function`` given ``args`` and ``kwargs``
    (those of the call after its context): InputError naming the bad one, as
    :meth:`~rulebook.runtime.protocol.Procedure.convert` names a bad JSON input. The
    arguments given are checked one by one; what is left out is looked at only when the
    call does not give every parameter."""
    checks = {p.argument: checker(p.type, proc.schema, memo) for p in proc.params}
    names = {p.argument: p.name for p in proc.params}
    keywords = tuple(checks)
    required = tuple(p.argument for p in proc.params if p.required)
    left_none = tuple(p.argument for p in proc.params if not p.required and not p.has_default)
    lang = language_of(proc.function)

    def arguments(args: tuple, kwargs: dict) -> dict[str, Any]:
        if args:
            kwargs = _by_keyword(proc.name, keywords, args, kwargs)
        out = {}
        key = None
        try:
            for key, value in kwargs.items():
                out[key] = checks.get(key, _unknown)(value)
        except _Bad as bad:
            if bad.message is _UNKNOWN:
                raise InputError(_UNKNOWN, None, {"key": shown(key), "procedure": proc.name}).in_language(lang) from None
            raise bad.error(f"$.{names[key]}").in_language(lang) from None
        if len(out) < len(keywords):
            for keyword in required:
                if keyword not in out:
                    raise InputError(N_("$.%(param)s: the parameter is missing"), None,
                                     {"param": names[keyword]}).in_language(lang)
            for keyword in left_none:  # optional without a default: left out means none
                out.setdefault(keyword, None)
        return out

    return arguments


_UNKNOWN = N_("$: %(key)s is not a parameter of %(procedure)s")


def _unknown(value: Any) -> Any:
    raise _Bad(_UNKNOWN)


def _by_keyword(name: str, keywords: tuple[str, ...], args: tuple, kwargs: dict) -> dict:
    """The arguments of a call by keyword (``args``: those given by position, in order)."""
    if len(args) > len(keywords):
        raise TypeError(f"{name}() takes {len(keywords)} arguments after the context, {len(args)} given")
    given = dict(zip(keywords, args))
    for key in kwargs:
        if key in given:
            raise TypeError(f"{name}() got several values for the argument {key!r}")
    return {**given, **kwargs}


def resolver(twin: Callable[..., Any]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator of a fast generated resolver ``fn(ctx, **params)`` whose traced twin is ``twin``
    (see :func:`rulebook.runtime.traced_by`): the public resolver, which checks its arguments
    and runs ``fn``; ``fn`` itself is its ``__wrapped__``, for calls between procedures.
    Type checkers see ``fn``'s own signature. The checks are those of the
    :class:`~rulebook.runtime.protocol.Procedure` built with it (the package's ``PROCEDURES``),
    worked out on its first call; until one is built, arguments go unchecked."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        fn.traced = twin  # type: ignore[attr-defined]
        procedure: list[Procedure] = []

        def first(args: tuple, kwargs: dict) -> dict[str, Any]:
            """The first call's: works out the checks (once a procedure is known)."""
            nonlocal arguments
            if not procedure:
                return _by_keyword(fn.__name__, _positional(fn), args, kwargs)
            arguments = _arguments(procedure[0], {})
            return arguments(args, kwargs)

        arguments = first

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if not args or not isinstance(args[0], Context):
                raise TypeError(f"{fn.__name__}() takes a context first, e.g. runtime.SampleContext(seed=1)")
            return fn(args[0], **arguments(args[1:], kwargs))

        checked.traced = twin  # type: ignore[attr-defined]
        checked._procedure = procedure  # type: ignore[attr-defined]  # Procedure.__post_init__ appends itself
        checked._arguments = lambda args, kwargs: arguments(args, kwargs)  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


def _positional(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The names of ``fn``'s parameters after its context."""
    code = fn.__code__
    return code.co_varnames[1:code.co_argcount]


def checked_call(fn: Callable[..., Any], args: tuple, kwargs: dict) -> tuple[Callable[..., Any], tuple, dict]:
    """``(fn, args, kwargs)`` of a run of ``fn`` by :func:`~rulebook.runtime.exact` or
    :func:`~rulebook.runtime.sample`: for a checked resolver (:func:`resolver`), its arguments
    checked once (InputError) and the unchecked resolver, which its runs call; else as given."""
    check = getattr(fn, "_arguments", None)
    if check is None:
        return fn, args, kwargs
    return fn.__wrapped__, (), check(args, kwargs)
