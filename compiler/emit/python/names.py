"""The only door from a rules name to a Python identifier.

:func:`py_name` maps a DSL name to a valid, non-reserved Python identifier,
injectively: plain ASCII names stay readable; anything else (non-ASCII letters,
Python keywords, names that would clash with generated helpers) is encoded as
``x_<hex of its UTF-8 bytes>``. Generated helpers all start with ``_``, which
no mangled name does, so DSL names never shadow them.
"""

from __future__ import annotations

import builtins
import keyword
import re

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {"ctx", "self", "cls"}


def py_name(name: str) -> str:
    """A Python identifier for a DSL name (stable and injective).

    >>> py_name("i_efectivo")
    'i_efectivo'
    >>> py_name("class")
    'x_636c617373'
    >>> py_name("tamaño")
    'x_74616d61c3b16f'
    """
    if _PLAIN.match(name) and name not in RESERVED and not name.startswith("x_"):
        return name
    return "x_" + name.encode("utf-8").hex()


def module_name(name: str) -> str:
    """A Python package name for a rulebook id (lowercase)."""
    mangled = py_name(name)
    return mangled.lower() if mangled.lower() == mangled or _PLAIN.match(mangled) else mangled
