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
    "TermDecl": "Término",
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
ROUNDING_EXAMPLE_LIMIT = 1  # cost examples shown in the rounding note


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

    def __init__(self, program: Program, package):
        self.p = program
        self.pkg = package
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

    # ------------------------------------------------------------------ links
    def href(self, name: str, entry: str | None = None) -> str | None:
        page = self.page_of.get(name)
        if page is None:
            return None
        frag = anchor(name) if entry is None else f"{anchor(name)}--{anchor(entry)}"
        return f"{'' if page == self.current_page else page}#{frag}"

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
        if k == "ref":
            return self.md_link(v, self.href(t.name, v))
        if k == "rule":
            args = ", ".join(self.num(a) if isinstance(a, (int, Fraction)) and not isinstance(a, bool) else str(a) for a in v["args"].values())
            label = self.title_of(v["rule"]) + (f"({args})" if args else "")
            return self.md_link(label, self.href(v["rule"]))
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

        if v is None:
            return "—"
        if isinstance(v, bool):
            return "sí" if v else "no"
        if isinstance(v, (int, Fraction)):
            return self.num(v)
        if isinstance(v, str):
            for members in self.p.enum_members.values():
                for m, title in members:
                    if m == v:
                        return esc(title)
            return esc(v)
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
        elif isinstance(d, n.DieDecl):
            b["faces"] = [self.num(f.value) if isinstance(f, n.VNum) and f.value <= 0 else (f"+{f.value}" if isinstance(f, n.VNum) else esc(dict(self.p.enum_members.get(d.face_enum, [])).get(f.name, f.name))) for f in d.faces]
        elif isinstance(d, n.BagDecl):
            b["tokens"] = [(esc(k), c) for k, c, _ in d.tokens]
            b["total"] = sum(c for _, c, _ in d.tokens)
        elif isinstance(d, n.ProcedureDecl):
            self.procedure_block(d, b)
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
        for ident, rec in self.p.catalogs.get(d.name, {}).items():
            aid = f"{anchor(d.name)}--{anchor(ident)}{suffix}"
            rows.append([f'<span id="{attr(aid)}"></span>`{esc(ident) if False else ident.replace("`", "")}`'] + [self.cell(rec.get(c), by[c][0]) for c in cols if c in by])
        b["rows"] = rows

    def procedure_block(self, d: n.ProcedureDecl, b: dict) -> None:
        params = []
        for prm, (pname, pt) in zip(d.params, self.p.param_types[d.name]):
            default = _source(self.p, prm.default.span) if prm.default is not None else None
            params.append([f"`{pname}`", esc(str(pt)), esc(default) if default else "—"])
        b["params"] = params
        b["result"] = esc(str(self.p.result_types[d.name]))
        steps = []
        loose = []
        for st in d.body:
            if isinstance(st, n.Step):
                code = "\n".join(_source(self.p, s.span, keep_lines=True) for s in st.body)
                steps.append({"label": esc(st.label), "code": highlight(code) if code.strip() else None})
            else:
                loose.append(_source(self.p, st.span, keep_lines=True))
        if loose:
            steps.append({"label": esc("Resultado"), "code": highlight("\n".join(loose))})
        b["steps"] = steps
        b["examples"] = [self.example(ex) for ex in self.examples_of.get(d.name, [])]

    def example(self, ex: n.ExampleDecl) -> dict:
        given = [(esc(a.name or str(i)), esc(_source(self.p, a.value.span))) for i, a in enumerate(ex.given)]
        out = {"title": esc(ex.title or ex.procedure), "src": esc(ex.span.src), "given": given, "expects": [], "dist": [], "error": None}
        entry = None
        if self.pkg is not None:
            for e in self.pkg.examples.EXAMPLES:
                if e[2] == ex.span.src:
                    entry = e
        if entry is None:
            out["expects"] = [(esc(_source(self.p, x.expr.span)), None) for x in ex.expects]
            return out
        import runtime

        proc = self.pkg.PROCEDURES[entry[0]]
        try:
            dist = runtime.exact(proc.function, **entry[3])
        except runtime.RuleError as exc:
            out["error"] = esc(str(exc))
            return out
        for text, _src, check in entry[4]:
            try:
                ok = all(check(o, dist) for o in dist)
            except runtime.RuleError:
                ok = False
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


def _source(p: Program, span, keep_lines: bool = False) -> str:
    text = p.sources.get(span.file, "")
    lines = text.splitlines()
    if span.line < 1 or span.line > len(lines):
        return ""
    chunk = lines[span.line - 1 : span.end_line]
    chunk[-1] = chunk[-1][: span.end_col - 1] if span.end_line == span.line else chunk[-1][: span.end_col - 1]
    first_indent = span.col - 1
    chunk[0] = chunk[0][first_indent:]
    if keep_lines:
        out = [chunk[0]] + [c[first_indent:] if c[:first_indent].strip() == "" else c.lstrip() for c in chunk[1:]]
        return "\n".join(out)
    return " ".join(c.strip() for c in chunk)


def write_docs(program: Program, out_dir: Path, python_dir: Path | None) -> None:
    """Render docs/ (Markdown) and mkdocs.yml into ``out_dir``."""
    env = environment()
    package = pyload.load_package(python_dir) if python_dir is not None else None
    pb = PageBuilder(program, package)
    docs = out_dir / "docs"
    (docs / "includes").mkdir(parents=True, exist_ok=True)
    (docs / "assets").mkdir(parents=True, exist_ok=True)
    rb = program.rulebook
    title = rb.title if rb else "Reglamento"
    nav = [{"title": "Inicio", "path": "index.md"}]
    page_tpl = env.get_template("page.md.j2")
    sections = []
    for sec in program.sections:
        page = f"{sec.slug}.md"
        blocks = pb.section_blocks(sec.items, page)
        (docs / page).write_text(page_tpl.render(section={"name": esc(sec.name), "title": esc(sec.title), "file": esc(sec.file)}, blocks=blocks), encoding="utf-8")
        nav.append({"title": f"{sec.name}. {sec.title}", "path": page})
        sections.append({"name": esc(sec.name), "title": esc(sec.title), "page": page})
    front = pb.section_blocks(program.front, "index.md")
    (docs / "index.md").write_text(
        env.get_template("index.md.j2").render(title=esc(title), version=esc(rb.version or "") if rb else "", blocks=front, sections=sections),
        encoding="utf-8",
    )
    (docs / "includes" / "glosario.md").write_text(env.get_template("glosario.md.j2").render(terms=[]), encoding="utf-8")
    shutil.copy2(SITE_DIR / "assets" / "extra.css", docs / "assets" / "extra.css")
    if (out_dir / "overrides").exists():
        shutil.rmtree(out_dir / "overrides")
    shutil.copytree(SITE_DIR / "overrides", out_dir / "overrides")
    mk = env.get_template("mkdocs.yml.j2").render(
        site_name=title,
        site_description=f"{title}: reglamento generado a partir de las reglas en el lenguaje de reglas.",
        copyright=f"{title} — versión {rb.version or ''}" if rb else title,
        nav=nav,
    )
    (out_dir / "mkdocs.yml").write_text(mk, encoding="utf-8")


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
