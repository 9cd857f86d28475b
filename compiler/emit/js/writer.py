"""The lines of a generated JavaScript module, and what its code cites.

Reads: nothing of the IR. Produces: :class:`Writer` (lines with indentation, comments made
safe by :func:`.names.comment`) and :class:`Module` (the source positions the code cites,
numbered in the order first cited: ``$SRC[i]``; the random variables built once:
``$RV_i``), whose tables are written at the top of the module.
"""

from __future__ import annotations

from rulebook.compiler.emit.js.names import comment, js_string

INDENT = "  "


class Writer:
    """Lines of code at an indentation level."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 0

    def line(self, text: str = "") -> None:
        self.lines.append(INDENT * self.level + text if text else "")

    def comment(self, text: str) -> None:
        self.line("// " + comment(text))

    def indent(self) -> None:
        self.level += 1

    def outdent(self) -> None:
        self.level -= 1

    def text(self) -> str:
        return "\n".join(self.lines)


class Module:
    """What the code of one module cites: source positions and random variables built once."""

    def __init__(self) -> None:
        self.sources: dict[str, int] = {}
        self.hoisted: dict[str, int] = {}

    def src(self, span) -> str:
        index = self.sources.setdefault(span.src, len(self.sources))
        return f"$SRC[{index}]"

    def hoist(self, code: str) -> str:
        index = self.hoisted.setdefault(code, len(self.hoisted) + 1)
        return f"$RV_{index}"

    def sources_table(self, w: Writer) -> None:
        """``const $SRC = [...]``: one position per line, numbered."""
        w.comment("source positions (file.rules:LINE) cited below as $SRC[i]")
        w.line("const $SRC = Object.freeze([")
        w.indent()
        for text, i in self.sources.items():
            w.line(f"{js_string(text)}, // {i}")
        w.outdent()
        w.line("]);")

    def hoisted_table(self, w: Writer) -> None:
        """``const $RV_i = …``: after the dice they roll."""
        if self.hoisted:
            w.line()
            w.comment("random variables of a fixed shape, built once (their distributions are computed on first use)")
            for code, i in self.hoisted.items():
                w.line(f"const $RV_{i} = {code};")
