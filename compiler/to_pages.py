"""Program → Markdown pages and mkdocs.yml (Jinja2 templates in ``site/``).

Entry points: :func:`write_docs(program, out_dir, python_dir)` writes
``docs/`` and ``mkdocs.yml`` under ``out_dir``; :func:`run_mkdocs(out_dir)`
builds ``site/`` with ``mkdocs build --strict``.

Templates receive data only: every text from the rules is escaped by
:mod:`compiler.markdown` before it reaches a template, and no rules text is
ever used as template source. Worked examples and probability tables are
computed here by the generated resolvers (imported from ``python_dir``).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import jinja2

from rules_dsl import nodes as n

from . import pyload
from .ir import Program
from .markdown import abbr_term, abbr_text, anchor, attr, esc, frac, highlight, inlines
from .to_json import plain
from .types import T

SITE_DIR = Path(__file__).resolve().parent.parent / "site"
KIND_TITLES = {
    "TableDecl": "Tabla", "CatalogDecl": "Catálogo", "EnumDecl": "Enumeración", "RecordDecl": "Registro",
    "RuleDecl": "Regla especial", "ProcedureDecl": "Procedimiento", "DieDecl": "Dado", "BagDecl": "Bolsa",
    "TermDecl": "Término", "OddsDecl": "Probabilidades",
}
STATUS_BADGES = {"deferred": ("Aplazada", "rb-badge--deferred"), "not_playable": ("No jugable", "rb-badge--not-playable")}

# Annotations read by the site (and by nothing else). They are generic: the
# compiler knows nothing of what a catalog holds, only how to lay it out.
PAGE_ANNOTATIONS = {
    "datasheet": 'on a catalog: one datasheet card per entry, on the page titled by the value (@datasheet "Título")',
    "cost_field": 'on a @datasheet catalog: the int field of its record that holds the base cost (@cost_field "campo")',
    "cost_modifier": (
        "on a @datasheet catalog: a table keyed by an enum with one int column, the percentage added to the base "
        'cost for each enum value; each card shows the cost at every value (@cost_modifier "tabla")'
    ),
}


class SiteError(Exception):
    """A declaration cannot be laid out as its annotations ask."""


def annotation(d, name: str):
    """The value of annotation ``@name`` on a declaration (str, number, True for a bare one), or None."""
    for ann in getattr(d, "annotations", ()):
        if ann.name == name:
            v = ann.value
            if v is None:
                return True
            if isinstance(v, n.VStr):
                return v.value
            if isinstance(v, n.VName):
                return v.name
            return getattr(v, "value", v)
    return None


def slug(text: str) -> str:
    """ASCII, lower-case, hyphen-separated (page file names)."""
    import unicodedata

    plain_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain_text).strip("-") or "x"


def round_half_up(x: Fraction) -> int:
    """The nearest integer; halves go up (110,5 → 111)."""
    return math.floor(x + Fraction(1, 2))


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
    env.filters["t"] = esc
    env.filters["attr"] = attr
    return env


class PageBuilder:
    """Turns the program into page view-models (escaped strings and lists)."""

    def __init__(self, program: Program, package, odds: dict | None = None):
        self.p = program
        self.pkg = package
        self.odds = odds or {}  # json/odds.json "tables", computed by the resolvers
        self.page_of: dict[str, str] = {}
        self.index_page = "index.md"
        for sec in program.sections:
            for item in sec.items:
                name = getattr(item, "name", None)
                if name and not isinstance(item, (n.ShowDecl, n.ExampleDecl)) and name in program.decls and program.decls[name] is item:
                    self.page_of[name] = f"{sec.slug}.md"
        for item in program.front:
            name = getattr(item, "name", None)
            if name and name in program.decls and program.decls[name] is item:
                self.page_of[name] = self.index_page
        self.examples_of: dict[str, list[n.ExampleDecl]] = {}
        for ex in program.examples:
            self.examples_of.setdefault(ex.procedure, []).append(ex)
        self.current_page = ""
        self.terms: list[n.TermDecl] = [d for d in self.ordered_decls() if isinstance(d, n.TermDecl)]
        self._plan_cards()
        self._index_references()

    def ordered_decls(self) -> list:
        """Declarations in rulebook order (front matter, then each section)."""
        out = []
        for items in [self.p.front] + [sec.items for sec in self.p.sections]:
            for item in items:
                name = getattr(item, "name", None)
                if name and self.p.decls.get(name) is item:
                    out.append(item)
        return out

    # ------------------------------------------------------------------ plan
    def _plan_cards(self) -> None:
        """Which catalogs get cards, on which pages.

        * ``@datasheet "Título"`` catalogs: one page per title (in rulebook order),
          one heading per catalog, one card per entry;
        * catalogs that those entries reference (``ref``): a page of cards each,
          so that a datasheet's weapon links to a card that links back.
        """
        taken = {self.index_page} | {f"{sec.slug}.md" for sec in self.p.sections}

        def page_name(title: str) -> str:
            base = f"fichas-{slug(title)}"
            name, i = f"{base}.md", 2
            while name in taken:
                name, i = f"{base}-{i}.md", i + 1
            taken.add(name)
            return name

        groups: dict[str, list[str]] = {}
        for d in self.ordered_decls():
            if not isinstance(d, n.CatalogDecl):
                continue
            g = annotation(d, "datasheet")
            if g is None:
                if annotation(d, "cost_field") is not None or annotation(d, "cost_modifier") is not None:
                    raise SiteError(f"{d.span.src}: @cost_field / @cost_modifier need @datasheet on catalog {d.name}")
                continue
            if not isinstance(g, str) or not g.strip():
                raise SiteError(f'{d.span.src}: @datasheet expects the title of a page, e.g. @datasheet "Fichas"')
            groups.setdefault(g.strip(), []).append(d.name)
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
                for target in self._referenced_catalogs(T("record", self.p.decls[c].record)):
                    if target not in self.card_page and isinstance(self.p.decls.get(target), n.CatalogDecl):
                        p = page_name(self.title_of(target))
                        self.card_page[target] = p
                        self.reference_pages.append({"title": self.title_of(target), "page": p, "catalogs": [target]})
        self.cost_specs = {c: self.cost_spec(self.p.decls[c]) for pg in self.datasheet_pages for c in pg["catalogs"]}

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
            out = []
            for _f, ft, _ti in self.p.record_fields.get(t.name, []):
                out += [c for c in self._referenced_catalogs(ft, seen) if c not in out]
            return out
        return []

    def _index_references(self) -> None:
        """Reverse links: which catalog entries apply each rule / reference each entry."""
        self.rule_users: dict[str, list[tuple[str, str, dict]]] = {}
        self.entry_users: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.same_id: dict[str, list[tuple[str, str]]] = {}
        for d in self.ordered_decls():
            if not isinstance(d, n.CatalogDecl):
                continue
            fields = self.p.record_fields.get(d.record, [])
            for ident, rec in self.p.catalogs.get(d.name, {}).items():
                self.same_id.setdefault(ident, []).append((d.name, ident))
                rules: list[dict] = []
                refs: list[tuple[str, str]] = []
                for f, ft, _ti in fields:
                    self._walk(rec.get(f), ft, rules, refs)
                for r in rules:
                    users = self.rule_users.setdefault(r["rule"], [])
                    if not any(c == d.name and i == ident and u == r for c, i, u in users):
                        users.append((d.name, ident, r))
                for ref in refs:
                    users = self.entry_users.setdefault(ref, [])
                    if (d.name, ident) not in users:
                        users.append((d.name, ident))

    def _walk(self, v, t: T, rules: list, refs: list) -> None:
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
            for f, ft, _ti in self.p.record_fields.get(t.name, []):
                self._walk(v.get(f), ft, rules, refs)
        elif k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is not None:
                refs.append((cat, v))
        elif k == "rule" and isinstance(v, dict):
            rules.append(v)

    def ref_catalog(self, t: T, ident: str) -> str | None:
        """The catalog (of those ``t`` names) that has entry ``ident``."""
        for c in (t.name or "").split("|"):
            if ident in self.p.catalogs.get(c, {}):
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
        for f, t, _ti in self.p.record_fields.get(record, []):
            if t.kind == "text":
                return f
        return None

    def entry_title(self, catalog: str, ident: str) -> str:
        d = self.p.decls.get(catalog)
        rec = self.p.catalogs.get(catalog, {}).get(ident)
        f = self.title_field(d.record) if isinstance(d, n.CatalogDecl) else None
        if rec is not None and f is not None and isinstance(rec.get(f), str) and rec.get(f).strip():
            return rec[f]
        return ident

    def title_of(self, name: str) -> str:
        d = self.p.decls.get(name)
        return (getattr(d, "title", None) or name) if d is not None else name

    def link(self, target: str) -> tuple[str | None, str]:
        name, _, entry = target.partition("#")
        if entry and name in self.p.catalogs:
            return self.href(name, entry), entry
        return self.href(name), self.title_of(name)

    def md_link(self, text: str, href: str | None) -> str:
        return f"[{esc(text)}]({href})" if href else esc(text)

    # ------------------------------------------------------------------ values
    def num(self, v) -> str:
        if isinstance(v, Fraction):
            s = f"{float(v):g}".replace(".", ",")
        else:
            s = str(v)
        return s.replace("-", "−")

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
            return self.num(v)
        if k == "enum":
            titles = dict(self.p.enum_members.get(t.name, []))
            return esc(titles.get(v, v))
        if k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is None:
                return esc(v)
            return self.md_link(self.entry_title(cat, v), self.entry_href(cat, v))
        if k == "rule":
            return self.md_link(self.rule_label(v), self.href(v["rule"]))
        if k == "list":
            if not v:
                return "—"
            sep = "<br>" if t.args[0].inner.kind in ("record", "map") else ", "
            return sep.join(self.cell(x, t.args[0]) for x in v)
        if k == "map":
            titles = dict(self.p.enum_members.get(t.name, []))
            return " · ".join(f"{esc(titles.get(m, m))} {self.cell(x, t.args[0])}" for m, x in v.items())
        if k == "record":
            parts = []
            for f, ft, ftitle in self.p.record_fields.get(t.name, []):
                x = v.get(f)
                if x is None or x == []:
                    continue
                parts.append(f"*{esc(ftitle or f)}*: {self.cell(x, ft)}")
            return "; ".join(parts) or "—"
        return esc(str(v))

    def rule_args(self, v: dict) -> str:
        return ", ".join(self.num(a) if isinstance(a, (int, Fraction)) and not isinstance(a, bool) else str(a) for a in v["args"].values())

    def rule_label(self, v: dict) -> str:
        """``LMG(2)``: a rule application as the manual writes it (plain text)."""
        args = self.rule_args(v)
        return self.title_of(v["rule"]) + (f"({args})" if args else "")

    def range_text(self, r) -> str:
        lo = None if r.lo is None else self.num(r.lo)
        hi = None if r.hi is None else self.num(r.hi)
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
        import dataclasses

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

    # ------------------------------------------------------------------ blocks
    def common(self, d, anchor_suffix: str = "") -> dict:
        name = d.name
        status = self.p.status.get(name, "active")
        badge = STATUS_BADGES.get(status)
        doc = None
        for ann in d.annotations:
            if ann.name == "doc" and isinstance(ann.value, n.VStr):
                doc = ann.value.value
        return {
            "kind": type(d).__name__,
            "kind_title": KIND_TITLES.get(type(d).__name__, ""),
            "name": name,
            "anchor": anchor(name) + anchor_suffix,
            "title": esc(getattr(d, "title", None) or name),
            "ref": attr(self.p.refs.get(name, "")),
            "src": attr(d.span.src),
            "badge": {"text": badge[0], "cls": badge[1]} if badge else None,
            "doc": esc(doc) if doc else None,
            "source": highlight(d.source_text),
            "original": None,
            "cards_href": None,
            "users": None,
            "procedures": [],
            "also": [],
            "related": [],
            "columns_title": None,
        }

    def block(self, item) -> dict | None:
        if isinstance(item, n.Heading):
            return {"kind": "heading", "level": item.level, "md": inlines(item.inlines, self.link)}
        if isinstance(item, n.Paragraph):
            return {"kind": "paragraph", "md": inlines(item.inlines, self.link)}
        if isinstance(item, n.ListBlock):
            return {"kind": "list", "ordered": item.ordered, "start": item.start, "items": [inlines(i, self.link) for i in item.items]}
        if isinstance(item, n.Note):
            return {"kind": "note", "md": inlines(item.inlines, self.link)}
        if isinstance(item, n.Separator):
            return {"kind": "separator"}
        if isinstance(item, n.ShowDecl):
            d = self.p.decls.get(item.name)
            if d is None:
                return None
            b = self.decl(d, anchor_suffix="--" + anchor(self.current_page.removesuffix(".md")))
            if b is not None:
                b["original"] = self.href(item.name)
            return b
        if isinstance(item, (n.RulebookDecl, n.SectionDecl, n.ExampleDecl)):
            return None
        return self.decl(item)

    def decl(self, d, anchor_suffix: str = "") -> dict | None:
        b = self.common(d, anchor_suffix)
        if isinstance(d, n.TableDecl):
            self.table_block(d, b)
        elif isinstance(d, n.CatalogDecl):
            self.catalog_block(d, b, anchor_suffix)
        elif isinstance(d, n.EnumDecl):
            b["header"] = ["Id", "Nombre"]
            b["rows"] = [[f"`{esc(m)}`" if False else esc(m), esc(t)] for m, t in self.p.enum_members.get(d.name, [])]
            b["ordered"] = d.ordered
        elif isinstance(d, n.RecordDecl):
            b["header"] = ["Campo", "Tipo", "Descripción"]
            b["rows"] = [[esc(f), esc(str(t)), esc(ti or "")] for f, t, ti in self.p.record_fields.get(d.name, [])]
        elif isinstance(d, n.RuleDecl):
            params = self.p.rule_params.get(d.name, [])
            b["signature"] = esc((d.title or d.name) + (f"({', '.join(p for p, _ in params)})" if params else ""))
            b["texts"] = [esc(t) for t in d.texts]
            b["levels"] = [(lvl, esc(t)) for lvl, t in d.levels]
            b["grants"] = [self.cell({"rule": g.name, "args": {str(i): plain(getattr(a, "value", getattr(a, "name", None))) for i, a in enumerate(g.args)}}, T("rule")) for g in d.grants]
            b["stacking"] = esc(d.stacking) if d.stacking else None
            if not anchor_suffix:
                self.rule_extras(d, b)
        elif isinstance(d, n.DieDecl):
            b["faces"] = [self.num(f.value) if isinstance(f, n.VNum) and f.value <= 0 else (f"+{f.value}" if isinstance(f, n.VNum) else esc(dict(self.p.enum_members.get(d.face_enum, [])).get(f.name, f.name))) for f in d.faces]
        elif isinstance(d, n.BagDecl):
            b["tokens"] = [(esc(k), c) for k, c, _ in d.tokens]
            b["total"] = sum(c for _, c, _ in d.tokens)
        elif isinstance(d, n.ProcedureDecl):
            self.procedure_block(d, b)
        elif isinstance(d, n.TermDecl):
            self.term_block(d, b)
        elif isinstance(d, n.OddsDecl):
            self.odds_block(d, b)
        else:
            return None
        return b

    def table_block(self, d: n.TableDecl, b: dict) -> None:
        info = self.p.tables[d.name]
        header = [esc(k.title or k.name) for k in d.keys]
        if d.across:
            header += [self.cell(a, info.across_type) for a in info.across_values]
        else:
            header += [esc(c.title or c.name) for c in d.columns]
        rows = []
        for keys, title, values, _row in info.rows:
            cells = []
            for ks, kt, k in zip(d.keys, info.key_types, keys):
                if isinstance(k, n.RangeKey):
                    cells.append(esc(self.range_text(k)))
                elif title:
                    cells.append(esc(title))
                else:
                    cells.append(self.cell(k, kt))
            if d.across:
                cells += [self.cell(v, info.col_types[0]) for v in values["__across__"]]
            else:
                cells += [self.cell(values[c.name], t) for c, t in zip(d.columns, info.col_types)]
            rows.append(cells)
        b["header"] = header
        b["rows"] = rows
        b["align"] = [("---:" if (t.inner.kind in ("int", "decimal") or ks.ranged) else "---") for ks, t in zip(d.keys, info.key_types)]
        b["align"] += ["---:" if t.inner.kind in ("int", "decimal") else "---" for t in (info.col_types if not d.across else [info.col_types[0]] * len(info.across_values))]

    def catalog_block(self, d: n.CatalogDecl, b: dict, suffix: str) -> None:
        fields = self.p.record_fields.get(d.record, [])
        cols = list(d.columns) if d.columns else [f for f, _, _ in fields]
        by = {f: (t, ti) for f, t, ti in fields}
        b["header"] = ["Id"] + [esc(by[c][1] or c) for c in cols if c in by]
        b["align"] = ["---"] + ["---:" if by[c][0].inner.kind in ("int", "decimal") else "---" for c in cols if c in by]
        rows = []
        card = d.name in self.card_page
        for ident, rec in self.p.catalogs.get(d.name, {}).items():
            aid = f"{anchor(d.name)}--{anchor(ident, part=True)}{suffix}"
            code = f"<code>{attr(ident)}</code>"
            if card:
                code = f'<a href="{attr(self.entry_href(d.name, ident))}" title="Ficha">{code}</a>'
            rows.append([f'<span id="{attr(aid)}"></span>{code}'] + [self.cell(rec.get(c), by[c][0]) for c in cols if c in by])
        b["rows"] = rows
        b["cards_href"] = self.entry_group_href(d.name) if card else None

    # ------------------------------------------------------------------ cards
    def cost_spec(self, d: n.CatalogDecl) -> dict | None:
        """``@cost_field`` + ``@cost_modifier``: how to show the cost at each enum value."""
        field, table = annotation(d, "cost_field"), annotation(d, "cost_modifier")
        if field is None and table is None:
            return None
        where = f"{d.span.src}: catalog {d.name}"
        if not isinstance(field, str) or not isinstance(table, str):
            raise SiteError(f'{where}: @cost_field "campo" and @cost_modifier "tabla" go together, both with a string')
        fields = {f: (t, ti) for f, t, ti in self.p.record_fields.get(d.record, [])}
        if field not in fields or fields[field][0].inner.kind != "int":
            raise SiteError(f"{where}: @cost_field {field!r} is not an int field of record {d.record}")
        info = self.p.tables.get(table)
        if info is None:
            raise SiteError(f"{where}: @cost_modifier {table!r} is not a table")
        if (len(info.key_types) != 1 or info.key_types[0].kind != "enum" or info.decl.across
                or len(info.decl.columns) != 1 or info.col_types[0].inner.kind not in ("int", "decimal")):
            raise SiteError(f"{where}: @cost_modifier table {table} must be keyed by an enum and have one numeric column (a percentage)")
        enum = info.key_types[0].name
        col = info.decl.columns[0].name
        pct = {keys[0]: values[col] for keys, _title, values, _row in info.rows}
        levels = [(m, title, pct[m]) for m, title in self.p.enum_members.get(enum, []) if pct.get(m) is not None]
        return {"field": field, "field_title": fields[field][1] or field, "enum": enum, "table": table, "levels": levels}

    @staticmethod
    def cost_at(base: int, pct: int) -> int:
        return round_half_up(Fraction(base * (100 + pct), 100))

    def cost_note(self, spec: dict, catalogs: list[str]) -> dict:
        """The explanation of a cost spec, with a worked example of the rounding from the data."""
        example = None
        for c in catalogs:
            for rec in self.p.catalogs.get(c, {}).values():
                base = rec.get(spec["field"])
                for _m, title, pct in spec["levels"]:
                    if isinstance(base, int) and (base * (100 + pct)) % 100 == 50 and example is None:
                        exact = Fraction(base * (100 + pct), 100)
                        example = {"base": self.num(base), "title": esc(title), "pct": self.pct(pct), "exact": self.num(exact), "rounded": self.num(self.cost_at(base, pct))}
        return {
            "field_title": esc(spec["field_title"]),
            "enum_title": esc(self.title_of(spec["enum"])),
            "table": self.md_link(self.title_of(spec["table"]), self.href(spec["table"])),
            "levels": [(esc(title), self.pct(pct)) for _m, title, pct in spec["levels"]],
            "example": example,
        }

    def pct(self, v: int) -> str:
        return ("+" if v > 0 else "") + self.num(v) + "\u00a0%"

    def card_catalog(self, catalog: str) -> dict:
        """A catalog on a card page: heading, badge, link to the manual's table, its cards."""
        d = self.p.decls[catalog]
        status = self.p.status.get(catalog, "active")
        badge = STATUS_BADGES.get(status)
        procs = sorted(u for u in self.p.uses.get(catalog, ()) if isinstance(self.p.decls.get(u), n.ProcedureDecl))
        return {
            "anchor": anchor(catalog),
            "title": esc(d.title or catalog),
            "badge": {"text": badge[0], "cls": badge[1]} if badge else None,
            "ref": attr(self.p.refs.get(catalog, "")),
            "table_href": self.href(catalog),
            "procedures": [self.md_link(self.title_of(pr), self.href(pr)) for pr in procs],
            "cards": [self.card(catalog, ident, rec) for ident, rec in self.p.catalogs.get(catalog, {}).items()],
        }

    def card(self, catalog: str, ident: str, rec: dict) -> dict:
        """One datasheet card: facts, a stats row, lists, the cost at each level, reverse links."""
        d = self.p.decls[catalog]
        spec = self.cost_specs.get(catalog)
        skip = {self.title_field(d.record), spec["field"] if spec else None}
        facts, stats_h, stats_r, lists = [], [], [], []
        for f, t, ftitle in self.p.record_fields.get(d.record, []):
            if f in skip:
                continue
            label = esc(ftitle or f)
            v = rec.get(f)
            inner = t.inner
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
                parts = [(ti or sf, v.get(sf)) for sf, _st, ti in self.p.record_fields[inner.name]]
                stats_h.append(f"{label} ({esc(' / '.join(p for p, _x in parts))})")
                stats_r.append(" / ".join(self.num(x) if x is not None else "—" for _p, x in parts))
            else:
                facts.append((label, self.cell(v, t)))
        status = self.p.status.get(catalog, "active")
        badge = STATUS_BADGES.get(status)
        cost = None
        if spec is not None and isinstance(rec.get(spec["field"]), int):
            base = rec[spec["field"]]
            cost = {
                "label": f"{esc(spec['field_title'])} por {esc(self.title_of(spec['enum']))}",
                "header": [esc(title) for _m, title, _p in spec["levels"]],
                "row": [self.num(self.cost_at(base, pct)) for _m, _t, pct in spec["levels"]],
                "base": self.num(base),
            }
        return {
            "anchor": f"{anchor(catalog)}--{anchor(ident, part=True)}",
            "id": attr(ident),
            "title": esc(self.entry_title(catalog, ident)),
            "badge": {"text": badge[0], "cls": badge[1]} if badge else None,
            "row_href": self.href(catalog, ident),
            "facts": facts,
            "stats": {"header": stats_h, "row": stats_r} if stats_h else None,
            "lists": lists,
            "cost": cost,
            "odds": self.card_odds(catalog, ident),
            "users": self.users_of(self.entry_users.get((catalog, ident), [])),
        }

    def numeric_record(self, record: str) -> bool:
        fields = self.p.record_fields.get(record, [])
        return bool(fields) and all(t.inner.kind in ("int", "decimal") for _f, t, _ti in fields)

    def compact(self, v, t: T) -> str:
        """A cell value; a record of numbers as ``3 / 1`` (its header names the parts)."""
        inner = t.inner
        if v is not None and inner.kind == "record" and self.numeric_record(inner.name):
            parts = [v.get(f) for f, _t, _ti in self.p.record_fields[inner.name]]
            while parts and parts[-1] is None:
                parts.pop()
            return " / ".join(self.num(x) if x is not None else "—" for x in parts) or "—"
        return self.cell(v, t)

    def compact_label(self, title: str, t: T) -> str:
        inner = t.inner
        if inner.kind == "record" and self.numeric_record(inner.name):
            return f"{esc(title)} ({esc(' / '.join(ti or f for f, _t, ti in self.p.record_fields[inner.name]))})"
        return esc(title)

    def record_list_table(self, items: list, record: str) -> dict:
        """A list of records as a table: one column per field that any item has.

        Records whose map fields all share one enum are pivoted: one row per
        item and map field, one column per enum value (bands, zones…)."""
        all_fields = self.p.record_fields.get(record, [])
        maps = [(f, t, ti) for f, t, ti in all_fields if t.inner.kind == "map"]
        if maps and len({t.inner.name for _f, t, _ti in maps}) == 1:
            enum = maps[0][1].inner.name
            members = self.p.enum_members.get(enum, [])
            keys = [(f, t, ti) for f, t, ti in all_fields if t.inner.kind != "map" and any(it.get(f) not in (None, []) for it in items)]
            rows = []
            for it in items:
                for f, t, ti in maps:
                    m = it.get(f) or {}
                    vt = t.inner.args[0]
                    rows.append([self.cell(it.get(kf), kt) for kf, kt, _kti in keys] + [self.compact_label(ti or f, vt)] + [self.compact(m.get(mv), vt) for mv, _mt in members])
            return {
                "header": [esc(kti or kf) for kf, _kt, kti in keys] + [""] + [esc(mt) for _mv, mt in members],
                "rows": rows,
            }
        fields = [(f, t, ti) for f, t, ti in all_fields if any(it.get(f) not in (None, []) for it in items)]
        return {
            "header": [esc(ti or f) for f, _t, ti in fields],
            "rows": [[self.cell(it.get(f), t) for f, t, _ti in fields] for it in items],
        }

    def users_of(self, users: list[tuple], rule: bool = False) -> dict:
        """Reverse links grouped by catalog: datasheet catalogs first ("cards"), then the rest."""
        groups: dict[str, dict] = {}
        for u in users:
            cat, ident = u[0], u[1]
            g = groups.setdefault(cat, {"title": esc(self.title_of(cat)), "href": self.entry_group_href(cat), "items": [], "card": cat in self.datasheet_catalogs})
            label = self.md_link(self.entry_title(cat, ident), self.entry_href(cat, ident))
            if rule:
                args = self.rule_args(u[2])
                if args:
                    names = [prm for prm, _t in self.p.rule_params.get(u[2]["rule"], [])]
                    vals = list(u[2]["args"].values())
                    shown = ", ".join(f"{esc(nm)} = {self.num(x) if isinstance(x, (int, Fraction)) and not isinstance(x, bool) else esc(x)}" for nm, x in zip(names, vals)) if len(names) == len(vals) else esc(args)
                    label += f" ({shown})"
            g["items"].append(label)
        cards = [g for g in groups.values() if g["card"]]
        other = [g for g in groups.values() if not g["card"]]
        return {"cards": cards, "other": other, "count": sum(len(g["items"]) for g in cards), "other_count": sum(len(g["items"]) for g in other)}

    def entry_group_href(self, catalog: str) -> str | None:
        if catalog in self.card_page:
            return self.page_href(self.card_page[catalog], anchor(catalog))
        return self.href(catalog)

    def rule_extras(self, d: n.RuleDecl, b: dict) -> None:
        """Reverse links of a special rule: entries that apply it, procedures, related data."""
        name = d.name
        b["users"] = self.users_of(self.rule_users.get(name, []), rule=True)
        listed = {c for c, _i, _u in self.rule_users.get(name, [])}
        procs, also = [], []
        for u in sorted(self.p.uses.get(name, ())):
            du = self.p.decls.get(u)
            if isinstance(du, n.ProcedureDecl):
                procs.append(self.md_link(self.title_of(u), self.href(u)))
            elif isinstance(du, (n.TableDecl, n.CatalogDecl)) and u not in listed:
                also.append(self.md_link(self.title_of(u), self.href(u)))
        for pd in self.ordered_decls():
            if isinstance(pd, n.ProcedureDecl) and pd.name not in self.p.uses.get(name, ()):
                if any(pname == name for pname, _t in self.p.param_types.get(pd.name, [])):
                    procs.append(f"{self.md_link(self.title_of(pd.name), self.href(pd.name))} (parámetro <code>{attr(name)}</code>)")
        b["procedures"] = procs
        b["also"] = also
        b["related"] = [
            self.md_link(f"{self.title_of(c)}: {self.entry_title(c, i)}", self.entry_href(c, i))
            for c, i in self.same_id.get(name, [])
        ]

    def value_label(self, v, link: bool = True) -> str:
        """A scalar value: an enum member's title, a catalog entry (linked), a number, sí/no."""
        if isinstance(v, bool):
            return "sí" if v else "no"
        if isinstance(v, (int, Fraction)):
            return self.num(v)
        if isinstance(v, str):
            for members in self.p.enum_members.values():
                for m, title in members:
                    if m == v:
                        return esc(title)
            for cat, rows in self.p.catalogs.items() if link else ():
                if v in rows:
                    return self.md_link(self.entry_title(cat, v), self.entry_href(cat, v))
            return esc(v)
        return "—" if v is None else esc(str(v))

    def odds_block(self, d, b: dict) -> None:
        """A table of exact probabilities computed by the resolvers (read from json/odds.json)."""
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
            catalog = d.each.enum
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
                row.append(f'<span class="rb-prob" style="--p: {float(p) * 100:.2f}%" title="{attr(frac(p))}">{self.pct_text(p)}</span>')
            out.append(row)
        return header, out

    def card_odds(self, catalog: str, ident: str) -> list[dict]:
        """Slices of grouped odds tables (``each x in catalog``) for one entry's card."""
        out = []
        for d in self.ordered_decls():
            if not isinstance(d, n.OddsDecl) or d.each is None or d.each.enum != catalog:
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
            out.append({"title": esc(d.title or d.name), "href": self.href(d.name), "header": header, "rows": rows,
                        "columns_title": esc(cols.get("title") or "")})
        return out

    @staticmethod
    def pct_text(p: Fraction) -> str:
        if p == 0:
            return "0\u00a0%"
        if p == 1:
            return "100\u00a0%"
        return f"{float(p) * 100:.1f}".replace(".", ",") + "\u00a0%"

    def term_block(self, d: n.TermDecl, b: dict) -> None:
        b["definition"] = esc(d.definition)
        key = " ".join(d.title.split()).casefold()
        b["see"] = [
            self.md_link(f"{KIND_TITLES.get(type(o).__name__, '')} «{self.title_of(o.name)}»".strip(), self.href(o.name))
            for o in self.ordered_decls()
            if not isinstance(o, n.TermDecl) and " ".join((getattr(o, "title", None) or "").split()).casefold() == key and self.href(o.name)
        ]

    def procedure_block(self, d: n.ProcedureDecl, b: dict) -> None:
        params = []
        for prm, (pname, pt) in zip(d.params, self.p.param_types[d.name]):
            default = self.p.source_text(prm.default.span) if prm.default is not None else None
            params.append([f"`{pname}`", esc(str(pt)), esc(default) if default else "—"])
        b["params"] = params
        b["result"] = esc(str(self.p.result_types[d.name]))
        steps = []
        loose = []
        for st in d.body:
            if isinstance(st, n.Step):
                code = "\n".join(self.p.source_text(s.span, keep_lines=True) for s in st.body)
                steps.append({"label": esc(st.label), "code": highlight(code) if code.strip() else None})
            else:
                loose.append(self.p.source_text(st.span, keep_lines=True))
        if loose:
            steps.append({"label": esc("Resultado"), "code": highlight("\n".join(loose))})
        b["steps"] = steps
        b["examples"] = [self.example(ex) for ex in self.examples_of.get(d.name, [])]

    def example(self, ex: n.ExampleDecl) -> dict:
        given = [(attr(a.name or str(i)), esc(self.p.source_text(a.value.span))) for i, a in enumerate(ex.given)]
        out = {"title": esc(ex.title or ex.procedure), "src": esc(ex.span.src), "given": given, "expects": [], "dist": [], "error": None, "error_expected": False, "more": 0}
        entry = None
        if self.pkg is not None:
            for e in self.pkg.examples.EXAMPLES:
                if e[2] == ex.span.src:
                    entry = e
        if entry is None:
            out["expects"] = [(esc(self.p.source_text(x.expr.span) if x.expr is not None else "error"), None) for x in ex.expects]
            return out
        from .examples import evaluate

        ev = evaluate(self.pkg, entry)
        if ev.error is not None:
            out["error"] = esc(str(ev.error))
            out["error_expected"] = ev.expected_error is not None and ev.expected_error in ev.error.message
            return out
        dist = ev.distribution
        for text, _src, ok, _detail in ev.checks:
            out["expects"].append((esc(text), ok))
        items = sorted(dist.items(), key=lambda kv: -kv[1])
        for outcome, p in items[:12]:
            out["dist"].append({"outcome": self.value_text(outcome), "p": frac(p), "pct": f"{float(p) * 100:.2f}"})
        out["more"] = max(0, len(items) - 12)
        return out

    # ------------------------------------------------------------------ pages
    def section_blocks(self, items: list, page: str) -> list[dict]:
        self.current_page = page
        blocks = []
        for it in items:
            b = self.block(it)
            if b is not None:
                blocks.append(b)
        return blocks


def _fn_key(v):
    """A hashable identity for a value; for a function, its code and captured values."""
    code = getattr(v, "__code__", None)
    if code is None:
        return v
    cells = tuple(c.cell_contents for c in (v.__closure__ or ()))
    defaults = v.__defaults__ or ()
    return (code, cells, defaults)


def _section_heading(sec) -> str:
    """``VI. Iniciativa y disparos``; a section named like its title (an appendix) shows the title once."""
    return sec.title if sec.name == sec.title else f"{sec.name}. {sec.title}"


def write_docs(program: Program, out_dir: Path, python_dir: Path | None) -> None:
    """Render docs/ (Markdown) and mkdocs.yml into ``out_dir``.

    Reads ``out_dir/json`` and ``out_dir/schemas`` (already written) to publish
    them under ``docs/datos/``.
    """
    env = environment()
    package = pyload.load_package(python_dir) if python_dir is not None else None
    odds_file = out_dir / "json" / "odds.json"
    odds = json.loads(odds_file.read_text(encoding="utf-8")).get("tables", {}) if odds_file.exists() else {}
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
            spec = pb.cost_specs.get(c)
            if spec is not None and spec not in seen:
                seen.append(spec)
                notes.append(pb.cost_note(spec, [x for x in pg["catalogs"] if pb.cost_specs.get(x) == spec]))
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

    pb.current_page = "index.md"
    front = pb.section_blocks(program.front, "index.md")
    glossary = next((s["page"] for s, sec in zip(sections, program.sections) if pb.terms and any(isinstance(i, n.TermDecl) for i in sec.items)), None)
    (docs / "index.md").write_text(
        env.get_template("index.md.j2").render(
            title=esc(title), version=attr(rb.version or "") if rb else "", blocks=front, sections=sections,
            datasheets=[{"title": esc(c["title"]), "page": c["path"]} for c in card_nav], glossary=glossary, term_count=len(terms),
        ),
        encoding="utf-8",
    )
    shutil.copy2(SITE_DIR / "assets" / "extra.css", docs / "assets" / "extra.css")
    if (out_dir / "overrides").exists():
        shutil.rmtree(out_dir / "overrides")
    shutil.copytree(SITE_DIR / "overrides", out_dir / "overrides")
    nav = [{"title": "Inicio", "path": "index.md"}, {"title": "Manual", "children": manual_nav}]
    if card_nav:
        nav.append({"title": "Fichas", "children": card_nav})
    nav += appendix_nav
    nav.append({"title": "Datos para herramientas", "path": "datos.md"})
    mk = env.get_template("mkdocs.yml.j2").render(
        site_name=title,
        site_description=f"{title}: reglamento generado a partir de las reglas en el lenguaje de reglas.",
        copyright=f"{title} — versión {rb.version or ''}" if rb else title,
        nav=nav,
    )
    (out_dir / "mkdocs.yml").write_text(mk, encoding="utf-8")


def _publish_data(program: Program, pb: PageBuilder, out_dir: Path, dest: Path, package) -> dict:
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
        "terms": [{"id": t.name, "term": t.title, "definition": t.definition, "source": program.refs.get(t.name, "")} for t in pb.terms],
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
    proc_schemas = {}
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


def _data_examples(program: Program, pb: PageBuilder, package) -> dict:
    """Usage examples built from this rulebook's own data (highlighted HTML)."""
    rb = program.rulebook.name if program.rulebook else "reglamento"
    out: dict[str, Any] = {"python": None, "cli": None, "jq": None, "js": None, "schema": None}
    # a worked example with JSON-shaped inputs: the Python and CLI examples
    chosen = None
    if package is not None:
        # a typical call: JSON-shaped inputs (about four), no expected error
        candidates = [e for e in package.examples.EXAMPLES
                      if e[3] and all(_json_scalar(v) for v in e[3].values()) and (len(e) < 6 or e[5] is None)]
        chosen = min(candidates, key=lambda e: abs(len(e[3]) - 4), default=None)
    if chosen is not None:
        proc, inputs = chosen[0], json.dumps(chosen[3], ensure_ascii=False)
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
    with_entries = [c for c in program.catalogs if program.catalogs[c] and isinstance(program.decls.get(c), n.CatalogDecl)]
    cat = ([c for c in with_entries if c in pb.datasheet_catalogs] or with_entries or [None])[0]
    if cat is not None:
        ident = next(iter(program.catalogs[cat]))
        fields = program.record_fields.get(program.decls[cat].record, [])
        field = next((f for f, t, _ti in fields if t.kind == "int"), fields[0][0] if fields else None)
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
