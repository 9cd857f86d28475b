"""The names in ``army`` declarations.

Reads the clauses of one ``army`` declaration and the checked army. Produces, in the
:class:`~rulebook.compiler.lsp.index_builder.IndexBuilder`, the occurrences of its names:
each clause's word, the declaration a clause names (``units catálogo``), the fields of that
catalog's record (``cost: coste``) or table's columns, the ids of the right catalog
(``entries: [a, b]``, ``remove:``/``add:`` troops), the roles given points, and the sides,
sizes and options the army defines in place.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.lsp.index_builder import IndexBuilder
from rulebook.compiler.lsp.symbols import Target

# ``army`` clauses whose first value names a declaration, and those whose first value defines an id of the army
ARMY_NAMES_DECL = ("sides", "roles", "sizes", "quality", "units", "options", "limits")
ARMY_DEFINES = ("side", "size", "option")


class ArmyNames:
    """Names in army clauses."""

    def __init__(self, index: IndexBuilder):
        self.index = index

    def army(self, d: n.ArmyDecl) -> None:
        named = [(c.word, c.args[0][1].name) for c in d.clauses if c.args and c.args[0][0] is None and isinstance(c.args[0][1], n.VName)]
        army = self.index.program.armies.get(d.name) if self.index.program is not None else None
        context = {
            "sides": next((name for word, name in named if word == "sides"), None),
            "roles": next((name for word, name in named if word == "roles"), None),
            "units": "|".join(name for word, name in named if word == "units"),
            "troops": army.troop_catalog if army is not None else None,
            "categories": self._category_enum(d),
        }
        for c in d.clauses:
            self._clause(d.name, c, None, context)

    def _category_enum(self, d: n.ArmyDecl) -> str | None:
        """The enum of the units' categories: the type of the field each ``units``
        clause names with ``category:`` (what ``limit category:`` names a value of)."""
        for c in d.clauses:
            first = c.args[0][1] if c.args and c.args[0][0] is None else None
            field = dict((k, v) for k, v in c.args if k is not None).get("category") if c.word == "units" else None
            catalog = self.index.decl(first.name) if isinstance(first, n.VName) else None
            if isinstance(field, n.VName) and isinstance(catalog, ir.Catalog):
                t = self.index.record_fields(catalog.record).get(field.name)
                t = t.inner if t is not None else None
                if t is not None and t.kind == "enum":
                    return t.name
        return None

    def _clause(self, army: str, c: n.ArmyClause, units: str | None, context: dict) -> None:
        """One clause of an army: its word, the declarations, fields and ids it names."""
        self.index.add(c.word_span, Target("clause", "units" if units is not None else "army", c.word))
        first = c.args[0][1] if c.args and c.args[0][0] is None else None
        named_decl = first.name if isinstance(first, n.VName) and c.word in ARMY_NAMES_DECL else None
        if named_decl is not None:
            self.index.add(first.span, Target("decl", "", named_decl))
        elif isinstance(first, n.VName) and c.word in ARMY_DEFINES:
            self.index.add(first.span, Target("choice", army, first.name), True)
        decl = self.index.decl(named_decl) if named_decl else None
        record = decl.record if isinstance(decl, ir.Catalog) else None
        fields = self.index.record_fields(record) if record else {}
        table_columns = {x.name for x in (*decl.keys, *decl.columns)} if isinstance(decl, ir.Table) else set()
        roles = self.index.decl(context["roles"] or "")
        for key, value in c.args:
            if key is None:
                continue
            if isinstance(roles, ir.Enum) and key in roles.values:
                self.index.add(self.index.arg_name(key, value.span), Target("member", roles.name, key))
            if isinstance(value, n.VList) or key == "entry":
                owner = {"only": named_decl, "remove": context["troops"], "add": context["troops"]}.get(key, units or context["units"]) or ""
                for x in value.items if isinstance(value, n.VList) else (value,):
                    if isinstance(x, n.VName):
                        self.index.add(x.span, Target("entry", self.index.entry_owner(owner, x.name) or owner.split("|")[0], x.name))
                continue
            if not isinstance(value, n.VName):
                continue
            if key == "side":
                sides = self.index.decl(context["sides"] or "")
                self.index.add(value.span, Target("member", sides.name, value.name) if isinstance(sides, ir.Enum) else Target("choice", army, value.name))
            elif key == "percent":
                self.index.add(value.span, Target("decl", "", value.name))
            elif key == "category" and c.word == "limit" and context["categories"]:
                self.index.add(value.span, Target("member", context["categories"], value.name))
            elif key == "column" and c.word == "quality" and isinstance(percent := dict(c.args).get("percent"), n.VName):
                table = self.index.decl(percent.name)
                if isinstance(table, ir.Table) and any(x.name == value.name for x in table.columns):
                    self.index.add(value.span, Target("field", percent.name, value.name))
            elif value.name in fields:
                self.index.add(value.span, Target("field", record, value.name), type_=fields[value.name])
            elif value.name in table_columns:
                self.index.add(value.span, Target("field", named_decl, value.name))
            elif key in ("amount", "alternatives") and "composition" in dict(c.args):
                line = self.index.record_fields(record or "").get(getattr(dict(c.args)["composition"], "name", ""))
                inner = line.inner.args[0].inner if line is not None and line.inner.kind == "list" and line.inner.args else None
                if inner is not None and inner.kind == "record" and value.name in self.index.record_fields(inner.name):
                    self.index.add(value.span, Target("field", inner.name, value.name))
        for sub in c.clauses:
            self._clause(army, sub, named_decl or "", context)
