"""What a ``units`` clause reads from each entry of its catalog: costs, names, categories, compositions.

Reads the ``name: value`` arguments of one ``units`` (or ``options``) clause and the fields
of the catalog's record. Produces formulas, each a function of an entry's record: a number
or an int field (``cost:``, ``per_model:``, ``models:``, ``max_models:``, ``weight:``), the
entry's display name (``name:``, else the record's first text field, else the id), its
category (an enum field, or one category id for the whole catalog), and its composition
(``composition:``, ``amount:``, ``alternatives:``: slots of troops to choose from). A
formula whose field is missing or of the wrong type is reported, and is None. The categories
and the troop catalog are noted in the
:class:`~rulebook.compiler.check.army_draft.ArmyDraft` (one enum of categories and one
troop catalog per army).
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.check.army_clauses import ClauseArgs, fields_of, whole_number
from rulebook.compiler.check.army_draft import ArmyDraft
from rulebook.compiler.check.state import hint


class EntryFormulas:
    """Formulas entry record → value, read from a clause's arguments."""

    def __init__(self, army: ArmyDraft):
        self.army, self.st = army, army.st

    def number_or_field(self, a: ClauseArgs, key: str, fields: dict, kinds: tuple[str, ...] = ("int",)):
        """A named argument that is a number (the same for every entry) or a field
        of the entries' record: returns a function entry → value, or None."""
        v = a.named.get(key)
        if v is None:
            return None
        if isinstance(v, n.VNum):
            number = whole_number(self.st, v, f"'{key}:'", 0)
            return (lambda rec: number) if number is not None else None
        if isinstance(v, n.VName):
            f = fields.get(v.name)
            if f is None:
                self.st.err(f"'{key}:' names no field of the catalog's record", v.span, hint(v.name, list(fields)) or "fields: " + ", ".join(fields), "army")
                return None
            if f.inner.kind not in kinds:
                fit = fields_of(fields, kinds)
                self.st.err(f"'{key}:' field {v.name} is {f}, not {' or '.join(kinds)}", v.span,
                            f"fields that fit: {', '.join(fit)}" if fit else f"the record has no {' or '.join(kinds)} field: write a number", "army")
                return None
            return lambda rec: rec.get(v.name)
        self.st.err(f"'{key}:' takes a whole number or a field name", v.span, "write it without quotes", "army")
        return None

    def name(self, a: ClauseArgs, fields: dict):
        """``name:`` (a text field), else the record's first text field: a function (entry, id) → the entry's display name."""
        v = a.named.get("name")
        if v is not None:
            if isinstance(v, n.VName) and v.name in fields and fields[v.name].inner.kind == "text":
                return lambda rec, ident: rec.get(v.name) or ident
            self.st.err("'name:' takes a text field of the catalog's record", v.span, hint(getattr(v, "name", ""), list(fields)), "army")
        text = next((f for f, t in fields.items() if t.inner.kind == "text"), None)
        return lambda rec, ident: (rec.get(text) if text else None) or ident

    def side(self, a: ClauseArgs, fields: dict):
        """``side:``: one side id for every entry, or a field (an enum, a ref, a text or an
        id) whose value, in each entry, is a side id; a function (entry, id, span) → side, or None."""
        v = a.named.get("side")
        if v is None:
            return None
        st, ids = self.st, [s.id for s in self.army.sides]
        name = v.name if isinstance(v, n.VName) else None
        field = fields.get(name) if name else None
        if name in ids and field is not None:
            st.err(f"'side: {name}' is both a side and a field of the catalog's record", v.span, "rename the side or the field: a side of the units clause must say which it is", "army")
            return None
        if name in ids:
            return lambda rec, ident, span: name
        if field is not None and field.inner.kind in ("enum", "ref", "text", "id"):
            if not ids:
                st.err(f"'side: {name}' reads each unit's side from a field, but the army declares no sides", v.span, "declare the sides first: side <id> \"Title\" (or sides Enum)", "army")
                return None

            def side(rec, ident, span):
                value = rec.get(name)
                if value in ids:
                    return value
                if value is None:
                    st.err(f"entry {ident} has no side in '{name}'", span, f"give it one of the army's sides: {', '.join(ids)}", "army")
                else:
                    st.err(f"entry {ident}'s side '{value}' (field '{name}') is not a side of army {self.army.d.name}", span,
                           hint(str(value), ids) or "sides: " + ", ".join(ids), "army")
                return None

            return side
        if field is not None:
            fit = fields_of(fields, ("enum", "ref", "text", "id"))
            st.err(f"'side:' field {name} is {field}, not an enum, ref, text or id", v.span, f"fields that fit: {', '.join(fit)}" if fit else "write a side id", "army")
            return None
        if name is None:
            st.err("'side:' takes a side id or a field of the catalog's record", v.span, "write it without quotes", "army")
        else:
            st.err(f"unknown side '{name}'", v.span, hint(name, ids + list(fields)) or ("sides: " + ", ".join(ids) if ids else "declare the sides first: side <id> \"Title\""), "army")
        return None

    def category(self, a: ClauseArgs, fields: dict):
        """``category:``: an enum field (its values become the army's categories) or one category id
        for every entry; a function entry → category, or None."""
        v = a.named.get("category")
        if v is None:
            return None
        if not isinstance(v, n.VName):
            self.st.err("'category:' takes a field (an enum) of the catalog's record, or a category id", v.span, None, "army")
            return None
        f = fields.get(v.name)
        if f is None:  # one category for every entry of the catalog
            self.army.categories.setdefault(v.name, v.name)
            return lambda rec: v.name
        if f.inner.kind != "enum":
            self.st.err(f"'category:' field {v.name} is {f}, not an enum", v.span, None, "army")
            return None
        if self.army.category_enum not in (None, f.inner.name):
            self.st.err(f"the categories of one army come from one enum ({self.army.category_enum}), not {f.inner.name}", v.span, None, "army")
            return None
        self.army.category_enum = f.inner.name
        self.st.use(f.inner.name)
        for m, t in self.st.enum_members.get(f.inner.name, []):
            self.army.categories.setdefault(m, t or m)
        return lambda rec: rec.get(v.name)

    def composition(self, a: ClauseArgs, fields: dict):
        """``composition:`` (a list of records), ``amount:`` and ``alternatives:`` (fields of that
        record): a function entry → its slots of troops, or None."""
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
        if self.army.troop_catalog not in (None, ref.name):
            st.err(f"the compositions of one army name one catalog ({self.army.troop_catalog}), not {ref.name}", alts.span, None, "army")
            return None
        self.army.troop_catalog = ref.name
        many = tb.inner.kind == "list"

        def slots(rec):
            out = []
            for line in rec.get(comp.name) or ():
                chosen = line.get(alts.name)
                out.append(ir.ArmySlot(line.get(amount.name) or 0, tuple(chosen if many else [chosen])))
            return tuple(out)

        return slots
