"""The base of the AST builder: a Lark tree of one declaration → nodes, with positions in the file.

Reads a Lark tree of one top-level declaration (positions relative to the declaration) and
where the declaration is (the file's name, the line it starts on, the file's lines).
Produces what the parts of the builder share: :class:`AstBuilder` (spans shifted to the
file, the source text of a span, whole-number literals checked, the problems found while
building), and the functions that decode literals (:func:`unquote`, :func:`number`).

The builder itself is composed of named parts, one per area of the grammar
(``ast_declarations``, ``ast_procedures``, ``ast_data``, ``ast_expressions``), each a
subclass of :class:`AstBuilder` with one method per grammar rule; :mod:`rulebook.rules_dsl.parser`
joins them into one :class:`~lark.Transformer`.
"""

from __future__ import annotations

import re
from fractions import Fraction

from lark import Token, Transformer, v_args
from lark.exceptions import GrammarError, VisitError

from .diagnostics import Diagnostic, Span

_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def unquote(tok: str) -> str:
    """Decode a string literal: only \\" \\\\ \\n \\t escapes (never eval); any other
    backslash is kept as written."""
    body = tok[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), body)


def number(text: str) -> int | Fraction:
    return Fraction(text) if "." in text else int(text)


def optional_text(tok) -> str | None:
    """A string literal that may be left out (a title): its text, or None."""
    return unquote(tok) if tok is not None else None


def join_spans(a: Span, b: Span) -> Span:
    """From the start of ``a`` to the end of ``b``."""
    return Span(a.file, a.line, a.col, b.end_line, b.end_col)


def node_fields(obj) -> dict:
    """A node's fields by name (to rebuild it with some of them changed)."""
    return {f: getattr(obj, f) for f in obj.__dataclass_fields__}


_META_WRAPPER = v_args(meta=True)(lambda self, meta, children: None).visit_wrapper


class AstBuilder(Transformer):
    """Lark tree → nodes, shifting positions by the declaration's line offset.

    Each subclass knows, in ``_meta_rules``, its methods that take ``(meta, children)``
    (``@v_args(meta=True)``), by rule name, its bases' included."""

    _meta_rules: dict = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._meta_rules = {
            name: method
            for klass in reversed(cls.__mro__)
            for name, method in vars(klass).items()
            if getattr(method, "visit_wrapper", None) is _META_WRAPPER
        }

    def __init__(self, filename: str, line_offset: int, source_lines: list[str]):
        super().__init__(visit_tokens=False)  # no method is named after a token type: tokens stay as they are
        self.filename = filename
        self.off = line_offset
        self.lines = source_lines
        self.problems: list[Diagnostic] = []

    def _call_userfunc(self, tree, new_children=None):
        """Lark's dispatch (``Transformer._call_userfunc``), with the ``v_args(meta=True)``
        methods found once (``_meta_rules``): Lark builds a bound wrapper for them at
        every call (some 40,000 per build of a large rulebook)."""
        method = self._meta_rules.get(tree.data)
        if method is None:
            return super()._call_userfunc(tree, new_children)
        try:
            return method(self, tree.meta, new_children if new_children is not None else tree.children)
        except GrammarError:
            raise
        except Exception as e:
            raise VisitError(tree.data, tree, e)

    # -- helpers
    def sp(self, meta) -> Span:
        """The span in the file of a rule's tree (its ``meta``)."""
        if getattr(meta, "empty", False) or not hasattr(meta, "line"):
            return Span(self.filename, self.off + 1, 1, self.off + 1, 1)
        return Span(self.filename, meta.line + self.off, meta.column, meta.end_line + self.off, meta.end_column)

    def tsp(self, tok: Token) -> Span:
        """The span in the file of a token."""
        return Span(self.filename, tok.line + self.off, tok.column, tok.end_line + self.off, tok.end_column)

    def text_of(self, span: Span) -> str:
        """The source text of a span of this declaration."""
        first = self.lines[span.line - 1 - self.off][span.col - 1 :] if span.line == span.end_line else None
        if first is not None:
            return self.lines[span.line - 1 - self.off][span.col - 1 : span.end_col - 1]
        chunk = self.lines[span.line - 1 - self.off : span.end_line - self.off]
        chunk = list(chunk)
        chunk[-1] = chunk[-1][: span.end_col - 1]
        chunk[0] = chunk[0][span.col - 1 :]
        return "\n".join(chunk)

    def whole(self, tok: Token) -> int:
        """A whole-number literal where the grammar allows any number: 1.5 is reported."""
        if "." in tok:
            self.problems.append(Diagnostic("error", f"expected a whole number here, got {tok}", self.tsp(tok), None, "syntax"))
            return int(Fraction(str(tok)))
        return int(tok)

    def __default__(self, data, children, meta):  # pragma: no cover - grammar is exhaustive
        raise ValueError(f"unhandled grammar rule {data}")
