"""The units of an army: ``units`` clauses.

Reads one ``units catalog [side:] [cost:] … { options … }`` clause: every entry of the
catalog becomes a unit the army may field, with its side, cost, models, category, weight,
composition (:mod:`~rulebook.compiler.check.army_formulas`) and the options offered to it
(:mod:`~rulebook.compiler.check.army_options`). Produces the
:class:`~rulebook.compiler.ir.ArmyEntry` s in the
:class:`~rulebook.compiler.check.army_draft.ArmyDraft`; an entry fielded twice, a negative or
missing cost, or more than :data:`MAX_OFFERS` (entry, option) pairs are reported.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.army_clauses import UNIT_ARGS, ClauseArgs, fields_of
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.army_formulas import EntryFormulas
from rulebook.compiler.check.army_options import OptionClauses

MAX_OFFERS = 100_000
"""The most (entry, option) pairs an army offers: the army document lists each entry's options."""


class UnitsClause:
    """The units an army fields, one ``units`` clause at a time."""

    def __init__(self, army: ArmyDraft, formulas: EntryFormulas, options: OptionClauses):
        self.army, self.st, self.formulas, self.options = army, army.st, formulas, options
        self._offers = 0  # options offered, summed over the entries (at most MAX_OFFERS)

    def units(self, c: n.ArmyClause) -> None:
        st = self.st
        a = ClauseArgs(st, c, 1, UNIT_ARGS)
        catalog = self.army.catalog(a.name(0, "a catalog of units"), a.span(0))
        if catalog is None:
            self.army.broken_units = True
            self.army.broken_categories = self.army.broken_categories or "category" in a.named
            return
        fields = {f: t for f, t, _ in st.record_fields.get(catalog.record, [])}
        side_of = self.formulas.side(a, fields)
        if "cost" not in a.named:
            ints = fields_of(fields, ("int",))
            st.err(f"units {catalog.name} needs 'cost:' (a field or a number)", c.span, f"e.g. cost: {ints[0]}" if ints else "e.g. cost: 10", "army")
        cost = self.formulas.number_or_field(a, "cost", fields)
        per_model = self.formulas.number_or_field(a, "per_model", fields)
        models = self.formulas.number_or_field(a, "models", fields)
        max_models = self.formulas.number_or_field(a, "max_models", fields)
        weight = self.formulas.number_or_field(a, "weight", fields)
        if (per_model is not None or max_models is not None) and models is None:
            st.err("'per_model:' and 'max_models:' need 'models:' (the models included in the cost)", c.span, None, "army")
        name_of = self.formulas.name(a, fields)
        category_of = self.formulas.category(a, fields)
        composition_of = self.formulas.composition(a, fields)
        opts = self.options.offered_in(c, catalog)
        fielded = {e.id for e in self.army.entries}
        for ident, rec in catalog.entries.items():
            span = catalog.entry_spans.get(ident, c.span)
            if ident in fielded:
                st.err(f"entry '{ident}' is fielded twice by army {self.army.d.name}", c.span, "ids must be unique among the units an army fields", "army")
                continue
            base = cost(rec) if cost else 0
            if not isinstance(base, int) or base < 0:
                field = a.named['cost'].name if isinstance(a.named.get('cost'), n.VName) else 'cost'
                if isinstance(base, int) and not isinstance(base, bool):
                    st.err(f"entry {ident} costs {base} in '{field}'; a cost is 0 or more", span, "write the cost as 0 or a positive whole number", "army")
                else:
                    st.err(f"entry {ident} has no cost in '{field}'", span, None, "army")
                base = 0
            side = side_of(rec, ident, span) if side_of else None
            lo = models(rec) if models else None
            hi = max_models(rec) if max_models else lo
            if lo is not None and hi is not None and hi < lo:
                st.err(f"entry {ident}: max_models {hi} is below models {lo}", span, None, "army")
            allowed = tuple(k for k, scope in opts if scope is None or scope.offers(ident))
            self._offers += len(allowed)
            if self._offers > MAX_OFFERS:  # each pair is written to the army document and the builder page
                if self._offers - len(allowed) <= MAX_OFFERS:
                    st.err(f"army {self.army.d.name} offers more than {MAX_OFFERS:,} options to its units (entry {ident} reaches it)", c.span,
                           "give each option to the entries that take it (entries: [...]), or split the army", "army")
                allowed = ()
            self.army.entries.append(ir.ArmyEntry(
                id=ident, catalog=catalog.name, name=name_of(rec, ident), side=side, cost=base,
                per_model=(per_model(rec) or 0) if per_model else 0, models_min=lo, models_max=hi,
                category=category_of(rec) if category_of else None, weight=(weight(rec) if weight else 1) or 0,
                composition=composition_of(rec) if composition_of else (), options=allowed, rule=self.army.source_of(catalog.name),
            ))
        self.options.check_after_units(catalog)
