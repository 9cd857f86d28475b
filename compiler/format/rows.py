"""The rows of a ``catalog`` or ``table`` aligned as columns.

Reads the laid-out lines of the rows of each block (:class:`rulebook.compiler.format.layout.Line`
with ``row_of`` set). Produces their text aligned (each line's ``body``), per block:

* a row's cells are separated by the ``|`` outside brackets; a table row's keys and its
  label (the string after them) are two columns separated by one space; the names of a
  ``columns`` line stand over the values they name (``columns`` in the id's column);
* columns are aligned from the left, each as wide as its widest cell, while that cell is
  at most :data:`WIDE_CELL` characters and the aligned part of the rows stays within
  :data:`ALIGN_WIDTH`; from the first column that is too wide (a long text, a list of
  weapons) the rest of each row follows with single separators: wide rows are not padded
  into wider ones;
* a row its author wrapped (a list or record value over several lines) is aligned up to
  the cell that opens the wrap; its following lines are indented by their brackets, and
  the wrap's closing bracket stands at the row's indentation;
* a row's last cell is never padded (no trailing spaces).
"""

from __future__ import annotations

import unicodedata

from .lines import INDENT, Line

ALIGN_WIDTH = 240
"""Rows are aligned as columns up to this many characters (indentation included)."""

WIDE_CELL = 60
"""A column whose widest cell is wider than this (a long text, a list of weapons) is not
padded, and the columns after it are not aligned."""

INDENT_WIDTH = len(INDENT)


def width(text: str) -> int:
    """How many columns ``text`` takes in a monospaced editor (wide characters 2, combining 0)."""
    if text.isascii():
        return len(text)
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def _cells(line: Line) -> tuple[list[tuple[str, str]], int]:
    """The complete cells of a row line as (separator before, text), and the index of the
    first token after them (``len(line.toks)`` when the row ends on the line)."""
    toks, gaps = line.toks, line.gaps
    segments: list[tuple[int, int]] = []  # token ranges between the | outside brackets
    depth, start = 0, 0
    for i, t in enumerate(toks):
        if t.kind != "sign":
            continue
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif t.text == "|" and depth == 0:
            segments.append((start, i))
            start = i + 1
    complete_end = len(toks) if line.complete_row else start
    if line.complete_row:
        segments.append((start, len(toks)))

    def text(a: int, b: int) -> str:
        return "".join((g if k > a else "") + toks[k].text for k, g in zip(range(a, b), gaps[a:b]))

    cells: list[tuple[str, str]] = []
    for n, (a, b) in enumerate(segments):
        if n == 0:
            lead = toks[a:b]
            if len(lead) > 1 and lead[0].text == "columns" and lead[0].kind == "word":
                cells += [("", "columns"), (" ", ""), ("   ", text(a + 1, b))]
            elif len(lead) > 1 and lead[-1].kind == "string" and lead[-2].text != ",":
                cells += [("", text(a, b - 1)), (" ", lead[-1].text)]
            else:
                cells += [("", text(a, b)), (" ", "")]
        else:
            cells.append((" | ", text(a, b)))
    return cells, complete_end


def align_rows(lines: list[Line]) -> None:
    """Align the rows of each block (see the module's docstring); sets each line's ``body``."""
    blocks: dict[int, list[Line]] = {}
    for line in lines:
        blocks.setdefault(line.row_of, []).append(line)
    for rows in blocks.values():
        _align_block(rows)


def _align_block(rows: list[Line]) -> None:
    parsed = [_cells(line) for line in rows]
    labelled = any(cells[1][1] for cells, _end in parsed if len(cells) > 1)
    tables: list[list[tuple[str, str]]] = []
    for cells, _end in parsed:
        if cells and cells[0][1] == "columns" and len(cells) > 2 and cells[1][1] == "":
            cells = [cells[0]] + ([cells[1]] if labelled else []) + cells[2:]
        elif not labelled and len(cells) > 1:
            cells = [cells[0]] + cells[2:]
        tables.append(cells)
    columns = max((len(c) for c in tables), default=0)
    widths: list[int] = []
    at = INDENT_WIDTH * (rows[0].depth if rows else 0)
    for j in range(columns):
        cells_j = [c[j][1] for c, (_o, end), line in zip(tables, parsed, rows) if len(c) > j + 1 or (len(c) > j and end < len(line.toks))]  # padded where something follows
        if not cells_j:
            break
        w = max(width(t) for t in cells_j)
        seps = [width(c[j][0]) for c in tables if len(c) > j]
        at += max(seps, default=0)
        if w > WIDE_CELL or at + w > ALIGN_WIDTH:
            break
        widths.append(w)
        at += w
    for line, cells, (_orig, end) in zip(rows, tables, parsed):
        out: list[str] = []
        for j, (sep, text) in enumerate(cells):
            padded = j < len(widths) and (j + 1 < len(cells) or end < len(line.toks))
            if not text and not padded and sep == " ":
                continue  # an empty label past the aligned columns
            out.append(sep)
            out.append(text + " " * (widths[j] - width(text)) if padded else text)
        body = "".join(out)
        if end < len(line.toks):
            rest = "".join((g if k > end else "") + t.text for k, g, t in zip(range(end, len(line.toks)), line.gaps[end:], line.toks[end:]))
            body = f"{body} | {rest}" if cells else rest
        line.body = body
