"""The sides, roles and budget of an army: ``side``, ``sides``, ``roles``, ``size``, ``sizes``,
``agreed``, ``bonus`` and ``quality`` clauses.

Reads those clauses of one ``army`` declaration (and the enums and tables they name).
Produces, in the :class:`~rulebook.compiler.check.army_draft.ArmyDraft`: the sides and
roles (from an enum, or one ``side`` clause each), the game sizes and their points (one
number, or one per role; written in place or read from a table keyed by id), the points
agreed by the players, the bonus percentage of each role, and the qualities with the
percentage each adds to a unit's cost. Each problem is reported at its position.
"""

from __future__ import annotations

from typing import Any

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.army_clauses import ClauseArgs, whole_number
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.state import hint


class SidesAndBudget:
    """The clauses that say who plays (sides, roles) and with how many points."""

    def __init__(self, army: ArmyDraft):
        self.army, self.st = army, army.st

    def side(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 2, ())
        ident, title = a.name(0, "a side id"), a.title(1)
        if ident is None:
            return
        if any(s.id == ident for s in self.army.sides):
            self.st.err(f"side '{ident}' is declared twice", a.span(0), None, "army")
            return
        self.army.sides.append(ir.ArmyChoice(ident, title or ident))

    def sides(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ())
        if self.army.sides:
            self.st.err("'sides' and 'side' do not go together", c.span, "declare the sides with one enum or one 'side' clause each", "army")
            return
        members = self.army.enum(a.name(0, "an enum of sides"), a.span(0))
        self.army.sides = [ir.ArmyChoice(m, t) for m, t in members or []]

    def roles(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ())
        if self.army.once("roles", c.span):
            self.army.roles = [ir.ArmyChoice(m, t) for m, t in self.army.enum(a.name(0, "an enum of roles"), a.span(0)) or []]

    def role_points(self, a: ClauseArgs, what: str) -> Any:
        """``points: N`` or ``role: N`` for each role."""
        roles = [r.id for r in self.army.roles]
        per_role = {k: v for k, v in a.named.items() if k != "points"}
        if "points" in a.named:
            if per_role:
                self.st.err(f"{what}: write 'points:' or one 'role: N' per role, not both", a.span("points"), None, "army")
            return whole_number(self.st, a.named["points"], "points", 1)
        if not roles:
            self.st.err(f"{what} needs 'points: N'", a.clause.span, None, "army")
            return None
        out = {}
        for k, v in per_role.items():
            if k not in roles:
                self.st.err(f"'{k}' is not a role of this army", v.span, hint(k, roles + ["points"]) or "roles: " + ", ".join(roles) + "; or 'points: N' for every role", "army")
            else:
                out[k] = whole_number(self.st, v, f"points of {k}", 1)
        missing = [r for r in roles if r not in out]
        if missing:
            if len(out) == len(per_role):  # else a misspelt role is reported above
                self.st.err(f"{what}: no points for {', '.join(missing)}", a.clause.span, "give 'points: N' or one 'role: N' per role", "army")
            return None
        return {r: out[r] for r in roles}

    def size(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 2, ("*",))
        ident, title = a.name(0, "a size id"), a.title(1)
        points = self.role_points(a, f"size {ident}")
        if ident is None or points is None:
            return
        if any(s.id == ident for s in self.army.sizes):
            self.st.err(f"size '{ident}' is declared twice", a.span(0), None, "army")
            return
        self.army.sizes.append(ir.ArmySize(ident, title or ident, points))
        self.army.sizes_rule = self.army.sizes_rule or self.army.own

    def sizes(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ("column",))
        table = self.army.table(a.name(0, "a table of game sizes"), a.span(0))
        if table is None:
            return
        if not table.keyed_by_id:
            self.st.err(f"table {table.name} must be keyed by one id (the sizes)", a.span(0), None, "army")
            return
        ints = [col.name for col in table.columns if col.type.inner.kind == "int"]
        roles = [r.id for r in self.army.roles]
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
            self.army.sizes.append(ir.ArmySize(row.keys[0], row.title or row.keys[0], points_of(row)))
        self.army.sizes_rule = self.army.source_of(table.name)

    def agreed(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 0, ("min",))
        if self.army.once("agreed", c.span):
            self.army.agreed = True
            if "min" in a.named:
                self.army.agreed_min = whole_number(self.st, a.named["min"], "the least agreed budget", 1) or 1

    def bonus(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 0, ("*",))
        roles = [r.id for r in self.army.roles]
        if not self.army.once("bonus", c.span):
            return
        if not roles:
            self.st.err("'bonus' gives a percentage per role, and this army has no 'roles'", c.span, "add: roles <Enum>", "army")
            return
        for k, v in a.named.items():
            if k not in roles:
                self.st.err(f"'{k}' is not a role of this army", v.span, hint(k, roles) or "roles: " + ", ".join(roles), "army")
                continue
            pct = whole_number(self.st, v, f"the bonus of {k} (a percentage)", 0)
            if pct is not None:
                self.army.bonus.append((k, pct))
        if not a.named:
            self.st.err("'bonus' needs 'role: percent'", c.span, None, "army")

    def quality(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ("percent", "column"))
        if not self.army.once("quality", c.span):
            return
        enum_name = a.name(0, "the enum of qualities")
        members = self.army.enum(enum_name, a.span(0))
        if members is None:
            v = a.named.get("percent")
            if v is not None:  # still report a misspelt table in the same run
                self.army.table(v.name if isinstance(v, n.VName) else None, v.span)
            return
        node = self.st.ast.get(enum_name)
        self.army.quality_title = getattr(node, "title", None) or enum_name
        percent = {m: 0 for m, _ in members}
        self.army.quality_rule = self.army.source_of(enum_name)
        if "percent" in a.named:
            v = a.named["percent"]
            table = self.army.table(v.name if isinstance(v, n.VName) else None, v.span)
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
                    self.army.quality_rule = self.army.source_of(table.name)
        self.army.quality = [ir.ArmyQuality(m, t, percent[m]) for m, t in members]
