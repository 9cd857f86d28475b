"""The program's values as a page shows them: cells, labels, rule applications, lists of records, odds grids.

Reads the site's page map and noted mappings (:class:`rulebook.compiler.emit.site.pages.context.SiteContext`).
Produces escaped Markdown/HTML strings and small view-models (:class:`Values`): a data value as a
table cell or as plain words (the search index), a field's label (with the meaning of an
abbreviation as a tooltip), a special rule as applied (``Sniper(2)``), a range of keys, a list of
records as a table, the entries that use a rule or an entry (reverse links), an odds table's grid
of probabilities; and the marks every kind of page shows (:func:`badge`) and the rounding of costs
(:func:`round_half_up`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import attr, bar_width, esc, exact_probability, number, percent, percent_sign
from rulebook.compiler.emit.site.readable import looks_like_code
from rulebook.compiler.ir.types import BOOL, T
from rulebook.compiler.ir.walk import walk
from rulebook.compiler.support.i18n import N_, _

if TYPE_CHECKING:
    from rulebook.compiler.emit.site.pages.context import SiteContext

STATUS_BADGES = {"deferred": (N_("Deferred"), "rb-badge--deferred"), "not_playable": (N_("Not playable"), "rb-badge--not-playable")}


def round_half_up(x: Fraction) -> int:
    """The nearest integer; halves go up (110,5 → 111)."""
    return math.floor(x + Fraction(1, 2))


def cost_at(base: int, pct: int) -> int:
    """A cost ``base`` with ``pct`` percent added, rounded half up."""
    return round_half_up(Fraction(base * (100 + pct), 100))


def signed_percent(v: int) -> str:
    """A percentage added to a cost: ``+30 %``, ``−20 %``."""
    return percent_sign(("+" if v > 0 else "") + number(v))


def is_number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def badge(status: str) -> dict | None:
    """The badge of a declaration's ``@status`` (deferred, not playable), None for a playable one."""
    shown = STATUS_BADGES.get(status)
    return {"text": _(shown[0]), "cls": shown[1]} if shown else None


class Values:
    """How the program's values read on a page (escaped strings and view-models), over the site's context."""

    def __init__(self, ctx: SiteContext, program: ir.Program) -> None:
        self.ctx = ctx
        entry_catalog: dict[str, str] = {}  # an entry id → the first catalog with an entry of that id
        for cat in program.catalogs.values():
            for ident in cat.entries:
                entry_catalog.setdefault(ident, cat.name)
        self.entry_catalog = ctx.reads.noted("entry_catalog", entry_catalog)

    def label(self, f: ir.RecordField) -> str:
        """A field's title for players: an identifier-like title is spelt out (an enum's own title when it has one)."""
        title = f.title or f.name
        inner = f.type.inner
        if looks_like_code(title) and inner.kind == "enum" and inner.name in self.ctx.enums and self.ctx.enums[inner.name].has_title:
            return self.ctx.enums[inner.name].title
        return self.spelt(title)

    def spelt(self, title: str) -> str:
        """A title for players: one written like code (``MaxLosses``, ``X_total``) in the rulebook's words."""
        text = self.ctx.read.label(title)
        if "_" in text.strip("_"):  # ``X_total``: an underscore is code whatever the case around it
            text = self.ctx.read.name(text)
            text = text[:1].upper() + text[1:]
        return text

    def label_html(self, text: str) -> str:
        """A label as HTML, with its meaning as a tooltip when it is an abbreviation the rulebook explains."""
        meaning = self.ctx.abbreviations.get(text.strip())
        return f'<abbr title="{attr(meaning)}">{attr(text)}</abbr>' if meaning else attr(text)

    def cell(self, v: Any, t: T) -> str:
        """A data value as escaped Markdown for a table cell."""
        k = t.kind
        if v is None:
            return "—"
        if k == "opt":
            return self.cell(v, t.args[0])
        if k == "bool":
            return _("Yes") if v else _("No")
        if k in ("int", "decimal"):
            return number(v)
        if k == "enum":
            return esc(self.ctx.member_titles.get(t.name, {}).get(v, v))
        if k in ("ref", "refs"):
            cat = self.ctx.ref_catalog(t, v)
            if cat is None:  # an id the manual prints without its entry (@as_printed): its words, not its code
                return esc(self.spelt(v))
            return self.ctx.a(self.ctx.entry_title(cat, v), self.ctx.entry_href(cat, v))
        if k == "rule":
            return self.ctx.a(self.rule_label(v["rule"], v["args"].values()), self.ctx.href(v["rule"]))
        if k == "list":
            if not v:
                return "—"
            sep = "<br>" if t.args[0].inner.kind in ("record", "map") else ", "
            return sep.join(self.cell(x, t.args[0]) for x in v)
        if k == "map":
            titles = self.ctx.member_titles.get(t.name, {})
            return " · ".join(f"{esc(titles.get(m, m))} {self.cell(x, t.args[0])}" for m, x in v.items())
        if k == "record":
            shown = self.ctx.records[t.name].display if t.name in self.ctx.records else None
            if shown:  # @display "{cantidad} × {tropas}": the text escaped, each field as a cell
                types = {f.name: f.type for f in self.ctx.fields(t.name)}
                return "".join(self.cell(v.get(x), types[x]) if i % 2 else esc(x) for i, x in enumerate(re.split(r"\{([^{}]*)\}", shown)))
            parts = []
            for f in self.ctx.fields(t.name):
                x = v.get(f.name)
                if x is None or x == []:
                    continue
                parts.append(f"*{esc(self.label(f))}*: {self.cell(x, f.type)}")
            return "; ".join(parts) or "—"
        return esc(str(v))

    def plain_value(self, v: Any, t: T) -> str:
        """A data value as plain words (the search index): titles of values, entries and rules."""
        k = t.kind
        if v is None:
            return ""
        if k in ("opt", "list"):
            return " ".join(self.plain_value(x, t.args[0]) for x in (v if k == "list" else [v]))
        if k == "map":
            return " ".join(self.plain_value(x, t.args[0]) for x in v.values())
        if k == "record":
            return " ".join(self.plain_value(v.get(f.name), f.type) for f in self.ctx.fields(t.name))
        if k in ("ref", "refs"):
            cat = self.ctx.ref_catalog(t, v)
            return self.ctx.entry_title(cat, v) if cat else str(v)
        if k == "rule":
            return self.rule_label(v["rule"], v["args"].values())
        if k in ("int", "decimal", "bool"):
            return ""
        return self.ctx.read.value(v)

    @staticmethod
    def rule_args(values) -> str:
        """The arguments of a rule application as the manual writes them (``2, high``)."""
        return ", ".join(number(a) if is_number(a) else str(a) for a in values)

    def rule_label(self, rule: str, values) -> str:
        """``Sniper(2)``: a rule application as the manual writes it (plain text)."""
        args = self.rule_args(values)
        return self.ctx.title_of(rule) + (f"({args})" if args else "")

    def rule_summary(self, rule: str) -> str | None:
        """The first sentence of a special rule's text (a link's tooltip)."""
        d = self.ctx.p.get(rule, ir.Rule)
        if d is None or not d.texts:
            return None
        first = re.split(r"(?<=[.!?])\s", d.texts[0].strip(), maxsplit=1)[0]
        return first if len(first) <= 200 else first[:199] + "…"

    @staticmethod
    def range_text(r: ir.Range) -> str:
        lo = None if r.lo is None else number(r.lo)
        hi = None if r.hi is None else number(r.hi)
        if lo is not None and hi is not None:
            if r.lo == r.hi:
                return lo
            if r.lo_inclusive and r.hi_inclusive:
                return f"{lo}–{hi}"
            a = _("more than %(n)s") % {"n": lo} if not r.lo_inclusive else lo
            b = _("less than %(n)s") % {"n": hi} if not r.hi_inclusive else hi
            joined = _("%(low)s and %(high)s") if not r.hi_inclusive else _("%(low)s to %(high)s")
            return joined % {"low": a, "high": b}
        if lo is not None:
            return (_("%(n)s or more") if r.lo_inclusive else _("more than %(n)s")) % {"n": lo}
        if hi is not None:
            return (_("%(n)s or less") if r.hi_inclusive else _("less than %(n)s")) % {"n": hi}
        return _("any")

    def table_grid(self, d: ir.Table) -> tuple[list[str], list[list[str]], list[str]]:
        """A table as the manual prints it: header, rows (escaped cells) and column alignments;
        a row's key is its title, its range or its value."""
        header = [esc(self.spelt(k.title or k.name)) for k in d.keys]
        value_types = [c.type for c in d.columns]
        if d.across is not None:
            header += [self.cell(a, d.across.type) for a in d.across_values]
            value_types = [d.columns[0].type] * len(d.across_values)
        else:
            header += [esc(self.spelt(c.title or c.name)) for c in d.columns]
        rows = []
        for row in d.rows:
            cells = []
            for key, k in zip(d.keys, row.keys):
                if isinstance(k, ir.Range):
                    cells.append(esc(self.range_text(k)))
                elif row.title:
                    cells.append(esc(row.title))
                else:
                    cells.append(self.cell(k, key.type))
            if d.across is not None:
                cells += [self.cell(v, d.columns[0].type) for v in row.across]
            else:
                cells += [self.cell(row.values[c.name], c.type) for c in d.columns]
            rows.append(cells)
        align = [("---:" if (k.type.inner.kind in ("int", "decimal") or k.ranged) else "---") for k in d.keys]
        align += ["---:" if t.inner.kind in ("int", "decimal") else "---" for t in value_types]
        return header, rows, align

    def value_label(self, v) -> str:
        """A scalar value: an enum member's title, a catalog entry (linked), a number, yes/no."""
        cat = self.entry_catalog.get(v) if isinstance(v, str) else None
        if cat is not None:
            return self.ctx.a(self.ctx.entry_title(cat, v), self.ctx.entry_href(cat, v))
        return esc(self.ctx.read.value(v)) if v is not None else "—"

    def numeric_record(self, record: str) -> bool:
        fields = self.ctx.fields(record)
        return bool(fields) and all(f.type.inner.kind in ("int", "decimal") for f in fields)

    def compact(self, v, t: T) -> str:
        """A cell value; a record of numbers as ``3 / 1`` (its header names the parts)."""
        inner = t.inner
        if v is not None and inner.kind == "record" and self.numeric_record(inner.name):
            parts = [v.get(f.name) for f in self.ctx.fields(inner.name)]
            while parts and parts[-1] is None:
                parts.pop()
            return " / ".join(number(x) if x is not None else "—" for x in parts) or "—"
        return self.cell(v, t)

    def compact_label(self, title: str, t: T) -> str:
        inner = t.inner
        if inner.kind == "record" and self.numeric_record(inner.name):
            return f"{esc(title)} ({esc(' / '.join(self.label(f) for f in self.ctx.fields(inner.name)))})"
        return esc(title)

    def record_list(self, items: list, record: str) -> dict:
        """A list of records on a card: a table, or — when each item references an entry with
        tables of its own (a weapon and its profile) — one block per item with those tables."""
        fields = self.ctx.fields(record)
        embedded = next((f for f in fields if f.type.inner.kind in ("ref", "refs") and self._embeddable(f.type.inner)), None)
        if embedded is None:
            return self.record_list_table(items, record)
        blocks = []
        for it in items:
            facts = [self.cell(it.get(f.name), f.type) for f in fields if it.get(f.name) not in (None, [])]
            ident = it.get(embedded.name)
            cat = self.ctx.ref_catalog(embedded.type.inner, ident) if ident is not None else None
            tables = []
            if cat is not None:
                target = self.ctx.catalogs[cat]
                for tf in self.ctx.fields(target.record):
                    sub = target.entries[ident].get(tf.name)
                    if tf.type.inner.kind == "list" and tf.type.inner.args[0].inner.kind == "record" and sub:
                        tables.append(self.record_list_table(sub, tf.type.inner.args[0].inner.name))
            blocks.append({"line": " · ".join(facts), "tables": tables})
        return {"blocks": blocks}

    def _embeddable(self, t: T) -> bool:
        """Whether a ``ref`` of type ``t`` names a catalog with cards whose entries hold lists of records (a weapon's profile)."""
        ctx = self.ctx
        return any(
            c in ctx.card_page and any(f.type.inner.kind == "list" and f.type.inner.args[0].inner.kind == "record" for f in ctx.fields(ctx.catalogs[c].record))
            for c in (t.name or "").split("|") if c in ctx.catalogs
        )

    def record_list_table(self, items: list, record: str) -> dict:
        """A list of records as a table: one column per field that any item has.

        Records whose map fields all share one enum are pivoted: one row per
        item and map field, one column per enum value (bands, zones…)."""
        all_fields = self.ctx.fields(record)
        maps = [f for f in all_fields if f.type.inner.kind == "map"]
        if maps and len({f.type.inner.name for f in maps}) == 1:
            members = self.ctx.enums[maps[0].type.inner.name].members
            keys = [f for f in all_fields if f.type.inner.kind != "map" and any(it.get(f.name) not in (None, []) for it in items)]
            rows = []
            for it in items:
                for f in maps:
                    m = it.get(f.name) or {}
                    vt = f.type.inner.args[0]
                    rows.append([self.cell(it.get(k.name), k.type) for k in keys] + [self.compact_label(self.label(f), vt)]
                                + [self.compact(m.get(mv.name), vt) for mv in members])
            return {
                "header": [esc(self.label(k)) for k in keys] + [esc(_("Value"))] + [esc(mv.title) for mv in members],
                "rows": rows,
            }
        fields = [f for f in all_fields if any(it.get(f.name) not in (None, []) for it in items)]
        return {
            "header": [esc(self.label(f)) for f in fields],
            "rows": [[self.cell(it.get(f.name), f.type) for f in fields] for it in items],
        }

    def users_of(self, users: list[tuple], rule: bool = False) -> dict:
        """Reverse links grouped by catalog: datasheet catalogs first ("cards"), then the rest."""
        groups: dict[str, dict] = {}
        for u in users:
            cat, ident = u[0], u[1]
            g = groups.setdefault(cat, {"title": esc(self.ctx.title_of(cat)), "href": self.ctx.entry_group_href(cat), "items": [], "card": cat in self.ctx.datasheet_catalogs})
            label = self.ctx.a(self.ctx.entry_title(cat, ident), self.ctx.entry_href(cat, ident))
            if rule:
                label += self.rule_app_args(u[2])
            g["items"].append(label)
        cards = [g for g in groups.values() if g["card"]]
        other = [g for g in groups.values() if not g["card"]]
        return {"cards": cards, "other": other, "count": sum(len(g["items"]) for g in cards), "other_count": sum(len(g["items"]) for g in other)}

    def rule_app_args(self, app: dict) -> str:
        """`` (X = 2)``: the arguments of a rule application in a list of users (empty without arguments)."""
        vals = list(app["args"].values())
        args = self.rule_args(vals)
        if not args:
            return ""
        names = [p.title or p.name for p in self.ctx.p.decls[app["rule"]].params]
        if len(names) != len(vals):
            return f" ({esc(args)})"
        return " (" + ", ".join(f"{esc(nm)} = {number(x) if is_number(x) else esc(x)}" for nm, x in zip(names, vals)) + ")"

    def odds_grid(self, t: dict, cells: list, probabilities: bool = True) -> tuple[list[str], list[list[str]]]:
        """Header and rows of one grid of an odds table: probabilities as bars, or, for a
        table whose cells are other numbers (``cell result`` of a score, a cost), numbers
        (:func:`shows_probabilities`)."""
        rows, cols = t.get("rows") or {}, t.get("columns") or {}
        col_values = cols.get("values") or [None]
        header = [esc(rows.get("title") or rows.get("variable") or "")]
        header += [self.value_label(c) if c is not None else esc(_("Probability") if probabilities else _("Value")) for c in col_values]
        out = []
        for rv, line in zip(rows.get("values", []), cells):
            row = [self.value_label(rv)]
            for c in line:
                if c is None:
                    row.append("—")
                    continue
                p = Fraction(c) if not isinstance(c, bool) else Fraction(int(c))
                if not probabilities:
                    row.append(number(p.numerator) if p.denominator == 1 else f'<span title="{attr(str(p))}">{number(float(p), 2)}</span>')
                    continue
                row.append(f'<span class="rb-prob" style="--p: {bar_width(p)}%" title="{attr(exact_probability(p))}">{self.probability_text(p)}</span>')
            out.append(row)
        return header, out

    @staticmethod
    def probability_text(p: Fraction) -> str:
        """A probability in a grid cell: ``37,5 %`` (``37.5%`` in English); certain and impossible without decimals."""
        if p == 0:
            return percent_sign("0")
        if p == 1:
            return percent_sign("100")
        return percent_sign(percent(p))


def shows_probabilities(d: ir.Odds) -> bool:
    """Whether an odds table's cells are probabilities (shown as bars and percentages): an
    outcomes table, a cell that calls ``probability(…)`` or a true/false cell. Any other
    cell (``cell result`` of a score or a cost) is a number and is shown as one."""
    if d.show_kind == "outcomes" or d.show.type == BOOL:
        return True
    return any(isinstance(e, ir.BuiltinCall) and e.name == "probability" for e in walk(d.show))
