"""Inlay hints: the type of each ``let`` value, and the field of each cell of a positional catalog row.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis` (the symbol index's ``let``
definitions with the types the checker gave them; the parsed catalogs of a file, their
``columns`` or their record's fields in order) and the range the editor shows. Produces
``textDocument/inlayHint`` answers:

* after the name of a ``let`` value (and of a value a loop carries): ``: type``;
* before each cell written by position in a catalog row: ``field:`` (a row of fourteen
  columns reads ``… movimiento: 4 disparo: 5 …``, so a value is never read against the
  wrong heading); the cells of a row's closing ``(field: value, …)`` are named already.
"""

from __future__ import annotations

from lsprotocol import types

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.data import named_cells
from rulebook.compiler.lsp.index import build_index
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.workspace import Analysis


def inlay_hints(analysis: Analysis, locator: Locator, file: str, shown: types.Range) -> list[types.InlayHint]:
    """The hints of ``file`` between the lines of ``shown``."""
    first, last = shown.start.line + 1, shown.end.line + 1  # 1-based lines of spans
    hints = _let_types(analysis, locator, file, first, last) + _cell_fields(analysis, locator, file, first, last)
    hints.sort(key=lambda h: (h.position.line, h.position.character))
    return hints


def _let_types(analysis: Analysis, locator: Locator, file: str, first: int, last: int) -> list[types.InlayHint]:
    out = []
    for occ in build_index(analysis).by_file.get(file, ()):
        if not (first <= occ.span.line <= last) or not occ.definition or occ.target.kind != "local" or occ.type is None:
            continue
        if occ.type.kind in ("any", "error"):
            continue
        end = locator.range(occ.span).end
        out.append(types.InlayHint(position=end, label=f": {occ.type}", kind=types.InlayHintKind.Type, padding_left=False))
    return out


def _cell_fields(analysis: Analysis, locator: Locator, file: str, first: int, last: int) -> list[types.InlayHint]:
    module = analysis.modules.get(file)
    if module is None:
        return []
    out = []
    for item in module.items:
        if not isinstance(item, n.CatalogDecl) or item.span.end_line < first or item.span.line > last:
            continue
        record = analysis.known.get(item.record)
        fields = {f.name: f.type for f in record.fields} if isinstance(record, ir.Record) else {}
        columns = list(item.columns) if item.columns is not None else list(fields)
        for row in item.rows:
            if not (first <= row.span.line <= last):
                continue
            named = named_cells(row.values, columns, fields)
            positional = row.values[:-1] if named is not None else row.values
            for column, value in zip(columns, positional):
                at = locator.range(value.span).start
                out.append(types.InlayHint(position=at, label=f"{column}:", kind=types.InlayHintKind.Parameter, padding_right=True))
    return out
