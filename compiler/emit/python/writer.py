"""The lines of a generated Python module, written at an indentation level.

Reads: statements as docs (:mod:`.layout`), comments and docstrings of rules text.
Produces: :attr:`Writer.lines`, each statement laid out to fit :data:`.layout.WIDTH`
characters, comments and docstrings wrapped to fit (:func:`wrap`: a word longer than a
line is cut, never inside an escape sequence); rules text reaches a comment or a
docstring only through :func:`inline` (escaped: no line break, no quote ends it).
"""

from __future__ import annotations

import re
import textwrap

from rulebook.compiler.emit.python.layout import INDENT, WIDTH, Chain, Doc, Seq, flat, laid_out, layout, must_break


def inline(text: str) -> str:
    """Rules text made safe inside a generated docstring or comment: its ``repr()``
    without the quotes (no line breaks, backslashes escaped), double quotes escaped."""
    return repr(text)[1:-1].replace('"', '\\"')


_ESCAPED_CHARACTER = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)|.", re.DOTALL)
"""One character of :func:`inline`'s text: an escape sequence, or a character as it is."""


def wrap(text: str, room: int, indent: str = "") -> list[str]:
    """``text`` (made safe by :func:`inline`) in lines of at most ``room`` characters, broken
    after spaces; the lines after the first start with ``indent``. A word longer than a line
    is cut, between two of its characters (an escape sequence is one: a docstring never
    ends a line inside one)."""
    lines = textwrap.wrap(text, room, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    if all(len(line) <= room for line in lines):
        return lines
    cut_lines: list[str] = []
    for line in lines:
        while len(line) > room:
            head = ""
            for match in _ESCAPED_CHARACTER.finditer(line):
                if len(head) + len(match.group()) > room and len(head) > len(indent):
                    break
                head += match.group()
            cut_lines.append(head)
            line = indent + line[len(head):]
        cut_lines.append(line)
    return cut_lines


class Writer:
    """Lines of a module body with an indentation level; statements are laid out to fit."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 0

    def line(self, text: str = "") -> None:
        self.lines.append((INDENT * self.level + text) if text else "")

    def code(self, doc: Doc, note: str | None = None) -> None:
        """A statement (or a module-level assignment, an entry of a literal), broken over lines
        when too long. ``note``: a comment of rules text (made safe by :func:`inline`) after
        it on its line when the statement takes one line and the comment fits, else on lines
        of its own above it."""
        indent = len(INDENT) * self.level
        try:
            lines = laid_out(doc, indent)
        except TypeError:  # a part that does not hash: laid out each time
            lines = layout(doc, indent, indent, 0)
        first = INDENT * self.level + lines[0]
        if note is not None:
            comment = "  # " + inline(note)
            if len(lines) == 1 and len(first) + len(comment) <= WIDTH:
                first += comment
            else:
                self.comment(note)
        self.lines.append(first)
        self.lines.extend(lines[1:])

    def comment(self, text: str) -> None:
        """A comment (rules text made safe by :func:`inline`), wrapped to fit."""
        room = WIDTH - len(INDENT) * self.level - 2
        for line in wrap(inline(text), room, indent="  "):
            self.line("# " + line)

    def docstring(self, lines: list[str]) -> None:
        """A docstring of rules text (made safe by :func:`inline`), each line wrapped to fit."""
        room = WIDTH - len(INDENT) * self.level - 6
        wrapped: list[str] = []
        for line in lines:
            wrapped.extend(wrap(inline(line), room) or [""])
        wrapped[0] = '"""' + wrapped[0]
        wrapped[-1] += '"""'
        for line in wrapped:
            self.line(line)

    def condition(self, keyword: str, cond: Doc) -> None:
        """``if cond:``: a chain without its parentheses when the line fits."""
        self.statement(keyword + " ", cond, ":")

    def statement(self, head: str, value: Doc, tail: str = "") -> None:
        """``head value tail`` (``x = value``, ``return value``, ``if value:``): a chain
        without its parentheses when the line fits."""
        if isinstance(value, Chain) and not must_break(value):
            bare = f"{head}{flat(value._replace(parens=False))}{tail}"
            if len(INDENT) * self.level + len(bare) <= WIDTH:
                self.line(bare)
                return
        self.code(Seq((head, value, tail)))

    def indent(self) -> None:
        self.level += 1

    def outdent(self) -> None:
        self.level -= 1
