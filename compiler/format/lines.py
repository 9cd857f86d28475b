"""One line of code as the layout sets it.

Reads nothing. Produces :class:`Line` (indentation, tokens, the space before each, its
comment, and the row it belongs to), which :mod:`rulebook.compiler.format.layout` fills
and :mod:`rulebook.compiler.format.rows` aligns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .tokens import Tok

INDENT = "  "
"""One level of indentation."""


@dataclass(slots=True)
class Line:
    """One line of code, laid out: its indentation, tokens, the space before each, its comment."""

    depth: int
    toks: list[Tok]
    comment: str
    gaps: list[str] = field(default_factory=list)
    row_of: int | None = None  # the block (its opening line) whose row this line is
    complete_row: bool = False  # the row ends on this line (no bracket left open)
    body: str | None = None  # the tokens as the row alignment set them

    def text(self) -> str:
        body = self.body if self.body is not None else "".join(g + t.text for g, t in zip(self.gaps, self.toks))
        if self.comment:
            body = f"{body}  {self.comment}" if body else self.comment
        return (INDENT * self.depth + body) if body else ""
