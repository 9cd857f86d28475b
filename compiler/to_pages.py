"""Checked program (:class:`compiler.ir.Program`) → Markdown pages and mkdocs.yml.

Reads only the IR, the generated resolver package (already imported by the
driver; it evaluates the worked examples) and the odds tables the resolvers
computed (the ``"tables"`` of ``json/odds.json``, handed over in memory). Writes
``docs/`` and ``mkdocs.yml`` under the output folder through the Jinja2
templates of ``site/``.

Entry points: :func:`write_docs` (the pages) and :func:`run_mkdocs` (the HTML
site, ``mkdocs build --strict``).

Templates receive data only: every text from the rules is escaped by
:mod:`compiler.markdown` before it reaches a template, and no rules text is
ever used as template source.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2

from . import ir
from .examples import evaluate
from .markdown import abbr_term, abbr_text, anchor, attr, bar_width, esc, exact_probability, highlight, inlines, number, percent
from .types import T

SITE_DIR = Path(__file__).resolve().parent.parent / "site"
# declaration class → (block kind in the templates, what the page calls it)
BLOCK_KINDS: dict[type, tuple[str, str]] = {
    ir.Table: ("table", "Tabla"), ir.Catalog: ("catalog", "Catálogo"), ir.Enum: ("enum", "Enumeración"),
    ir.Record: ("record", "Registro"), ir.Rule: ("rule", "Regla especial"), ir.Procedure: ("procedure", "Procedimiento"),
    ir.Die: ("die", "Dado"), ir.Bag: ("bag", "Bolsa"), ir.Term: ("term", "Término"), ir.Odds: ("odds", "Probabilidades"),
    ir.Const: ("const", "Constante"),
}
STATUS_BADGES = {"deferred": ("Aplazada", "rb-badge--deferred"), "not_playable": ("No jugable", "rb-badge--not-playable")}
SHOWN_OUTCOMES = 12  # a worked example lists its most likely results, then how many more there are
INDEX_PAGE = "index.md"


class SiteError(Exception):
    """A declaration cannot be laid out on the site."""


def slug(text: str) -> str:
    """ASCII, lower-case, hyphen-separated (page file names)."""
    plain_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain_text).strip("-") or "x"


def round_half_up(x: Fraction) -> int:
    """The nearest integer; halves go up (110,5 → 111)."""
    return math.floor(x + Fraction(1, 2))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def _yaml_json(obj, **kw) -> str:
    """json.dumps for YAML: no surrogate pairs (YAML would decode them wrongly)."""
    kw.setdefault("ensure_ascii", False)
    return json.dumps(obj, **kw)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(SITE_DIR / "templates"), str(SITE_DIR)]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.policies["json.dumps_function"] = _yaml_json
    env.filters["attr"] = attr
    return env


def _badge(status: str) -> dict | None:
    badge = STATUS_BADGES.get(status)
    return {"text": badge[0], "cls": badge[1]} if badge else None


class PageBuilder:
    """Turns the program into page view-models (escaped strings and lists)."""

    def __init__(self, program: ir.Program, package: ModuleType | None, odds: dict):
        self.p = program
        self.package = package
        self.odds = odds  # json/odds.json "tables", computed by the resolvers
        self.records = program.records
        self.catalogs = program.catalogs
        self.enums = program.enums
        self.member_titles = {e.name: {m.name: m.title for m in e.members} for e in self.enums.values()}
        self.page_of: dict[str, str] = {}
        for sec in program.sections:
            for item in sec.items:
                if isinstance(item, ir.Decl):
                    self.page_of[item.name] = f"{sec.slug}.md"
        for item in program.front:
            if isinstance(item, ir.Decl):
                self.page_of[item.name] = INDEX_PAGE
        self.examples_of: dict[str, list[tuple[int, ir.Example]]] = {}
        for index, ex in enumerate(program.examples):
            self.examples_of.setdefault(ex.procedure, []).append((index, ex))
        self.current_page = ""
        self.ordered = [item for items in [program.front] + [sec.items for sec in program.sections] for item in items if isinstance(item, ir.Decl)]
        self.terms: list[ir.Term] = [d for d in self.ordered if isinstance(d, ir.Term)]
        self._plan_cards()
        self._index_references()

    # ------------------------------------------------------------------ plan
    def _plan_cards(self) -> None:
        """Which catalogs get cards, on which pages.

        * ``@datasheet "Título"`` catalogs: one page per title (in rulebook order),
          one heading per catalog, one card per entry;
        * catalogs that those entries reference (``ref``): a page of cards each,
          so that a datasheet's weapon links to a card that links back.
        """
        taken = {INDEX_PAGE} | {f"{sec.slug}.md" for sec in self.p.sections}

        def page_name(title: str) -> str:
            base = f"fichas-{slug(title)}"
            name, i = f"{base}.md", 2
            while name in taken:
                name, i = f"{base}-{i}.md", i + 1
            taken.add(name)
            return name

        groups: dict[str, list[str]] = {}
        for d in self.ordered:
            if isinstance(d, ir.Catalog) and d.datasheet is not None:
                groups.setdefault(d.datasheet, []).append(d.name)
        self.card_page: dict[str, str] = {}
        self.datasheet_pages: list[dict] = []
        for title, cats in groups.items():
            page = page_name(title)
            self.datasheet_pages.append({"title": title, "page": page, "catalogs": cats})
            for c in cats:
                self.card_page[c] = page
        self.datasheet_catalogs = set(self.card_page)
        self.reference_pages: list[dict] = []
        for page in list(self.datasheet_pages):
            for c in page["catalogs"]:
                for target in self._referenced_catalogs(T("record", self.catalogs[c].record)):
                    if target not in self.card_page and target in self.catalogs:
                        p = page_name(self.title_of(target))
                        self.card_page[target] = p
                        self.reference_pages.append({"title": self.title_of(target), "page": p, "catalogs": [target]})

    def fields(self, record: str) -> tuple[ir.RecordField, ...]:
        rec = self.records.get(record)
        return rec.fields if rec is not None else ()

    def _referenced_catalogs(self, t: T, seen: set | None = None) -> list[str]:
        """Catalogs named by ``ref`` types anywhere inside type ``t`` (in field order)."""
        seen = set() if seen is None else seen
        k = t.kind
        if k in ("opt", "list", "map"):
            return self._referenced_catalogs(t.args[0], seen)
        if k in ("ref", "refs"):
            return [c for c in (t.name or "").split("|") if c]
        if k == "record" and t.name not in seen:
            seen.add(t.name)
            out: list[str] = []
            for f in self.fields(t.name):
                out += [c for c in self._referenced_catalogs(f.type, seen) if c not in out]
            return out
        return []

    def _index_references(self) -> None:
        """Reverse links: which catalog entries apply each rule / reference each entry."""
        self.rule_users: dict[str, list[tuple[str, str, dict]]] = {}
        self.entry_users: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.same_id: dict[str, list[tuple[str, str]]] = {}
        for d in self.ordered:
            if not isinstance(d, ir.Catalog):
                continue
            fields = self.fields(d.record)
            for ident, rec in d.entries.items():
                self.same_id.setdefault(ident, []).append((d.name, ident))
                rules: list[dict] = []
                refs: list[tuple[str, str]] = []
                for f in fields:
                    self._walk(rec.get(f.name), f.type, rules, refs)
                for r in rules:
                    users = self.rule_users.setdefault(r["rule"], [])
                    if not any(c == d.name and i == ident and u == r for c, i, u in users):
                        users.append((d.name, ident, r))
                for ref in refs:
                    users = self.entry_users.setdefault(ref, [])
                    if (d.name, ident) not in users:
                        users.append((d.name, ident))

    def _walk(self, v, t: T, rules: list, refs: list) -> None:
        """Collect the rule applications and catalog references inside value ``v`` of type ``t``."""
        if v is None:
            return
        k = t.kind
        if k == "opt":
            self._walk(v, t.args[0], rules, refs)
        elif k == "list":
            for x in v:
                self._walk(x, t.args[0], rules, refs)
        elif k == "map":
            for x in v.values():
                self._walk(x, t.args[0], rules, refs)
        elif k == "record":
            for f in self.fields(t.name):
                self._walk(v.get(f.name), f.type, rules, refs)
        elif k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is not None:
                refs.append((cat, v))
        elif k == "rule":
            rules.append(v)

    def ref_catalog(self, t: T, ident: str) -> str | None:
        """The catalog (of those ``t`` names) that has entry ``ident``."""
        for c in (t.name or "").split("|"):
            if c in self.catalogs and ident in self.catalogs[c].entries:
                return c
        return None

    # ------------------------------------------------------------------ links
    def page_href(self, page: str | None, frag: str) -> str | None:
        if page is None:
            return None
        return f"{'' if page == self.current_page else page}#{frag}"

    def href(self, name: str, entry: str | None = None) -> str | None:
        frag = anchor(name) if entry is None else f"{anchor(name)}--{anchor(entry, part=True)}"
        return self.page_href(self.page_of.get(name), frag)

    def entry_href(self, catalog: str, ident: str) -> str | None:
        """A catalog entry: its card if it has one, else its row in the manual's table."""
        if catalog in self.card_page:
            return self.page_href(self.card_page[catalog], f"{anchor(catalog)}--{anchor(ident, part=True)}")
        return self.href(catalog, ident)

    def title_field(self, record: str) -> str | None:
        """The field that names an entry: the record's first ``text`` field."""
        return next((f.name for f in self.fields(record) if f.type.kind == "text"), None)

    def entry_title(self, catalog: str, ident: str) -> str:
        d = self.catalogs.get(catalog)
        rec = d.entries.get(ident) if d is not None else None
        f = self.title_field(d.record) if d is not None else None
        if rec is not None and f is not None and isinstance(rec.get(f), str) and rec.get(f).strip():
            return rec[f]
        return ident

    def title_of(self, name: str) -> str:
        d = self.p.decls.get(name)
        return d.title if d is not None else name

    def link(self, target: str) -> tuple[str | None, str]:
        name, _, entry = target.partition("#")
        if entry and name in self.catalogs:
            return self.href(name, entry), entry
        return self.href(name), self.title_of(name)

    def md_link(self, text: str, href: str | None) -> str:
        return f"[{esc(text)}]({href})" if href else esc(text)

    # ------------------------------------------------------------------ values
    def cell(self, v: Any, t: T) -> str:
        """A data value as escaped Markdown for a table cell."""
        k = t.kind
        if v is None:
            return "—"
        if k == "opt":
            return self.cell(v, t.args[0])
        if k == "bool":
            return "Sí" if v else "No"
        if k in ("int", "decimal"):
            return number(v)
        if k == "enum":
            return esc(self.member_titles.get(t.name, {}).get(v, v))
        if k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is None:
                return esc(v)
            return self.md_link(self.entry_title(cat, v), self.entry_href(cat, v))
        if k == "rule":
            return self.md_link(self.rule_label(v["rule"], v["args"].values()), self.href(v["rule"]))
        if k == "list":
            if not v:
                return "—"
            sep = "<br>" if t.args[0].inner.kind in ("record", "map") else ", "
            return sep.join(self.cell(x, t.args[0]) for x in v)
        if k == "map":
            titles = self.member_titles.get(t.name, {})
            return " · ".join(f"{esc(titles.get(m, m))} {self.cell(x, t.args[0])}" for m, x in v.items())
        if k == "record":
            parts = []
            for f in self.fields(t.name):
                x = v.get(f.name)
                if x is None or x == []:
                    continue
                parts.append(f"*{esc(f.title or f.name)}*: {self.cell(x, f.type)}")
            return "; ".join(parts) or "—"
        return esc(str(v))

    @staticmethod
    def rule_args(values) -> str:
        """The arguments of a rule application as the manual writes them (``2, alto``)."""
        return ", ".join(number(a) if _is_number(a) else str(a) for a in values)

    def rule_label(self, rule: str, values) -> str:
        """``LMG(2)``: a rule application as the manual writes it (plain text)."""
        args = self.rule_args(values)
        return self.title_of(rule) + (f"({args})" if args else "")

    @staticmethod
    def range_text(r: ir.Range) -> str:
        lo = None if r.lo is None else number(r.lo)
        hi = None if r.hi is None else number(r.hi)
        if lo is not None and hi is not None:
            if r.lo == r.hi:
                return lo
            a = f"más de {lo}" if not r.lo_inclusive else lo
            b = f"menos de {hi}" if not r.hi_inclusive else hi
            if r.lo_inclusive and r.hi_inclusive:
                return f"{lo}–{hi}"
            return f"{a} {'y' if not r.hi_inclusive else 'hasta'} {b}"
        if lo is not None:
            return f"{lo} o más" if r.lo_inclusive else f"más de {lo}"
        if hi is not None:
            return f"{hi} o menos" if r.hi_inclusive else f"menos de {hi}"
        return "cualquiera"

    def value_text(self, v: Any) -> str:
        """A resolver value (results, inputs) as escaped Markdown."""
        if v is None or isinstance(v, (bool, int, Fraction, str)):
            return self.value_label(v, link=False)
        if dataclasses.is_dataclass(v):
            parts = []
            for f in dataclasses.fields(v):
                parts.append(f"{esc(f.metadata.get('name', f.name))}: {self.value_text(getattr(v, f.name))}")
            return ", ".join(parts)
        if hasattr(v, "items"):
            return ", ".join(f"{esc(k)}: {self.value_text(x)}" for k, x in v.items())
        if isinstance(v, (tuple, list)):
            return "[" + ", ".join(self.value_text(x) for x in v) + "]"
        return esc(str(v))

    def value_label(self, v, link: bool = True) -> str:
        """A scalar value: an enum member's title, a catalog entry (linked), a number, sí/no."""
        if isinstance(v, bool):
            return "sí" if v else "no"
        if isinstance(v, (int, Fraction)):
            return number(v)
        if isinstance(v, str):
            for titles in self.member_titles.values():
                if v in titles:
                    return esc(titles[v])
            for cat in self.catalogs.values() if link else ():
                if v in cat.entries:
                    return self.md_link(self.entry_title(cat.name, v), self.entry_href(cat.name, v))
            return esc(v)
        return "—" if v is None else esc(str(v))

    # ------------------------------------------------------------------ blocks
    def common(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        """What every declaration block shows: heading, kind, reference, badge, doc, source."""
        kind, kind_title = BLOCK_KINDS[type(d)]
        return {
            "kind": kind,
            "kind_title": kind_title,
            "name": d.name,
            "anchor": anchor(d.name) + anchor_suffix,
            "title": esc(d.title),
            "ref": attr(d.ref),
            "src": attr(d.span.src),
            "badge": _badge(d.status),
            "doc": esc(d.doc) if d.doc and not d.doc_is_prose else None,
            "source": highlight(d.source_text),
            "original": None,
            "cards_href": None,
            "users": None,
            "procedures": [],
            "also": [],
            "related": [],
            "columns_title": None,
        }

    def block(self, item: ir.Item) -> dict | None:
        if isinstance(item, ir.Heading):
            return {"kind": "heading", "level": item.level, "md": inlines(item.inlines, self.link)}
        if isinstance(item, ir.Paragraph):
            return {"kind": "paragraph", "md": inlines(item.inlines, self.link)}
        if isinstance(item, ir.ListBlock):
            return {"kind": "list", "ordered": item.ordered, "start": item.start, "items": [inlines(i, self.link) for i in item.items]}
        if isinstance(item, ir.Note):
            return {"kind": "note", "md": inlines(item.inlines, self.link)}
        if isinstance(item, ir.Separator):
            return {"kind": "separator"}
        if isinstance(item, ir.Show):
            d = self.p.decls.get(item.name)
            if d is None:
                return None
            b = self.decl(d, anchor_suffix="--" + anchor(self.current_page.removesuffix(".md")))
            b["original"] = self.href(item.name)
            return b
        return self.decl(item)

    def decl(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        b = self.common(d, anchor_suffix)
        if isinstance(d, ir.Table):
            self.table_block(d, b)
        elif isinstance(d, ir.Catalog):
            self.catalog_block(d, b, anchor_suffix)
        elif isinstance(d, ir.Enum):
            b["header"] = ["Id", "Nombre"]
            b["rows"] = [[esc(m.name), esc(m.title)] for m in d.members]
        elif isinstance(d, ir.Record):
            b["header"] = ["Campo", "Tipo", "Descripción"]
            b["rows"] = [[esc(f.name), esc(str(f.type)), esc(f.title or "")] for f in d.fields]
        elif isinstance(d, ir.Rule):
            b["signature"] = esc(d.title + (f"({', '.join(p.name for p in d.params)})" if d.params else ""))
            b["texts"] = [esc(t) for t in d.texts]
            b["levels"] = [(lvl, esc(t)) for lvl, t in d.levels]
            b["grants"] = [self.md_link(self.rule_label(g.rule, [v for _p, v in g.args]), self.href(g.rule)) for g in d.grants]
            b["stacking"] = esc(d.stacking) if d.stacking else None
            if not anchor_suffix:
                self.rule_extras(d, b)
        elif isinstance(d, ir.Die):
            if d.face_enum is not None:
                b["faces"] = [esc(self.member_titles.get(d.face_enum, {}).get(f, f)) for f in d.faces]
            else:
                b["faces"] = [number(f) if f <= 0 else f"+{f}" for f in d.faces]
        elif isinstance(d, ir.Bag):
            b["tokens"] = [(esc(kind), count) for kind, count in d.tokens]
            b["total"] = sum(count for _kind, count in d.tokens)
        elif isinstance(d, ir.Procedure):
            self.procedure_block(d, b)
        elif isinstance(d, ir.Term):
            self.term_block(d, b)
        elif isinstance(d, ir.Odds):
            self.odds_block(d, b)
        elif isinstance(d, ir.Const):
            b["value"] = self.cell(d.value, d.type)
        return b

    def table_block(self, d: ir.Table, b: dict) -> None:
        header = [esc(k.title or k.name) for k in d.keys]
        value_types = [c.type for c in d.columns]
        if d.across is not None:
            header += [self.cell(a, d.across.type) for a in d.across_values]
            value_types = [d.columns[0].type] * len(d.across_values)
        else:
            header += [esc(c.title or c.name) for c in d.columns]
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
        b["header"] = header
        b["rows"] = rows
        b["align"] = [("---:" if (k.type.inner.kind in ("int", "decimal") or k.ranged) else "---") for k in d.keys]
        b["align"] += ["---:" if t.inner.kind in ("int", "decimal") else "---" for t in value_types]

    def catalog_block(self, d: ir.Catalog, b: dict, suffix: str) -> None:
        by = {f.name: f for f in self.fields(d.record)}
        cols = [c for c in (d.columns or list(by)) if c in by]
        b["header"] = ["Id"] + [esc(by[c].title or c) for c in cols]
        b["align"] = ["---"] + ["---:" if by[c].type.inner.kind in ("int", "decimal") else "---" for c in cols]
        rows = []
        card = d.name in self.card_page
        for ident, rec in d.entries.items():
            aid = f"{anchor(d.name)}--{anchor(ident, part=True)}{suffix}"
            code = f"<code>{attr(ident)}</code>"
            if card:
                code = f'<a href="{attr(self.entry_href(d.name, ident))}" title="Ficha">{code}</a>'
            rows.append([f'<span id="{attr(aid)}"></span>{code}'] + [self.cell(rec.get(c), by[c].type) for c in cols])
        b["rows"] = rows
        b["cards_href"] = self.entry_group_href(d.name) if card else None

    # ------------------------------------------------------------------ cards
    @staticmethod
    def cost_at(base: int, pct: int) -> int:
        return round_half_up(Fraction(base * (100 + pct), 100))

    def cost_note(self, cost: ir.CostDisplay, catalogs: list[str]) -> dict:
        """The explanation of a cost display, with a worked example of the rounding from the data."""
        example = None
        for c in catalogs:
            for rec in self.catalogs[c].entries.values():
                base = rec.get(cost.field)
                for _m, title, pct in cost.levels:
                    if isinstance(base, int) and (base * (100 + pct)) % 100 == 50 and example is None:
                        exact = Fraction(base * (100 + pct), 100)
                        example = {"base": number(base), "title": esc(title), "pct": self.signed_percent(pct),
                                   "exact": number(exact), "rounded": number(self.cost_at(base, pct))}
        return {
            "field_title": esc(cost.field_title),
            "enum_title": esc(self.title_of(cost.enum)),
            "table": self.md_link(self.title_of(cost.table), self.href(cost.table)),
            "levels": [(esc(title), self.signed_percent(pct)) for _m, title, pct in cost.levels],
            "example": example,
        }

    @staticmethod
    def signed_percent(v: int) -> str:
        """A percentage added to a cost: ``+30 %``, ``−20 %``."""
        return ("+" if v > 0 else "") + number(v) + "\u00a0%"

    def card_catalog(self, catalog: str) -> dict:
        """A catalog on a card page: heading, badge, link to the manual's table, its cards."""
        d = self.catalogs[catalog]
        procs = sorted(u for u in self.p.uses.get(catalog, ()) if self.p.get(u, ir.Procedure) is not None)
        return {
            "anchor": anchor(catalog),
            "title": esc(d.title),
            "badge": _badge(d.status),
            "ref": attr(d.ref),
            "table_href": self.href(catalog),
            "procedures": [self.md_link(self.title_of(pr), self.href(pr)) for pr in procs],
            "cards": [self.card(d, ident, rec) for ident, rec in d.entries.items()],
        }

    def card(self, d: ir.Catalog, ident: str, rec: dict) -> dict:
        """One datasheet card: facts, a stats row, lists, the cost at each level, reverse links."""
        cost_display = d.cost
        skip = {self.title_field(d.record), cost_display.field if cost_display else None}
        facts, stats_h, stats_r, lists = [], [], [], []
        for f in self.fields(d.record):
            if f.name in skip:
                continue
            label = esc(f.title or f.name)
            v = rec.get(f.name)
            inner = f.type.inner
            if inner.kind == "list":
                item = inner.args[0].inner
                if item.kind == "record":
                    lists.append({"label": label, **self.record_list_table(v or [], item.name)})
                else:
                    lists.append({"label": label, "inline": ", ".join(self.cell(x, inner.args[0]) for x in v) if v else "—"})
                continue
            if v is None:
                continue
            if inner.kind in ("int", "decimal"):
                stats_h.append(label)
                stats_r.append(self.cell(v, inner))
            elif inner.kind == "record" and self.numeric_record(inner.name):
                parts = [(sf.title or sf.name, v.get(sf.name)) for sf in self.fields(inner.name)]
                stats_h.append(f"{label} ({esc(' / '.join(p for p, _x in parts))})")
                stats_r.append(" / ".join(number(x) if x is not None else "—" for _p, x in parts))
            else:
                facts.append((label, self.cell(v, f.type)))
        cost = None
        if cost_display is not None and isinstance(rec.get(cost_display.field), int):
            base = rec[cost_display.field]
            cost = {
                "label": f"{esc(cost_display.field_title)} por {esc(self.title_of(cost_display.enum))}",
                "header": [esc(title) for _m, title, _p in cost_display.levels],
                "row": [number(self.cost_at(base, pct)) for _m, _t, pct in cost_display.levels],
                "base": number(base),
            }
        return {
            "anchor": f"{anchor(d.name)}--{anchor(ident, part=True)}",
            "id": attr(ident),
            "title": esc(self.entry_title(d.name, ident)),
            "badge": _badge(d.status),
            "row_href": self.href(d.name, ident),
            "facts": facts,
            "stats": {"header": stats_h, "row": stats_r} if stats_h else None,
            "lists": lists,
            "cost": cost,
            "odds": self.card_odds(d.name, ident),
            "users": self.users_of(self.entry_users.get((d.name, ident), [])),
        }

    def numeric_record(self, record: str) -> bool:
        fields = self.fields(record)
        return bool(fields) and all(f.type.inner.kind in ("int", "decimal") for f in fields)

    def compact(self, v, t: T) -> str:
        """A cell value; a record of numbers as ``3 / 1`` (its header names the parts)."""
        inner = t.inner
        if v is not None and inner.kind == "record" and self.numeric_record(inner.name):
            parts = [v.get(f.name) for f in self.fields(inner.name)]
            while parts and parts[-1] is None:
                parts.pop()
            return " / ".join(number(x) if x is not None else "—" for x in parts) or "—"
        return self.cell(v, t)

    def compact_label(self, title: str, t: T) -> str:
        inner = t.inner
        if inner.kind == "record" and self.numeric_record(inner.name):
            return f"{esc(title)} ({esc(' / '.join(f.title or f.name for f in self.fields(inner.name)))})"
        return esc(title)

    def record_list_table(self, items: list, record: str) -> dict:
        """A list of records as a table: one column per field that any item has.

        Records whose map fields all share one enum are pivoted: one row per
        item and map field, one column per enum value (bands, zones…)."""
        all_fields = self.fields(record)
        maps = [f for f in all_fields if f.type.inner.kind == "map"]
        if maps and len({f.type.inner.name for f in maps}) == 1:
            members = self.enums[maps[0].type.inner.name].members
            keys = [f for f in all_fields if f.type.inner.kind != "map" and any(it.get(f.name) not in (None, []) for it in items)]
            rows = []
            for it in items:
                for f in maps:
                    m = it.get(f.name) or {}
                    vt = f.type.inner.args[0]
                    rows.append([self.cell(it.get(k.name), k.type) for k in keys] + [self.compact_label(f.title or f.name, vt)]
                                + [self.compact(m.get(mv.name), vt) for mv in members])
            return {
                "header": [esc(k.title or k.name) for k in keys] + [""] + [esc(mv.title) for mv in members],
                "rows": rows,
            }
        fields = [f for f in all_fields if any(it.get(f.name) not in (None, []) for it in items)]
        return {
            "header": [esc(f.title or f.name) for f in fields],
            "rows": [[self.cell(it.get(f.name), f.type) for f in fields] for it in items],
        }

    def users_of(self, users: list[tuple], rule: bool = False) -> dict:
        """Reverse links grouped by catalog: datasheet catalogs first ("cards"), then the rest."""
        groups: dict[str, dict] = {}
        for u in users:
            cat, ident = u[0], u[1]
            g = groups.setdefault(cat, {"title": esc(self.title_of(cat)), "href": self.entry_group_href(cat), "items": [], "card": cat in self.datasheet_catalogs})
            label = self.md_link(self.entry_title(cat, ident), self.entry_href(cat, ident))
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
        names = [p.name for p in self.p.decls[app["rule"]].params]
        if len(names) != len(vals):
            return f" ({esc(args)})"
        return " (" + ", ".join(f"{esc(nm)} = {number(x) if _is_number(x) else esc(x)}" for nm, x in zip(names, vals)) + ")"

    def entry_group_href(self, catalog: str) -> str | None:
        if catalog in self.card_page:
            return self.page_href(self.card_page[catalog], anchor(catalog))
        return self.href(catalog)

    def rule_extras(self, d: ir.Rule, b: dict) -> None:
        """Reverse links of a special rule: entries that apply it, procedures, related data."""
        name = d.name
        b["users"] = self.users_of(self.rule_users.get(name, []), rule=True)
        listed = {c for c, _i, _u in self.rule_users.get(name, [])}
        procs, also = [], []
        for u in sorted(self.p.uses.get(name, ())):
            du = self.p.decls.get(u)
            if isinstance(du, ir.Procedure):
                procs.append(self.md_link(self.title_of(u), self.href(u)))
            elif isinstance(du, (ir.Table, ir.Catalog)) and u not in listed:
                also.append(self.md_link(self.title_of(u), self.href(u)))
        for pd in self.ordered:
            if isinstance(pd, ir.Procedure) and pd.name not in self.p.uses.get(name, ()):
                if any(p.name == name for p in pd.params):
                    procs.append(f"{self.md_link(self.title_of(pd.name), self.href(pd.name))} (parámetro <code>{attr(name)}</code>)")
        b["procedures"] = procs
        b["also"] = also
        b["related"] = [
            self.md_link(f"{self.title_of(c)}: {self.entry_title(c, i)}", self.entry_href(c, i))
            for c, i in self.same_id.get(name, [])
        ]

    # ------------------------------------------------------------------ odds
    def odds_block(self, d: ir.Odds, b: dict) -> None:
        """A table of exact probabilities computed by the resolvers."""
        t = self.odds.get(d.name)
        b["procedure"] = self.md_link(self.title_of(d.procedure), self.href(d.procedure))
        b["grouped"] = None
        if t is None:
            b["header"], b["rows"], b["errors"] = [], [], []
            return
        cols = t.get("columns") or {}
        if cols.get("title") and len(cols.get("values") or []) > 1:
            b["columns_title"] = esc(cols["title"])
        groups = t.get("groups")
        if groups:
            catalog = d.each.of
            b["header"], b["rows"] = [], []
            b["grouped"] = {
                "title": esc(groups.get("title") or groups.get("variable") or ""),
                "links": [self.md_link(self.entry_title(catalog, g), self.entry_href(catalog, g)) for g in groups["values"]],
            }
            b["errors"] = []
            return
        b["header"], b["rows"] = self.odds_grid(t, t.get("cells", []))
        b["errors"] = [esc(e) for e in t.get("errors", [])]

    def odds_grid(self, t: dict, cells: list) -> tuple[list[str], list[list[str]]]:
        """Header and rows of one grid of an odds table (probabilities as bars)."""
        rows, cols = t.get("rows") or {}, t.get("columns") or {}
        col_values = cols.get("values") or [None]
        header = [esc(rows.get("title") or rows.get("variable") or "")]
        header += [self.value_label(c) if c is not None else "Probabilidad" for c in col_values]
        out = []
        for rv, line in zip(rows.get("values", []), cells):
            row = [self.value_label(rv)]
            for c in line:
                if c is None:
                    row.append("—")
                    continue
                p = Fraction(c) if not isinstance(c, bool) else Fraction(int(c))
                row.append(f'<span class="rb-prob" style="--p: {bar_width(p)}%" title="{attr(exact_probability(p))}">{self.probability_text(p)}</span>')
            out.append(row)
        return header, out

    def card_odds(self, catalog: str, ident: str) -> list[dict]:
        """Slices of grouped odds tables (``each x in catalog``) for one entry's card."""
        out = []
        for d in self.ordered:
            if not isinstance(d, ir.Odds) or d.each is None or d.each.of != catalog:
                continue
            t = self.odds.get(d.name) or {}
            values = (t.get("groups") or {}).get("values") or []
            if ident not in values:
                continue
            grid = t["cells"][values.index(ident)]
            if all(c is None for line in grid for c in line):
                continue  # the procedure refuses every input for this entry (e.g. no such fire mode)
            header, rows = self.odds_grid(t, grid)
            cols = t.get("columns") or {}
            out.append({"title": esc(d.title), "href": self.href(d.name), "header": header, "rows": rows,
                        "columns_title": esc(cols.get("title") or "")})
        return out

    @staticmethod
    def probability_text(p: Fraction) -> str:
        """A probability in a grid cell: ``37,5 %``; certain and impossible without decimals."""
        if p == 0:
            return "0\u00a0%"
        if p == 1:
            return "100\u00a0%"
        return percent(p) + "\u00a0%"

    # ------------------------------------------------------------------ glossary, procedures
    def term_block(self, d: ir.Term, b: dict) -> None:
        b["definition"] = esc(d.definition)
        key = " ".join(d.title.split()).casefold()
        b["see"] = [
            self.md_link(f"{BLOCK_KINDS[type(o)][1]} «{o.title}»", self.href(o.name))
            for o in self.ordered
            if not isinstance(o, ir.Term) and o.has_title and " ".join(o.title.split()).casefold() == key and self.href(o.name)
        ]

    def procedure_block(self, d: ir.Procedure, b: dict) -> None:
        b["params"] = [[f"`{p.name}`", esc(str(p.type)), esc(p.default_text) if p.default_text else "—"] for p in d.params]
        b["result"] = esc(str(d.result))
        steps = []
        loose = []
        for st in d.body:
            if isinstance(st, ir.Step):
                code = "\n".join(self.p.source_text(s.span, keep_lines=True) for s in st.body)
                steps.append({"label": esc(st.label), "code": highlight(code) if code.strip() else None})
            else:
                loose.append(self.p.source_text(st.span, keep_lines=True))
        if loose:
            steps.append({"label": esc("Resultado"), "code": highlight("\n".join(loose))})
        b["steps"] = steps
        b["examples"] = [self.example(index, ex) for index, ex in self.examples_of.get(d.name, [])]

    def example(self, index: int, ex: ir.Example) -> dict:
        """A worked example (``index`` in ``program.examples``), evaluated by the generated resolvers when they are at hand."""
        out = {"title": esc(ex.title), "given": [(attr(param), esc(text)) for param, _value, text in ex.given],
               "expects": [], "dist": [], "error": None, "error_expected": False, "more": 0}
        if self.package is None:
            out["expects"] = [(esc(x.text if x.expr is not None else "error"), None) for x in ex.expects]
            return out
        ev = evaluate(self.package, self.package.examples.EXAMPLES[index])
        if ev.error is not None:
            out["error"] = esc(str(ev.error))
            out["error_expected"] = ev.expected_error is not None and ev.expected_error in ev.error.message
            return out
        out["expects"] = [(esc(check.text), check.ok) for check in ev.checks]
        items = sorted(ev.distribution.items(), key=lambda kv: -kv[1])
        for outcome, p in items[:SHOWN_OUTCOMES]:
            out["dist"].append({"outcome": self.value_text(outcome), "p": exact_probability(p), "pct": bar_width(p)})
        out["more"] = max(0, len(items) - SHOWN_OUTCOMES)
        return out

    # ------------------------------------------------------------------ pages
    def section_blocks(self, items: list[ir.Item], page: str) -> list[dict]:
        self.current_page = page
        return [b for b in (self.block(it) for it in items) if b is not None]


def _section_heading(sec: ir.Section) -> str:
    """``VI. Iniciativa y disparos``; a section named like its title (an appendix) shows the title once."""
    return sec.title if sec.name == sec.title else f"{sec.name}. {sec.title}"


def write_docs(program: ir.Program, out_dir: Path, package: ModuleType | None, odds: dict) -> None:
    """Render docs/ (Markdown) and mkdocs.yml into ``out_dir``.

    ``package`` is the generated resolver package (it evaluates the worked
    examples; None shows them unevaluated), ``odds`` the ``"tables"`` of
    ``json/odds.json``. Reads ``out_dir/json`` and ``out_dir/schemas`` (already
    written) to publish them under ``docs/datos/``.
    """
    env = environment()
    pb = PageBuilder(program, package, odds)
    docs = out_dir / "docs"
    (docs / "includes").mkdir(parents=True, exist_ok=True)
    (docs / "assets").mkdir(parents=True, exist_ok=True)
    rb = program.rulebook
    title = rb.title if rb else "Reglamento"
    page_tpl = env.get_template("page.md.j2")
    sections, manual_nav, appendix_nav = [], [], []
    for sec in program.sections:
        page = f"{sec.slug}.md"
        blocks = pb.section_blocks(sec.items, page)
        heading = _section_heading(sec)
        (docs / page).write_text(page_tpl.render(section={"heading": esc(heading), "file": esc(sec.file)}, blocks=blocks), encoding="utf-8")
        entry = {"title": heading, "path": page}
        (appendix_nav if sec.name == sec.title else manual_nav).append(entry)
        sections.append({"heading": esc(heading), "page": page, "appendix": sec.name == sec.title})

    # datasheets and the cards of what they reference
    card_tpl = env.get_template("datasheets.md.j2")
    card_nav = []
    for pg in pb.datasheet_pages + pb.reference_pages:
        pb.current_page = pg["page"]
        catalogs = [pb.card_catalog(c) for c in pg["catalogs"]]
        notes, seen = [], []
        for c in pg["catalogs"]:
            cost = pb.catalogs[c].cost
            if cost is not None and cost not in seen:
                seen.append(cost)
                notes.append(pb.cost_note(cost, [x for x in pg["catalogs"] if pb.catalogs[x].cost == cost]))
        (docs / pg["page"]).write_text(card_tpl.render(title=esc(pg["title"]), catalogs=catalogs, cost_notes=notes), encoding="utf-8")
        card_nav.append({"title": pg["title"], "path": pg["page"]})

    # glossary: abbreviations appended to every page (tooltips), and as data
    terms = []
    for t in pb.terms:
        term, definition = abbr_term(t.title), abbr_text(t.definition)
        if term is None or not definition:
            raise SiteError(f"{t.span.src}: term {t.name}: a glossary term needs a one-line title without ']' or '\\' and a definition")
        terms.append({"term": term, "definition": definition})
    (docs / "includes" / "glosario.md").write_text(env.get_template("glosario.md.j2").render(terms=terms), encoding="utf-8")

    # data for tools
    data = _publish_data(program, pb, out_dir, docs / "datos", package)
    pb.current_page = "datos.md"
    (docs / "datos.md").write_text(env.get_template("datos.md.j2").render(title=esc(title), **data), encoding="utf-8")

    pb.current_page = INDEX_PAGE
    front = pb.section_blocks(program.front, INDEX_PAGE)
    glossary = next((s["page"] for s, sec in zip(sections, program.sections) if pb.terms and any(isinstance(i, ir.Term) for i in sec.items)), None)
    (docs / INDEX_PAGE).write_text(
        env.get_template("index.md.j2").render(
            title=esc(title), version=attr(rb.version) if rb else "", blocks=front, sections=sections,
            datasheets=[{"title": esc(c["title"]), "page": c["path"]} for c in card_nav], glossary=glossary, term_count=len(terms),
        ),
        encoding="utf-8",
    )
    shutil.copy2(SITE_DIR / "assets" / "extra.css", docs / "assets" / "extra.css")
    if (out_dir / "overrides").exists():
        shutil.rmtree(out_dir / "overrides")
    shutil.copytree(SITE_DIR / "overrides", out_dir / "overrides")
    nav = [{"title": "Inicio", "path": INDEX_PAGE}, {"title": "Manual", "children": manual_nav}]
    if card_nav:
        nav.append({"title": "Fichas", "children": card_nav})
    nav += appendix_nav
    nav.append({"title": "Datos para herramientas", "path": "datos.md"})
    mk = env.get_template("mkdocs.yml.j2").render(
        site_name=title,
        site_description=f"{title}: reglamento generado a partir de las reglas en el lenguaje de reglas.",
        copyright=f"{title} — versión {rb.version}" if rb else title,
        nav=nav,
    )
    (out_dir / "mkdocs.yml").write_text(mk, encoding="utf-8")


def _publish_data(program: ir.Program, pb: PageBuilder, out_dir: Path, dest: Path, package: ModuleType | None) -> dict:
    """Copy json/ and schemas/ under docs/datos/, write the glossary as JSON, and
    build the view-model of the data page (file list and usage examples)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files = []
    for sub in ("json", "schemas"):
        if (out_dir / sub).is_dir():
            shutil.copytree(out_dir / sub, dest / sub)
    glossary = {
        "kind": "glossary",
        "terms": [{"id": t.name, "term": t.title, "definition": t.definition, "source": t.ref} for t in pb.terms],
    }
    (dest / "glosario.json").write_text(json.dumps(glossary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for path in sorted((dest / "json").glob("*.json")) if (dest / "json").is_dir() else []:
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            obj = {}
        schema = dest / "schemas" / f"{path.stem}.schema.json"
        name = obj.get("id") or path.stem
        files.append({
            "name": esc(path.name),
            "href": f"datos/json/{path.name}",
            "schema": f"datos/schemas/{schema.name}" if schema.exists() else None,
            "schema_name": esc(schema.name),
            "kind": esc(obj.get("kind", "")),
            "title": pb.md_link(obj.get("title") or name, pb.href(name) if name in program.decls else None),
        })
    procedures = sorted((dest / "schemas" / "procedures").glob("*.schema.json")) if (dest / "schemas" / "procedures").is_dir() else []
    proc_schemas: dict[str, dict[str, str]] = {}
    for path in procedures:
        pname, _, role = path.name.removesuffix(".schema.json").rpartition(".")
        proc_schemas.setdefault(pname, {})[role] = f"datos/schemas/procedures/{path.name}"
    proc_rows = [
        {"title": pb.md_link(pb.title_of(pn), pb.href(pn)), "name": attr(pn), "input": r.get("input"), "result": r.get("result")}
        for pn, r in proc_schemas.items()
    ]
    return {
        "files": files,
        "procedures": proc_rows,
        "examples": _data_examples(program, pb, package),
        "rulebook_name": attr(program.rulebook.name if program.rulebook else ""),
    }


def _json_scalar(v) -> bool:
    return isinstance(v, (bool, int, str)) or v is None


def _typical_call(program: ir.Program, package: ModuleType) -> tuple[str, dict] | None:
    """A worked example to show as a call: JSON-shaped inputs (about four), no expected error."""
    calls = [
        (ex.procedure, generated.inputs)
        for ex, generated in zip(program.examples, package.examples.EXAMPLES)
        if ex.expected_error is None and generated.inputs and all(_json_scalar(v) for v in generated.inputs.values())
    ]
    return min(calls, key=lambda call: abs(len(call[1]) - 4), default=None)


def _data_examples(program: ir.Program, pb: PageBuilder, package: ModuleType | None) -> dict:
    """Usage examples built from this rulebook's own data (highlighted HTML)."""
    rb = program.rulebook.name if program.rulebook else "reglamento"
    out: dict[str, Any] = {"python": None, "cli": None, "jq": None, "js": None, "schema": None}
    call = _typical_call(program, package) if package is not None else None
    if call is not None:
        proc, inputs = call[0], json.dumps(call[1], ensure_ascii=False)
        out["python"] = highlight(
            "import sys\n"
            'sys.path.insert(0, "build/python")  # el paquete generado por `rulebook build`\n'
            f"import runtime, {rb}\n\n"
            f"proc = {rb}.PROCEDURES[{proc!r}]\n"
            f"entrada = {inputs}  # el JSON de schemas/procedures/{proc}.input.schema.json\n"
            "dist = runtime.exact(proc.function, **proc.convert(entrada))\n"
            "for resultado, p in dist.items():\n"
            "    print(resultado, p)  # p es una fracción exacta\n"
            "resultado, traza = runtime.sample(proc.function, seed=1, **proc.convert(entrada))\n",
            "python",
        )
        out["cli"] = highlight(f"rulebook resolve {proc} --exact --input '{inputs}'\n", "bash")
        out["proc_title"] = pb.md_link(pb.title_of(proc), pb.href(proc))
    # a catalog entry: the JSON examples
    with_entries = [c.name for c in pb.catalogs.values() if c.entries]
    cat = ([c for c in with_entries if c in pb.datasheet_catalogs] or with_entries or [None])[0]
    if cat is not None:
        ident = next(iter(pb.catalogs[cat].entries))
        fields = pb.fields(pb.catalogs[cat].record)
        field = next((f.name for f in fields if f.type.kind == "int"), fields[0].name if fields else None)
        out["jq"] = highlight(f"jq '.entries.{ident}' datos/json/{cat}.json\njq '.entries | keys' datos/json/{cat}.json\n", "bash")
        out["js"] = highlight(
            f'const catalogo = await (await fetch("datos/json/{cat}.json")).json();\n'
            f'console.log(catalogo.title, catalogo.entries["{ident}"]' + (f'.{field}' if field else "") + ");\n",
            "javascript",
        )
        out["schema"] = highlight(
            "import json, pathlib\n"
            "from jsonschema import Draft202012Validator\n"
            "from referencing import Registry, Resource\n\n"
            'raiz = pathlib.Path("datos")\n'
            "esquemas = [json.loads(p.read_text()) for p in (raiz / \"schemas\").rglob(\"*.schema.json\")]\n"
            "registro = Registry().with_resources((s[\"$id\"], Resource.from_contents(s)) for s in esquemas)\n"
            f'datos = json.loads((raiz / "json" / "{cat}.json").read_text())\n'
            f'esquema = json.loads((raiz / "schemas" / "{cat}.schema.json").read_text())\n'
            "Draft202012Validator(esquema, registry=registro).validate(datos)  # ValidationError si no cumple\n",
            "python",
        )
        out["catalog"] = pb.md_link(pb.title_of(cat), pb.href(cat))
    return out


def run_mkdocs(out_dir: Path) -> str | None:
    """``mkdocs build --strict``; returns the error output on failure."""
    env = dict(os.environ)
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    env.setdefault("SOURCE_DATE_EPOCH", "0")
    env["PYTHONHASHSEED"] = "0"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(out_dir / "mkdocs.yml"), "-d", str(out_dir / "site")],
        capture_output=True, text=True, env=env, cwd=out_dir,
    )
    if proc.returncode != 0:
        return (proc.stderr or proc.stdout)[-4000:]
    return None
