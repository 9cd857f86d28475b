"""The symbol index under construction, and what resolves the names written in a rulebook.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis`: the parsed modules (each
declaration by name), the source lines (to find a name's span inside a larger one) and the
checked program (the typed IR expression at each span, declarations, record fields, the
ids of each catalog). Produces an :class:`IndexBuilder`, which the parts of the indexer
(:mod:`~rulebook.compiler.lsp.index`) share: they add occurrences to it and ask it what a
name resolves to.
"""

from __future__ import annotations

import functools
import typing

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T
from rulebook.compiler.lsp.symbols import Occurrence, SymbolIndex, Target, find_word, word_at
from rulebook.compiler.lsp.workspace import Analysis

IR_EXPRS = typing.get_args(ir.Expr)  # the classes of typed expressions
_IR_RECORDED = (*IR_EXPRS, ir.Let, ir.Loop)  # what the index looks up by span
_IR_WALKED = (*_IR_RECORDED, ir.Return, ir.Require, ir.If, ir.Step, ir.Param, ir.Repeat, ir.Set)


@functools.cache
def _child_fields(cls) -> tuple[str, ...]:
    """The fields of an IR class that may hold expressions or statements."""
    return tuple(f for f in cls.__dataclass_fields__ if f not in ("type", "span", "name", "op", "text", "mode", "label", "number"))


class IndexBuilder:
    """The occurrences found so far (:attr:`symbols`), and the lookups that resolve names."""

    def __init__(self, analysis: Analysis):
        self.modules = analysis.modules
        self.program = analysis.program
        self.lines = {name: text.splitlines() for name, text in analysis.sources.items()}
        self.ast_decls: dict[str, object] = {}
        for module in self.modules.values():
            for item in module.items:
                name = getattr(item, "name", None)
                if name and not isinstance(item, (n.ShowDecl, n.SectionDecl, n.RulebookDecl)):
                    self.ast_decls.setdefault(name, item)
        self.ir_at: dict[Span, list] = {}
        self.ids: dict[str, set] = {}  # catalog or id table -> its ids
        if self.program is not None:
            self._collect_ir(self.program)
        self.symbols = SymbolIndex()

    # ------------------------------------------------------------------ output
    def add(self, span: Span | None, target: Target, definition: bool = False, type_: T | None = None) -> None:
        if span is None:
            return
        occ = Occurrence(span, target, definition, type_)
        self.symbols.by_file.setdefault(span.file, []).append(occ)
        self.symbols.by_target.setdefault(target, []).append(occ)

    def find(self, span: Span, name: str, start_col: int | None = None) -> Span | None:
        return find_word(self.lines.get(span.file, []), span, name, start_col)

    def arg_name(self, name: str, value_span: Span) -> Span | None:
        """The span of ``name`` in ``name: value`` / ``name=value`` right before ``value_span``."""
        lines = self.lines.get(value_span.file, [])
        if not 0 < value_span.line <= len(lines):
            return None
        before = lines[value_span.line - 1][: value_span.col - 1].rstrip()
        if not before.endswith((":", "=")):
            return None
        end = len(before[:-1].rstrip())
        at = word_at(before, name, end - len(name), end)
        return Span(value_span.file, value_span.line, at + 1, value_span.line, at + 1 + len(name)) if at >= 0 else None

    # ------------------------------------------------------------------ the program
    def _collect_ir(self, program: ir.Program) -> None:
        for d in program.decls.values():
            if isinstance(d, ir.Procedure):
                self._ir_walk(d.params)
                self._ir_walk(d.body)
            elif isinstance(d, ir.Odds):
                self._ir_walk(d.args)
                self._ir_walk(d.show)
        for ex in program.examples:
            self._ir_walk(ex.given)
            self._ir_walk(tuple(x.expr for x in ex.expects))

    def _ir_walk(self, node) -> None:
        if isinstance(node, (tuple, list)):
            for x in node:
                self._ir_walk(x)
        elif isinstance(node, _IR_WALKED):
            if isinstance(node, _IR_RECORDED):
                self.ir_at.setdefault(node.span, []).append(node)
            for name in _child_fields(type(node)):
                self._ir_walk(getattr(node, name))

    def ir_of(self, span: Span, *classes):
        return next((x for x in self.ir_at.get(span, ()) if isinstance(x, classes)), None)

    def decl(self, name: str):
        return self.program.decls.get(name) if self.program is not None else None

    def record_fields(self, record: str) -> dict[str, T]:
        d = self.decl(record)
        return {f.name: f.type for f in d.fields} if isinstance(d, ir.Record) else {}

    def entry_owner(self, refs: str, ident: str) -> str | None:
        """Which of the catalogs/tables ``refs`` (``a|b``) holds the id ``ident``."""
        for c in refs.split("|"):
            if c not in self.ids:
                self.ids[c] = set(self.program.ids_of(c)) if self.program is not None else set()
            if ident in self.ids[c]:
                return c
        return None
