"""Positions between the compiler and the editor.

Entry point: :class:`Locator(analysis, codec)`. Reads an analysis (its files
and texts) and the position encoding agreed with the client; converts a
:class:`~rulebook.rules_dsl.diagnostics.Span` (1-based lines, columns counted in
characters, end exclusive) into an LSP ``Location``/``Range`` (0-based, columns
in the client's code units: UTF-16 unless it asked for another), and a client
position into the 1-based line and column of a span.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.lsp.workspace import Analysis


class Locator:
    """Span ↔ LSP position conversions for the files of one analysis."""

    def __init__(self, analysis: Analysis, codec: PositionCodec):
        self.analysis = analysis
        self.codec = codec
        self._lines: dict[str, list[str]] = {}

    def lines(self, file: str) -> list[str]:
        if file not in self._lines:
            self._lines[file] = self.analysis.sources.get(file, "").splitlines()
        return self._lines[file]

    def uri(self, file: str) -> str:
        path = self.analysis.paths.get(file)
        return (from_fs_path(str(path)) if path is not None else None) or Path(file).absolute().as_uri()

    def range(self, span: Span) -> types.Range:
        """The editor range of ``span`` (a span without a line, such as a file
        that cannot be read, is the start of the file)."""
        if span.line < 1:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        lines = self.lines(span.file)
        start = self._position(lines, span.line, span.col)
        end = self._position(lines, span.end_line or span.line, span.end_col or span.col)
        return types.Range(start, end)

    def location(self, span: Span) -> types.Location:
        return types.Location(uri=self.uri(span.file), range=self.range(span))

    def _position(self, lines: list[str], line: int, col: int) -> types.Position:
        if line > len(lines):
            return types.Position(max(len(lines), 1) - 1 if lines else 0, len(lines[-1]) if lines else 0)
        text = lines[line - 1]
        return types.Position(line - 1, self.codec.client_num_units(text[: max(col - 1, 0)]))

    def span_position(self, file: str, position: types.Position) -> tuple[int, int]:
        """The 1-based line and character column of a client position in ``file``."""
        lines = self.lines(file)
        at = self.codec.position_from_client_units(lines, types.Position(position.line, position.character))
        return at.line + 1, at.character + 1
