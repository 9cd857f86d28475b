"""Proof that a formatted file means what the original meant.

Reads two versions of a file (or of a rulebook): their syntax trees
(:func:`rulebook.rules_dsl.parser.parse`) or their checked programs
(:func:`rulebook.compiler.check.check_program`). Produces their *shape*
(:func:`shape`): the same tree with every source position and source text left out,
so two versions that differ only in layout have equal shapes. :func:`same_meaning`
compares two files' syntax trees; :func:`same_program` two rulebooks' checked IR.
"""

from __future__ import annotations

import dataclasses
import sys
from fractions import Fraction

from rulebook.rules_dsl.diagnostics import Reporter, Span
from rulebook.rules_dsl.parser import parse

from rulebook.compiler.check import check_program

_LEFT_OUT = frozenset((("Module", "text"), ("Program", "sources")))
"""Fields holding the source text itself (a module's ``text``, a program's ``sources``)."""

_CODE_TEXT = frozenset(("source_text", "default_text", "text", "given"))
"""Fields holding code as written (a declaration's listing, a parameter's default, an
example's ``given`` values and ``expect`` conditions), shown as written on the site: their
text is compared without its whitespace, the only thing the layout changes in it."""
_CODE_TEXT_OF = frozenset(("Expect", "Example", "Param", "Parameter"))


def _code(text: str) -> str:
    return "".join(text.split())

_ATOMS = (str, int, float, bool, bytes, Fraction, type(None))


def shape(value, code_text: bool = False):
    """``value`` (a node, the IR, or any nesting of dataclasses, lists, dicts and sets)
    without its :class:`Span` s and source texts, as nested tuples that compare by value;
    with ``code_text``, its strings are code as written, compared without whitespace."""
    if isinstance(value, str) and code_text:
        return ("code", _code(value))
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, Span):
        return None
    if code_text:
        return _code_shape(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value).__name__
        return (kind,) + tuple(
            shape(getattr(value, f.name), _is_code_text(kind, f.name))
            for f in dataclasses.fields(value) if f.name != "span" and (kind, f.name) not in _LEFT_OUT
        )
    if isinstance(value, dict):
        return ("dict",) + tuple((shape(k), shape(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(shape(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(shape(v) for v in value))
    return (type(value).__name__, repr(value))


def _is_code_text(kind: str, name: str) -> bool:
    if name in ("source_text", "default_text"):
        return True
    return name in _CODE_TEXT and kind in _CODE_TEXT_OF


def _code_shape(value):
    """The shape of a field of code text: its strings without whitespace, the rest as usual."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(shape(v, isinstance(v, (str, list, tuple))) for v in value)
    return shape(value)


def parsed_shape(text: str, filename: str):
    """The shape of a file's syntax tree, or None when it has syntax errors."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    module, diags = parse(text, filename)
    if any(d.severity == "error" for d in diags):
        return None
    return shape(module)


def same_meaning(before: str, after: str, filename: str) -> bool:
    """Whether two versions of a file parse to the same syntax tree (positions aside)."""
    a = parsed_shape(before, filename)
    return a is not None and a == parsed_shape(after, filename)


def program_shape(sources: dict[str, str]):
    """The shape of the checked program of a rulebook's files (name → text), or None when
    it does not check clean."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    modules, diags = [], []
    for name, text in sources.items():
        module, problems = parse(text, name)
        modules.append(module)
        diags.extend(problems)
    rep = Reporter(list(diags))
    program = check_program(modules, dict(sources), rep)
    if program is None or any(d.severity == "error" for d in rep.diagnostics):
        return None
    return shape(program)


def same_program(before: dict[str, str], after: dict[str, str]) -> bool | None:
    """Whether two versions of a rulebook check to the same IR (positions aside); None when
    the original does not check clean (then only :func:`same_meaning` can tell)."""
    a = program_shape(before)
    if a is None:
        return None
    return a == program_shape(after)
