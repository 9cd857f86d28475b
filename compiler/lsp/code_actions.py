"""Quick fixes: the rewrites the diagnostics carry, as LSP code actions.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis` (its diagnostics, each with
``fix``: the exact rewrite of its hint, and ``suggest``: the rewrites it proposes without
certainty) and the range an editor asks about. Produces ``textDocument/codeAction``
answers:

* for each diagnostic of the range with an exact rewrite (an old syntax written the new way,
  an enum value's spelling from before the naming rule, ``probability(…)`` around a true/false
  result), one preferred ``quickfix`` making it: the edits ``rulebook check --fix`` makes
  (:mod:`rulebook.compiler.commands.fix`; both make them with
  :func:`rulebook.rules_dsl.diagnostics.rewrite`);
* for each rewrite a diagnostic suggests (each did-you-mean guess, removing a declaration
  nothing uses), one ``quickfix`` making it;
* once per file, a ``source.fixAll`` action making every exact rewrite of the file together,
  as ``rulebook check --fix`` does (none when they overlap).
"""

from __future__ import annotations

from lsprotocol import types

from rulebook.rules_dsl.diagnostics import Diagnostic, Edit, rewrite

from rulebook.compiler.lsp.features import diagnostics_of_file, lsp_diagnostic
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.workspace import Analysis

FIX_ALL = types.CodeActionKind.SourceFixAll + ".rulebook"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]


def code_actions(analysis: Analysis, locator: Locator, file: str, wanted: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
    """The quick fixes of the diagnostics of ``file`` touching ``wanted``, then fix-all."""
    out: list[types.CodeAction] = []
    mine = diagnostics_of_file(analysis, file)
    if _asked(only, types.CodeActionKind.QuickFix):
        for d in mine:
            r = locator.range(d.span)
            if not _touches(r, wanted):
                continue
            shown = lsp_diagnostic(d, d.span, locator)
            if d.fix:
                out.append(_action(locator, _fix_title(d), d.fix, [shown], preferred=True))
            for edit in d.suggest:
                out.append(_action(locator, _suggest_title(d, edit, locator), (edit,), [shown], preferred=False))
    exact = [e for d in mine for e in d.fix]
    if exact and _asked(only, FIX_ALL) and rewrite(analysis.sources.get(file, ""), exact) is not None:
        count = len({(e.span, e.text) for e in exact})
        title = "Fix all: make the exact rewrite of every hint in this file" if count > 1 else "Fix all: make the exact rewrite of the hint in this file"
        out.append(types.CodeAction(title=title, kind=FIX_ALL, edit=_workspace_edit(locator, exact)))
    return out


def _asked(only: list[str] | None, kind: str) -> bool:
    """Whether the client asked for actions of ``kind`` (a kind matches its parents: ``source`` asks for ``source.fixAll``)."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _touches(r: types.Range, wanted: types.Range) -> bool:
    start, end = (r.start.line, r.start.character), (r.end.line, r.end.character)
    return start <= (wanted.end.line, wanted.end.character) and (wanted.start.line, wanted.start.character) <= end


def _action(locator: Locator, title: str, edits, shown: list[types.Diagnostic], preferred: bool) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=shown, is_preferred=preferred, edit=_workspace_edit(locator, edits))


def _workspace_edit(locator: Locator, edits) -> types.WorkspaceEdit:
    changes: dict[str, list[types.TextEdit]] = {}
    for e in {(e.span, e.text): e for e in edits}.values():
        changes.setdefault(locator.uri(e.span.file), []).append(types.TextEdit(range=locator.range(e.span), new_text=e.text))
    return types.WorkspaceEdit(changes=changes)


def _fix_title(d: Diagnostic) -> str:
    first = (d.hint or "").split("\n")[0].rstrip(":").strip()
    if len(d.fix) == 1 and "\n" not in d.fix[0].text and len(d.fix[0].text) <= 60:
        return f"Write '{d.fix[0].text}'" + (f" ({first})" if first and d.fix[0].text not in first else "")
    return f"Rewrite: {first}" if first else "Rewrite as the hint says"


def _suggest_title(d: Diagnostic, edit: Edit, locator: Locator) -> str:
    if edit.text == "":
        return f"Remove it: {d.message}"
    old = _text_of(locator, edit)
    return f"Change '{old}' to '{edit.text}'" if old and len(old) <= 60 else f"Write '{edit.text}'"


def _text_of(locator: Locator, edit: Edit) -> str:
    s = edit.span
    lines = locator.lines(s.file)
    if s.line != s.end_line or not 0 < s.line <= len(lines):
        return ""
    return lines[s.line - 1][s.col - 1 : s.end_col - 1]
