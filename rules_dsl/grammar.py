"""The grammar of declarations as a Lark LALR parser, and the limits on what it reads.

Reads ``grammar.lark`` (next to this module). Produces :func:`lark_parser` (the built
parser, its tables cached between runs in ``__pycache__``, keyed by Lark's version), the
newline post-lexer it uses, and the size limits of literals (:data:`MAX_NUMBER_DIGITS`,
:data:`MAX_STRING_CHARS`, :data:`MAX_NAME_CHARS`, and :data:`MAX_LINE_CHARS` for prose):
a token over its limit raises :class:`LiteralTooLong` before it is used.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

MAX_NUMBER_DIGITS = 100
"""Digits of a number literal (the manual's longest has 13: exact probabilities)."""

MAX_STRING_CHARS = 10_000
"""Characters of a string literal (the manual's longest has about 1,000)."""

MAX_LINE_CHARS = 10_000
"""Characters of a line of prose (the manual's longest has about 1,000). Prose and
strings become Markdown for the site, whose parser is slow on very long lines."""

MAX_NAME_CHARS = 80
"""Characters of a name: it becomes a Python identifier and part of file names."""


class LiteralTooLong(Exception):
    """A token over its size limit (see :data:`MAX_NUMBER_DIGITS` and its siblings)."""

    def __init__(self, token: Token, message: str, hint: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message
        self.hint = hint


def _check_size(tok: Token) -> None:
    """Raise :class:`LiteralTooLong` for a number, dice, string or name over its limit,
    before it costs memory or time (an ``int()`` of thousands of digits, a name too
    long to become a file name)."""
    if tok.type in ("NUMBER", "DICE"):
        digits = sum(ch.isdigit() for ch in tok)
        if digits > MAX_NUMBER_DIGITS:
            raise LiteralTooLong(tok, f"this number has {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed",
                                 "write a smaller number, or compute it from smaller ones")
    elif tok.type == "STRING" and len(tok) - 2 > MAX_STRING_CHARS:
        raise LiteralTooLong(tok, f"this text has {len(tok) - 2} characters; at most {MAX_STRING_CHARS} are allowed",
                             "long explanations belong in the prose around the ```rules block")
    elif tok.type == "NAME" and len(tok) > MAX_NAME_CHARS:
        raise LiteralTooLong(tok, f"this name has {len(tok)} characters; at most {MAX_NAME_CHARS} are allowed",
                             "choose a shorter name (it becomes a Python name and a file name)")


_SIZED_TOKENS = frozenset(("NUMBER", "DICE", "STRING", "NAME"))
_SHORTEST_LIMIT = min(MAX_NUMBER_DIGITS, MAX_STRING_CHARS + 2, MAX_NAME_CHARS)
"""No token of at most this many characters is over its limit (a number's digits are some of
its characters, a string's quotes two more): only longer ones are measured."""


class _NewlinePostLex:
    """Drops newlines inside ( ) and [ ], collapses runs of them (LANGUAGE.md §2),
    and refuses literals over their size limit."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth = 0
        last_nl = False
        for tok in stream:
            kind = tok.type
            if len(tok) > _SHORTEST_LIMIT and kind in _SIZED_TOKENS:
                _check_size(tok)
            if kind == "LPAR" or kind == "LSQB":
                depth += 1
            elif kind == "RPAR" or kind == "RSQB":
                depth = max(0, depth - 1)
            elif kind == "_NL":
                if depth or last_nl:
                    continue
                last_nl = True
                yield tok
                continue
            last_nl = False
            yield tok


def _cache_path() -> str | bool:
    """Where Lark keeps the built parser tables between runs (keyed by the grammar
    and options, so a changed grammar is rebuilt); False when it cannot be written."""
    import os

    folder = GRAMMAR_PATH.parent / "__pycache__"
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return False
    if not os.access(folder, os.W_OK):
        return False
    import lark

    return str(folder / f"grammar.lark-{lark.__version__}.cache")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """The LALR parser of ``grammar.lark``, built once per process (and its tables once per
    grammar: Lark's cache)."""
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=_NewlinePostLex(),
        cache=_cache_path(),
    )
