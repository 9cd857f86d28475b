"""The army a checker is building: what its clauses have added so far.

Reads one ``army`` declaration and the checker's state (the declarations, catalogs, tables
and enums of the earlier passes). Produces an :class:`ArmyDraft`: the sides, roles, sizes,
quality, categories, entries, options and limits the clauses add, what the clauses share
(the troop catalog of compositions, the enum of categories, whether a ``units`` clause named
no catalog), and the lookups of the declarations clauses name (an enum, a catalog, a table:
each reported when unknown, and marked used) — finally :meth:`ArmyDraft.to_ir`.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.check.state import CheckState


class ArmyDraft:
    """One ``army`` declaration's IR under construction."""

    def __init__(self, st: CheckState, d: n.ArmyDecl):
        self.st, self.d = st, d
        self.own = ir.ArmySource(d.name, d.title or d.name, st.ref.get(d.name, ""))
        self.sides: list[ir.ArmyChoice] = []
        self.roles: list[ir.ArmyChoice] = []
        self.sizes: list[ir.ArmySize] = []
        self.sizes_rule: ir.ArmySource | None = None
        self.agreed = False
        self.agreed_min = 1
        self.bonus: list[tuple[str, int]] = []
        self.quality_title: str | None = None
        self.quality: list[ir.ArmyQuality] = []
        self.quality_rule: ir.ArmySource | None = None
        self.categories: dict[str, str] = {}
        self.category_enum: str | None = None
        self.entries: list[ir.ArmyEntry] = []
        self.options: dict[str, ir.ArmyOption] = {}
        self.limits: list[ir.ArmyLimit] = []
        self.troop_catalog: str | None = None
        self.seen: dict[str, Span] = {}  # clause words that may be given once → where
        self.broken_units = False  # a units clause named no catalog: its entries are unknown
        self.broken_categories = False  # … and it had 'category:': its categories are unknown

    def to_ir(self) -> ir.Army:
        return ir.Army(
            **self.st.common(self.d),
            sides=tuple(self.sides), roles=tuple(self.roles), sizes=tuple(self.sizes), sizes_rule=self.sizes_rule,
            agreed=self.agreed, agreed_min=self.agreed_min, bonus=tuple(self.bonus), quality_title=self.quality_title,
            quality=tuple(self.quality), quality_rule=self.quality_rule,
            categories=tuple(ir.ArmyChoice(k, t) for k, t in self.categories.items()), entries=tuple(self.entries),
            options=self.options, limits=tuple(self.limits), troop_catalog=self.troop_catalog,
        )

    # ------------------------------------------------------------------ the declarations clauses name
    def source_of(self, decl: str) -> ir.ArmySource:
        node = self.st.ast.get(decl)
        return ir.ArmySource(decl, getattr(node, "title", None) or decl, self.st.ref.get(decl, ""))

    def enum(self, name: str | None, span: Span) -> list[tuple[str, str]] | None:
        if name is None:
            return None
        if not isinstance(self.st.ast.get(name), n.EnumDecl):
            self.st.unknown("enum", name, span, self.st.names_of(n.EnumDecl))
            return None
        self.st.use(name)
        return [(m, t or m) for m, t in self.st.enum_members.get(name, [])]

    def catalog(self, name: str | None, span: Span) -> ir.Catalog | None:
        if name is None:
            return None
        decl = self.st.decls.get(name)
        if not isinstance(decl, ir.Catalog):
            self.st.unknown("catalog", name, span, self.st.catalogs)
            return None
        self.st.use(name)
        return decl

    def table(self, name: str | None, span: Span) -> ir.Table | None:
        if name is None:
            return None
        table = self.st.tables.get(name)
        if table is None:
            self.st.unknown("table", name, span, self.st.tables)
            return None
        self.st.use(name)
        return table

    def once(self, word: str, span: Span) -> bool:
        if word in self.seen:
            self.st.err(f"'{word}' is given twice", span, f"first given at {self.seen[word]}", "army")
            return False
        self.seen[word] = span
        return True
