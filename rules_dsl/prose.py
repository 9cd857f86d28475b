"""The prose of a literate ``.rules`` file: lines of a small Markdown subset → prose nodes.

Reads the lines outside ```` ```rules ```` fences (line number, text). Produces
:class:`rulebook.rules_dsl.nodes.Prose` blocks (headings, paragraphs, lists, notes,
separators) with their inline runs (text, bold, italic, code, ``[[ref]]``), each at its
exact column so that a bad ``[[link]]`` is reported where it is written. Work is linear in
the length of a line: an opener without a closer does not rescan the rest of the line.
"""

from __future__ import annotations

import re

from . import nodes as n
from .diagnostics import Span

_INLINE_OPENER = re.compile(r"[*`\[]")
_REF_STOP = re.compile(r"[\]\s]")
_HEADING = re.compile(r"^(#{1,4})\s+(.*)$")
_HEADING_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_ORDERED = re.compile(r"^(\d{1,9})[.)]\s+(.*)$")  # at most 9 digits, as in CommonMark
_BULLET = re.compile(r"^[-*+]\s+(.*)$")


class _NextMatch:
    """The first match of ``pattern`` at or after ``start``, for starts that never
    decrease: a search is repeated only once the previous match lies behind, so
    all the calls on one line cost one pass over it."""

    def __init__(self, text: str, pattern: re.Pattern) -> None:
        self.text = text
        self.pattern = pattern
        self.found = -2  # -2: not searched yet; -1: no match after the last start

    def __call__(self, start: int) -> int:
        if self.found == -1 or self.found >= start:
            return self.found
        m = self.pattern.search(self.text, start)
        self.found = m.start() if m else -1
        return self.found


_DOUBLE_STAR = re.compile(r"\*\*")
_STAR = re.compile(r"\*")
_BACKTICK = re.compile(r"`")


def _word_or_star(ch: str) -> bool:
    return ch == "*" or ch == "_" or ch.isalnum()


def inline_runs(text: str) -> list[tuple[int, int, str, str]]:
    r"""``(start, end, kind, content)`` of each ``**bold**``, ``*italic*``, ```code```
    and ``[[ref]]`` run of a line, left to right; ``kind`` is strong, em, code or ref.

    The runs are those of the regular expression
    ``\*\*(.+?)\*\*|(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])|`([^`]+)`|\[\[([^\]\s]+)\]\]``
    (alternatives tried in that order at each position), found in time linear in
    the line: an opener without a closer does not rescan the rest of the line.
    """
    runs: list[tuple[int, int, str, str]] = []
    next_double, next_star = _NextMatch(text, _DOUBLE_STAR), _NextMatch(text, _STAR)
    next_tick, next_ref_stop = _NextMatch(text, _BACKTICK), _NextMatch(text, _REF_STOP)
    size = len(text)
    i = 0
    while (m := _INLINE_OPENER.search(text, i)) is not None:
        i = m.start()
        ch = text[i]
        if ch == "*":
            if text.startswith("**", i) and (j := next_double(i + 3)) >= 0:
                runs.append((i, j + 2, "strong", text[i + 2 : j]))
                i = j + 2
                continue
            opens = (i == 0 or not _word_or_star(text[i - 1])) and i + 1 < size and text[i + 1] != "*" and not text[i + 1].isspace()
            if opens and (j := next_star(i + 2)) >= 0 and (j + 1 == size or not _word_or_star(text[j + 1])):
                runs.append((i, j + 1, "em", text[i + 1 : j]))
                i = j + 1
                continue
        elif ch == "`":
            if (j := next_tick(i + 1)) > i + 1:
                runs.append((i, j + 1, "code", text[i + 1 : j]))
                i = j + 1
                continue
        elif text.startswith("[[", i) and (j := next_ref_stop(i + 2)) > i + 2 and text.startswith("]]", j):
            runs.append((i, j + 2, "ref", text[i + 2 : j]))
            i = j + 2
            continue
        i += 1
    return runs


def parse_inlines(text: str, filename: str, line: int, col: int) -> tuple[n.Inline, ...]:
    """Split a line of prose into text, bold, italic, code and ``[[ref]]`` runs."""
    out: list[n.Inline] = []
    pos = 0
    for start, end, kind, content in inline_runs(text):
        if start > pos:
            out.append(n.Text(text[pos:start]))
        if kind == "strong":
            out.append(n.Strong(content))
        elif kind == "em":
            out.append(n.Emph(content))
        elif kind == "code":
            out.append(n.Code(content))
        else:
            out.append(n.Ref(content, Span(filename, line, col + start, line, col + end)))
        pos = end
    if pos < len(text):
        out.append(n.Text(text[pos:]))
    return tuple(out)


def prose_blocks(lines: list[tuple[int, str]], filename: str) -> list[n.Prose]:
    """Turn prose lines (line number, text) into headings, paragraphs, lists, notes.

    As in the printed manual, every non-empty line of text is a paragraph of its
    own; consecutive list items form one list. Inline runs keep their exact
    columns, so a bad ``[[link]]`` is reported where it is written.
    """
    blocks: list[n.Prose] = []
    items: list[tuple[int, int, str]] = []  # (line, column of the text, text)
    list_kind: bool | None = None
    list_start = 1

    def span(lineno: int, line: str) -> Span:
        return Span(filename, lineno, 1, lineno, len(line) + 1)

    def flush_list() -> None:
        nonlocal list_kind
        if items:
            first, last = items[0][0], items[-1][0]
            blocks.append(
                n.ListBlock(
                    bool(list_kind),
                    tuple(parse_inlines(t, filename, ln, col) for ln, col, t in items),
                    Span(filename, first, 1, last, 1),
                    list_start,
                )
            )
            items.clear()
        list_kind = None

    for lineno, raw in lines:
        line = raw.rstrip()
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped:
            flush_list()
            continue
        if m := _HEADING.match(stripped):
            flush_list()
            title = m.group(2).rstrip("#").rstrip()  # a closing run of #s is not part of the title
            num = _HEADING_NUMBER.match(title)
            col = indent + m.start(2) + 1
            blocks.append(n.Heading(len(m.group(1)), parse_inlines(title, filename, lineno, col), num.group(1) if num else None, span(lineno, line)))
            continue
        if stripped in ("---", "***", "___"):
            flush_list()
            blocks.append(n.Separator(span(lineno, line)))
            continue
        if stripped.startswith(">"):
            flush_list()
            body = stripped[1:]
            lead = len(body) - len(body.lstrip())
            col = indent + 1 + lead + 1
            blocks.append(n.Note(parse_inlines(body.strip(), filename, lineno, col), span(lineno, line)))
            continue
        ordered = _ORDERED.match(stripped)
        bullet = _BULLET.match(stripped) if not ordered else None
        if ordered or bullet:
            m = ordered or bullet
            group = 2 if ordered else 1
            kind = bool(ordered)
            if list_kind is not None and list_kind != kind:
                flush_list()
            if list_kind is None:
                list_start = int(ordered.group(1)) if ordered else 1
            list_kind = kind
            items.append((lineno, indent + m.start(group) + 1, m.group(group)))
            continue
        flush_list()
        blocks.append(n.Paragraph(parse_inlines(stripped, filename, lineno, indent + 1), span(lineno, line)))
    flush_list()
    return blocks
