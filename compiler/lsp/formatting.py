"""``textDocument/formatting`` and ``textDocument/rangeFormatting``: ``rulebook fmt`` in the editor.

Reads an open document's text (and, for a range, the lines it covers). Produces the text
edits that put it in the canonical layout (:func:`rulebook.compiler.format.format_source`):
the whole file, or the ``rules`` fences that intersect the range. The edits replace whole
lines (a line-by-line diff, so the editor keeps its place elsewhere). Nothing is
proposed when the document does not parse, or when the new layout would not mean the same
(:func:`rulebook.compiler.format.same_meaning`).
"""

from __future__ import annotations

import difflib

from lsprotocol import types

from rulebook.compiler.format import format_source, same_meaning


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _edits(old: str, new: str) -> list[types.TextEdit]:
    """Whole-line edits turning ``old`` into ``new``."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)

    def at(line: int) -> types.Position:
        if line >= len(a) and a and not a[-1].endswith(("\n", "\r")):
            return types.Position(line=len(a) - 1, character=_utf16(a[-1]))
        return types.Position(line=line, character=0)

    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            edits.append(types.TextEdit(range=types.Range(start=at(i1), end=at(i2)), new_text="".join(b[j1:j2])))
    return edits


def format_document(text: str, name: str, first_line: int | None = None, last_line: int | None = None) -> list[types.TextEdit]:
    """The edits formatting ``text`` (the open document ``name``); with ``first_line`` and
    ``last_line`` (0-based), only the fences that intersect those lines."""
    wanted = None
    if first_line is not None and last_line is not None:
        def wanted(open_line: int, close_line: int) -> bool:
            return open_line <= last_line and close_line >= first_line
    formatted = format_source(text, wanted)
    if not formatted.changed or not same_meaning(text, formatted.text, name):
        return []
    return _edits(text, formatted.text)
