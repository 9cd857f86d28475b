"""Every name written in a rulebook: where it is and what it stands for.

Entry point: :func:`build_index(analysis) -> SymbolIndex`.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis`: the parsed modules give the
position of every declaration, value and expression (spans); the checked
program says what each name resolves to (the typed IR expression at the same
span: a local, an enum value, a field of which record, an entry of which
catalog) and the declared types of fields and columns, which tell what a bare
name in a catalog row or a table cell is (an enum value, an entry id, a rule).

The clauses of an ``army`` are read the same way: the declaration a clause
names (``units catálogo``), the fields of that catalog's record (``cost:
coste``), the ids of the right catalog (``entries: [a, b]``) and the sides,
sizes and options the army defines in place. Annotations are names too: the
``@name``, the kind of ``@allow``, the fields of ``@display "{…}"`` and the ids
of ``@as_printed``.

Produces a :class:`SymbolIndex` of :class:`Occurrence` s, each the span of one
name, the :class:`Target` it stands for and whether it defines it. Hover,
go to definition, find references, document highlights and semantic tokens
read it.

The walk is one :class:`_Indexer` of parts sharing one
:class:`~rulebook.compiler.lsp.index_builder.IndexBuilder` (the occurrences, and the
lookups that resolve names): prose links (:mod:`~rulebook.compiler.lsp.index_prose`),
declarations and their annotations (:mod:`~rulebook.compiler.lsp.index_declarations`),
types and data values (:mod:`~rulebook.compiler.lsp.index_values`), procedures and
expressions (:mod:`~rulebook.compiler.lsp.index_expressions`) and armies
(:mod:`~rulebook.compiler.lsp.index_armies`). The index's types are in
:mod:`~rulebook.compiler.lsp.symbols`.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler.lsp.index_armies import ArmyNames
from rulebook.compiler.lsp.index_builder import IndexBuilder
from rulebook.compiler.lsp.index_declarations import DeclarationNames
from rulebook.compiler.lsp.index_expressions import ExpressionNames
from rulebook.compiler.lsp.index_prose import ProseLinks
from rulebook.compiler.lsp.index_values import TypeAndValueNames
from rulebook.compiler.lsp.symbols import Occurrence, SymbolIndex, Target, declaration_keyword, find_word  # noqa: F401 - the features read them here
from rulebook.compiler.lsp.workspace import Analysis


def build_index(analysis: Analysis) -> SymbolIndex:
    """Index every name of the analysed rulebook (kept in ``analysis.cache``)."""
    cached = analysis.cache.get("index")
    if cached is None:
        cached = analysis.cache["index"] = _Indexer(analysis).run()
    return cached


class _Indexer:
    """One walk over the modules, each item given to the part that knows it."""

    def __init__(self, analysis: Analysis):
        self.index = IndexBuilder(analysis)
        values = TypeAndValueNames(self.index)
        self.prose = ProseLinks(self.index)
        self.declarations = DeclarationNames(self.index, values, ExpressionNames(self.index, values))
        armies = ArmyNames(self.index)
        d = self.declarations
        self.handlers = {
            n.ConstDecl: d.const, n.EnumDecl: d.enum, n.RecordDecl: d.record, n.CatalogDecl: d.catalog, n.TableDecl: d.table,
            n.DieDecl: d.die, n.BagDecl: d.bag, n.RuleDecl: d.rule, n.ProcedureDecl: d.procedure, n.OddsDecl: d.odds,
            n.ArmyDecl: armies.army,
        }

    def run(self) -> SymbolIndex:
        for module in self.index.modules.values():
            for item in module.items:
                self._item(item)
        for occs in self.index.symbols.by_file.values():
            occs.sort(key=lambda o: (o.span.line, o.span.col))
        return self.index.symbols

    def _item(self, item) -> None:
        index = self.index
        if isinstance(item, (n.Paragraph, n.Heading, n.Note, n.ListBlock)):
            self.prose.block(item)
        elif isinstance(item, n.ShowDecl):
            index.add(index.find(item.span, item.name, item.span.col + 4), Target("decl", "", item.name))
        elif isinstance(item, n.ExampleDecl):
            self.declarations.example(item)
        elif hasattr(item, "name") and not isinstance(item, (n.SectionDecl, n.RulebookDecl)):
            keyword = declaration_keyword(item)
            index.add(index.find(item.span, item.name, item.span.col + len(keyword)), Target("decl", "", item.name), True)
            handler = self.handlers.get(type(item))  # none for a term, nor for a declaration that could not be read
            if handler is not None:
                handler(item)
        self.declarations.annotations(item)
