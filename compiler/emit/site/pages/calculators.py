"""The procedures' calculators: one page per rulebook (a section per procedure) and the data they share.

Reads: a checked :class:`rulebook.compiler.ir.Program` (procedures, their parameters' and results'
types, enums, catalogs, records), the build's ``json/examples.json`` (each worked example's input
as JSON: a calculator starts from its procedure's first example that resolves), the procedures'
input schemas (``schemas/procedures/<name>.input.schema.json``: defaults, ``minimum``/``maximum``)
and the generated JavaScript package's ``js/browser.js`` (the pipeline writes ``js/`` before the
pages; without it there are no calculators). Produces, under ``docs/``:

* ``assets/calc/resolvers.js`` — a copy of ``js/browser.js`` (one classic script assigning
  ``globalThis.rulebook_<id>``: Chromium refuses ES modules on ``file://`` pages);
* ``assets/calc/data.js`` — ``window.rbCalcData = <JSON literal>``: for every procedure its title,
  its parameters (name, the label players read — never the identifier —, a type descriptor,
  its default) and its result's descriptor, the worked examples' inputs, the enums' member titles,
  the catalogs' entry names (and costs), the records' field labels, the interface's phrases and
  the trace's phrases in the rulebook's language;
* ``assets/calculator.js`` and ``assets/calculator.css`` (copied from ``site/assets``): the
  calculators themselves (forms, exact distributions as bars and tables, a sampled run's trace,
  comparison, the state in the address's fragment);
* the calculators page (``calculadoras.md`` / ``calculators.md``: ``calculadoras.md.j2``), which loads
  none of the above by itself: each calculator is a switch, and the first one opened loads them.

Each procedure's block on its section page carries only a marker
(``<div data-rb-calc="NAME"></div>``, see ``macros.md.j2``): ``site/assets/rulebook.js``
turns it into a "Calculate" switch and loads the scripts above on first use, so a section page
weighs a few bytes more and loads nothing more until a calculator is opened.

A type descriptor (``desc``) is a small JSON object, ``{"k": kind, …}``: ``int`` (``min``/``max``
when the schema bounds it), ``dec``, ``bool``, ``text``, ``enum`` (``of``: the enum), ``ref``
(``of``: the catalogs, or tables keyed by ids), ``rule``, ``opt`` / ``list`` (``of``: the inner descriptor), ``rec``
(``of``: the record), ``map`` (``of``: the enum of the keys, ``v``: the values' descriptor) and
``json`` for anything else (a JSON text box). Everything is deterministic (sorted where the program
has no order).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import anchor, attr, esc
from rulebook.compiler.emit.site.pages.context import SiteContext
from rulebook.compiler.emit.site.pages.templates import SITE_DIR
from rulebook.compiler.ir.types import T
from rulebook.compiler.support import i18n
from rulebook.compiler.support.i18n import N_, _

NAV_TITLE = N_("Calculators")
PAGE_FILE = N_("calculators")
FOLDER = "assets/calc"
RESOLVERS = f"{FOLDER}/resolvers.js"  # js/browser.js
DATA = f"{FOLDER}/data.js"
DATA_GLOBAL = "rbCalcData"
ASSETS = ("calculator.js", "calculator.css")
WEIGHT = 2  # search: a calculator after the rules it computes


def script_json(data) -> str:
    """JSON no text can break out of (``<``, ``>``, ``&``, U+2028/9 escaped), usable as a JS literal."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def interface_text() -> dict[str, str]:
    """The calculators' phrases in the current language (``{name}`` placeholders are filled by the script)."""
    return {
        "result": _("Result"), "outcome": _("Outcome"), "exactly": _("Exactly"), "at_least": _("At least"),
        "at_most": _("At most"), "probability": _("Probability"), "mean": _("Mean"), "always": _("Always:"),
        "none": _("none"), "yes": _("yes"), "no": _("no"), "add": _("Add"), "remove": _("Remove"),
        "roll": _("Roll once"), "seed": _("seed {n}"), "compare": _("Compare"), "stop_compare": _("Stop comparing"),
        "share": _("Share link"), "copied": _("Link copied to the clipboard."),
        "share_ready": _("The link is in the box: copy it to share this calculation."),
        "example": _("Worked example"), "choose_example": _("— load a worked example —"),
        "choice": _("Choice {n}"), "computing": _("Computing…"), "error": _("The rules stop here:"),
        "not_number": _("{name}: not a number"), "bad_json": _("{name}: not valid JSON"),
        "all_outcomes": _("Every outcome ({n})"), "per_point": _("Mean per 100 points of cost: {value} ({cost} points)"),
        "filter": _("Find a calculator"), "no_match": _("No calculator matches."),
        "loading": _("Loading the calculator…"), "load_failed": _("The calculator could not be loaded."),
        "rules_link": _("The rules"), "trace": _("One sampled resolution"),
        "no_params": _("This procedure takes no input: its result depends only on the dice."),
        "inputs": _("Inputs"), "table": _("Table"), "chart": _("Distribution of {what}"),
    }


def trace_text(lang: str) -> dict[str, str]:
    """The phrases of a trace as the Python runtime renders it (:meth:`rulebook.runtime.Trace.render_text`)."""
    from rulebook.runtime.messages import phrases

    g = phrases(lang).gettext
    return {"data": g("data: %(args)s"), "result": g("⇒ result: %(value)s"), "no_result": g("⇒ (no result)"), "roll": g("roll")}


class _Types:
    """Type descriptors, and the enums, catalogs, records and rules they name (only those)."""

    def __init__(self, program: ir.Program, ctx: SiteContext) -> None:
        self.p = program
        self.ctx = ctx
        self.enums: dict[str, dict] = {}
        self.catalogs: dict[str, dict] = {}
        self.records: dict[str, list] = {}
        self.rules: list | None = None

    def label(self, name: str) -> str:
        text = self.ctx.read.name(name)
        return text[:1].upper() + text[1:]

    def desc(self, t: T, schema: dict | None = None) -> dict:
        k = t.kind
        schema = schema or {}
        if k == "opt":
            return {"k": "opt", "of": self.desc(t.args[0], schema)}
        if k == "int":
            out = {"k": "int"}
            for key, short in (("minimum", "min"), ("maximum", "max")):
                if isinstance(schema.get(key), int):
                    out[short] = schema[key]
            return out
        if k == "decimal":
            return {"k": "dec"}
        if k == "bool":
            return {"k": "bool"}
        if k in ("text", "id"):
            return {"k": "text"}
        if k == "enum" and t.name in self.p.enums:
            self._enum(t.name)
            return {"k": "enum", "of": t.name}
        if k in ("ref", "refs"):
            names = [c for c in (t.name or "").split("|") if c in self.p.catalogs or self._id_table(c) is not None]
            if names:
                for c in names:
                    self._catalog(c)
                return {"k": "ref", "of": names}
        if k == "rule":
            if self.rules is None:
                self.rules = [[r.name, r.title] for r in self.p.of(ir.Rule)]
            return {"k": "rule"}
        if k == "list":
            items = schema.get("items") if isinstance(schema.get("items"), dict) else None
            return {"k": "list", "of": self.desc(t.args[0], items)}
        if k == "record" and t.name in self.p.records:
            self._record(t.name)
            return {"k": "rec", "of": t.name}
        if k == "map" and t.name in self.p.enums:
            self._enum(t.name)
            return {"k": "map", "of": t.name, "v": self.desc(t.args[0])}
        return {"k": "json"}

    def _enum(self, name: str) -> None:
        if name not in self.enums:
            e = self.p.enums[name]
            self.enums[name] = {"o": bool(e.ordered), "m": [[m.name, m.title] for m in e.members]}

    def _id_table(self, name: str) -> ir.Table | None:
        t = self.p.get(name, ir.Table)
        return t if t is not None and t.keyed_by_id else None

    def _catalog(self, name: str) -> None:
        if name in self.catalogs:
            return
        table = self._id_table(name) if name not in self.p.catalogs else None
        if table is not None:  # a table keyed by ids: its rows' titles
            rows = [r for r in table.rows if r.keys and isinstance(r.keys[0], str)]
            self.catalogs[name] = {"t": table.title, "e": [[r.keys[0], r.title or r.keys[0]] for r in rows]}
            return
        c = self.p.catalogs[name]
        out: dict = {"t": c.title, "e": [[i, self.ctx.entry_title(name, i)] for i in c.entries]}
        if c.cost is not None:
            costs = {i: e.get(c.cost.field) for i, e in c.entries.items()}
            out["cost"] = {i: v for i, v in costs.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}
        self.catalogs[name] = out

    def _record(self, name: str) -> None:
        if name in self.records:
            return
        self.records[name] = []  # a record that contains itself (through a list) is described once
        fields = []
        for f in self.p.records[name].fields:
            fields.append([f.name, f.title or self.label(f.name), self.desc(f.type)])
        self.records[name] = fields


def _schema(out_dir: Path, name: str) -> dict:
    path = out_dir / "schemas" / "procedures" / f"{name}.input.schema.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _vectors(out_dir: Path) -> list[dict]:
    try:
        return json.loads((out_dir / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
    except (OSError, ValueError, KeyError):
        return []


def calculator_data(program: ir.Program, ctx: SiteContext, out_dir: Path, global_name: str, lang: i18n.Language) -> dict:
    """What ``assets/calc/data.js`` holds (see the module's docstring)."""
    types = _Types(program, ctx)
    examples: dict[str, list] = {}
    for v in _vectors(out_dir):
        examples.setdefault(v["procedure"], []).append(v)
    procs = {}
    for d in program.of(ir.Procedure):
        schema = _schema(out_dir, d.name)
        props = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
        params = []
        for prm in d.params:
            ps = props.get(prm.name) if isinstance(props.get(prm.name), dict) else {}
            entry = [prm.name, prm.title[:1].upper() + prm.title[1:] if prm.title else types.label(prm.name), types.desc(prm.type, ps)]
            if "default" in ps:
                entry.append(ps["default"])
            params.append(entry)
        mine = examples.get(d.name, [])
        worked = [[v["title"], v["input"]] for v in mine]
        first = next((i for i, v in enumerate(mine) if v.get("error") is None), 0 if mine else None)
        page = ctx.page_of.get(d.name)
        procs[d.name] = {
            "t": d.title, "ref": d.ref, "href": ctx.site_href(page, anchor(d.name)) if page else None,
            "p": params, "r": types.desc(d.result), "ex": worked, "first": first,
        }
    return {
        "global": global_name, "lang": lang.code, "dec": lang.decimal, "pct": lang.percent_suffix,
        "text": interface_text(), "trace": trace_text(lang.code),
        "enums": types.enums, "catalogs": types.catalogs, "records": types.records, "rules": types.rules or [],
        "procs": procs,
    }


_GLOBAL = re.compile(r'^globalThis\[("(?:[^"\\]|\\.)*")\] = ', re.M)


def _browser_script(out_dir: Path) -> tuple[str, str] | None:
    """The JavaScript package's ``browser.js`` (the pipeline writes ``js/`` before the pages) and the
    global it assigns; None when the build has no package."""
    path = out_dir / "js" / "browser.js"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    found = _GLOBAL.findall(text)
    return (text, json.loads(found[-1])) if found else None


def write_calculators(program: ir.Program, ctx: SiteContext, env: jinja2.Environment, out_dir: Path, docs: Path,
                      lang: i18n.Language) -> list[dict]:
    """Write the calculators page, its data and scripts; returns its navigation entry (none without procedures)."""
    procedures = list(program.of(ir.Procedure))
    script = _browser_script(out_dir)
    if not procedures or script is None:
        return []
    page = ctx.page_name(_(PAGE_FILE))
    ctx.start_page(page)
    (docs / FOLDER).mkdir(parents=True, exist_ok=True)
    (docs / RESOLVERS).write_text(script[0], encoding="utf-8")
    data = calculator_data(program, ctx, out_dir, script[1], lang)
    (docs / DATA).write_text(f"window.{DATA_GLOBAL} = {script_json(data)};\n", encoding="utf-8")
    for asset in ASSETS:
        shutil.copy2(SITE_DIR / "assets" / asset, docs / "assets" / asset)
    title = _(NAV_TITLE)
    sections = []
    for d in procedures:
        ident = anchor(d.name)
        labels = " ".join(p[1] for p in data["procs"][d.name]["p"])
        sections.append({
            "id": ident, "name": attr(d.name), "title": esc(d.title), "ref": html.escape(d.ref, quote=False) if d.ref else "",
            "rules_href": ctx.href(d.name), "search": attr(" ".join(f"{d.title} {d.ref or ''} {labels}".split())),
        })
        ctx.index(d.title, ctx.site_href(page, ident), title, WEIGHT, labels)
    text = env.get_template("calculadoras.md.j2").render(title=esc(title), sections=sections)
    (docs / page).write_text(text, encoding="utf-8")
    ctx.index(title, ctx.site_href(page), title, WEIGHT)
    return [{"title": title, "path": page}]
