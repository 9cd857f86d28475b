"""Source spans and diagnostics.

Every error or warning the toolchain reports is a :class:`Diagnostic` carrying a
:class:`Span`. Rendering adds ``file:line:col``, the source line and a caret,
what was expected and an optional hint (did-you-mean). Stages collect
diagnostics in a :class:`Reporter` and the driver reports them all together.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Iterable


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file (1-based lines and columns, end exclusive)."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def src(self) -> str:
        """``file:line``, as cited by generated code and runtime errors."""
        return f"{self.file}:{self.line}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error or warning, with where it is and how to fix it."""

    severity: str  # "error" | "warning"
    message: str
    span: Span
    hint: str | None = None
    code: str = ""

    def render(self, sources: dict[str, str] | None = None) -> str:
        """Human-readable form: position, message, source line with caret, hint."""
        out = [f"{self.span}: {self.severity}: {self.message}"]
        text = (sources or {}).get(self.span.file)
        if text is not None and self.span.line > 0:
            lines = text.splitlines()
            if self.span.line <= len(lines):
                src_line = lines[self.span.line - 1].expandtabs(1)
                gutter = f"{self.span.line:>5} | "
                out.append(gutter + src_line)
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                width = max(1, min(width, len(src_line) - self.span.col + 2))
                out.append(" " * (len(gutter) - 2) + "| " + " " * (self.span.col - 1) + "^" * width)
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.col,
            "end_line": self.span.end_line,
            "end_column": self.span.end_col,
            "hint": self.hint,
        }


@dataclass
class Reporter:
    """Collects the diagnostics of a run; stages add to it and go on."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, span: Span, hint: str | None = None, code: str = "") -> None:
        self.diagnostics.append(Diagnostic("error", message, span, hint, code))

    def warning(self, message: str, span: Span, hint: str | None = None, code: str = "") -> None:
        self.diagnostics.append(Diagnostic("warning", message, span, hint, code))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message))


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt ``name``, if any is close enough."""
    pool = sorted(set(candidates))
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    match = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return match[0] if match else None


def render_all(diagnostics: Iterable[Diagnostic], sources: dict[str, str], fmt: str = "text") -> str:
    """All diagnostics in text (with carets) or JSON form, sorted by position."""
    diags = sorted(diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message))
    if fmt == "json":
        return json.dumps([d.to_json() for d in diags], ensure_ascii=False, indent=2)
    blocks = [d.render(sources) for d in diags]
    n_err = sum(d.severity == "error" for d in diags)
    n_warn = len(diags) - n_err
    if diags:
        blocks.append(f"{n_err} error(s), {n_warn} warning(s)")
    return "\n\n".join(blocks[:-1]) + ("\n\n" if len(blocks) > 1 else "") + blocks[-1] if blocks else ""
