"""The rulebook's logic as data: ``json/logic.json``, what ``rulebook diff`` and the
build's versioning compare without running (or importing) a build's code.

Reads a checked :class:`rulebook.compiler.ir.Program`. Produces :func:`logic_doc(program)
-> dict`, validated against :data:`LOGIC_SCHEMA` (the tool's own schema; the build also
writes it as ``schemas/logic.schema.json``). Canonical: the same rulebook gives the same
document wherever its folder is (files by their name inside the rulebook folder).

What it holds:

* ``procedures``: each procedure's signature (inputs with their type, whether required,
  the default as written; the result type) and its statements, in order, each as
  **normalized source text** (comments dropped, runs of blanks outside strings made one
  space) with its file and line and the step it belongs to (``step``: its number, null
  outside steps). A compound statement is one line per header (``if c``, ``else if c``,
  ``else``, ``repeat``, ``until c``) with its body after it, one level deeper (``depth``);
* ``records`` (fields and types), ``declarations`` (every declaration's kind, place and a
  digest of its normalized source: dice, bags, odds grids, army lists, terms… are
  compared by it), and ``prose`` (each section's prose blocks by digest, with their line
  and first words).

Catalogs, tables, rules, enums and constants are compared from ``json/rulebook.json``,
field by field.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.ir.sources import source_names
from rulebook.compiler.support.i18n import N_

EXCERPT = 80
"""How many characters of a prose block ``logic.json`` keeps (the rest is in its digest)."""


def normalize(text: str) -> str:
    """Source text as compared: ``#`` comments dropped and each run of blanks outside
    string literals made one space (none after an opening or before a closing bracket).

    >>> normalize('let x = f(a,\\n      b)   # note')
    'let x = f(a, b)'
    >>> normalize('require x > 0, "a  # b"')
    'require x > 0, "a  # b"'
    """
    out: list[str] = []
    i, n = 0, len(text)
    blank = False
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if blank and out and out[-1] not in "([":
                out.append(" ")
            blank = False
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c.isspace():
            blank = True
            i += 1
            continue
        if blank and out and out[-1][-1:] not in "([" and c not in ")],":
            out.append(" ")
        blank = False
        out.append(c)
        i += 1
    return "".join(out).strip()


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class _Source:
    """Slices of the program's sources by span, with each file's name inside the rulebook."""

    def __init__(self, program: ir.Program) -> None:
        self.names = source_names(program)
        self.lines = {f: text.splitlines() for f, text in program.sources.items()}

    def text(self, span: Any) -> str:
        lines = self.lines.get(span.file, [])
        if not 1 <= span.line <= len(lines):
            return ""
        if span.end_line == span.line:
            return lines[span.line - 1][span.col - 1:span.end_col - 1]
        parts = [lines[span.line - 1][span.col - 1:]]
        parts += lines[span.line:span.end_line - 1]
        if span.end_line <= len(lines):
            parts.append(lines[span.end_line - 1][:span.end_col - 1])
        return "\n".join(parts)

    def file(self, span: Any) -> str:
        return self.names.get(span.file, span.file)


def _statements(src: _Source, body: tuple, step: int | None, depth: int, out: list[dict]) -> None:
    def line(text: str, span: Any, number: int | None = step) -> None:
        out.append({"step": number, "depth": depth, "text": text, "file": src.file(span), "line": span.line})

    for stmt in body:
        if isinstance(stmt, ir.Step):
            _statements(src, stmt.body, stmt.number, depth, out)
        elif isinstance(stmt, ir.If):
            for k, (cond, block) in enumerate(stmt.branches):
                line(("if " if k == 0 else "else if ") + normalize(src.text(cond.span)), cond.span if k else stmt.span)
                _statements(src, block, step, depth + 1, out)
            if stmt.orelse is not None:
                line("else", stmt.orelse[0].span if stmt.orelse else stmt.span)
                _statements(src, stmt.orelse, step, depth + 1, out)
        elif isinstance(stmt, ir.Repeat):
            line("repeat", stmt.span)
            _statements(src, stmt.body, step, depth + 1, out)
            line("until " + normalize(stmt.text), stmt.cond.span)
        else:
            line(normalize(src.text(stmt.span)), stmt.span)


def _type(t: ir.T) -> str:
    return str(t)


def _procedure(src: _Source, proc: ir.Procedure) -> dict:
    statements: list[dict] = []
    _statements(src, proc.body, None, 0, statements)
    return {
        "title": proc.title,
        "file": src.file(proc.span),
        "line": proc.span.line,
        "params": [{
            "name": p.name, "type": _type(p.type), "required": p.default is None and p.type.kind != "opt",
            "default": normalize(p.default_text) if p.default_text is not None else None,
        } for p in proc.params],
        "result": _type(proc.result),
        "steps": [{"number": s.number, "label": s.label, "line": s.span.line} for s in proc.steps],
        "statements": statements,
    }


def _prose(src: _Source, program: ir.Program) -> dict[str, dict]:
    """Each section's prose blocks (and the front matter's, under ``""``)."""
    out = {}
    for key, title, items in [("", "", program.front)] + [(s.slug, f"{s.name}. {s.title}", s.items) for s in program.sections]:
        blocks = []
        for item in items:
            if isinstance(item, (ir.Heading, ir.Paragraph, ir.ListBlock, ir.Note)):
                text = " ".join(src.text(item.span).split())
                blocks.append({"line": item.span.line, "digest": _digest(text), "excerpt": text[:EXCERPT]})
        out[key] = {"title": title, "blocks": blocks}
    return out


def logic_doc(program: ir.Program, schema_id: str = "") -> dict:
    """The logic document (see the module docstring); ``schema_id``: its ``$schema``."""
    src = _Source(program)
    declarations = {}
    for decl in program.decls.values():
        declarations[decl.name] = {
            "kind": decl.kind, "title": decl.title, "file": src.file(decl.span), "line": decl.span.line,
            "digest": _digest(normalize(decl.source_text)),
        }
    for army in program.armies.values():
        declarations.setdefault(army.name, {
            "kind": "army", "title": army.title, "file": src.file(army.span), "line": army.span.line,
            "digest": _digest(normalize(army.source_text)),
        })
    return {
        "$schema": schema_id, "id": "logic", "kind": "logic",
        "procedures": {p.name: _procedure(src, p) for p in program.of(ir.Procedure)},
        "records": {r.name: {"title": r.title, "fields": [{"name": f.name, "type": _type(f.type)} for f in r.fields]}
                    for r in program.of(ir.Record)},
        "declarations": declarations,
        "prose": _prose(src, program),
    }


def canonical(value: Any) -> str:
    """A value's canonical JSON text (sorted keys, no blanks): what digests are taken of."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_S = {"type": "string", "maxLength": 100_000}
_LINE = {"type": "integer", "minimum": 0}
_DIGEST = {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}
_NULLABLE_S = {"type": ["string", "null"], "maxLength": 100_000}


def _object(props: dict, required: list[str] | None = None) -> dict:
    return {"type": "object", "properties": props, "required": list(props) if required is None else required, "additionalProperties": False}


def _d(schema: dict, text: str) -> dict:
    """``schema`` with a description (an English message id: the build writes it translated)."""
    return {**schema, "description": text}


_FILE, _AT = N_("The file, by its name inside the rulebook's folder."), N_("The line where it starts.")
LOGIC_SCHEMA = _object({
    "$schema": _d(_S, N_("The $id of this document's schema.")),
    "id": _d({"const": "logic"}, N_("The id of this document: the name of its declaration.")),
    "kind": _d({"const": "logic"}, N_("What this document is.")),
    "procedures": _d({"type": "object", "additionalProperties": _object({
        "title": _d(_S, N_("The title printed in the manual.")), "file": _d(_S, _FILE), "line": _d(_LINE, _AT),
        "params": _d({"type": "array", "items": _object({
            "name": _d(_S, N_("Its name, the key of the input.")), "type": _d(_S, N_("Its type, as the rulebook writes it.")),
            "required": _d({"type": "boolean"}, N_("Whether the input must give it.")),
            "default": _d(_NULLABLE_S, N_("Its default value as written; null: none."))})}, N_("Its inputs, in order.")),
        "result": _d(_S, N_("The type of its result, as the rulebook writes it.")),
        "steps": _d({"type": "array", "items": _object({
            "number": _d(_LINE, N_("The step's number, from 1.")), "label": _d(_S, N_("The step's title.")),
            "line": _d(_LINE, _AT)})}, N_("Its steps, in order.")),
        "statements": _d({"type": "array", "items": _object({
            "step": _d({"type": ["integer", "null"]}, N_("The number of the step it belongs to; null: outside steps.")),
            "depth": _d(_LINE, N_("How deep it is nested (0: the procedure's body).")),
            "text": _d(_S, N_("The statement's normalized source text (one line per header of a compound statement).")),
            "file": _d(_S, _FILE), "line": _d(_LINE, _AT)})}, N_("Its statements, in order.")),
    })}, N_("Each procedure by its name: its signature and its statements.")),
    "records": _d({"type": "object", "additionalProperties": _object({
        "title": _d(_S, N_("The title printed in the manual.")),
        "fields": _d({"type": "array", "items": _object({
            "name": _d(_S, N_("The field's name.")), "type": _d(_S, N_("Its type, as the rulebook writes it."))})}, N_("Its fields, in order."))})},
        N_("Each record by its name, with its fields.")),
    "declarations": _d({"type": "object", "additionalProperties": _object({
        "kind": _d(_S, N_("What kind of declaration it is.")), "title": _d(_S, N_("The title printed in the manual.")),
        "file": _d(_S, _FILE), "line": _d(_LINE, _AT),
        "digest": _d(_DIGEST, N_("sha256 of its normalized source text."))})}, N_("Every declaration by its name: kind, place and digest.")),
    "prose": _d({"type": "object", "additionalProperties": _object({
        "title": _d(_S, N_("The section's title.")),
        "blocks": _d({"type": "array", "items": _object({
            "line": _d(_LINE, _AT), "digest": _d(_DIGEST, N_("sha256 of the block's text.")),
            "excerpt": _d(_S, N_("The block's first words."))})}, N_("Its prose blocks, in order."))})},
        N_("Each section's prose, by the section's id.")),
})
"""The shape of ``json/logic.json`` (Draft 2020-12), which the tool checks a build's copy
against (never the build's own ``schemas/logic.schema.json``)."""
