"""The canonical layout of the code of one ```` ```rules ```` fence.

Reads the lines between a fence's opening and closing lines. Produces the same code laid
out canonically (:func:`layout_fence`), or raises :class:`Unformattable` when a line
holds a character no token starts with, or its brackets do not match (the fence is then
left as it is and the parser says what is wrong).

The layout (documented in ``rules_dsl/LANGUAGE.md``, "Formatting"):

* line breaks are the author's: no line is joined or split, runs of blank lines become
  one, and a fence neither starts nor ends with a blank line;
* indentation is two spaces per open ``{``, ``(`` or ``[``, twice that inside a bracket
  opened by a declaration's header (its parameters stand apart from its body); a
  declaration's header continued on more lines (``by …``, ``-> …`` of a table) is indented once, and a ``{``
  or ``}`` alone on its line stands at the indentation of the line that owns the block;
  a comment line takes the indentation of the code after it;
* the space between tokens is canonical (:func:`rulebook.compiler.format.tokens.space_before`),
  a trailing comment follows its line after two spaces;
* the rows of a ``catalog`` or ``table`` are aligned as columns
  (:mod:`rulebook.compiler.format.rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rulebook.rules_dsl.keywords import DECLARATION_KEYWORDS

from .lines import Line
from .rows import align_rows
from .tokens import CLOSERS, OPENERS, Tok, Unreadable, spaces, split_line

ROW_DECLARATIONS = frozenset(("catalog", "table"))
"""Declarations whose block items are rows of cells separated by ``|``, aligned as columns."""


class Unformattable(Exception):
    """A fence the formatter leaves as it is: ``line`` (0-based in the fence) is why."""

    def __init__(self, line: int, column: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.column, self.reason = line, column, reason


@dataclass(slots=True)
class _Frame:
    opener: str
    owner_depth: int  # indentation of the line that owns the bracket (where its closer stands)
    inner_depth: int  # indentation of the lines inside it
    statement_depth: int  # (braces) indentation of the current item of the block
    rows: bool  # (braces) the block's items are rows (a catalog's or table's)
    line: int  # the line it was opened on


def layout_fence(code: list[str]) -> list[str]:
    """The lines of a fence's code (without line ends), laid out canonically."""
    lines: list[Line | None] = []  # None: a blank line
    stack: list[_Frame] = []
    statement_depth = 0  # of the current top-level item
    declaration = ""  # keyword of the current top-level declaration
    pending_comments: list[Line] = []
    for number, raw in enumerate(code):
        try:
            toks, comment = split_line(raw)
        except Unreadable as err:
            raise Unformattable(number, err.column, "unreadable character") from None
        if not toks and not comment:
            lines.append(None)
            continue
        if not toks:
            line = Line(0, [], comment)
            pending_comments.append(line)
            lines.append(line)
            continue
        first = toks[0].text
        top = stack[-1] if stack else None
        row_of = None
        if first in CLOSERS:
            if top is None or top.opener != CLOSERS[first]:
                raise Unformattable(number, 1, "unmatched bracket")
            depth = top.owner_depth
            comment_depth = top.inner_depth
        elif top is not None and top.opener != "{":
            depth = comment_depth = top.inner_depth
        elif top is None:
            if first == "@" or (toks[0].kind == "word" and first in DECLARATION_KEYWORDS and (len(toks) == 1 or toks[1].kind != "sign")):
                depth = statement_depth = 0
                if first != "@":
                    declaration = first
            elif first == "{":
                depth = statement_depth
            else:
                depth = statement_depth + 1  # a declaration's header, continued
            comment_depth = depth
        else:
            if first == "{":
                depth = top.statement_depth
            else:
                depth = top.statement_depth = top.inner_depth
                if top.rows:
                    row_of = top.line
            comment_depth = depth
        for c in pending_comments:
            c.depth = comment_depth
        pending_comments.clear()
        # the brackets of the line
        for t in toks:
            if t.kind != "sign":
                continue
            if t.text in OPENERS:
                if t.text == "{":
                    in_brackets = bool(stack) and stack[-1].opener != "{"
                    owner = depth if in_brackets else (stack[-1].statement_depth if stack else statement_depth)
                    rows = not stack and declaration in ROW_DECLARATIONS
                    stack.append(_Frame("{", owner, owner + 1, owner + 1, rows, number))
                else:
                    inner = depth + (2 if not stack else 1)  # a declaration's parameters stand apart from its body
                    stack.append(_Frame(t.text, depth, inner, inner, False, number))
            elif t.text in CLOSERS:
                if not stack or stack[-1].opener != CLOSERS[t.text]:
                    raise Unformattable(number, 1, "unmatched bracket")
                stack.pop()
        line = Line(depth, toks, comment, spaces(toks), row_of)
        line.complete_row = row_of is not None and (not stack or stack[-1].line != number) and _closes_all(toks)
        lines.append(line)
    if stack:
        raise Unformattable(stack[-1].line, 1, "unclosed bracket")
    align_rows([ln for ln in lines if ln is not None and ln.row_of is not None])
    return _without_extra_blanks([ln.text() if ln is not None else None for ln in lines])


def _closes_all(toks: list[Tok]) -> bool:
    """Whether every bracket the line opens is closed on it (a row on one line)."""
    depth = 0
    for t in toks:
        if t.kind == "sign" and t.text in OPENERS:
            depth += 1
        elif t.kind == "sign" and t.text in CLOSERS:
            depth -= 1
    return depth == 0


def _without_extra_blanks(lines: list[str | None]) -> list[str]:
    """One blank line for each run of them; none at the start or the end."""
    out: list[str] = []
    for text in lines:
        if text is None or text == "":
            if out and out[-1] != "":
                out.append("")
        else:
            out.append(text)
    while out and out[-1] == "":
        out.pop()
    return out
