"""Pass 9 — army lists: ``army`` declarations → :class:`rulebook.compiler.ir.Army`.

Entry point: :func:`check_armies(state)`. Reads the ``army`` declarations and
what the earlier passes built (catalogs with their entries, tables, enums,
record fields); checks every clause (known words, known catalogs, fields,
enum values, table columns, types, ids) and reports each problem at its
position; adds ``state.armies`` (name → :class:`~rulebook.compiler.ir.Army`), which
:func:`rulebook.compiler.check.check_program` puts in :attr:`rulebook.compiler.ir.Program.armies`.

The clauses (LANGUAGE.md, "army"):

``side ID "Title"`` / ``sides Enum`` · ``roles Enum`` · ``sizes table [column: c]``
· ``size ID "Title" points: N`` (or ``role: N`` per role) · ``agreed [min: N]`` ·
``bonus role: percent …`` · ``quality Enum [percent: table]`` ·
``units catalog [side:] [cost:] [category:] [weight:] [name:] [per_model:] [models:]
[max_models:] [composition: f amount: f alternatives: f] { options … / option … }``
(each option offered to every unit of the block, or ``entries: [ids]``, or all but ``exclude: [ids]``) ·
``limit total|category: c|entry: e [min: N] [max: N]`` · ``limits table min: col max: col``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.check.state import CheckState, hint

TOP_CLAUSES = ("side", "sides", "roles", "sizes", "size", "agreed", "bonus", "quality", "units", "limit", "limits")
UNIT_CLAUSES = ("options", "option")
MAX_OFFERS = 100_000
"""The most (entry, option) pairs an army offers: the army document lists each entry's options."""
UNIT_ARGS = ("side", "cost", "category", "weight", "name", "per_model", "models", "max_models", "composition", "amount", "alternatives")


class _Clause:
    """A clause's arguments, checked against what its word accepts."""

    def __init__(self, st: CheckState, clause: n.ArmyClause, positional: int, named: tuple[str, ...], required: tuple[str, ...] = ()):
        self.st, self.clause = st, clause
        self.pos: list[n.Value] = [v for k, v in clause.args if k is None]
        self.named: dict[str, n.Value] = {}
        self.named_ok = named
        for k, v in clause.args:
            if k is None:
                continue
            if k in self.named:
                st.err(f"'{k}:' is given twice in '{clause.word}'", v.span, None, "army")
            elif k not in named and named != ("*",):
                st.err(f"'{clause.word}' has no '{k}:'", v.span, hint(k, named) or ("it takes: " + ", ".join(f"{x}:" for x in named) if named else "it takes no 'name: value'"), "army")
            self.named[k] = v
        if len(self.pos) > positional:
            st.err(f"'{clause.word}' takes {positional or 'no'} value{'s' if positional != 1 else ''} before its 'name: value' pairs", self.pos[positional].span, None, "army")
        for k in required:
            if k not in self.named:
                st.err(f"'{clause.word}' needs '{k}:'", clause.span, None, "army")

    def name(self, i: int, what: str) -> str | None:
        """The i-th positional value as a name (reported when missing or not a name)."""
        if i >= len(self.pos):
            self.st.err(f"'{self.clause.word}' needs {what}", self.clause.span, None, "army")
            return None
        v = self.pos[i]
        if isinstance(v, n.VName):
            return v.name
        self.st.err(f"expected {what} here (a name)", v.span, None, "army")
        return None

    def title(self, i: int) -> str | None:
        if i < len(self.pos) and isinstance(self.pos[i], n.VStr):
            return self.pos[i].value
        if i < len(self.pos):
            self.st.err('expected a display title here ("…")', self.pos[i].span, None, "army")
        return None

    def span(self, i_or_key) -> Span:
        if isinstance(i_or_key, int):
            return self.pos[i_or_key].span if i_or_key < len(self.pos) else self.clause.span
        v = self.named.get(i_or_key)
        return v.span if v is not None else self.clause.span


def _int(st: CheckState, v: n.Value, what: str, low: int | None = 0) -> int | None:
    """A whole number literal (at least ``low``), reported otherwise."""
    value = v.value if isinstance(v, n.VNum) else None
    if not isinstance(value, int) or isinstance(value, bool):
        example = max(low or 0, 1)
        st.err(f"{what} must be a whole number", v.span, f"write digits, without quotes or decimals (e.g. {example})", "army")
        return None
    if low is not None and value < low:
        st.err(f"{what} must be at least {low}, got {value}", v.span, f"write {low} or more", "army")
        return None
    return value


def _names(st: CheckState, v: n.Value, what: str) -> list[tuple[str, Span]]:
    """``[a, b]`` (or one name) as names with their spans."""
    items = v.items if isinstance(v, n.VList) else (v,)
    out = []
    for x in items:
        if isinstance(x, n.VName):
            out.append((x.name, x.span))
        elif isinstance(x, n.VQualified):
            out.append((x.name, x.span))
        else:
            st.err(f"expected {what} (a name)", x.span, None, "army")
    return out


@dataclasses.dataclass(frozen=True)
class _Scope:
    """The units of a block an option is offered to: the ones named by
    ``entries:``, or (``exclude:``) all but the ones named."""

    names: frozenset[str]
    exclude: bool

    def offers(self, ident: str) -> bool:
        return (ident in self.names) != self.exclude


def _unknown(st: CheckState, what: str, name: str, span: Span, candidates) -> None:
    """``unknown <what> 'name'``: a did-you-mean when one is close, else the names
    it could be (the first few)."""
    names = [c for c in candidates if isinstance(c, str)]
    if hint(name, names) or not names:
        st.unknown(what, name, span, names)
        return
    shown = ", ".join(names[:8]) + (f", … ({len(names)} in all)" if len(names) > 8 else "")
    st.err(f"unknown {what} '{name}'", span, f"known: {shown}", "unknown-name")


def _fields_of(fields: dict, kinds: tuple[str, ...]) -> list[str]:
    """The names of the record fields of one of these kinds."""
    return [f for f, t in fields.items() if t.inner.kind in kinds]


def check_armies(st: CheckState) -> None:
    """Every ``army`` declaration → ``state.armies``."""
    st.armies = {}
    for name, d in st.ast.items():
        if isinstance(d, n.ArmyDecl):
            st.current = name
            st.armies[name] = _ArmyChecker(st, d).build()
    st.current = None


class _ArmyChecker:
    """Checks one ``army`` declaration and builds its IR."""

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
        self._offers = 0  # options offered, summed over the entries (at most MAX_OFFERS)
        self._ids: dict[str, None] = {}
        self.options: dict[str, ir.ArmyOption] = {}
        self.limits: list[ir.ArmyLimit] = []
        self.troop_catalog: str | None = None
        self.seen: dict[str, Span] = {}
        self._entry_names: list[tuple[str, Span]] = []  # the ids entries: names in the current units block
        self._pending: list = []  # option clauses that change a composition, checked after their units
        self._broken_units = False  # a units clause named no catalog: its entries are unknown
        self._broken_categories = False  # … and it had 'category:': its categories are unknown

    # ------------------------------------------------------------------ helpers
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

    # ------------------------------------------------------------------ build
    def build(self) -> ir.Army:
        d, st = self.d, self.st
        order = {w: i for i, w in enumerate(TOP_CLAUSES)}
        # sides, roles, quality and categories first: the other clauses name them
        rank = {"side": 0, "sides": 0, "roles": 0, "quality": 0, "units": 1}
        clauses = [c for _, _, c in sorted((rank.get(c.word, 2), i, c) for i, c in enumerate(d.clauses))]  # stable, linear
        for c in clauses:
            if c.word not in order:
                where = f"'{c.word}' goes in a units block: units <catalog> cost: <field> {{ {c.word} … }}" if c.word in UNIT_CLAUSES else None
                st.err(f"unknown army clause '{c.word}'", c.word_span, where or hint(c.word, TOP_CLAUSES) or "army clauses: " + ", ".join(TOP_CLAUSES), "army")
                continue
            if c.clauses and c.word != "units":
                st.err(f"'{c.word}' has no block", c.clauses[0].span, None, "army")
            getattr(self, "_" + c.word)(c)
        if not self.entries and not self._broken_units:
            st.err(f"army {d.name} has no units", d.span, "add a clause: units <catalog> cost: <field>", "army")
        if not self.sizes and not self.agreed:
            st.err(f"army {d.name} has no budget", d.span, "add 'agreed' (points agreed by the players), 'size …' or 'sizes <table>'", "army")
        return ir.Army(
            **st.common(d),
            sides=tuple(self.sides), roles=tuple(self.roles), sizes=tuple(self.sizes), sizes_rule=self.sizes_rule,
            agreed=self.agreed, agreed_min=self.agreed_min, bonus=tuple(self.bonus), quality_title=self.quality_title,
            quality=tuple(self.quality), quality_rule=self.quality_rule,
            categories=tuple(ir.ArmyChoice(k, t) for k, t in self.categories.items()), entries=tuple(self.entries),
            options=self.options, limits=tuple(self.limits), troop_catalog=self.troop_catalog,
        )

    # ------------------------------------------------------------------ sides, roles, budget
    def _side(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 2, ())
        ident, title = a.name(0, "a side id"), a.title(1)
        if ident is None:
            return
        if any(s.id == ident for s in self.sides):
            self.st.err(f"side '{ident}' is declared twice", a.span(0), None, "army")
            return
        self.sides.append(ir.ArmyChoice(ident, title or ident))

    def _sides(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ())
        if self.sides:
            self.st.err("'sides' and 'side' do not go together", c.span, "declare the sides with one enum or one 'side' clause each", "army")
            return
        members = self.enum(a.name(0, "an enum of sides"), a.span(0))
        self.sides = [ir.ArmyChoice(m, t) for m, t in members or []]

    def _roles(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ())
        if self.once("roles", c.span):
            self.roles = [ir.ArmyChoice(m, t) for m, t in self.enum(a.name(0, "an enum of roles"), a.span(0)) or []]

    def _role_points(self, a: _Clause, what: str) -> Any:
        """``points: N`` or ``role: N`` for each role."""
        roles = [r.id for r in self.roles]
        per_role = {k: v for k, v in a.named.items() if k != "points"}
        if "points" in a.named:
            if per_role:
                self.st.err(f"{what}: write 'points:' or one 'role: N' per role, not both", a.span("points"), None, "army")
            return _int(self.st, a.named["points"], "points", 1)
        if not roles:
            self.st.err(f"{what} needs 'points: N'", a.clause.span, None, "army")
            return None
        out = {}
        for k, v in per_role.items():
            if k not in roles:
                self.st.err(f"'{k}' is not a role of this army", v.span, hint(k, roles + ["points"]) or "roles: " + ", ".join(roles) + "; or 'points: N' for every role", "army")
            else:
                out[k] = _int(self.st, v, f"points of {k}", 1)
        missing = [r for r in roles if r not in out]
        if missing:
            if len(out) == len(per_role):  # else a misspelt role is reported above
                self.st.err(f"{what}: no points for {', '.join(missing)}", a.clause.span, "give 'points: N' or one 'role: N' per role", "army")
            return None
        return {r: out[r] for r in roles}

    def _size(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 2, ("*",))
        ident, title = a.name(0, "a size id"), a.title(1)
        points = self._role_points(a, f"size {ident}")
        if ident is None or points is None:
            return
        if any(s.id == ident for s in self.sizes):
            self.st.err(f"size '{ident}' is declared twice", a.span(0), None, "army")
            return
        self.sizes.append(ir.ArmySize(ident, title or ident, points))
        self.sizes_rule = self.sizes_rule or self.own

    def _sizes(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ("column",))
        table = self.table(a.name(0, "a table of game sizes"), a.span(0))
        if table is None:
            return
        if not table.keyed_by_id:
            self.st.err(f"table {table.name} must be keyed by one id (the sizes)", a.span(0), None, "army")
            return
        ints = [col.name for col in table.columns if col.type.inner.kind == "int"]
        roles = [r.id for r in self.roles]
        if "column" in a.named:
            col = a.named["column"].name if isinstance(a.named["column"], n.VName) else None
            if col not in ints:
                self.st.err(f"table {table.name} has no int column '{col}'", a.span("column"), hint(col or "", ints), "army")
                return
            points_of = lambda row: row.values.get(col)  # noqa: E731
        elif roles and all(r in ints for r in roles):
            points_of = lambda row: {r: row.values.get(r) for r in roles}  # noqa: E731
        elif len(ints) == 1:
            points_of = lambda row: row.values.get(ints[0])  # noqa: E731
        else:
            want = f"one int column per role ({', '.join(roles)})" if roles else "one int column"
            self.st.err(f"table {table.name} needs {want}, or say which with 'column:'", a.span(0), None, "army")
            return
        for row in table.rows:
            self.sizes.append(ir.ArmySize(row.keys[0], row.title or row.keys[0], points_of(row)))
        self.sizes_rule = self.source_of(table.name)

    def _agreed(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 0, ("min",))
        if self.once("agreed", c.span):
            self.agreed = True
            if "min" in a.named:
                self.agreed_min = _int(self.st, a.named["min"], "the least agreed budget", 1) or 1

    def _bonus(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 0, ("*",))
        roles = [r.id for r in self.roles]
        if not self.once("bonus", c.span):
            return
        if not roles:
            self.st.err("'bonus' gives a percentage per role, and this army has no 'roles'", c.span, "add: roles <Enum>", "army")
            return
        for k, v in a.named.items():
            if k not in roles:
                self.st.err(f"'{k}' is not a role of this army", v.span, hint(k, roles) or "roles: " + ", ".join(roles), "army")
                continue
            pct = _int(self.st, v, f"the bonus of {k} (a percentage)", 0)
            if pct is not None:
                self.bonus.append((k, pct))
        if not a.named:
            self.st.err("'bonus' needs 'role: percent'", c.span, None, "army")

    def _quality(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ("percent", "column"))
        if not self.once("quality", c.span):
            return
        enum_name = a.name(0, "the enum of qualities")
        members = self.enum(enum_name, a.span(0))
        if members is None:
            v = a.named.get("percent")
            if v is not None:  # still report a misspelt table in the same run
                self.table(v.name if isinstance(v, n.VName) else None, v.span)
            return
        node = self.st.ast.get(enum_name)
        self.quality_title = getattr(node, "title", None) or enum_name
        percent = {m: 0 for m, _ in members}
        self.quality_rule = self.source_of(enum_name)
        if "percent" in a.named:
            v = a.named["percent"]
            table = self.table(v.name if isinstance(v, n.VName) else None, v.span)
            if table is not None:
                cols = [col.name for col in table.columns if col.type.inner.kind == "int"]
                col = a.named["column"].name if isinstance(a.named.get("column"), n.VName) else (cols[0] if len(cols) == 1 else None)
                if len(table.keys) != 1 or table.keys[0].type != ir.T("enum", enum_name) or table.across is not None or col not in cols:
                    self.st.err(f"table {table.name} must be keyed by {enum_name} with one int column (the percentage), or name it with 'column:'", v.span,
                                f"its int columns: {', '.join(cols)}" if cols else "give the table an int column", "army")
                else:
                    for row in table.rows:
                        pct = row.values.get(col)
                        if isinstance(pct, int) and pct < -100:
                            self.st.err(f"a cost percentage below -100 makes a negative cost ({row.keys[0]}: {pct})", row.span, None, "army")
                        percent[row.keys[0]] = pct if isinstance(pct, int) else 0
                    self.quality_rule = self.source_of(table.name)
        self.quality = [ir.ArmyQuality(m, t, percent[m]) for m, t in members]

    # ------------------------------------------------------------------ units
    def _field_or_int(self, a: _Clause, key: str, fields: dict, kinds: tuple[str, ...] = ("int",)):
        """A named argument that is a number (the same for every entry) or a field
        of the entries' record: returns a function entry → value, or None."""
        v = a.named.get(key)
        if v is None:
            return None
        if isinstance(v, n.VNum):
            number = _int(self.st, v, f"'{key}:'", 0)
            return (lambda rec: number) if number is not None else None
        if isinstance(v, n.VName):
            f = fields.get(v.name)
            if f is None:
                self.st.err(f"'{key}:' names no field of the catalog's record", v.span, hint(v.name, list(fields)) or "fields: " + ", ".join(fields), "army")
                return None
            if f.inner.kind not in kinds:
                fit = _fields_of(fields, kinds)
                self.st.err(f"'{key}:' field {v.name} is {f}, not {' or '.join(kinds)}", v.span,
                            f"fields that fit: {', '.join(fit)}" if fit else f"the record has no {' or '.join(kinds)} field: write a number", "army")
                return None
            return lambda rec: rec.get(v.name)
        self.st.err(f"'{key}:' takes a whole number or a field name", v.span, "write it without quotes", "army")
        return None

    def _units(self, c: n.ArmyClause) -> None:
        st = self.st
        a = _Clause(st, c, 1, UNIT_ARGS)
        catalog = self.catalog(a.name(0, "a catalog of units"), a.span(0))
        if catalog is None:
            self._broken_units = True
            self._broken_categories = self._broken_categories or "category" in a.named
            return
        fields = {f: t for f, t, _ in st.record_fields.get(catalog.record, [])}
        side = None
        if "side" in a.named:
            v = a.named["side"]
            ids = [s.id for s in self.sides]
            side = v.name if isinstance(v, n.VName) else None
            if side not in ids:
                st.err(f"unknown side '{side}'" if side else "'side:' takes a side id", v.span, hint(side or "", ids) or ("sides: " + ", ".join(ids) if ids else "declare the sides first: side <id> \"Title\""), "army")
                side = None
        if "cost" not in a.named:
            ints = _fields_of(fields, ("int",))
            st.err(f"units {catalog.name} needs 'cost:' (a field or a number)", c.span, f"e.g. cost: {ints[0]}" if ints else "e.g. cost: 10", "army")
        cost = self._field_or_int(a, "cost", fields)
        per_model = self._field_or_int(a, "per_model", fields)
        models = self._field_or_int(a, "models", fields)
        max_models = self._field_or_int(a, "max_models", fields)
        weight = self._field_or_int(a, "weight", fields)
        if (per_model is not None or max_models is not None) and models is None:
            st.err("'per_model:' and 'max_models:' need 'models:' (the models included in the cost)", c.span, None, "army")
        name_of = self._name_field(a, fields)
        category_of = self._category(a, fields)
        composition_of = self._composition(a, fields)
        opts = self._unit_options(c, catalog)
        fielded = {e.id for e in self.entries}
        for ident, rec in catalog.entries.items():
            span = catalog.entry_spans.get(ident, c.span)
            if ident in fielded:
                st.err(f"entry '{ident}' is fielded twice by army {self.d.name}", c.span, "ids must be unique among the units an army fields", "army")
                continue
            base = cost(rec) if cost else 0
            if not isinstance(base, int) or base < 0:
                field = a.named['cost'].name if isinstance(a.named.get('cost'), n.VName) else 'cost'
                if isinstance(base, int) and not isinstance(base, bool):
                    st.err(f"entry {ident} costs {base} in '{field}'; a cost is 0 or more", span, "write the cost as 0 or a positive whole number", "army")
                else:
                    st.err(f"entry {ident} has no cost in '{field}'", span, None, "army")
                base = 0
            lo = models(rec) if models else None
            hi = max_models(rec) if max_models else lo
            if lo is not None and hi is not None and hi < lo:
                st.err(f"entry {ident}: max_models {hi} is below models {lo}", span, None, "army")
            allowed = tuple(k for k, scope in opts if scope is None or scope.offers(ident))
            self._offers += len(allowed)
            if self._offers > MAX_OFFERS:  # each pair is written to the army document and the builder page
                if self._offers - len(allowed) <= MAX_OFFERS:
                    st.err(f"army {self.d.name} offers more than {MAX_OFFERS:,} options to its units (entry {ident} reaches it)", c.span,
                           "give each option to the entries that take it (entries: [...]), or split the army", "army")
                allowed = ()
            self.entries.append(ir.ArmyEntry(
                id=ident, catalog=catalog.name, name=name_of(rec, ident), side=side, cost=base,
                per_model=(per_model(rec) or 0) if per_model else 0, models_min=lo, models_max=hi,
                category=category_of(rec) if category_of else None, weight=(weight(rec) if weight else 1) or 0,
                composition=composition_of(rec) if composition_of else (), options=allowed, rule=self.source_of(catalog.name),
            ))
        named, self._entry_names = self._entry_names, []
        for ident, span in named:
            if ident not in catalog.entries:
                _unknown(st, f"entry of {catalog.name}", ident, span, catalog.entries)
        self._check_composition_options(catalog)

    def _name_field(self, a: _Clause, fields: dict):
        v = a.named.get("name")
        if v is not None:
            if isinstance(v, n.VName) and v.name in fields and fields[v.name].inner.kind == "text":
                return lambda rec, ident: rec.get(v.name) or ident
            self.st.err("'name:' takes a text field of the catalog's record", v.span, hint(getattr(v, "name", ""), list(fields)), "army")
        text = next((f for f, t in fields.items() if t.inner.kind == "text"), None)
        return lambda rec, ident: (rec.get(text) if text else None) or ident

    def _category(self, a: _Clause, fields: dict):
        v = a.named.get("category")
        if v is None:
            return None
        if not isinstance(v, n.VName):
            self.st.err("'category:' takes a field (an enum) of the catalog's record, or a category id", v.span, None, "army")
            return None
        f = fields.get(v.name)
        if f is None:  # one category for every entry of the catalog
            self.categories.setdefault(v.name, v.name)
            return lambda rec: v.name
        if f.inner.kind != "enum":
            self.st.err(f"'category:' field {v.name} is {f}, not an enum", v.span, None, "army")
            return None
        if self.category_enum not in (None, f.inner.name):
            self.st.err(f"the categories of one army come from one enum ({self.category_enum}), not {f.inner.name}", v.span, None, "army")
            return None
        self.category_enum = f.inner.name
        self.st.use(f.inner.name)
        for m, t in self.st.enum_members.get(f.inner.name, []):
            self.categories.setdefault(m, t or m)
        return lambda rec: rec.get(v.name)

    def _composition(self, a: _Clause, fields: dict):
        keys = ("composition", "amount", "alternatives")
        given = [k for k in keys if k in a.named]
        if not given:
            return None
        if len(given) != 3:
            self.st.err("'composition:', 'amount:' and 'alternatives:' go together", a.span(given[0]), None, "army")
            return None
        st = self.st
        comp = a.named["composition"]
        f = fields.get(comp.name) if isinstance(comp, n.VName) else None
        if f is None or f.inner.kind != "list" or f.inner.args[0].kind != "record":
            st.err("'composition:' takes a field that is a list of records", comp.span, hint(getattr(comp, "name", ""), list(fields)), "army")
            return None
        record = f.inner.args[0].name
        sub = {x: t for x, t, _ in st.record_fields.get(record, [])}
        amount, alts = a.named["amount"], a.named["alternatives"]
        ta = sub.get(getattr(amount, "name", None))
        tb = sub.get(getattr(alts, "name", None))
        if ta is None or ta.inner.kind != "int":
            st.err(f"'amount:' takes an int field of record {record}", amount.span, hint(getattr(amount, "name", ""), list(sub)), "army")
            return None
        if tb is None or tb.inner.kind not in ("list", "ref") or (tb.inner.kind == "list" and tb.inner.args[0].kind != "ref"):
            st.err(f"'alternatives:' takes a field of record {record} that is a ref or a list of refs", alts.span, hint(getattr(alts, "name", ""), list(sub)), "army")
            return None
        ref = tb.inner.args[0] if tb.inner.kind == "list" else tb.inner
        if "|" in (ref.name or ""):
            st.err("'alternatives:' refs must name one catalog", alts.span, None, "army")
            return None
        if self.troop_catalog not in (None, ref.name):
            st.err(f"the compositions of one army name one catalog ({self.troop_catalog}), not {ref.name}", alts.span, None, "army")
            return None
        self.troop_catalog = ref.name
        many = tb.inner.kind == "list"

        def slots(rec):
            out = []
            for line in rec.get(comp.name) or ():
                chosen = line.get(alts.name)
                out.append(ir.ArmySlot(line.get(amount.name) or 0, tuple(chosen if many else [chosen])))
            return tuple(out)

        return slots

    # ------------------------------------------------------------------ options
    def _unit_options(self, c: n.ArmyClause, catalog: ir.Catalog) -> list[tuple[str, _Scope | None]]:
        """The option clauses of a units block: (option key, entries allowed or None for all)."""
        out: list[tuple[str, _Scope | None]] = []
        local: dict[str, Span] = {}
        for oc in c.clauses:
            if oc.word not in UNIT_CLAUSES:
                self.st.err(f"unknown clause '{oc.word}' in a units block", oc.word_span, hint(oc.word, UNIT_CLAUSES) or "units blocks hold: options, option", "army")
                continue
            made = self._options(oc) if oc.word == "options" else self._option(oc)
            for option, entries in made:
                if option.id in local:
                    self.st.err(f"option id '{option.id}' is offered twice to units of {catalog.name}", oc.span, f"first at {local[option.id]}", "army")
                    continue
                local[option.id] = oc.span
                option = self._keyed(option, oc)
                if option is None:
                    continue
                self.options[option.key] = option
                out.append((option.key, entries))
        return out

    def _keyed(self, option: ir.ArmyOption, clause: n.ArmyClause) -> ir.ArmyOption | None:
        """The option under a key of its own: an upgrade offered on other terms by
        another units block is ``catalog.id#2``; an option of the army, declared
        twice with other terms, is an error."""
        key, n_ = option.key, 1
        while key in self.options and self.options[key] != dataclasses.replace(option, key=key):
            if option.rule.id == self.own.id:
                self.st.err(f"option '{option.id}' is declared twice with different terms", clause.span, "give each option its own id", "army")
                return None
            n_ += 1
            key = f"{option.key}#{n_}"
        return dataclasses.replace(option, key=key)

    def _entries_arg(self, a: _Clause) -> _Scope | None:
        """``entries: [ids]`` or ``exclude: [ids]`` (None: every unit of the block)."""
        given = [k for k in ("entries", "exclude") if k in a.named]
        if not given:
            return None
        if len(given) == 2:
            self.st.err("write 'entries:' (the units offered it) or 'exclude:' (the units not offered it), not both", a.span("exclude"), "keep the shorter list", "army")
        names = _names(self.st, a.named[given[0]], "an entry id")
        self._entry_names.extend(names)
        return _Scope(frozenset(ident for ident, _ in names), given[0] == "exclude")

    def _max(self, a: _Clause) -> int:
        return _int(self.st, a.named["max"], "'max:'", 1) or 1 if "max" in a.named else 1

    def _options(self, c: n.ArmyClause) -> list[tuple[ir.ArmyOption, _Scope | None]]:
        """``options catalog cost: f [max: N] [only: [ids]] [entries: [ids] | exclude: [ids]]``."""
        a = _Clause(self.st, c, 1, ("cost", "max", "only", "entries", "exclude", "name"), ("cost",))
        catalog = self.catalog(a.name(0, "a catalog of options"), a.span(0))
        if catalog is None:
            return []
        fields = {f: t for f, t, _ in self.st.record_fields.get(catalog.record, [])}
        cost = self._field_or_int(a, "cost", fields)
        name_of = self._name_field(a, fields)
        only = None
        if "only" in a.named:
            only = _names(self.st, a.named["only"], "an option id")
            for ident, span in only:
                if ident not in catalog.entries:
                    self.st.unknown(f"entry of {catalog.name}", ident, span, catalog.entries)
            only = [i for i, _ in only if i in catalog.entries]
        rule = self.source_of(catalog.name)
        most = self._max(a)
        entries = self._entries_arg(a)
        out = []
        for ident, rec in catalog.entries.items():
            if only is not None and ident not in only:
                continue
            key = f"{catalog.name}.{ident}"
            price = cost(rec) if cost else 0
            if not isinstance(price, int) or price < 0:
                what = f"costs {price}; a cost is 0 or more" if isinstance(price, int) and not isinstance(price, bool) else "has no cost"
                self.st.err(f"option {ident} {what}", catalog.entry_spans.get(ident, c.span), "give the entry a whole number (0 or more) in the cost field", "army")
                price = 0
            out.append((ir.ArmyOption(key, ident, name_of(rec, ident), price, most, (), (), rule), entries))
        return out

    def _option(self, c: n.ArmyClause) -> list[tuple[ir.ArmyOption, _Scope | None]]:
        """``option id "Title" [cost: N] [max: N] [entries: [ids] | exclude: [ids]] [remove: [ids]] [add: [ids]]``."""
        a = _Clause(self.st, c, 2, ("cost", "max", "entries", "exclude", "remove", "add"))
        ident, title = a.name(0, "an option id"), a.title(1)
        if ident is None:
            return []
        price = _int(self.st, a.named["cost"], "'cost:'", 0) if "cost" in a.named else 0
        remove = tuple(i for i, _ in _names(self.st, a.named["remove"], "a troop id")) if "remove" in a.named else ()
        add = tuple(i for i, _ in _names(self.st, a.named["add"], "a troop id")) if "add" in a.named else ()
        self._pending.append((ident, c, a, remove, add))
        return [(ir.ArmyOption(ident, ident, title or ident, price or 0, self._max(a), remove, add, self.own), self._entries_arg(a))]

    def _check_composition_options(self, catalog: ir.Catalog) -> None:
        """``remove:``/``add:`` name troops of the composition catalog; what an option
        removes can be in the composition of every entry it is offered to."""
        pending, self._pending = self._pending, []
        troops = self.st.decls.get(self.troop_catalog) if self.troop_catalog else None
        for ident, c, a, remove, add in pending:
            if not (remove or add):
                continue
            if troops is None:
                self.st.err(f"option {ident} changes a composition, and these units have none", c.span, "give the units clause composition:, amount: and alternatives:", "army")
                continue
            for word in ("remove", "add"):
                for tid, span in _names(self.st, a.named[word], "a troop id") if word in a.named else ():
                    if tid not in troops.entries:
                        self.st.unknown(f"entry of {troops.name}", tid, span, troops.entries)
            option = self.options.get(ident)
            for e in self.entries if option is not None else ():
                if e.catalog != catalog.name or option.key not in e.options:
                    continue
                possible = {t for slot in e.composition for t in slot.alternatives}
                missing = [t for t in remove if t not in possible]
                if missing:
                    self.st.err(f"option {ident} removes {', '.join(missing)}, which entry {e.id} never has", c.span, "limit the option with entries: [...]", "army")

    # ------------------------------------------------------------------ limits
    def _entry_ids(self) -> dict[str, None]:
        """The ids of the entries fielded so far, in order (kept between limits: one lookup each)."""
        if len(self._ids) != len(self.entries):
            self._ids = dict.fromkeys(e.id for e in self.entries)
        return self._ids

    def _limit(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ("category", "entry", "min", "max"))
        kind, target = None, None
        if a.pos:
            word = a.name(0, "'total'")
            if word != "total":
                self.st.err("a limit counts the units ('total'), a 'category:' or an 'entry:'", a.span(0), hint(word or "", ["total"]) or "e.g. limit total max: 10, limit entry: <id> max: 1", "army")
                return
            kind = "units"
        for k in ("category", "entry"):
            if k in a.named:
                if kind is not None:
                    self.st.err("a limit counts one thing: 'total', a 'category:' or an 'entry:'", a.span(k), "write one limit clause for each", "army")
                    return
                v = a.named[k]
                target = v.name if isinstance(v, (n.VName, n.VQualified)) else None
                known = self.categories if k == "category" else self._entry_ids()
                if target not in known:
                    if not (self._broken_units if k == "entry" else self._broken_categories):  # else it may be in the catalog not found
                        _unknown(self.st, k, target or "?", v.span, known)
                    return
                kind = k
        if kind is None:
            self.st.err("a limit needs 'total', 'category:' or 'entry:'", c.span, None, "army")
            return
        lo = _int(self.st, a.named["min"], "'min:'", 0) if "min" in a.named else None
        hi = _int(self.st, a.named["max"], "'max:'", 0) if "max" in a.named else None
        if lo is None and hi is None:
            if "min" not in a.named and "max" not in a.named:  # else the number given was reported
                self.st.err("a limit needs 'min:' or 'max:'", c.span, None, "army")
            return
        if lo is not None and hi is not None and hi < lo:
            self.st.err(f"max {hi} is below min {lo}", a.span("max"), None, "army")
        self.limits.append(ir.ArmyLimit(kind, target, lo, hi, self.own))

    def _limits(self, c: n.ArmyClause) -> None:
        a = _Clause(self.st, c, 1, ("min", "max"))
        table = self.table(a.name(0, "a table of limits per category"), a.span(0))
        if table is None:
            return
        if self.category_enum is None:
            self.st.err("'limits' reads a table keyed by the units' category enum, and no units clause has 'category:' with an enum field", c.span, None, "army")
            return
        if len(table.keys) != 1 or table.keys[0].type.inner != ir.T("enum", self.category_enum) or table.across is not None:
            self.st.err(f"table {table.name} must be keyed by {self.category_enum}", a.span(0), None, "army")
            return
        cols = {col.name for col in table.columns if col.type.inner.kind == "int"}
        chosen = {}
        for k in ("min", "max"):
            v = a.named.get(k)
            if v is None:
                continue
            if not isinstance(v, n.VName) or v.name not in cols:
                self.st.err(f"'{k}:' takes an int column of table {table.name}", v.span, hint(getattr(v, "name", ""), cols), "army")
                return
            chosen[k] = v.name
        if not chosen:
            self.st.err("'limits' needs 'min:' and/or 'max:' (columns of the table)", c.span, None, "army")
            return
        rule = self.source_of(table.name)
        for row in table.rows:
            lo = row.values.get(chosen["min"]) if "min" in chosen else None
            hi = row.values.get(chosen["max"]) if "max" in chosen else None
            if lo is not None or hi is not None:
                self.limits.append(ir.ArmyLimit("category", row.keys[0], lo, hi, rule))
