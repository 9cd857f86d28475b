"""Rename: every occurrence of a name across the files of a rulebook, or a clear refusal.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis`, the position of a name and the
new name. Produces, for ``textDocument/prepareRename``, the range of the name under the
cursor (or :class:`RenameRefused` for what cannot be renamed: a built-in, a clause word, an
annotation, a keyword, a place with no name) and, for ``textDocument/rename``, a
``WorkspaceEdit`` replacing every occurrence the symbol index
(:mod:`~rulebook.compiler.lsp.index`) knows of the same target: declarations, catalog and
table ids (bare in catalog cells, tables, armies and examples, ``Catalog.id`` in code,
``[[catalog#id]]`` in prose), fields, enum values, kinds of tokens, parameters, ``let``
values, army choices and glossary terms (``[[term]]``).

A rename is refused, with a message saying why, when the new name is not a name of the
language (``[^\\W\\d]\\w*``), is a reserved word, is already a name of the same kind where
the old one lives (another declaration, a field of the same record, a value of the same
enum, an id of the same catalog, a parameter or value of the same procedure), or when the
rulebook renamed would not check as cleanly as before (a clash the rules above do not see,
or an occurrence the index misses): the renamed texts are checked in memory first.
"""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from rulebook.rules_dsl.diagnostics import Edit, rewrite
from rulebook.rules_dsl.keywords import KEYWORDS, PRIMITIVE_TYPE_NAMES

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.lsp.index import Occurrence, SymbolIndex, Target, build_index
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.workspace import Analysis, check_texts

NAME = re.compile(r"[^\W\d]\w*")
RENAMABLE = ("decl", "member", "field", "entry", "param", "local", "choice")
_NOT_RENAMABLE = {
    "builtin": "'{name}' is a built-in function of the language; it cannot be renamed",
    "clause": "'{name}' is a clause word of the language; it cannot be renamed",
    "annotation": "'@{name}' is an annotation of the language; it cannot be renamed",
    "warning": "'{name}' is a kind of warning of the checker; it cannot be renamed",
}


class RenameRefused(JsonRpcException):
    """A rename the server will not make; the message says why (LSP ``RequestFailed``)."""

    CODE = -32803


def prepare_rename(analysis: Analysis, locator: Locator, file: str, line: int, col: int) -> types.PrepareRenameResult:
    """The range and text of the name at ``line:col``, if it can be renamed."""
    occ = _renamable_at(analysis, file, line, col)
    return types.PrepareRenamePlaceholder(range=locator.range(occ.span), placeholder=occ.target.name)


def rename(analysis: Analysis, locator: Locator, file: str, line: int, col: int, new_name: str) -> types.WorkspaceEdit:
    """Every occurrence of the name at ``line:col`` replaced by ``new_name``, in every file."""
    occ = _renamable_at(analysis, file, line, col)
    target = occ.target
    if new_name == target.name:
        return types.WorkspaceEdit(changes={})
    index = build_index(analysis)
    _refuse_bad_name(new_name, target)
    _refuse_clash(analysis, index, target, new_name)
    edits = rename_edits(analysis, index, target, new_name)
    _refuse_if_worse(analysis, edits)
    changes: dict[str, list[types.TextEdit]] = {}
    for e in edits:
        changes.setdefault(locator.uri(e.span.file), []).append(types.TextEdit(range=locator.range(e.span), new_text=e.text))
    return types.WorkspaceEdit(changes=changes)


def rename_edits(analysis: Analysis, index: SymbolIndex, target: Target, new_name: str) -> list[Edit]:
    """The edits renaming every occurrence of ``target`` (a catalog id written in quotes keeps
    its quotes: the occurrence is the text between them)."""
    lines = {name: text.splitlines() for name, text in analysis.sources.items()}
    edits: dict[tuple, Edit] = {}
    for o in index.references(target):
        s = o.span
        text = lines.get(s.file, [])
        if s.line != s.end_line or not 0 < s.line <= len(text) or text[s.line - 1][s.col - 1 : s.end_col - 1] != target.name:
            raise RenameRefused(f"'{target.name}' is written at {s} in a way the rename cannot change safely; rename it by hand")
        edits[(s.file, s.line, s.col)] = Edit(s, new_name)
    return sorted(edits.values(), key=lambda e: (e.span.file, e.span.line, e.span.col))


# ---------------------------------------------------------------------------- refusals


def _renamable_at(analysis: Analysis, file: str, line: int, col: int) -> Occurrence:
    occ = build_index(analysis).at(file, line, col)
    if occ is None:
        raise RenameRefused("there is no name here that can be renamed")
    t = occ.target
    if t.kind in _NOT_RENAMABLE:
        raise RenameRefused(_NOT_RENAMABLE[t.kind].format(name=t.name))
    if t.kind not in RENAMABLE:
        raise RenameRefused(f"'{t.name}' cannot be renamed")
    if t.kind == "decl" and t.name not in analysis.known and not any(o.definition for o in build_index(analysis).references(t)):
        raise RenameRefused(f"'{t.name}' is not declared in this rulebook; nothing to rename")
    if t.kind == "local" and t.name == "result" and t.where is None:
        raise RenameRefused("'result' is the outcome of the procedure; it cannot be renamed")
    return occ


def _refuse_bad_name(new_name: str, target: Target) -> None:
    if not NAME.fullmatch(new_name):
        raise RenameRefused(f"'{new_name}' is not a name: a name starts with a letter or _ and goes on with letters, digits or _")
    if new_name in KEYWORDS:
        raise RenameRefused(f"'{new_name}' is a reserved word of the language; choose another name, e.g. '{new_name}_'")
    if target.kind in ("decl", "param", "local") and (new_name in BUILTINS or new_name in PRIMITIVE_TYPE_NAMES or new_name == "result"):
        raise RenameRefused(f"'{new_name}' is a name of the language (a built-in, a type or result); choose another name")


_KIND_WORDS = {"decl": "a declaration", "member": "a value of {owner}", "field": "a field of {owner}", "entry": "an id of {owner}",
               "param": "a name in {owner}", "local": "a name in {owner}", "choice": "a name in army {owner}"}


def _refuse_clash(analysis: Analysis, index: SymbolIndex, target: Target, new_name: str) -> None:
    """Refuse ``new_name`` when it already names something of the same kind where ``target`` lives."""
    taken = _names_beside(analysis, index, target)
    if new_name in taken:
        what = _KIND_WORDS[target.kind].format(owner=target.owner)
        raise RenameRefused(f"'{new_name}' is already {what}{_where(index, taken[new_name])}; renaming '{target.name}' to it would clash")


def _where(index: SymbolIndex, other: Target | None) -> str:
    if other is None:
        return ""
    first = next(iter(index.definitions(other)), None)
    return f" (at {first.span})" if first is not None else ""


def _names_beside(analysis: Analysis, index: SymbolIndex, target: Target) -> dict[str, Target | None]:
    """The names a rename of ``target`` must not take, with what each names (when indexed)."""
    kind, owner = target.kind, target.owner
    taken: dict[str, Target | None] = {}
    if kind == "decl":
        for module in analysis.modules.values():
            for item in module.items:
                name = getattr(item, "name", None)
                if isinstance(name, str):
                    taken.setdefault(name, Target("decl", "", name))
        taken.update({name: Target("decl", "", name) for name in analysis.known if name not in taken})
        return taken
    decl = analysis.known.get(owner)
    if kind == "entry" and analysis.program is not None:
        taken.update({str(i): Target("entry", owner, str(i)) for i in analysis.program.ids_of(owner)})
    if kind == "member" and isinstance(decl, ir.Enum):
        taken.update({m.name: Target("member", owner, m.name) for m in decl.members})
    if kind == "field" and isinstance(decl, ir.Record):
        taken.update({f.name: Target("field", owner, f.name) for f in decl.fields})
    if kind == "field" and isinstance(decl, ir.Table):
        taken.update({c.name: Target("field", owner, c.name) for c in (*decl.keys, *decl.columns, *((decl.across,) if decl.across else ()))})
    for t in index.by_target:  # what the index knows beside it: the other values of the same owner
        same_scope = t.owner == owner and (t.kind == kind or {t.kind, kind} <= {"param", "local"})
        if same_scope and t != target:
            taken.setdefault(t.name, t)
    return taken


def _refuse_if_worse(analysis: Analysis, edits: list[Edit]) -> None:
    """Check the renamed texts in memory: refuse when they have an error the original has not."""
    by_file: dict[str, list[Edit]] = {}
    for e in edits:
        by_file.setdefault(e.span.file, []).append(e)
    sources = dict(analysis.sources)
    for name, file_edits in by_file.items():
        new = rewrite(sources[name], file_edits)
        if new is None:
            raise RenameRefused("the occurrences of this name overlap; rename it by hand")
        sources[name] = new
    before = _error_counts(analysis.diagnostics)
    after_diagnostics = check_texts(sources)
    after = _error_counts(after_diagnostics)
    worse = [key for key, count in after.items() if count > before.get(key, 0)]
    if worse:
        first = next(d for d in after_diagnostics if d.severity == "error" and _error_key(d) in worse)
        raise RenameRefused(f"after this rename the rulebook would not check: {first.span}: {first.message}")


def _error_counts(diagnostics) -> dict[tuple[str, str], int]:
    """Errors by kind, counted (their messages without the names, which a rename changes)."""
    counts: dict[tuple[str, str], int] = {}
    for d in diagnostics:
        if d.severity == "error":
            counts[_error_key(d)] = counts.get(_error_key(d), 0) + 1
    return counts


def _error_key(d) -> tuple[str, str]:
    return d.code, re.sub(r"'[^']*'", "''", d.message)
