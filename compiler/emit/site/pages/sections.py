"""The manual's sections → their pages: one block per heading, paragraph, list, note and declaration.

Reads each section's items (with its army lists put back in place:
:func:`rulebook.compiler.emit.site.pages.context.with_armies`), the site's page map
(:class:`rulebook.compiler.emit.site.pages.context.SiteContext`), the generated package (it
evaluates the worked examples; without it they are shown unevaluated) and, in ``rulebook serve``,
the previous build's pages (:class:`rulebook.compiler.emit.site.pages.memo.PageMemo`).
Produces the view-model of each block ``page.md.j2`` draws (:class:`SectionBlocks`: what every
declaration shows — heading, reference, badge, doc, technical details — and what each kind adds:
a table's rows, a catalog's table, a rule's text and who applies it, a procedure's steps and worked
examples, an odds table, a term's definition), with unique anchors, headings that never skip a
level and the page's entries in the search index; and the section pages themselves
(:func:`render_sections`, then :func:`write_sections` once the army builder pages are named),
each kept from the previous build when nothing it reads changed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.ir import walk
from rulebook.compiler.analysis.evaluations import evaluated
from rulebook.compiler.emit.site.markdown import anchor, attr, esc, exact_probability, highlight, inlines, link, number, plain
from rulebook.compiler.emit.site.pages import memo as page_memo
from rulebook.compiler.emit.site.pages.army_lists import ArmyLists, army_markdown
from rulebook.compiler.emit.site.pages.context import (
    GLOSSARY_KIND, SNIPPET, WEIGHT_DECL, WEIGHT_ENTITY, WEIGHT_HEADING, WEIGHT_PAGE, SiteContext,
)
from rulebook.compiler.emit.site.pages.values import Values, badge, is_number, shows_probabilities
from rulebook.compiler.emit.site.readable import fold, quoted
from rulebook.compiler.support.i18n import N_, _

# declaration class → (block kind in the templates, what the page calls it: a message id, see rulebook.compiler.i18n)
BLOCK_KINDS: dict[type, tuple[str, str]] = {
    ir.Table: ("table", N_("Table")), ir.Catalog: ("catalog", N_("Catalog")), ir.Enum: ("enum", N_("Enumeration")),
    ir.Record: ("record", N_("Record")), ir.Rule: ("rule", N_("Special rule")), ir.Procedure: ("procedure", N_("Procedure")),
    ir.Die: ("die", N_("Die")), ir.Bag: ("bag", N_("Bag")), ir.Term: ("term", N_("Term")), ir.Odds: ("odds", N_("Probabilities")),
    ir.Const: ("const", N_("Constant")), ir.Army: ("army", N_("Army list")),
}


def heading_id(text: str) -> str:
    """The anchor of a prose heading, as Python-Markdown's ``toc`` would make it (``4. Distancias`` → ``4-distancias``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()) or "h"


def section_heading(sec: ir.Section) -> str:
    """``VI. Iniciativa y disparos``; a section named like its title (an appendix) shows the title once."""
    return sec.title if sec.name == sec.title else f"{sec.name}. {sec.title}"


# a name written as code in a text of the content: ``dados_distancia``, ``ModoFuego``
IDENTIFIER_IN_PROSE = re.compile(r"(?<!\w)(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z]?[a-z]+(?:[A-Z][a-z0-9]+)+)(?!\w)")


def spoken_names(program: ir.Program) -> dict[str, str]:
    """Each name of the rulebook that a text may write as code → what players read instead: a
    declaration's title in quotes; an enumeration value's, a catalog entry's or a record field's
    title (when the name has one meaning)."""
    said: dict[str, set[str]] = {}
    for e in program.enums.values():
        for m in e.members:
            said.setdefault(m.name, set()).add(m.title)
    for d in program.decls.values():
        if isinstance(d, ir.Record):
            for f in d.fields:
                if f.title:
                    said.setdefault(f.name, set()).add(f.title)
        elif isinstance(d, ir.Catalog):
            record = program.get(d.record, ir.Record)
            field = next((f.name for f in record.fields if f.type.kind == "text"), None) if record else None
            for ident, entry in d.entries.items():
                title = entry.get(field) if field else None
                if isinstance(title, str) and title.strip():
                    said.setdefault(ident, set()).add(title)
    spoken = {name: next(iter(titles)) for name, titles in sorted(said.items()) if len(titles) == 1}
    spoken.update({d.name: quoted(d.title) for d in program.decls.values() if d.has_title})
    return spoken


# how a step says what it consults (message ids; ``links``: the declarations, linked)
CONSULTS = {"table": N_("Looks up %(links)s."), "roll": N_("Rolls %(links)s."), "draw": N_("Draws from %(links)s."),
            "procedure": N_("Resolved with %(links)s.")}
# a step label's own number: ``4.``, ``2–3.``, ``5)``
OWN_NUMBER = re.compile(r"^\s*(\d+)(?:\s*[–—-]\s*(\d+))?\s*[.)]\s+(?=\S)")


def conjuncts(e: ir.Expr) -> list[ir.Expr]:
    """``a and b and c`` → a, b, c (each checked on its own)."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def step_numbers(labels: list[str]) -> list[tuple[str | None, str]]:
    """Each step's badge and its label without the number it starts with: the label's own
    number (``2–3``), else one more than the step before; no badge (the list counts) when no
    label has a number of its own."""
    own = [OWN_NUMBER.match(label) for label in labels]
    if not any(own):
        return [(None, label) for label in labels]
    out, last = [], 0
    for label, m in zip(labels, own):
        if m is None:
            last += 1
            out.append((str(last), label))
        else:
            last = int(m.group(2) or m.group(1))
            out.append((m.group(1) + ("–" + m.group(2) if m.group(2) else ""), label[m.end():]))
    return out


def _sentences(text: str) -> list[str]:
    """A text cut after each ``.``, ``:``, ``!`` or ``?`` that a space follows."""
    return [s for s in re.split(r"(?<=[.:!?])\s+", text.strip()) if s]


def _sentence_key(sentence: str) -> str:
    """A sentence compared with the page's prose: spacing, case and final punctuation aside."""
    return " ".join(sentence.split()).casefold().rstrip(".:!? ")


def _header_source(source: str) -> str:
    """The head of a declaration's source: its lines up to the opening ``{`` (a procedure's signature),
    without its ``@doc`` (the page shows it above, and the source page links from here)."""
    source = "".join(line for line in source.splitlines(keepends=True) if not line.lstrip().startswith("@doc"))
    cut = -1
    for _line in range(9):  # only the first eight lines are read: split no more (a catalog's source is long)
        cut = source.find("\n", cut + 1)
        if cut < 0:
            break
    lines = (source if cut < 0 else source[:cut + 1]).splitlines()
    for i, line in enumerate(lines[:8]):
        if line.rstrip().endswith("{"):
            return "\n".join(lines[:i] + [line.rstrip()[:-1].rstrip()])
    return lines[0] if lines else ""


class SectionBlocks:
    """The blocks of the manual's pages (escaped strings and lists), over the site's context."""

    def __init__(self, ctx: SiteContext, values: Values, program: ir.Program, package: ModuleType | None) -> None:
        self.ctx, self.values, self.package = ctx, values, package
        self.armies = ArmyLists(ctx)
        examples_of: dict[str, list[tuple[int, ir.Example]]] = {}
        for index, ex in enumerate(program.examples):
            examples_of.setdefault(ex.procedure, []).append((index, ex))
        self.examples_of = ctx.reads.noted("examples_of", examples_of)
        ctx.reads.answers["example"] = lambda index: self.example(index, ctx.p.examples[index]) if index < len(ctx.p.examples) else page_memo.UNKNOWN
        # indexes over the whole program that pages look up by key (so that a page reads only the keys it asks for)
        param_procedures: dict[str, list[str]] = {}  # a name → the procedures with a parameter of that name
        titled: dict[str, list[str]] = {}  # a title (spacing and case aside) → the declarations but terms with that title
        for d in ctx.ordered:
            if isinstance(d, ir.Procedure):
                for param in dict.fromkeys(p.name for p in d.params):
                    param_procedures.setdefault(param, []).append(d.name)
            if not isinstance(d, ir.Term) and d.has_title:
                titled.setdefault(" ".join(d.title.split()).casefold(), []).append(d.name)
        self.param_procedures = ctx.reads.noted("param_procedures", param_procedures)
        self.titled = ctx.reads.noted("titled", titled)
        self.spoken = ctx.reads.noted("spoken", spoken_names(program))
        # the words of a formula that say nothing beside a step's label ("result", "if", "otherwise")
        self.filler_words = {
            w for phrase in (_("result: %(value)s"), _("if %(condition)s:"), _("otherwise, if %(condition)s:"), _("otherwise: %(line)s"))
            for w in re.findall(r"\w+", fold(re.sub(r"%\(\w+\)s", " ", phrase)))
        }
        self._said: tuple[list[str], int, set[str]] = ([], 0, set())

    def common(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        """What every declaration block shows: heading, reference, badge, doc; and its technical details."""
        kind, kind_title = BLOCK_KINDS[type(d)]
        kind_title = _(kind_title)
        where, source_href = self.ctx.source_link(d.span)
        doc = self.unsaid(self.prose(d.doc, d)) if d.doc and not d.doc_is_prose else None
        return {
            "kind": kind,
            "kind_title": kind_title,
            "anchor": anchor(d.name) + anchor_suffix,
            "title": esc(d.title),
            "level": 4,
            "ref": attr(d.ref),
            "badge": badge(d.status),
            "doc": esc(doc) if doc else None,
            "original": None,
            "cards_href": None,
            "users": None,
            "procedures": [],
            "also": [],
            "related": [],
            "columns_title": None,
            "tech": {"kind_title": kind_title, "name": attr(d.name), "where": where, "source_href": source_href,
                     "head": highlight(_header_source(d.source_text)) if isinstance(d, ir.Procedure) else None,
                     "code": "\n<span></span>".join(attr(line) for line in _header_source(d.source_text).splitlines())
                     if not isinstance(d, ir.Procedure) else None},
        }

    def prose(self, text: str, d: ir.Declaration | None = None) -> str:
        """A text of the content (a note, a step) with the names it writes as code said in words:
        a parameter of procedure ``d`` by its name (``dados_distancia`` → ``dados distancia``), a
        declaration by its title in quotes, an entry, value or field by its title, any other
        identifier spelt out."""
        params = {prm.name for prm in d.params} if isinstance(d, ir.Procedure) else set()
        titles = {prm.name: prm.title for prm in d.params if prm.title} if isinstance(d, ir.Procedure) else {}

        def said(m: re.Match) -> str:
            name = m.group(0)
            if name in titles:
                return titles[name]
            if name not in params and name in self.spoken:
                return self.spoken[name]
            return self.ctx.read.name(name)

        def accented(m: re.Match) -> str:  # a one-word parameter written without its accents (``tamano``)
            name = m.group(0)
            if name not in params:
                return name
            if name in titles and fold(titles[name]) == name:  # its title, when the title is that word accented
                return titles[name]
            spelt = self.ctx.read.name(name)
            return spelt if fold(spelt) == name and spelt.lower() != name else name

        text = IDENTIFIER_IN_PROSE.sub(said, text)
        return re.sub(r"(?<!\w)[a-z]{2,}(?!\w)", accented, text) if params else text

    def unsaid(self, text: str) -> str | None:
        """``text`` without the sentences that the page's prose already says (a doc that repeats the paragraph above)."""
        prose, counted, said = self._said
        if prose is not self.ctx.page_prose or counted > len(prose):  # another page, or its prose set anew
            prose, counted, said = self.ctx.page_prose, 0, set()
        said.update(_sentence_key(s) for p in prose[counted:] for s in _sentences(p))
        self._said = (prose, len(prose), said)
        kept = [s for s in _sentences(text) if _sentence_key(s) not in said]
        self.ctx.page_prose.append(text)  # in the set at the next call
        return " ".join(kept) or None

    def block(self, item: ir.Item) -> dict | None:
        if isinstance(item, ir.Army):
            return self.armies.block(item, self.common(item))
        if isinstance(item, ir.Heading):
            text = plain(item.inlines, self.ctx.target)
            return {"kind": "heading", "level": item.level, "md": inlines(item.inlines, self.ctx.target), "id": self.ctx.claim_id(heading_id(text)), "text": text}
        if isinstance(item, ir.Paragraph):
            return {"kind": "paragraph", "md": inlines(item.inlines, self.ctx.target)}
        if isinstance(item, ir.ListBlock):
            return {"kind": "list", "ordered": item.ordered, "start": item.start, "items": [inlines(i, self.ctx.target) for i in item.items]}
        if isinstance(item, ir.Note):
            return {"kind": "note", "md": inlines(item.inlines, self.ctx.target)}
        if isinstance(item, ir.Separator):
            return {"kind": "separator"}
        if isinstance(item, ir.Show):
            d = self.ctx.p.decls.get(item.name)
            if d is None:
                return None
            b = self.decl(d, anchor_suffix=self.show_suffix())
            b["original"] = self.ctx.href(item.name)
            return b
        if getattr(item, "internal", False):  # @internal: a typing-only record or enum
            return None
        return self.decl(item)

    def show_suffix(self) -> str:
        return "--" + anchor(self.ctx.current_page.removesuffix(".md"))

    def decl(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        b = self.common(d, anchor_suffix)
        if isinstance(d, ir.Table):
            self.table_block(d, b)
        elif isinstance(d, ir.Catalog):
            self.catalog_block(d, b, anchor_suffix)
        elif isinstance(d, ir.Enum):
            b["values"] = [esc(m.title) for m in d.members]
            b["tech"]["rows"] = [[f"<code>{attr(m.name)}</code>", esc(m.title)] for m in d.members]
        elif isinstance(d, ir.Record):
            b["tech"]["rows"] = [[f"<code>{attr(f.name)}</code>", f"<code>{attr(str(f.type))}</code>", esc(f.title or "")] for f in d.fields]
        elif isinstance(d, ir.Rule):
            b["signature"] = esc(d.title + (f"({', '.join(p.name for p in d.params)})" if d.params else ""))
            b["texts"] = [esc(t) for t in d.texts]
            b["levels"] = [(lvl, esc(t)) for lvl, t in d.levels]
            b["grants"] = [self.ctx.a(self.values.rule_label(g.rule, [v for _p, v in g.args]), self.ctx.href(g.rule)) for g in d.grants]
            b["stacking"] = esc(d.stacking) if d.stacking else None
            if not anchor_suffix:
                self.rule_extras(d, b)
        elif isinstance(d, ir.Die):
            if d.face_enum is not None:
                b["faces"] = [esc(self.ctx.member_titles.get(d.face_enum, {}).get(f, f)) for f in d.faces]
            else:
                b["faces"] = [number(f) if f <= 0 else f"+{f}" for f in d.faces]
        elif isinstance(d, ir.Bag):
            b["tokens"] = [(esc(self.token_title(kind)), count) for kind, count in d.tokens]
            b["total"] = sum(count for _kind, count in d.tokens)
        elif isinstance(d, ir.Procedure):
            self.procedure_block(d, b)
        elif isinstance(d, ir.Term):
            self.term_block(d, b)
        elif isinstance(d, ir.Odds):
            self.odds_block(d, b)
        elif isinstance(d, ir.Const):
            b["value"] = self.values.cell(d.value, d.type)
        return b

    def token_title(self, kind: str) -> str:
        """A bag's kind of token: an enum value's title, or its name in the rulebook's words."""
        title = self.ctx.read.value(kind)
        return self.ctx.read.label(kind) if title == kind else title

    def table_block(self, d: ir.Table, b: dict) -> None:
        header = [esc(k.title or k.name) for k in d.keys]
        value_types = [c.type for c in d.columns]
        if d.across is not None:
            header += [self.values.cell(a, d.across.type) for a in d.across_values]
            value_types = [d.columns[0].type] * len(d.across_values)
        else:
            header += [esc(c.title or c.name) for c in d.columns]
        rows = []
        for row in d.rows:
            cells = []
            for key, k in zip(d.keys, row.keys):
                if isinstance(k, ir.Range):
                    cells.append(esc(self.values.range_text(k)))
                elif row.title:
                    cells.append(esc(row.title))
                else:
                    cells.append(self.values.cell(k, key.type))
            if d.across is not None:
                cells += [self.values.cell(v, d.columns[0].type) for v in row.across]
            else:
                cells += [self.values.cell(row.values[c.name], c.type) for c in d.columns]
            rows.append(cells)
        b["header"] = header
        b["rows"] = rows
        b["align"] = [("---:" if (k.type.inner.kind in ("int", "decimal") or k.ranged) else "---") for k in d.keys]
        b["align"] += ["---:" if t.inner.kind in ("int", "decimal") else "---" for t in value_types]

    def catalog_block(self, d: ir.Catalog, b: dict, suffix: str) -> None:
        """The manual's table of a catalog: the entry's title (linked to its card) first, no ids."""
        by = {f.name: f for f in self.ctx.fields(d.record)}
        cols = [c for c in (d.columns or list(by)) if c in by]
        title_field = self.ctx.title_field(d.record)
        if title_field in cols:
            cols.remove(title_field)
        first_title = esc(self.values.label(by[title_field])) if title_field else "Id"
        b["header"] = [first_title] + [esc(self.values.label(by[c])) for c in cols]
        b["align"] = ["---"] + ["---:" if by[c].type.inner.kind in ("int", "decimal") else "---" for c in cols]
        rows = []
        card = d.name in self.ctx.card_page
        for ident, rec in d.entries.items():
            aid = f"{anchor(d.name)}--{anchor(ident, part=True)}{suffix}"
            name = esc(self.ctx.entry_title(d.name, ident)) if title_field else f"<code>{attr(ident)}</code>"
            first = link(name, self.ctx.entry_href(d.name, ident)) if card else name
            rows.append([f'<span id="{attr(aid)}"></span>{first}'] + [self.values.cell(rec.get(c), by[c].type) for c in cols])
        b["rows"] = rows
        b["cards_href"] = self.ctx.entry_group_href(d.name) if card else None

    def rule_extras(self, d: ir.Rule, b: dict) -> None:
        """Reverse links of a special rule: entries that apply it, procedures, related data."""
        name = d.name
        b["users"] = self.values.users_of(self.ctx.rule_users.get(name, []), rule=True)
        listed = {c for c, _i, _u in self.ctx.rule_users.get(name, [])}
        procs, also = [], []
        for u in sorted(self.ctx.p.uses.get(name, ())):
            kind = self.ctx.kind_of(u)
            if kind == ir.Procedure.__name__:
                procs.append(self.ctx.a(self.ctx.title_of(u), self.ctx.href(u)))
            elif kind in (ir.Table.__name__, ir.Catalog.__name__) and u not in listed:
                also.append(self.ctx.a(self.ctx.title_of(u), self.ctx.href(u)))
        for proc in self.param_procedures.get(name, ()):
            if proc not in self.ctx.p.uses.get(name, ()):
                procs.append(self.ctx.a(self.ctx.title_of(proc), self.ctx.href(proc)))
        b["procedures"] = procs
        b["also"] = also
        b["related"] = [
            self.ctx.a(f"{self.ctx.title_of(c)}: {self.ctx.entry_title(c, i)}", self.ctx.entry_href(c, i))
            for c, i in self.ctx.same_id.get(name, [])
        ]

    def odds_block(self, d: ir.Odds, b: dict) -> None:
        """A table of exact probabilities computed by the resolvers."""
        t = self.ctx.odds.get(d.name)
        b["procedure"] = self.ctx.a(self.ctx.title_of(d.procedure), self.ctx.href(d.procedure))
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
                "links": [self.ctx.a(self.ctx.entry_title(catalog, g), self.ctx.entry_href(catalog, g)) for g in groups["values"]],
            }
            b["errors"] = []
            return
        b["header"], b["rows"] = self.values.odds_grid(t, t.get("cells", []), shows_probabilities(d))
        b["errors"] = [esc(e) for e in t.get("errors", [])]

    def term_block(self, d: ir.Term, b: dict) -> None:
        b["definition"] = esc(d.definition)
        key = " ".join(d.title.split()).casefold()
        b["see"] = [
            self.ctx.a(f"{_(BLOCK_KINDS[type(o)][1])} {quoted(o.title)}", self.ctx.href(o.name))
            for o in (self.ctx.p.decls[name] for name in self.titled.get(key, ()))
            if self.ctx.href(o.name)
        ]

    def procedure_block(self, d: ir.Procedure, b: dict) -> None:
        """What a player reads of a procedure: its inputs by name, its steps in the content's words
        (numbered once: a label's own number, ``2–3.``, is its badge) with the tables and procedures
        each consults as links; the formulas of each step are technical details. Worked examples
        follow as inputs → results."""
        steps = []
        loose: list[ir.Stmt] = []
        numbers = step_numbers([st.label for st in d.body if isinstance(st, ir.Step)])
        for st in d.body:
            if isinstance(st, ir.Step):
                number, label = numbers[len(steps)]
                said = set(re.findall(r"\w+", fold(st.label))) | self.filler_words  # a formula that only says the label is left out
                formulas = [line for s in st.body for line in self.ctx.read.statement(s) if not set(re.findall(r"\w+", fold(line))) <= said]
                steps.append({"number": attr(number) if number else None, "label": esc(self.prose(label, d)),
                              "uses": self.consulted(st.body, d.name), "formulas": [attr(line) for line in formulas]})
            else:
                loose.append(st)
        b["inputs"] = [self.input_label(prm) for prm in d.params]
        b["steps"] = steps
        b["uses"] = self.consulted(tuple(loose), d.name)
        b["tech"]["formulas"] = [attr(line) for s in loose for line in self.ctx.read.statement(s)]
        b["tech"]["result"] = attr(str(d.result))
        b["calc"] = attr(d.name)  # its calculator (pages/calculators.py), drawn in place by rulebook.js on demand
        b["examples"] = [self.ctx.reads.query("example", index, lambda: self.example(index, ex)) for index, ex in self.examples_of.get(d.name, [])]

    def input_label(self, prm: ir.Param) -> str:
        """A parameter as players name it (its title, or its name spelt out: ``base_roll`` → «Base roll»), linked to the
        catalog or table it picks from."""
        text = prm.title or self.ctx.read.name(prm.name)
        text = text[:1].upper() + text[1:]
        t = prm.type.inner
        source = (t.name or "").split("|")[0] if t.kind in ("ref", "refs", "row") else ""
        href = self.ctx.href(source) if source else None
        if href:
            return f"{esc(text)} ({self.ctx.a(quoted(self.ctx.title_of(source)), href)})"
        return esc(text)

    def consulted(self, stmts: tuple[ir.Stmt, ...], own: str) -> list[str]:
        """Lines of links to what statements consult: tables and catalogs; the dice and bags they
        roll and draw; the procedures they follow (``own`` aside)."""
        lines = []
        for kind, names in consulted_names(stmts, own).items():
            links = [self.ctx.a(quoted(self.ctx.title_of(n)), self.ctx.href(n)) for n in names]
            if links:
                lines.append(_(CONSULTS[kind]) % {"links": ", ".join(links)})
        return lines

    def example(self, index: int, ex: ir.Example) -> dict:
        """A worked example (``index`` in ``program.examples``) as a sentence: its inputs → what results,
        evaluated by the generated resolvers when they are at hand; the test-style checks are technical."""
        proc = self.ctx.p.decls.get(ex.procedure)
        titles = {prm.name: prm.title for prm in proc.params if prm.title} if isinstance(proc, ir.Procedure) else {}
        inputs = ", ".join(f"{titles.get(param) or self.ctx.read.name(param)}: {self.ctx.read.expr(value)}" for param, value, _text in ex.given)
        where, source_href = self.ctx.source_link(ex.span)
        out = {"title": esc(self.prose(ex.title, self.ctx.p.decls.get(ex.procedure))), "inputs": esc(inputs), "results": [], "error": None, "stops": False,
               "tech": {"given": [(attr(param), attr(text)) for param, _value, text in ex.given], "where": where,
                        "source_href": source_href, "expects": [], "failed": []}}
        if self.package is None:
            out["results"] = [esc(self.expect_text(x, None)) for x in ex.expects if x.expr is not None]
            out["tech"]["expects"] = [attr(x.text if x.expr is not None else "error") for x in ex.expects]
            return out
        ev, actuals = evaluated(self.package, index)  # resolved once per package (rulebook.compiler.analysis.evaluations)
        if ev.error is not None:
            out["error"] = esc(ev.error.message)
            out["stops"] = ev.expected_error is not None and ev.expected_error in ev.error.message
            out["tech"]["expects"] = [attr(f"error {ev.expected_error!r}")] if ev.expected_error is not None else []
            if not out["stops"]:
                out["tech"]["failed"] = [attr(str(ev.error))]
            return out
        out["tech"]["expects"] = [attr(check.text) for check in ev.checks if check.ok]
        out["tech"]["failed"] = [attr(f"{check.text}: {check.detail}") for check in ev.checks if not check.ok]
        out["results"] = [esc(self.expect_text(x, a)) for x, a in zip([x for x in ex.expects if x.expr is not None], actuals)]
        return out

    def expect_text(self, x: ir.Expect, actual: Any) -> str:
        """``probability(result.hit) == 1/3`` → ``hit: probability 1/3 (33.3%)`` (in the rulebook's language); other checks as formulas."""
        e = x.expr
        if isinstance(e, ir.Binary) and e.op == "==" and isinstance(e.left, ir.BuiltinCall) and e.left.name == "probability":
            what = self.ctx.read.expr(e.left.args[0])
            if isinstance(actual, Fraction) or is_number(actual):
                p = exact_probability(Fraction(actual))
            else:
                p = self.ctx.read.expr(e.right)
            return _("%(what)s: probability %(p)s") % {"what": what, "p": p}
        text = "; ".join(self.fact(part) for part in conjuncts(e))
        return text[:1].upper() + text[1:]

    def fact(self, e: ir.Expr) -> str:
        """One checked fact: a yes/no value as ``Impacto = sí`` / ``Impacto = no`` (never a bare
        ``Resultado``), anything else as its formula."""
        negated = isinstance(e, ir.Unary) and e.op == "not"
        inner = e.operand if negated else e
        if isinstance(inner, (ir.Local, ir.FieldAccess)) and inner.type.inner.kind == "bool":
            return f"{self.ctx.read.expr(inner)} = {self.ctx.read.value(not negated)}"
        return self.ctx.read.expr(e)

    def section_blocks(self, items: list[ir.Item], page: str, context: str = "", base_level: int = 2) -> list[dict]:
        """The blocks of one page, with headings that never skip a level and unique anchors;
        records the page's entries in the search index."""
        anchors = []
        suffix = "--" + anchor(page.removesuffix(".md"))
        for it in items:
            if isinstance(it, ir.Decl):
                anchors.append(anchor(it.name))
                if isinstance(it, ir.Catalog):
                    anchors += [f"{anchor(it.name)}--{anchor(i, part=True)}" for i in it.entries]
            elif isinstance(it, ir.Show) and it.name in self.ctx.p.decls:
                anchors.append(anchor(it.name) + suffix)
        self.ctx.start_page(page, anchors)
        self.ctx.page_prose = [plain(it.inlines) for it in items if isinstance(it, ir.Paragraph)]
        levels = sorted({it.level for it in items if isinstance(it, ir.Heading)})
        rank = {lvl: base_level + i for i, lvl in enumerate(levels)}
        last = base_level - 1
        blocks = []
        entry: list | None = None
        for it in items:
            b = self.block(it)
            if b is None:
                continue
            if b["kind"] == "heading":
                b["level"] = min(rank[it.level], last + 1, 6)
                last = b["level"]
                entry = [" ".join(b["text"].split()), self.ctx.site_href(page, b["id"]), context, WEIGHT_HEADING, ""]
                self.ctx.search.append(entry)
            elif b["kind"] in ("paragraph", "list", "note"):
                if entry is not None:
                    text = " ".join([plain(it.inlines, self.ctx.target)] if not isinstance(it, ir.ListBlock) else [plain(i, self.ctx.target) for i in it.items])
                    entry[4] = " ".join((entry[4] + " " + text).split())[:SNIPPET]
            elif b["kind"] != "separator":
                b["level"] = min(last + 1, 6)
                if not isinstance(it, ir.Show):
                    self.index_decl(it, page)
            blocks.append(b)
        return blocks

    def index_decl(self, d: ir.Declaration, page: str) -> None:
        if isinstance(d, ir.Record):
            return
        href = self.ctx.site_href(page, anchor(d.name))
        kind = _(BLOCK_KINDS[type(d)][1])
        if isinstance(d, ir.Rule):
            self.ctx.index(d.title, href, kind, WEIGHT_ENTITY, " ".join(d.texts))
        elif isinstance(d, ir.Term):
            self.ctx.index(d.title, href, _(GLOSSARY_KIND), WEIGHT_ENTITY, d.definition)
        else:
            self.ctx.index(d.title, href, kind, WEIGHT_DECL, self.prose(d.doc, d) if d.doc else "")


def consulted_names(stmts: tuple[ir.Stmt, ...], own: str) -> dict[str, dict[str, None]]:
    """The names statements consult, by kind (table, roll, draw, procedure), in order of first use; ``own`` aside."""
    found: dict[str, dict[str, None]] = {"table": {}, "roll": {}, "draw": {}, "procedure": {}}
    for top in walk.expressions(stmts):
        for e in walk.walk(top):
            if isinstance(e, ir.TableLookup):
                found["table"][e.table] = None
            elif isinstance(e, ir.CatalogLookup):
                found["table"][e.catalog] = None
            elif isinstance(e, ir.Roll) and e.die:
                found["roll"][e.die] = None
            elif isinstance(e, ir.Draw):
                found["draw"][e.bag] = None
            elif isinstance(e, ir.ProcedureCall) and e.procedure != own:
                found["procedure"][e.procedure] = None
    return found


@dataclass
class SectionPage:
    """One section page: rendered (its blocks; its Markdown waits for the names of the army builder
    pages its army lists link to) or kept from the previous build (its Markdown, ``text``)."""

    page: str
    heading: str
    blocks: list[dict] | None
    notes: dict  # the section's badge and doc
    key: bytes | None  # its key in the page memo (None: no memo)
    deps: dict[tuple, bytes | None] | None  # what it read
    entries: list[list]  # its entries of the search index
    text: str | None


@dataclass
class Manual:
    """The section pages, and how the navigation and the home page list them."""

    pages: list[SectionPage]
    sections: list[dict]  # {heading, heading_html, appendix, page}, in rulebook order
    manual_nav: list[dict]
    appendix_nav: list[dict]


def render_sections(program: ir.Program, ctx: SiteContext, blocks: SectionBlocks, memo: page_memo.PageMemo | None,
                    common: bytes | None) -> Manual:
    """The blocks of every section page (or the previous build's page, when nothing it reads changed),
    with their entries in the search index; ``common``: what every page reads (:meth:`SiteContext.common_key`)."""
    manual = Manual([], [], [], [])
    for sec, items, page in zip(program.sections, ctx.section_items, ctx.section_pages):
        heading = section_heading(sec)
        ctx.index(sec.title, ctx.site_href(page), _("Section"), WEIGHT_PAGE)
        notes = {"badge": badge(sec.status), "doc": esc(sec.doc) if sec.doc else None}
        key = page_memo.page_key(common, page, heading, [page_memo.by_name(program, it) for it in items], notes)
        old = memo.kept(ctx.reads, page, key) if memo is not None else None
        if old is not None:  # nothing it reads changed: its Markdown as it was
            _key, deps, entries, text = old
            ctx.search.extend(list(entry) for entry in entries)
            manual.pages.append(SectionPage(page, heading, None, notes, key, deps, entries, text))
        else:
            before = len(ctx.search)
            ctx.reads.deps = page_memo.own(program, items) if key is not None else None
            shown = blocks.section_blocks(items, page, heading)
            deps, ctx.reads.deps = ctx.reads.deps, None
            manual.pages.append(SectionPage(page, heading, shown, notes, key, deps, [list(entry) for entry in ctx.search[before:]], None))
        (manual.appendix_nav if sec.name == sec.title else manual.manual_nav).append({"title": heading, "path": page})
        manual.sections.append({"heading": esc(heading), "heading_html": attr(heading), "appendix": sec.name == sec.title, "page": page})
    return manual


def write_sections(ctx: SiteContext, manual: Manual, env: jinja2.Environment, docs: Path, builders: dict[str, str],
                   kept: dict[str, tuple]) -> None:
    """Write each section page into ``docs`` (its army lists linking to their builder pages, ``builders``);
    note in ``kept`` the pages the memo keeps for the next build."""
    for section in manual.pages:
        text = section.text
        if text is None:
            ctx.start_page(section.page)
            shown = [army_markdown(env, b, ctx.url(builders.get(b["name"]))) if b["kind"] == "army" else b for b in section.blocks]
            text = env.get_template("page.md.j2").render(section={"heading": esc(section.heading), **section.notes}, blocks=shown)
        (docs / section.page).write_text(text, encoding="utf-8")
        if section.key is not None:
            kept[section.page] = (section.key, ctx.reads.digests_of(section.deps), section.entries, text)
