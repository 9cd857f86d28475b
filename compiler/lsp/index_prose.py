"""The names in prose: ``[[links]]`` to declarations and entries.

Reads the prose blocks of the parsed modules (headings, paragraphs, notes, lists) and
their inline runs. Produces, in the :class:`~rulebook.compiler.lsp.index_builder.IndexBuilder`,
the declaration each ``[[name]]`` links to, and for ``[[catalog#id]]`` the entry too.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.lsp.index_builder import IndexBuilder
from rulebook.compiler.lsp.symbols import Target


class ProseLinks:
    """Links written in prose."""

    def __init__(self, index: IndexBuilder):
        self.index = index

    def block(self, item) -> None:
        """The links of one prose block (a heading, paragraph or note; each item of a list)."""
        if isinstance(item, n.ListBlock):
            for inlines in item.items:
                self.inlines(inlines)
        else:
            self.inlines(item.inlines)

    def inlines(self, inlines) -> None:
        for run in inlines:
            if isinstance(run, n.Ref):
                name, _, ident = run.target.partition("#")
                start = Span(run.span.file, run.span.line, run.span.col + 2, run.span.line, run.span.col + 2 + len(name))
                self.index.add(start, Target("decl", "", name))
                if ident:
                    owner = self.index.entry_owner(name, ident) or name
                    self.index.add(Span(start.file, start.line, start.end_col + 1, start.line, start.end_col + 1 + len(ident)), Target("entry", owner, ident))
