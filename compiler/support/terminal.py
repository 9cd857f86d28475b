"""The one filter between what a command writes and the terminal that shows it.

Reads: text a command prints (diagnostics, reports, sheets, JSON), which may quote a
rules file, a roster or a build someone sent. Produces: the same text with every
character that can drive a terminal made harmless — C0 and C1 control characters
(ESC starts the sequences that move the cursor, clear the screen, set the window
title; a CR rewrites the line), DEL, the line and paragraph separators, the
bidirectional overrides and isolates (they reorder what is shown) and lone
surrogates (not characters; they cannot even be encoded). The characters are those
of :func:`rulebook.rules_dsl.diagnostics.has_control`, which the diagnostics already
show this way; newlines and tabs are kept.

Two renderings of the same filter:

* text (:func:`visible`): each such character becomes a visible symbol of the same
  width (ESC → ␛, NUL → ␀, the others → �); :func:`one_line` shows newlines and tabs
  that way too, for a value quoted inside a line;
* JSON (:func:`json_safe`): each becomes its ``\\uXXXX`` escape. JSON text holds such
  characters only inside strings (``json.dumps`` already escapes U+0000–U+001F; DEL,
  the C1 controls, the separators, the overrides and lone surrogates it leaves as
  they are), so the document read back is the same.

:func:`filtered` puts it in front of ``sys.stdout`` and ``sys.stderr`` for the
length of a command (``rulebook.compiler.commands.cli.main``): everything the
command prints goes through it, whichever module prints.
"""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Iterator, TextIO

from rulebook.rules_dsl.diagnostics import _CONTROL as _UNSAFE  # the characters, one class for both renderings
from rulebook.rules_dsl.diagnostics import visible as _symbols


def visible(text: str) -> str:
    """``text`` safe to show: control characters as visible symbols, newlines and tabs kept."""
    return _symbols(text, keep_newlines=True)


def one_line(text: str) -> str:
    """:func:`visible`, with newlines and tabs shown as symbols too: a value quoted in a
    message (a file's text) that cannot start a line of its own."""
    return _symbols(text)


def json_safe(text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with the
    characters :func:`visible` replaces written as ``\\uXXXX`` escapes: the same JSON."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class FilteredStream(io.TextIOBase):
    """A text stream that writes to ``target`` through :func:`visible` (or :func:`json_safe`)."""

    def __init__(self, target: TextIO, json: bool = False) -> None:
        self.target = target
        self._filter = json_safe if json else visible

    def write(self, text: str) -> int:
        self.target.write(self._filter(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


@contextlib.contextmanager
def filtered(json_stdout: bool = False) -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` through the filter while the block runs
    (``json_stdout``: the command writes JSON on its standard output)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = FilteredStream(out, json=json_stdout)
    sys.stderr = FilteredStream(err)
    try:
        yield
    finally:
        if isinstance(sys.stdout, FilteredStream):
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err
