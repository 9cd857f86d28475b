"""The options of the units of an army: the ``options`` and ``option`` clauses of a ``units`` block.

Reads the clauses of one ``units`` block (an ``options`` clause offers every entry of a
catalog of upgrades, each at the cost of a field; an ``option`` clause offers one upgrade
declared in place, which may ``remove:`` or ``add:`` troops of a composition), each offered
to every unit of the block, to the ``entries:`` named, or to all but those ``exclude:``
names. Produces the options under keys of their own in the
:class:`~rulebook.compiler.check.army_draft.ArmyDraft` (an upgrade offered on other terms by
another block is ``catalog.id#2``), the keys offered to each entry, and — once the block's
units are known — the checks of the ids the options named.
"""

from __future__ import annotations

import dataclasses

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.check.army_clauses import UNIT_CLAUSES, ClauseArgs, names_in, report_unknown, whole_number
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.army_formulas import EntryFormulas
from rulebook.compiler.check.state import hint


@dataclasses.dataclass(frozen=True)
class OfferScope:
    """The units of a block an option is offered to: the ones named by
    ``entries:``, or (``exclude:``) all but the ones named."""

    names: frozenset[str]
    exclude: bool

    def offers(self, ident: str) -> bool:
        return (ident in self.names) != self.exclude


class OptionClauses:
    """The option clauses of the units blocks of one army."""

    def __init__(self, army: ArmyDraft, formulas: EntryFormulas):
        self.army, self.st, self.formulas = army, army.st, formulas
        self._entry_names: list[tuple[str, Span]] = []  # the ids entries: names in the current units block
        self._pending: list = []  # option clauses that change a composition, checked after their units

    def offered_in(self, c: n.ArmyClause, catalog: ir.Catalog) -> list[tuple[str, OfferScope | None]]:
        """The option clauses of a units block: (option key, entries allowed or None for all)."""
        out: list[tuple[str, OfferScope | None]] = []
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
                self.army.options[option.key] = option
                out.append((option.key, entries))
        return out

    def _keyed(self, option: ir.ArmyOption, clause: n.ArmyClause) -> ir.ArmyOption | None:
        """The option under a key of its own: an upgrade offered on other terms by
        another units block is ``catalog.id#2``; an option of the army, declared
        twice with other terms, is an error."""
        key, n_ = option.key, 1
        while key in self.army.options and self.army.options[key] != dataclasses.replace(option, key=key):
            if option.rule.id == self.army.own.id:
                self.st.err(f"option '{option.id}' is declared twice with different terms", clause.span, "give each option its own id", "army")
                return None
            n_ += 1
            key = f"{option.key}#{n_}"
        return dataclasses.replace(option, key=key)

    def _scope(self, a: ClauseArgs) -> OfferScope | None:
        """``entries: [ids]`` or ``exclude: [ids]`` (None: every unit of the block)."""
        given = [k for k in ("entries", "exclude") if k in a.named]
        if not given:
            return None
        if len(given) == 2:
            self.st.err("write 'entries:' (the units offered it) or 'exclude:' (the units not offered it), not both", a.span("exclude"), "keep the shorter list", "army")
        names = names_in(self.st, a.named[given[0]], "an entry id")
        self._entry_names.extend(names)
        return OfferScope(frozenset(ident for ident, _ in names), given[0] == "exclude")

    def _max(self, a: ClauseArgs) -> int:
        return whole_number(self.st, a.named["max"], "'max:'", 1) or 1 if "max" in a.named else 1

    def _options(self, c: n.ArmyClause) -> list[tuple[ir.ArmyOption, OfferScope | None]]:
        """``options catalog cost: f [max: N] [only: [ids]] [entries: [ids] | exclude: [ids]]``."""
        a = ClauseArgs(self.st, c, 1, ("cost", "max", "only", "entries", "exclude", "name"), ("cost",))
        catalog = self.army.catalog(a.name(0, "a catalog of options"), a.span(0))
        if catalog is None:
            return []
        fields = {f: t for f, t, _ in self.st.record_fields.get(catalog.record, [])}
        cost = self.formulas.number_or_field(a, "cost", fields)
        name_of = self.formulas.name(a, fields)
        only = None
        if "only" in a.named:
            only = names_in(self.st, a.named["only"], "an option id")
            for ident, span in only:
                if ident not in catalog.entries:
                    self.st.unknown(f"entry of {catalog.name}", ident, span, catalog.entries)
            only = [i for i, _ in only if i in catalog.entries]
        rule = self.army.source_of(catalog.name)
        most = self._max(a)
        entries = self._scope(a)
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

    def _option(self, c: n.ArmyClause) -> list[tuple[ir.ArmyOption, OfferScope | None]]:
        """``option id "Title" [cost: N] [max: N] [entries: [ids] | exclude: [ids]] [remove: [ids]] [add: [ids]]``."""
        a = ClauseArgs(self.st, c, 2, ("cost", "max", "entries", "exclude", "remove", "add"))
        ident, title = a.name(0, "an option id"), a.title(1)
        if ident is None:
            return []
        price = whole_number(self.st, a.named["cost"], "'cost:'", 0) if "cost" in a.named else 0
        remove = tuple(i for i, _ in names_in(self.st, a.named["remove"], "a troop id")) if "remove" in a.named else ()
        add = tuple(i for i, _ in names_in(self.st, a.named["add"], "a troop id")) if "add" in a.named else ()
        self._pending.append((ident, c, a, remove, add))
        return [(ir.ArmyOption(ident, ident, title or ident, price or 0, self._max(a), remove, add, self.army.own), self._scope(a))]

    def check_after_units(self, catalog: ir.Catalog) -> None:
        """Once the units of a block are fielded: the ids its options named with
        ``entries:``/``exclude:`` are entries of the block's catalog, and the troops
        they ``remove:``/``add:`` fit the compositions of the units offered them."""
        named, self._entry_names = self._entry_names, []
        for ident, span in named:
            if ident not in catalog.entries:
                report_unknown(self.st, f"entry of {catalog.name}", ident, span, catalog.entries)
        self._check_compositions(catalog)

    def _check_compositions(self, catalog: ir.Catalog) -> None:
        """``remove:``/``add:`` name troops of the composition catalog; what an option
        removes can be in the composition of every entry it is offered to."""
        pending, self._pending = self._pending, []
        troops = self.st.decls.get(self.army.troop_catalog) if self.army.troop_catalog else None
        for ident, c, a, remove, add in pending:
            if not (remove or add):
                continue
            if troops is None:
                self.st.err(f"option {ident} changes a composition, and these units have none", c.span, "give the units clause composition:, amount: and alternatives:", "army")
                continue
            for word in ("remove", "add"):
                for tid, span in names_in(self.st, a.named[word], "a troop id") if word in a.named else ():
                    if tid not in troops.entries:
                        self.st.unknown(f"entry of {troops.name}", tid, span, troops.entries)
            option = self.army.options.get(ident)
            for e in self.army.entries if option is not None else ():
                if e.catalog != catalog.name or option.key not in e.options:
                    continue
                possible = {t for slot in e.composition for t in slot.alternatives}
                missing = [t for t in remove if t not in possible]
                if missing:
                    self.st.err(f"option {ident} removes {', '.join(missing)}, which entry {e.id} never has", c.span, "limit the option with entries: [...]", "army")
