"""The words and signs of one line of a ```` ```rules ```` fence, and the space between two of them.

Reads one line of code. Produces its :class:`Tok` list and its trailing comment
(:func:`split_line`), or :class:`Unreadable` for a character the language has no token
for. :func:`space_between` gives the canonical space between two tokens of a line.

This is a lexer of token *boundaries* only (one regular expression, no parser): the
formatter changes nothing but the whitespace between tokens, and re-parses what it
changed to prove the meaning kept (:mod:`rulebook.compiler.format.safety`). Its words
are those of the grammar: a string runs to its closing quote on the same line, a
comment from ``#`` to the end of the line, a number may have one decimal point, and
a word is any run of letters, digits and underscores (names, keywords, dice ``2d6``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rulebook.rules_dsl.keywords import CONSTANT_KEYWORDS, KEYWORDS

_TOKEN = re.compile(
    r"""(?P<space>[ \t\f]+)
      | (?P<string>"[^"\\\n]*(?:\\.[^"\\\n]*)*")
      | (?P<comment>\#.*)
      | (?P<word>\d+\.\d+|\w+)
      | (?P<sign>->|\.\.|==|!=|<=|>=|[-+*/=<>(){}\[\],:.|@?—])""",
    re.VERBOSE,
)

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")": "(", "]": "[", "}": "{"}
_VALUE_WORDS = frozenset(CONSTANT_KEYWORDS)
_BINARY = frozenset(("==", "!=", "<=", ">=", "=", "->", "*", "/", "|"))


class Unreadable(Exception):
    """A character no token of the language starts with (or a string without its closing quote)."""

    def __init__(self, column: int) -> None:
        super().__init__(column)
        self.column = column


@dataclass(slots=True)
class Tok:
    """One token: its text, its kind (``word``, ``string`` or ``sign``) and whether the
    source had whitespace before it on its line."""

    text: str
    kind: str
    spaced: bool

    @property
    def is_keyword(self) -> bool:
        return self.kind == "word" and self.text in KEYWORDS and self.text not in _VALUE_WORDS

    @property
    def is_operand_end(self) -> bool:
        """Whether an operand can end with this token (so a following ``-`` is a subtraction)."""
        if self.kind == "string":
            return True
        if self.kind == "word":
            return not self.is_keyword
        return self.text in (")", "]", "—")


def split_line(line: str) -> tuple[list[Tok], str]:
    """The tokens of a line of code and its comment (``""`` when it has none).

    Raises:
        Unreadable: at a character that starts no token.
    """
    toks: list[Tok] = []
    at, size, spaced = 0, len(line), False
    while at < size:
        m = _TOKEN.match(line, at)
        if m is None:
            raise Unreadable(at + 1)
        kind = m.lastgroup
        if kind == "space":
            spaced = True
        elif kind == "comment":
            return toks, m.group().rstrip()
        else:
            toks.append(Tok(m.group(), kind, spaced or not toks))
            spaced = False
        at = m.end()
    return toks, ""


def _is_unary(prev: Tok | None, tok: Tok, nxt: Tok | None) -> bool:
    """A ``-``/``+`` that signs what follows (``-3``, ``-x``, ``..-2``), not a subtraction
    and not the dash of an empty cell (``| - |``)."""
    if nxt is None or not (nxt.kind != "sign" or nxt.text in ("(", "[")):
        return False
    return prev is None or not prev.is_operand_end


def _is_range_bound(prev: Tok | None, tok: Tok, after: list[Tok]) -> bool:
    """``>`` in ``>20..50`` (a number, then ``..``) or ``<`` in ``..<30``."""
    if tok.text == "<":
        return prev is not None and prev.text == ".."
    rest = after[:3]
    if rest and rest[0].text in ("-", "+"):
        rest = rest[1:]
    return len(rest) >= 2 and rest[0].kind == "word" and rest[1].text == ".." and (prev is None or not prev.is_operand_end)


def _fraction(toks: list[Tok], k: int) -> bool:
    """Whether the ``/`` at ``toks[k]`` writes a fraction (``1/9``, ``1/6 * 1/3``): a whole
    number on each side."""
    return 0 < k < len(toks) - 1 and toks[k - 1].text.isdigit() and toks[k + 1].text.isdigit()


def spaces(toks: list[Tok]) -> list[str]:
    """The canonical space before each token of a line (``""`` before the first)."""
    return [""] + [space_before(toks, i) for i in range(1, len(toks))]


def space_before(toks: list[Tok], i: int) -> str:
    """The canonical space between ``toks[i - 1]`` and ``toks[i]``.

    Two words (or a word and a string) take one space; nothing goes inside brackets, before
    ``, : . ?`` or around ``..``; one space follows ``,`` and ``:``; binary operators, ``|``,
    ``=``, ``->`` and braces are spaced; a sign (``-3``), a range bound (``>20``) and ``@``
    bind to what follows; a bracket after a word keeps the author's choice (``f(x)``,
    ``given (x: 1)``).
    """
    a, b = toks[i - 1], toks[i]
    before_a = toks[i - 2] if i >= 2 else None
    at_, bt = a.text, b.text
    if a.kind != "sign" and b.kind != "sign":
        return " "
    if at_ == "@":
        return ""
    if at_ in ("-", "+") and _is_unary(before_a, a, b):
        return ""
    if at_ in (">", "<") and _is_range_bound(before_a, a, toks[i:]):
        return ""
    if at_ in ("(", "[", ".") or bt in (")", "]", ",", ":", ".", "?") or (at_ == "{" and bt == "}"):
        return ""
    if at_ == ".." or bt == "..":
        return ""
    if (bt == "/" and _fraction(toks, i)) or (at_ == "/" and _fraction(toks, i - 1)):
        return ""  # a fraction: 1/9
    if at_ in (",", ":"):
        return " "
    if bt in ("(", "["):
        if a.kind == "word" or at_ in (")", "]"):
            return " " if b.spaced else ""
        return " "
    if at_ in _BINARY or bt in _BINARY or at_ in ("-", "+", ">", "<", "{", "}") or bt in ("-", "+", ">", "<", "{", "}"):
        return " "
    return " " if b.spaced else ""
