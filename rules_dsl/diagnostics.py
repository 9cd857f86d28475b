"""Source spans and diagnostics.

Every error or warning the toolchain reports is a :class:`Diagnostic` carrying a
:class:`Span`. Rendering adds ``file:line:col``, the source line and a caret,
what was expected and an optional hint (did-you-mean). Stages collect
diagnostics in a :class:`Reporter` and the driver reports them all together.

Rendering is safe for a terminal and bounded: control characters from a rules
file are shown as visible symbols, a long source line is cut to a window
around the caret, and each source is split into lines once for all its
diagnostics.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
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
        if self.line <= 0:  # a whole file or folder, or no place in any file
            return self.file
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def src(self) -> str:
        """``file:line``, as cited by generated code and runtime errors."""
        return f"{self.file}:{self.line}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)

SHOWN_COLUMNS = 120
"""The widest part of a source line a diagnostic shows."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_CONTROL_OR_NEWLINE = re.compile(_CONTROL.pattern[:-1] + r"\n\t]")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character, a line or paragraph separator,
    a bidirectional override or a lone surrogate (an undecodable byte of a file name)."""
    return _CONTROL_OR_NEWLINE.search(text) is not None


def escaped(text: str) -> str:
    """``text`` with each character :func:`has_control` looks for written as a
    Python escape (``\\n``, ``\\x1b``, ``\\u202e``): one line, safe to print."""
    return _CONTROL_OR_NEWLINE.sub(lambda m: repr(m.group())[1:-1], text)


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with control characters (and bidirectional overrides) replaced by
    visible symbols of the same width, so that what a rules file contains cannot
    move the cursor, recolour or rewrite a terminal: NUL becomes ␀, ESC ␛, …"""
    pattern = _CONTROL if keep_newlines else _CONTROL_OR_NEWLINE
    return pattern.sub(_symbol, text)


def _symbol(m: re.Match) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block
    return "\u2421" if code == 0x7F else "\ufffd"


@lru_cache(maxsize=4)
def _lines(text: str) -> list[str]:
    """The lines of a source, split once however many diagnostics it has."""
    return text.splitlines()


def _window(line: str, col: int, width: int) -> tuple[str, int, int]:
    """The part of ``line`` to show for columns ``col`` .. ``col + width``: at most
    :data:`SHOWN_COLUMNS` wide, with … where it was cut; returns (text, col, width)
    with the column and caret width moved into the shown part."""
    width = max(1, min(width, len(line) - col + 2))
    if len(line) <= SHOWN_COLUMNS:
        return line, col, width
    start = max(0, min(col - 1 - SHOWN_COLUMNS // 4, len(line) - SHOWN_COLUMNS))
    shown = line[start : start + SHOWN_COLUMNS]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + SHOWN_COLUMNS < len(line) else ""
    width = max(1, min(width, start + SHOWN_COLUMNS - col + 2))
    return prefix + shown + suffix, col - start + len(prefix), width


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
        out = [visible(f"{self.span}: {self.severity}: {self.message}", keep_newlines=True)]
        text = (sources or {}).get(self.span.file)
        if text is not None and self.span.line > 0:
            lines = _lines(text)
            if self.span.line <= len(lines):
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                src_line, col, width = _window(visible(lines[self.span.line - 1].expandtabs(1)), self.span.col, width)
                gutter = f"{self.span.line:>5} | "
                out.append(gutter + src_line)
                out.append(" " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" * width)
        if self.hint:
            out.append(visible(f"hint: {self.hint}", keep_newlines=True))
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


MAX_SUGGESTED_NAME = 100
"""Names longer than this get no did-you-mean (comparing them costs their length squared)."""


def did_you_mean(name: str, candidates: Iterable) -> str | None:
    """The closest candidate to a misspelt ``name``, if any is close enough;
    candidates that are not strings (e.g. numeric table keys) are ignored."""
    if len(name) > MAX_SUGGESTED_NAME:
        return None
    pool = sorted({c for c in candidates if isinstance(c, str) and len(c) <= MAX_SUGGESTED_NAME})
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
