"""JSON files from someone else (a roster, a build folder sent by mail), read as data only.

Reads: a file's bytes. Produces: its JSON value (:func:`load`), or :class:`UntrustedJson`
with one line that names the file and says why not — within bounded time and memory:

* a file over ``max_bytes`` is refused before it is read;
* text that is not UTF-8, not JSON, ``NaN``/``Infinity`` (not JSON) or a number too
  large for a float, a whole number of more than 4,300 digits (Python's limit), or
  over ``max_int`` when one is given;
* values nested more than ``max_depth`` deep (what reads them afterwards walks them
  with recursion).

:func:`shape_problem` checks a value against a JSON Schema the caller states (never one
read from the same untrusted place) and gives the first problem found, with its JSON
path (jsonschema-rs says whether there is one, :func:`fast_valid`; jsonschema words it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""How deeply nested a document may be: every document the tool writes is far shallower."""


class UntrustedJson(Exception):
    """A file that cannot be used; the message (one line) names the file and says why."""


class _Refused(ValueError):
    pass


def load(path: Path, max_bytes: int, max_int: int | None = None, max_depth: int = MAX_DEPTH, what: str = "the file") -> Any:
    """The JSON value of ``path`` (see the module docstring for what is refused)."""
    raw = read_at_most(path, max_bytes, what)
    if len(raw) > max_bytes:
        raise UntrustedJson(f"{path}: error: {what} is larger than {max_bytes:,} bytes, the most this command reads")
    return loads(raw, str(path), max_int, max_depth)


def read_at_most(path: Path, max_bytes: int, what: str = "the file") -> bytes:
    """The first ``max_bytes + 1`` bytes of ``path`` (one more than allowed, so the caller
    can tell a file over the limit without reading it whole), or :class:`UntrustedJson`."""
    try:
        with path.open("rb") as f:
            return f.read(max_bytes + 1)
    except FileNotFoundError:
        raise UntrustedJson(f"{path}: error: no such file") from None
    except OSError as exc:
        raise UntrustedJson(f"{path}: error: cannot read {what}: {exc.strerror or exc}") from None


def loads(raw: bytes | str, where: str, max_int: int | None = None, max_depth: int = MAX_DEPTH) -> Any:
    """:func:`load` of text already read (``where``: the file it came from, for messages)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise UntrustedJson(f"{where}: error: the file is not UTF-8 text") from None
    try:
        value = json.loads(text, parse_int=_integer(max_int), parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise UntrustedJson(f"{where}:{exc.lineno}:{exc.colno}: error: not JSON: {exc.msg}") from None
    except RecursionError:
        raise UntrustedJson(f"{where}: error: the JSON is nested too deeply") from None
    except ValueError as exc:  # _Refused, or a whole number of more than 4300 digits (int_max_str_digits)
        raise UntrustedJson(f"{where}: error: not JSON this program reads: {str(exc).split(';')[0]}") from None
    if depth_over(value, max_depth):
        raise UntrustedJson(f"{where}: error: the JSON is nested more than {max_depth} levels deep")
    return value


def _integer(max_int: int | None):
    def parse(digits: str) -> int:
        n = int(digits)  # over 4300 digits: Python's own ValueError, which says so
        if max_int is not None and abs(n) > max_int:
            raise _Refused(f"the number {digits[:20]}{'…' if len(digits) > 20 else ''} is larger than {max_int}")
        return n

    return parse


def _finite(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _Refused(f"the number {text[:20]} is too large")
    return x


def _no_constant(name: str) -> None:
    raise _Refused(f"{name} is not a JSON number")


def depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep (without recursion)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def shape_problem(value: Any, schema: dict) -> str | None:
    """The first place where ``value`` does not follow ``schema`` (a JSON Schema, draft
    2020-12), as ``$.json.path: message`` (cut to 200 characters), or None."""
    if fast_valid(value, schema):
        return None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    first = next(Draft202012Validator(schema).iter_errors(value), None)  # not all: a broken file may have thousands
    if first is None:
        return None
    error = best_match([first])  # inside an anyOf, the branch that went furthest
    return f"{error.json_path}: {error.message[:200]}"


def fast_valid(value: Any, schema: dict) -> bool:
    """Whether ``value`` follows ``schema``, said by jsonschema-rs (a dependency, many times
    faster); False when it cannot say (a text it cannot encode, such as a lone surrogate in
    a key): jsonschema then decides, and words the problem."""
    try:
        import jsonschema_rs

        return bool(jsonschema_rs.Draft202012Validator(schema, validate_formats=False).is_valid(value))
    except Exception:  # noqa: BLE001 - anything it cannot take goes to the slow validator
        return False
