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
``units catalog [side: id|field] [cost:] [category:] [weight:] [name:] [per_model:] [models:]
[max_models:] [composition: f amount: f alternatives: f] { options … / option … }``
(each option offered to every unit of the block, or ``entries: [ids]``, or all but ``exclude: [ids]``) ·
``limit total|category: c|entry: e [min: N] [max: N]`` · ``limits table min: col max: col``.

The clauses are checked by parts, one module each, that add to one
:class:`~rulebook.compiler.check.army_draft.ArmyDraft`: sides, roles and budget
(:mod:`~rulebook.compiler.check.army_budget`), units (:mod:`~rulebook.compiler.check.army_units`,
with what they read from each entry's record, :mod:`~rulebook.compiler.check.army_formulas`,
and their options, :mod:`~rulebook.compiler.check.army_options`) and limits
(:mod:`~rulebook.compiler.check.army_limits`); the words of clauses and the checks of their
arguments are in :mod:`~rulebook.compiler.check.army_clauses`.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.army_budget import SidesAndBudget
from rulebook.compiler.check.army_clauses import TOP_CLAUSES, UNIT_ARGS, UNIT_CLAUSES  # noqa: F401 - the editors and the language server read them here
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.army_formulas import EntryFormulas
from rulebook.compiler.check.army_limits import LimitClauses
from rulebook.compiler.check.army_options import OptionClauses
from rulebook.compiler.check.army_units import UnitsClause
from rulebook.compiler.check.state import CheckState, hint


def check_armies(st: CheckState) -> None:
    """Every ``army`` declaration → ``state.armies``."""
    st.armies = {}
    for name, d in st.ast.items():
        if isinstance(d, n.ArmyDecl):
            st.current = name
            st.armies[name] = _ArmyChecker(st, d).build()
    st.current = None


class _ArmyChecker:
    """Checks one ``army`` declaration and builds its IR: each clause goes to the part
    that knows its word."""

    def __init__(self, st: CheckState, d: n.ArmyDecl):
        self.st, self.d = st, d
        self.army = ArmyDraft(st, d)
        budget = SidesAndBudget(self.army)
        formulas = EntryFormulas(self.army)
        units = UnitsClause(self.army, formulas, OptionClauses(self.army, formulas))
        limits = LimitClauses(self.army)
        self.handlers = {
            "side": budget.side, "sides": budget.sides, "roles": budget.roles, "sizes": budget.sizes, "size": budget.size,
            "agreed": budget.agreed, "bonus": budget.bonus, "quality": budget.quality,
            "units": units.units, "limit": limits.limit, "limits": limits.limits,
        }

    def build(self) -> ir.Army:
        d, st, army = self.d, self.st, self.army
        # sides, roles, quality and categories first: the other clauses name them
        rank = {"side": 0, "sides": 0, "roles": 0, "quality": 0, "units": 1}
        clauses = [c for _, _, c in sorted((rank.get(c.word, 2), i, c) for i, c in enumerate(d.clauses))]  # stable, linear
        for c in clauses:
            if c.word not in self.handlers:
                where = f"'{c.word}' goes in a units block: units <catalog> cost: <field> {{ {c.word} … }}" if c.word in UNIT_CLAUSES else None
                st.err(f"unknown army clause '{c.word}'", c.word_span, where or hint(c.word, TOP_CLAUSES) or "army clauses: " + ", ".join(TOP_CLAUSES), "army")
                continue
            if c.clauses and c.word != "units":
                st.err(f"'{c.word}' has no block", c.clauses[0].span, None, "army")
            self.handlers[c.word](c)
        if not army.entries and not army.broken_units:
            st.err(f"army {d.name} has no units", d.span, "add a clause: units <catalog> cost: <field>", "army")
        if not army.sizes and not army.agreed:
            st.err(f"army {d.name} has no budget", d.span, "add 'agreed' (points agreed by the players), 'size …' or 'sizes <table>'", "army")
        return army.to_ir()
