"""The limits of an army: ``limit`` and ``limits`` clauses.

Reads those clauses of one ``army`` declaration: ``limit`` counts the units ('total'), the
units of a ``category:`` or of one ``entry:`` between ``min:`` and ``max:``; ``limits``
reads a table keyed by the units' category enum, with a column of minimums and/or one of
maximums. Produces the :class:`~rulebook.compiler.ir.ArmyLimit` s in the
:class:`~rulebook.compiler.check.army_draft.ArmyDraft`; a category or entry the army does not
have is reported (unless a ``units`` clause that named no catalog may have it).
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.army_clauses import ClauseArgs, report_unknown, whole_number
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.state import hint


class LimitClauses:
    """How many units an army fields: in all, per category, per entry."""

    def __init__(self, army: ArmyDraft):
        self.army, self.st = army, army.st
        self._ids: dict[str, None] = {}

    def _entry_ids(self) -> dict[str, None]:
        """The ids of the entries fielded so far, in order (kept between limits: one lookup each)."""
        if len(self._ids) != len(self.army.entries):
            self._ids = dict.fromkeys(e.id for e in self.army.entries)
        return self._ids

    def limit(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ("category", "entry", "min", "max"))
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
                known = self.army.categories if k == "category" else self._entry_ids()
                if target not in known:
                    if not (self.army.broken_units if k == "entry" else self.army.broken_categories):  # else it may be in the catalog not found
                        report_unknown(self.st, k, target or "?", v.span, known)
                    return
                kind = k
        if kind is None:
            self.st.err("a limit needs 'total', 'category:' or 'entry:'", c.span, None, "army")
            return
        lo = whole_number(self.st, a.named["min"], "'min:'", 0) if "min" in a.named else None
        hi = whole_number(self.st, a.named["max"], "'max:'", 0) if "max" in a.named else None
        if lo is None and hi is None:
            if "min" not in a.named and "max" not in a.named:  # else the number given was reported
                self.st.err("a limit needs 'min:' or 'max:'", c.span, None, "army")
            return
        if lo is not None and hi is not None and hi < lo:
            self.st.err(f"max {hi} is below min {lo}", a.span("max"), None, "army")
        self.army.limits.append(ir.ArmyLimit(kind, target, lo, hi, self.army.own))

    def limits(self, c: n.ArmyClause) -> None:
        a = ClauseArgs(self.st, c, 1, ("min", "max"))
        table = self.army.table(a.name(0, "a table of limits per category"), a.span(0))
        if table is None:
            return
        if self.army.category_enum is None:
            self.st.err("'limits' reads a table keyed by the units' category enum, and no units clause has 'category:' with an enum field", c.span, None, "army")
            return
        if len(table.keys) != 1 or table.keys[0].type.inner != ir.T("enum", self.army.category_enum) or table.across is not None:
            self.st.err(f"table {table.name} must be keyed by {self.army.category_enum}", a.span(0), None, "army")
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
        rule = self.army.source_of(table.name)
        for row in table.rows:
            lo = row.values.get(chosen["min"]) if "min" in chosen else None
            hi = row.values.get(chosen["max"]) if "max" in chosen else None
            if lo is not None or hi is not None:
                self.army.limits.append(ir.ArmyLimit("category", row.keys[0], lo, hi, rule))
