"""The answers of the language server, from an analysis and a position.

Entry points (one per LSP request; each reads an
:class:`~rulebook.compiler.lsp.workspace.Analysis` and a
:class:`~rulebook.compiler.lsp.positions.Locator`, and produces ``lsprotocol`` values):
:func:`hover`, :func:`definition`, :func:`references`, :func:`highlights`,
:func:`completion`, :func:`document_symbols`, :func:`workspace_symbols`,
:func:`semantic_tokens` and :func:`diagnostics`.

Names are found with the symbol index (:mod:`rulebook.compiler.lsp.index`). Completion
reads the text being typed, which may not parse: it looks at the current line
(``Enum.``, ``valor.campo.``, a catalog cell, ``@``, ``@allow``, a ``{`` of
``@display``, ``[[``, a clause of an ``army`` block, ``stack``, ``stacking``,
``lang``) and takes names and
types from the program, or from the last check of a declaration that no longer
parses while it is being written.
"""

from __future__ import annotations

import re

from lsprotocol import types

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Diagnostic, Span
from rulebook.rules_dsl.keywords import KEYWORDS, PRIMITIVE_TYPE_NAMES

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.support import i18n
from rulebook.compiler.check.armies import TOP_CLAUSES, UNIT_ARGS, UNIT_CLAUSES
from rulebook.compiler.check.declarations import ANNOTATIONS
from rulebook.compiler.ir.types import T
from rulebook.compiler.lsp.docs import ANNOTATION_DOCS, CLAUSE_ARGUMENTS, CLAUSE_DOCS, WARNING_KINDS
from rulebook.compiler.lsp.hover import describe
from rulebook.compiler.lsp.index import Occurrence, Target, build_index, declaration_keyword, find_word
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens  # noqa: F401 - the server and tests read them here
from rulebook.compiler.lsp.snippets import SNIPPETS
from rulebook.compiler.lsp.workspace import Analysis

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
_DECL_KINDS = {
    "enum": (types.SymbolKind.Enum, types.CompletionItemKind.Enum),
    "record": (types.SymbolKind.Struct, types.CompletionItemKind.Struct),
    "catalog": (types.SymbolKind.Module, types.CompletionItemKind.Module),
    "table": (types.SymbolKind.Array, types.CompletionItemKind.Module),
    "die": (types.SymbolKind.Event, types.CompletionItemKind.Constant),
    "bag": (types.SymbolKind.Package, types.CompletionItemKind.Constant),
    "rule": (types.SymbolKind.Interface, types.CompletionItemKind.Interface),
    "procedure": (types.SymbolKind.Function, types.CompletionItemKind.Function),
    "const": (types.SymbolKind.Constant, types.CompletionItemKind.Constant),
    "term": (types.SymbolKind.Key, types.CompletionItemKind.Text),
    "odds": (types.SymbolKind.Operator, types.CompletionItemKind.Value),
    "matchup": (types.SymbolKind.Operator, types.CompletionItemKind.Value),
    "example": (types.SymbolKind.Method, types.CompletionItemKind.Method),
    "army": (types.SymbolKind.Object, types.CompletionItemKind.Module),
    "broken": (types.SymbolKind.Null, types.CompletionItemKind.Text),
}
_STATEMENT_SNIPPETS = ("let", "if", "step", "repeat")  # offered on an indented line of a procedure
_EXPRESSION_SNIPPETS = ("stack",)  # offered where a procedure's expression is written
_DOTTED = re.compile(r"([^\W\d]\w*(?:\.[^\W\d]\w*)*)\.(\w*)$")
_WORD_BEFORE = re.compile(r"(\w*)$")
_DECL_HEAD = re.compile(r"^(" + "|".join(sorted(KEYWORDS)) + r")\s+([^\W\d]\w*)")


# ---------------------------------------------------------------------------- diagnostics


def diagnostics(analysis: Analysis, locator: Locator) -> dict[str, list[types.Diagnostic]]:
    """Every diagnostic of the rulebook, by document URI (every file listed,
    so a file whose problems were fixed gets an empty list)."""
    out: dict[str, list[types.Diagnostic]] = {locator.uri(name): [] for name in analysis.paths}
    first = next(iter(analysis.paths), None)
    for d in sorted(analysis.diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message)):
        file = d.span.file if d.span.file in analysis.paths else first
        if file is None:
            continue
        span = d.span if d.span.file == file else Span(file, 0, 0, 0, 0)
        out[locator.uri(file)].append(lsp_diagnostic(d, span, locator))
    return out


def diagnostics_of_file(analysis: Analysis, file: str) -> list[Diagnostic]:
    """The diagnostics of the rulebook placed in ``file``, in the order of the file."""
    return sorted((d for d in analysis.diagnostics if d.span.file == file), key=lambda d: (d.span.line, d.span.col, d.message))


def lsp_diagnostic(d: Diagnostic, span: Span, locator: Locator) -> types.Diagnostic:
    """The same message and hint as ``rulebook check``, at the same place."""
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    if span is not d.span:
        message = f"{d.span.file}: {message}"
    return types.Diagnostic(
        range=locator.range(span), message=message, severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
        code=d.code or None, source="rulebook",
    )


# ---------------------------------------------------------------------------- names


def _occurrence(analysis: Analysis, file: str, line: int, col: int) -> Occurrence | None:
    return build_index(analysis).at(file, line, col)


def hover(analysis: Analysis, locator: Locator, file: str, line: int, col: int) -> types.Hover | None:
    occ = _occurrence(analysis, file, line, col)
    if occ is None:
        return None
    text = describe(occ.target, analysis.known, occ)
    if not text:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=locator.range(occ.span))


def definition(analysis: Analysis, locator: Locator, file: str, line: int, col: int) -> list[types.Location]:
    occ = _occurrence(analysis, file, line, col)
    if occ is None:
        return []
    return [locator.location(o.span) for o in build_index(analysis).definitions(occ.target)]


def references(analysis: Analysis, locator: Locator, file: str, line: int, col: int, with_declaration: bool) -> list[types.Location]:
    occ = _occurrence(analysis, file, line, col)
    if occ is None:
        return []
    found = build_index(analysis).references(occ.target)
    return [locator.location(o.span) for o in found if with_declaration or not o.definition]


def highlights(analysis: Analysis, locator: Locator, file: str, line: int, col: int) -> list[types.DocumentHighlight]:
    occ = _occurrence(analysis, file, line, col)
    if occ is None:
        return []
    return [
        types.DocumentHighlight(range=locator.range(o.span), kind=types.DocumentHighlightKind.Write if o.definition else types.DocumentHighlightKind.Read)
        for o in build_index(analysis).references(occ.target) if o.span.file == file
    ]


# ---------------------------------------------------------------------------- symbols


def document_symbols(analysis: Analysis, locator: Locator, file: str) -> list[types.DocumentSymbol]:
    """The outline of a file: sections and headings holding the declarations under them."""
    module = analysis.modules.get(file)
    if module is None:
        return []
    lines = locator.lines(file)
    roots: list[types.DocumentSymbol] = []
    open_: list[tuple[int, types.DocumentSymbol]] = []  # (level, container) from outer to inner

    def close(level: int, before_line: int) -> None:
        """End the open containers of ``level`` or deeper on the line before ``before_line`` (1-based)."""
        while open_ and open_[-1][0] >= level:
            _, sym = open_.pop()
            last = min(max(before_line - 1, sym.range.start.line + 1), len(lines))
            end_col = len(lines[last - 1]) + 1 if last >= 1 else 1
            sym.range = types.Range(sym.range.start, locator.range(Span(file, last, end_col, last, end_col)).end)

    def place(level: int, sym: types.DocumentSymbol, container: bool) -> None:
        close(level, sym.range.start.line + 1)
        (open_[-1][1].children if open_ else roots).append(sym)
        if container:
            open_.append((level, sym))

    for item in module.items:
        if isinstance(item, n.SectionDecl):
            span = locator.range(Span(file, item.span.line, 1, item.span.line, 1))
            place(0, types.DocumentSymbol(name=f"{item.name} {item.title}", kind=types.SymbolKind.Namespace, range=span, selection_range=span, children=[]), True)
        elif isinstance(item, n.Heading) and item.level <= 3:
            title = "".join(getattr(r, "text", getattr(r, "target", "")) for r in item.inlines).strip() or "—"
            span = locator.range(Span(file, item.span.line, 1, item.span.line, 1))
            place(item.level, types.DocumentSymbol(name=title, kind=types.SymbolKind.String, range=span, selection_range=span, children=[]), True)
        elif (sym := _declaration_symbol(item, lines, locator)) is not None:
            (open_[-1][1].children if open_ else roots).append(sym)
    close(-1, len(lines) + 1)
    return roots


def _declaration_symbol(item, lines: list[str], locator: Locator) -> types.DocumentSymbol | None:
    """A declaration with its members, fields, entries or parameters as children."""
    if isinstance(item, n.ExampleDecl):
        name = f"example {item.procedure}" + (f": {item.title}" if item.title else "")
        where = item.procedure_span or item.span
    elif hasattr(item, "name") and not isinstance(item, (n.SectionDecl, n.RulebookDecl, n.ShowDecl)):
        keyword = declaration_keyword(item)
        name = item.name
        where = find_word(lines, item.span, item.name, item.span.col + len(keyword)) or item.span
    else:
        return None
    kind = _DECL_KINDS["broken" if isinstance(item, n.BrokenDecl) else declaration_keyword(item)][0]
    children = [
        types.DocumentSymbol(name=label, kind=child_kind, range=locator.range(span), selection_range=locator.range(Span(span.file, span.line, span.col, span.line, span.col + len(label))))
        for label, child_kind, span in _children(item)
    ]
    if isinstance(item, n.ArmyDecl):
        children = [_clause_symbol(c, locator) for c in item.clauses]
    full = locator.range(item.span)
    return types.DocumentSymbol(name=name, kind=kind, range=full, selection_range=locator.range(where), detail=getattr(item, "title", None) or None, children=children)


_CLAUSE_SYMBOLS = {"side": types.SymbolKind.EnumMember, "size": types.SymbolKind.Number, "units": types.SymbolKind.Module, "option": types.SymbolKind.Property, "options": types.SymbolKind.Module}


def _clause_symbol(c: n.ArmyClause, locator: Locator) -> types.DocumentSymbol:
    """A clause of an army (``side nacional``, ``units catálogo``) with the clauses of its block."""
    first = c.args[0][1] if c.args and c.args[0][0] is None else None
    name = c.word + (f" {first.name}" if isinstance(first, n.VName) else "")
    title = c.args[1][1].value if len(c.args) > 1 and c.args[1][0] is None and isinstance(c.args[1][1], n.VStr) else None
    return types.DocumentSymbol(
        name=name, kind=_CLAUSE_SYMBOLS.get(c.word, types.SymbolKind.Key), range=locator.range(c.span),
        selection_range=locator.range(first.span if isinstance(first, n.VName) else c.word_span), detail=title,
        children=[_clause_symbol(sub, locator) for sub in c.clauses],
    )


def _children(item) -> list[tuple[str, types.SymbolKind, Span]]:
    if isinstance(item, n.EnumDecl):
        return [(m.name, types.SymbolKind.EnumMember, m.span) for m in item.members]
    if isinstance(item, n.RecordDecl):
        return [(f.name, types.SymbolKind.Field, f.span) for f in item.fields]
    if isinstance(item, n.CatalogDecl):
        return [(r.id, types.SymbolKind.Object, r.span) for r in item.rows]
    if isinstance(item, n.TableDecl):
        return [(s.name, types.SymbolKind.Field, s.span) for s in (*item.keys, *((item.across,) if item.across else ()), *item.columns)]
    if isinstance(item, (n.ProcedureDecl, n.RuleDecl)):
        return [(p.name, types.SymbolKind.Variable, p.span) for p in item.params]
    return []


def workspace_symbols(rulebooks: list[tuple[Analysis, Locator]], query: str, limit: int = 200) -> list[types.WorkspaceSymbol]:
    """Declarations and catalog entries whose name or title contains ``query``."""
    wanted = query.lower()
    out: list[types.WorkspaceSymbol] = []
    for analysis, locator in rulebooks:
        if analysis.program is None:
            continue
        index = build_index(analysis)
        for target, occs in index.by_target.items():
            if target.kind not in ("decl", "entry"):
                continue
            decl = analysis.program.decls.get(target.name if target.kind == "decl" else target.owner)
            title = decl.title if decl is not None and target.kind == "decl" else ""
            if wanted not in target.name.lower() and wanted not in title.lower():
                continue
            for occ in (o for o in occs if o.definition):
                kind = _DECL_KINDS.get(decl.kind if decl is not None else "", (types.SymbolKind.Object,))[0] if target.kind == "decl" else types.SymbolKind.Object
                out.append(types.WorkspaceSymbol(name=target.name, kind=kind, location=locator.location(occ.span), container_name=target.owner or (title or None)))
    out.sort(key=lambda s: (not s.name.lower().startswith(wanted), len(s.name), s.name))
    return out[:limit]


# ---------------------------------------------------------------------------- completion


def completion(analysis: Analysis, text: str, line: int, col: int) -> list[types.CompletionItem]:
    """Completions at ``line:col`` (1-based) of ``text``, the document as typed."""
    lines = text.splitlines()
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    before = current[: col - 1]
    decls = analysis.known
    if not _in_fence(lines, line):
        m = re.search(r"\[\[([\w#]*)$", before)
        return [_decl_item(d) for d in decls.values()] if m else []
    if re.match(r"^\s*@\w*$", before):
        return [types.CompletionItem(label=a, kind=types.CompletionItemKind.Property, documentation=_markdown(ANNOTATION_DOCS.get(a, ""))) for a in ANNOTATIONS]
    if annotated := _annotation_completion(decls, lines, line, before, analysis):
        return annotated
    if m := _DOTTED.search(before):
        return _after_dot(decls, m.group(1).split("."), _enclosing(lines, line), analysis)
    head = _enclosing(lines, line)
    if head is not None and head[0] == "army":
        return _army_completion(decls, lines, line, before, analysis)
    if head is not None and head[0] == "rule" and re.match(r"^\s*stacking\s+\w*$", before):
        return [_clause_item("stacking", word) for (context, word) in CLAUSE_DOCS if context == "stacking"]
    if head is not None and head[0] == "rulebook" and re.search(r'\blang\s+"\w*$', before):
        return [types.CompletionItem(label=code, kind=types.CompletionItemKind.Value) for code in i18n.SUPPORTED]
    if re.search(r"\bstack\s+\w*$", before):
        return [_decl_item(d) for d in decls.values() if isinstance(d, ir.Procedure)]
    decl = decls.get(head[1]) if head else None
    if isinstance(decl, ir.Catalog) and "|" in before and not before.lstrip().startswith("columns"):
        return _cell_values(decls, decl, before, analysis)
    if re.match(r"^\s*grants\s+\w*$", before):
        return [_decl_item(d) for d in decls.values() if isinstance(d, ir.Rule)]
    if re.fullmatch(r"\w*", before):
        return [_snippet_item(s) for s in SNIPPETS] + _keyword_items()
    items = _keyword_items() + [_decl_item(d) for d in decls.values()]
    items += [types.CompletionItem(label=b.name, kind=types.CompletionItemKind.Function, detail=b.signature, documentation=b.doc) for b in BUILTINS.values()]
    items += [types.CompletionItem(label=t, kind=types.CompletionItemKind.TypeParameter) for t in PRIMITIVE_TYPE_NAMES]
    items += _locals(decls, head, lines, line, analysis)
    if head is not None and head[0] == "procedure":
        wanted = _STATEMENT_SNIPPETS if re.fullmatch(r"\s+\w*", before) else _EXPRESSION_SNIPPETS
        items = [_snippet_item(s) for s in SNIPPETS if s.prefix in wanted] + items
    return items


def _in_fence(lines: list[str], line: int) -> bool:
    inside = False
    for text in lines[: line - 1]:
        stripped = text.strip()
        if not inside and re.fullmatch(r"```\s*rules", stripped) and not text.startswith((" ", "\t")):
            inside = True
        elif inside and re.fullmatch(r"```", text.rstrip()):
            inside = False
    return inside


def _enclosing(lines: list[str], line: int) -> tuple[str, str] | None:
    """The keyword and name of the declaration being written at ``line``."""
    for text in reversed(lines[:line]):
        if text.startswith("```"):
            return None
        if m := _DECL_HEAD.match(text):
            return m.group(1), m.group(2)
    return None


def _decl_item(d) -> types.CompletionItem:
    return types.CompletionItem(
        label=d.name, kind=_DECL_KINDS.get(d.kind, (None, types.CompletionItemKind.Reference))[1], detail=f"{d.kind} · {d.title}",
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=describe(Target("decl", "", d.name), {d.name: d}) or ""),
    )


def _keyword_items() -> list[types.CompletionItem]:
    return [types.CompletionItem(label=k, kind=types.CompletionItemKind.Keyword) for k in sorted(KEYWORDS)]


def _snippet_item(s) -> types.CompletionItem:
    return types.CompletionItem(
        label=s.prefix, kind=types.CompletionItemKind.Snippet, detail=s.description, insert_text="\n".join(s.body),
        insert_text_format=types.InsertTextFormat.Snippet,
    )


def _members(t: T, decls: dict, analysis: Analysis) -> list[types.CompletionItem]:
    """What may follow a dot after a value of type ``t``."""
    t = t.inner
    owner = decls.get(t.name or "")
    if t.kind == "enum_type" and isinstance(owner, ir.Enum):
        return [types.CompletionItem(label=m.name, kind=types.CompletionItemKind.EnumMember, detail=m.title) for m in owner.members]
    if t.kind in ("catalog", "table"):
        ids = analysis.program.ids_of(t.name) if analysis.program else []
        return [types.CompletionItem(label=str(i), kind=types.CompletionItemKind.Value, detail=t.name) for i in ids]
    if t.kind == "counts":
        kinds = [k.name for k in t.args]
        return [types.CompletionItem(label=k, kind=types.CompletionItemKind.EnumMember) for k in kinds]
    fields = _fields_of(t, decls)
    return [types.CompletionItem(label=f, kind=types.CompletionItemKind.Field, detail=str(ft)) for f, ft in fields.items()]


def _fields_of(t: T, decls: dict) -> dict[str, T]:
    t = t.inner
    owner = decls.get(t.name or "")
    if t.kind == "record" and isinstance(owner, ir.Record):
        return {f.name: f.type for f in owner.fields}
    if t.kind in ("ref", "row"):
        owner = decls.get((t.name or "").split("|")[0])
        if isinstance(owner, ir.Catalog):
            return _fields_of(T("record", owner.record), decls)
        if isinstance(owner, ir.Table):
            return {c.name: c.type for c in owner.columns}
    return {}


def _after_dot(decls: dict, chain: list[str], head: tuple[str, str] | None, analysis: Analysis) -> list[types.CompletionItem]:
    """Completions after ``a.b.c.``: enum values, entry ids, fields."""
    first = decls.get(chain[0])
    kinds = {ir.Enum: "enum_type", ir.Catalog: "catalog", ir.Table: "table"}
    if first is not None and type(first) in kinds:
        t: T | None = T(kinds[type(first)], first.name)
    else:
        t = _local_types(decls, head).get(chain[0])
    for name in chain[1:]:
        t = _fields_of(t, decls).get(name) if t is not None else None
    return _members(t, decls, analysis) if t is not None else []


def _local_types(decls: dict, head: tuple[str, str] | None) -> dict[str, T]:
    """Parameters and ``let`` values of the procedure being written (as last checked)."""
    if head is None:
        return {}
    keyword, name = head
    if keyword in ("example", "odds"):
        if keyword == "odds":
            odds = decls.get(name)
            name = odds.procedure if isinstance(odds, ir.Odds) else name
        proc = decls.get(name)
        return {"result": proc.result} if isinstance(proc, ir.Procedure) else {}
    proc = decls.get(name)
    if not isinstance(proc, ir.Procedure):
        return {}
    found = {p.name: p.type for p in proc.params}

    def walk(stmts) -> None:
        for s in stmts:
            if isinstance(s, ir.Let):
                found[s.name] = s.value.type
            elif isinstance(s, ir.Step):
                walk(s.body)
            elif isinstance(s, ir.If):
                for _, body in s.branches:
                    walk(body)
                walk(s.orelse or ())
            elif isinstance(s, ir.Loop):
                found.update((name, init.type) for name, init in s.carried)
                walk(s.body)

    walk(proc.body)
    return found


def _locals(decls: dict, head: tuple[str, str] | None, lines: list[str], line: int, analysis: Analysis) -> list[types.CompletionItem]:
    """Local names: as last checked, plus ``let`` values written since."""
    found = {k: str(t) for k, t in _local_types(decls, head).items()}
    if head is not None:
        start = next((i for i in range(line - 1, -1, -1) if _DECL_HEAD.match(lines[i])), 0)
        for text in lines[start:line]:
            for m in re.finditer(r"\blet\s+([^\W\d]\w*)|\bfor\s+([^\W\d]\w*)\s+in\b", text):
                found.setdefault(m.group(1) or m.group(2), "")
    return [types.CompletionItem(label=k, kind=types.CompletionItemKind.Variable, detail=t or None, sort_text="0" + k) for k, t in found.items()]


def _cell_values(decls: dict, catalog: ir.Catalog, before: str, analysis: Analysis) -> list[types.CompletionItem]:
    """Values for the catalog cell being typed: enum values, entry ids, special rules."""
    record = decls.get(catalog.record)
    if not isinstance(record, ir.Record):
        return []
    column = _top_level_count(before, "|") - 1
    names = list(catalog.columns) or [f.name for f in record.fields]
    if not 0 <= column < len(names) or record.field(names[column]) is None:
        return []
    t = record.field(names[column]).type.inner
    while t.kind == "list":
        t = t.args[0].inner
    if t.kind == "rule":
        return [_decl_item(d) for d in decls.values() if isinstance(d, ir.Rule)]
    if t.kind == "enum":
        return _members(T("enum_type", t.name), decls, analysis)
    if t.kind in ("ref", "refs"):
        return [item for c in (t.name or "").split("|") for item in _members(T("catalog", c), decls, analysis)]
    if t.kind == "bool":
        return [types.CompletionItem(label=v, kind=types.CompletionItemKind.Keyword) for v in ("true", "false")]
    return []


def _top_level_count(text: str, char: str) -> int:
    """How many ``char`` in ``text`` outside strings and brackets."""
    depth, count, quoted = 0, 0, False
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and c in "([":
            depth += 1
        elif not quoted and c in ")]":
            depth = max(0, depth - 1)
        elif not quoted and depth == 0 and c == char:
            count += 1
    return count


def _markdown(text: str) -> types.MarkupContent | None:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text) if text else None


def _clause_item(context: str, word: str) -> types.CompletionItem:
    return types.CompletionItem(label=word, kind=types.CompletionItemKind.Keyword, detail=f"{context} clause", documentation=_markdown(CLAUSE_DOCS.get((context, word), "")))


def _annotation_completion(decls: dict, lines: list[str], line: int, before: str, analysis: Analysis) -> list[types.CompletionItem]:
    """The kind of warning after ``@allow``; a field of the record below inside ``@display "{``."""
    if re.match(r"^\s*@allow\s+[\w-]*$", before):
        return [types.CompletionItem(label=k, kind=types.CompletionItemKind.EnumMember, detail="kind of warning", documentation=_markdown(doc), insert_text=f'{k}("$1")',
                                     insert_text_format=types.InsertTextFormat.Snippet) for k, doc in WARNING_KINDS.items()]
    if m := re.match(r"^\s*@as_printed\(\s*ids:\s*\[([\w,\s]*?)\w*$", before):
        declared = next((text for text in lines[line:] if not text.lstrip().startswith("@")), "")
        head = _DECL_HEAD.match(declared)
        typed = set(re.findall(r"\w+", m.group(1)))
        return [types.CompletionItem(label=i, kind=types.CompletionItemKind.Value, detail="names no entry")
                for i in _dangling_ids(analysis, head.group(2)) if i not in typed] if head else []
    if re.match(r'^\s*@display\s+"(?:[^"{]|\{[^}]*\})*\{\w*$', before):
        declared = next((text for text in lines[line:] if not text.lstrip().startswith("@")), "")
        m = re.match(r"^record\s+([^\W\d]\w*)", declared)
        record = decls.get(m.group(1)) if m else None
        if isinstance(record, ir.Record):
            return [types.CompletionItem(label=f.name, kind=types.CompletionItemKind.Field, detail=str(f.type)) for f in record.fields]
    return []


_UNKNOWN_REF = re.compile(r"'([^']+)' is not an entry of")


def _dangling_ids(analysis: Analysis, owner: str) -> list[str]:
    """The ids that declaration ``owner`` references and no catalog defines, as last
    checked: those it already lists in ``@as_printed`` and those the checker reports
    (``unknown-ref``) inside it. What ``@as_printed(ids: [`` may list."""
    decl = analysis.known.get(owner)
    if decl is None:
        return []
    starts = sorted((d.span.line, name) for name, d in analysis.known.items() if d.span.file == decl.span.file)
    found = list(getattr(decl, "as_printed", ()) or ())
    for d in analysis.diagnostics:
        m = _UNKNOWN_REF.search(d.message) if d.code == "unknown-ref" and d.span.file == decl.span.file else None
        holder = max(((line, name) for line, name in starts if line <= d.span.line), default=(0, None))[1] if m else None
        if holder == owner and m.group(1) not in found:
            found.append(m.group(1))
    return found


def _army_completion(decls: dict, lines: list[str], line: int, before: str, analysis: Analysis) -> list[types.CompletionItem]:
    """Inside an ``army`` block: clause words, then what each value of a clause names."""
    start = next(i for i in range(line - 1, -1, -1) if _DECL_HEAD.match(lines[i]))
    depth = sum(_top_level_count(text, "{") - _top_level_count(text, "}") for text in lines[start : line - 1])
    if re.fullmatch(r"\s*\w*", before):
        return [_clause_item("units" if depth >= 2 else "army", w) for w in (UNIT_CLAUSES if depth >= 2 else TOP_CLAUSES)]
    words = before.split()
    clause = words[0]
    by_kind = {"units": ir.Catalog, "options": ir.Catalog, "sizes": ir.Table, "limits": ir.Table, "sides": ir.Enum, "roles": ir.Enum, "quality": ir.Enum}
    if len(words) == 1 and before.endswith(" ") or len(words) == 2 and not before.endswith(" "):
        kind = by_kind.get(clause)
        return [_decl_item(d) for d in decls.values() if isinstance(d, kind)] if kind else []
    if re.search(r"\bpercent:\s*\w*$", before):
        return [_decl_item(d) for d in decls.values() if isinstance(d, ir.Table)]
    named = decls.get(words[1]) if len(words) > 1 else None  # the catalog or table the clause names
    ids = re.search(r"\b(entries|exclude|only|remove|add):\s*\[[\w,\s]*$|\b(entry):\s*\w*$", before)
    if ids:
        key = ids.group(1) or ids.group(2)
        army = decls.get(_enclosing(lines, line)[1])  # as last checked (the line being typed may not parse)
        if key == "only":
            owners = [words[1]]
        elif key in ("remove", "add"):
            owners = [army.troop_catalog] if isinstance(army, ir.Army) and army.troop_catalog else []
        else:
            units = _units_line(lines, line, start) if depth >= 2 else None
            owners = [units] if units else sorted({e.catalog for e in army.entries}) if isinstance(army, ir.Army) else []
        return [item for c in owners for item in _members(T("catalog", c), decls, analysis)]
    if m := re.search(r"\b(\w+):\s*\w*$", before):
        if m.group(1) == "side":
            army = decls.get(_enclosing(lines, line)[1])
            return [types.CompletionItem(label=c.id, kind=types.CompletionItemKind.EnumMember, detail=c.title) for c in army.sides] if isinstance(army, ir.Army) else []
        if isinstance(named, ir.Catalog):
            record = decls.get(named.record)
            return [types.CompletionItem(label=f.name, kind=types.CompletionItemKind.Field, detail=str(f.type)) for f in record.fields] if isinstance(record, ir.Record) else []
        if isinstance(named, ir.Table):
            return [types.CompletionItem(label=c.name, kind=types.CompletionItemKind.Field, detail=str(c.type)) for c in named.columns]
        return []
    if before.endswith(" ") or re.search(r"\s\w+$", before):
        names = UNIT_ARGS if clause == "units" else CLAUSE_ARGUMENTS.get(clause, ())
        given = set(re.findall(r"\b(\w+):", before))
        return [types.CompletionItem(label=f"{k}:", kind=types.CompletionItemKind.Property, insert_text=f"{k}: ") for k in names if k not in given]
    return []


def _units_line(lines: list[str], line: int, start: int) -> str | None:
    """The catalog of the ``units`` block that holds ``line``."""
    for text in reversed(lines[start : line - 1]):
        if m := re.match(r"^\s*units\s+([^\W\d]\w*)", text):
            return m.group(1)
    return None
