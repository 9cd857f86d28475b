"""Army documents + the site's context → the words of the army builder's print sheet.

Reads the army documents the build wrote (``json/armies/<army>.json``: each entry's and
troop's catalog and id) and the site's :class:`rulebook.compiler.emit.site.pages.context.SiteContext`
(the catalogs, their records and fields, the titles of enum values, entries and rules).
Produces, for :mod:`rulebook.compiler.emit.site.to_army_page`, the ``sheet`` part of a
builder page's data (:func:`sheet_words`): the readable label of each field of the cards
(``BajasMaximas`` → the rulebook's own spelling, as the datasheet pages show it), the field
that holds each catalog's datasheet cost (the sheet prints a unit's points worked out
instead), and what each card refers to (a weapon's profile) with its values, so that a
printed list can be played from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T
from rulebook.compiler.emit.site.markdown import number
from rulebook.compiler.emit.site.pages.values import Values
from rulebook.compiler.support.i18n import _

if TYPE_CHECKING:
    from rulebook.compiler.emit.site.pages.context import SiteContext

DEPTH = 3  # records inside records a referenced entry's values go down to


class SheetWords:
    """The print sheet's words for the armies of one site."""

    def __init__(self, ctx: SiteContext) -> None:
        self.ctx = ctx
        self.values = Values(ctx, ctx.p)

    def fields(self, catalog: str) -> tuple[ir.RecordField, ...]:
        d = self.ctx.catalogs.get(catalog)
        return self.ctx.fields(d.record) if d is not None else ()

    def labels(self, catalog: str) -> dict[str, str]:
        """Field name → its label as players read it (only where it differs from the field's title)."""
        out = {}
        for f in self.fields(catalog):
            label = self.values.label(f)
            if label != (f.title or f.name):
                out[f.name] = label
        return out

    def cost_field(self, catalog: str) -> str | None:
        d = self.ctx.catalogs.get(catalog)
        return d.cost.field if d is not None and d.cost is not None else None

    # ------------------------------------------------------------------ values as text
    def text(self, v: Any, t: T, depth: int = 0) -> str:
        """A value of type ``t`` as plain words: numbers in the site's notation, titles of enum values,
        entries and rules, records as ``label value`` pairs."""
        k = t.kind
        if v is None:
            return "–"
        if k == "opt":
            return self.text(v, t.args[0], depth)
        if k == "bool":
            return _("Yes") if v else _("No")
        if k in ("int", "decimal"):
            return number(v)
        if k == "enum":
            return self.ctx.member_titles.get(t.name, {}).get(v, str(v))
        if k in ("ref", "refs"):
            cat = self.ctx.ref_catalog(t, v)
            return self.ctx.entry_title(cat, v) if cat else str(v)
        if k == "rule":
            return self.values.rule_label(v["rule"], v["args"].values()) if isinstance(v, dict) else self.ctx.title_of(str(v))
        if k == "list":
            sep = "; " if t.args[0].inner.kind == "record" else ", "
            return sep.join(self.text(x, t.args[0], depth) for x in v) or "–"
        if k == "map":
            return " / ".join(self.text(x, t.args[0], depth) for x in v.values())
        if k == "record" and isinstance(v, dict):
            if self.values.numeric_record(t.name):
                return "-".join(self.text(v.get(f.name), f.type, depth) for f in self.ctx.fields(t.name))
            if depth >= DEPTH:
                return "…"
            parts = []
            for f in self.ctx.fields(t.name):
                if v.get(f.name) is None:
                    continue
                parts.append(f"{self.field_label(f)} {self.text(v[f.name], f.type, depth + 1)}")
            return " · ".join(parts)
        return str(v)

    def field_label(self, f: ir.RecordField) -> str:
        """A field's label; a map over an enum names its keys (``I (Corta / Media / Larga)``), a record of
        numbers its parts."""
        label = self.values.label(f)
        inner = f.type.inner
        if inner.kind == "map" and inner.name in self.ctx.enums:
            keys = " / ".join(self.ctx.member_titles.get(inner.name, {}).values())
            item = inner.args[0].inner
            if item.kind == "record" and self.values.numeric_record(item.name):
                keys += "; " + "-".join(self.values.label(sf) for sf in self.ctx.fields(item.name))
            return f"{label} ({keys})"
        if inner.kind == "record" and self.values.numeric_record(inner.name):
            return f"{label} ({'-'.join(self.values.label(sf) for sf in self.ctx.fields(inner.name))})"
        return label

    # ------------------------------------------------------------------ what a card refers to
    def refs_in(self, v: Any, t: T, found: list[tuple[str, str]], depth: int = 0) -> None:
        """The catalog entries a value names (``ref`` fields, inside lists and records)."""
        if v is None or depth > DEPTH:
            return
        k = t.kind
        if k in ("opt",):
            self.refs_in(v, t.args[0], found, depth)
        elif k == "list":
            for x in v:
                self.refs_in(x, t.args[0], found, depth)
        elif k == "record" and isinstance(v, dict):
            for f in self.ctx.fields(t.name):
                self.refs_in(v.get(f.name), f.type, found, depth + 1)
        elif k == "ref" and isinstance(v, str):
            cat = self.ctx.ref_catalog(t, v)
            if cat and (cat, v) not in found:
                found.append((cat, v))

    def entry_refs(self, catalog: str, ident: str, values: dict[str, dict]) -> list[str]:
        """The keys (``catalog.id``) of what an entry's card refers to; their values are added to ``values``."""
        d = self.ctx.catalogs.get(catalog)
        if d is None or ident not in d.entries:
            return []
        rec = d.entries[ident]
        found: list[tuple[str, str]] = []
        for f in self.fields(catalog):
            if f.type.inner.kind in ("list", "record", "opt", "ref"):
                self.refs_in(rec.get(f.name), f.type, found)
        keys = []
        for cat, ref in found:
            key = f"{cat}.{ref}"
            keys.append(key)
            if key not in values:
                target = self.ctx.catalogs[cat]
                title_field = self.ctx.title_field(target.record)
                parts = [f"{self.field_label(f)}: {self.text(target.entries[ref].get(f.name), f.type)}"
                         for f in self.ctx.fields(target.record) if f.name != title_field and target.entries[ref].get(f.name) is not None]
                values[key] = {"title": self.ctx.entry_title(cat, ref), "text": " · ".join(parts)}
        return keys


def sheet_words(ctx: SiteContext, army: dict) -> dict:
    """The ``sheet`` of one army's builder data: ``labels`` (catalog → field → label), ``cost_fields``
    (catalog → the field of its datasheet cost), ``refs`` (``entry:<id>`` / ``troop:<id>`` → keys of
    ``values``) and ``values`` (``catalog.id`` → {title, text})."""
    words = SheetWords(ctx)
    catalogs = list(dict.fromkeys([e["catalog"] for e in army["entries"]] + ([army["troop_catalog"]] if army.get("troop_catalog") else [])))
    values: dict[str, dict] = {}
    refs: dict[str, list[str]] = {}
    for e in army["entries"]:
        keys = words.entry_refs(e["catalog"], e["id"], values)
        if keys:
            refs[f"entry:{e['id']}"] = keys
    for t in army.get("troops") or {}:
        keys = words.entry_refs(army["troop_catalog"], t, values) if army.get("troop_catalog") else []
        if keys:
            refs[f"troop:{t}"] = keys
    return {
        "labels": {c: labels for c in catalogs if (labels := words.labels(c))},
        "cost_fields": {c: field for c in catalogs if (field := words.cost_field(c))},
        "refs": refs,
        "values": values,
    }
