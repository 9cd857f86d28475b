"""What the symbol index is made of: the names written in a rulebook, where they are and what they stand for.

Reads nothing of a rulebook itself. Produces the types of the index — :class:`Target` (what
a name stands for), :class:`Occurrence` (one name written in a file) and
:class:`SymbolIndex` (the occurrences by file and by target) — and the functions that find
a name's span in the source: :func:`find_word`, :func:`head_span`, :func:`tail_span`.
:mod:`rulebook.compiler.lsp.index` builds the index; hover, go to definition, find
references, document highlights and semantic tokens read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.ir.types import T


def find_word(lines: list[str], span: Span, name: str, start_col: int | None = None) -> Span | None:
    """The span of the word ``name`` inside ``span`` of a file's ``lines``
    (from column ``start_col`` on its first line)."""
    for line in range(span.line, min(span.end_line, len(lines)) + 1):
        text = lines[line - 1]
        lo = (start_col or span.col) - 1 if line == span.line else 0
        hi = span.end_col - 1 if line == span.end_line else len(text)
        at = word_at(text, name, lo, hi)
        if at >= 0:
            return Span(span.file, line, at + 1, line, at + 1 + len(name))
    return None


def declaration_keyword(item) -> str:
    """The keyword that starts a declaration node (``enum``, ``catalog``…)."""
    return item.keyword if isinstance(item, n.BrokenDecl) else type(item).__name__.removesuffix("Decl").lower()


def word_at(text: str, word: str, lo: int, hi: int) -> int:
    """The index of ``word`` as a whole word in ``text[lo:hi]``, or -1."""
    at = text.find(word, max(lo, 0), hi)
    while at >= 0:
        end = at + len(word)
        if not (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")) and not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
            return at
        at = text.find(word, at + 1, hi)
    return -1


def head_span(span: Span, name: str) -> Span:
    """The span of ``name`` written at the start of ``span``."""
    return Span(span.file, span.line, span.col, span.line, span.col + len(name))


def tail_span(span: Span, name: str) -> Span:
    """The span of ``name`` written at the end of ``span``."""
    return Span(span.file, span.end_line, span.end_col - len(name), span.end_line, span.end_col)


@dataclass(frozen=True, slots=True)
class Target:
    """What a name stands for.

    ``kind``: ``decl`` (a declaration; ``owner`` is empty), ``member`` (a value
    of enum ``owner``, or a kind of token of bag ``owner``), ``field`` (a field
    of record ``owner`` or a key or column of table ``owner``), ``entry`` (an
    entry of catalog ``owner`` or a row of id-keyed table ``owner``), ``param``
    (a parameter of procedure or special rule ``owner``), ``local`` (a ``let``
    value, loop variable, odds axis or ``result`` in ``owner``; ``where`` is its
    definition, so two values of one name are two targets), ``builtin``,
    ``choice`` (a side, size or option that army ``owner`` defines in place),
    ``clause`` (a clause word of an army block; ``owner`` is ``army`` or
    ``units``), ``annotation`` (an ``@name``) or ``warning`` (a kind of warning
    named by ``@allow``).
    """

    kind: str
    owner: str
    name: str
    where: Span | None = None


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One name written in a file: its span, target, and type where known."""

    span: Span
    target: Target
    definition: bool
    type: T | None = None


@dataclass(slots=True)
class SymbolIndex:
    """The occurrences of a rulebook, by file and by target."""

    by_file: dict[str, list[Occurrence]] = field(default_factory=dict)
    by_target: dict[Target, list[Occurrence]] = field(default_factory=dict)

    def at(self, file: str, line: int, col: int) -> Occurrence | None:
        """The occurrence covering (or ending right at) ``line:col`` (1-based)."""
        best = None
        for occ in self.by_file.get(file, ()):
            s = occ.span
            if s.line == line and s.col <= col <= s.end_col:
                if best is None or (s.end_col - s.col) < (best.span.end_col - best.span.col):
                    best = occ
        return best

    def definitions(self, target: Target) -> list[Occurrence]:
        return [o for o in self.by_target.get(target, ()) if o.definition]

    def references(self, target: Target) -> list[Occurrence]:
        return list(self.by_target.get(target, ()))


Scope = dict[str, Target]
"""The names visible at a point of a procedure (parameters, ``let`` values, loop variables) → their targets."""
