"""Checked program → the site's page map: which page holds what, links to it, the search index.

Reads a checked :class:`rulebook.compiler.ir.Program`, the generated package (only whether
there is one) and the odds tables the resolvers computed. Produces :class:`SiteContext`,
what every kind of page shares: the program's mappings, noted as a page reads them
(:class:`rulebook.compiler.emit.site.pages.memo.PageReads`); the page map (the file name of
every page, the page of every declaration, which catalogs get datasheet cards and on which
page); the one function that makes links (:meth:`SiteContext.url`: the final
``page.html#anchor``, Markdown never rewrites a link, so raw HTML and Markdown links are
the same); titles; the page being rendered and the anchors taken on it; the search index.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
from pathlib import Path
from types import ModuleType

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import anchor, attr, esc, link
from rulebook.compiler.emit.site.pages import references
from rulebook.compiler.emit.site.pages.memo import PROSE, PageReads
from rulebook.compiler.emit.site.pages.reading import NotedReadable
from rulebook.compiler.emit.site.pages.templates import SITE_DIR
from rulebook.compiler.ir.types import T
from rulebook.compiler.support import i18n
from rulebook.compiler.support.i18n import N_, _
from rulebook.compiler.support.memo import pickled

PAGE_NAME_LIMIT = 80  # characters of a page's file name before ".md" (file systems allow 255 bytes)
INDEX_PAGE = "index.md"
# the file names (without ".md") of the site's own pages, and the prefixes of datasheet and
# source pages: message ids, so that an English site has English addresses (rulebook.compiler.i18n)
PAGE_FILES = {
    "card_index": N_("datasheet-index"), "rules": N_("special-rules-a-z"), "quick": N_("quick-reference"),
    "design": N_("for-designers"), "data": N_("data-for-tools"),
    "glossary": N_("glossary"),  # the glossary terms declared outside any section (a file without `section`)
    "army": N_("army-builder"),  # an army's builder page (army-builder-<army> when a rulebook declares several)
}
PAGE_PREFIXES = {"cards": N_("datasheets"), "source": N_("source")}
PRINT_SUFFIX = N_("print")  # a datasheet index's page of all its cards, to print: <index>-print
# the other file and folder names a site writes, as message ids too: an English site has no Spanish
# address (the Spanish names are the ones the Spanish sites always had, so their URLs do not move)
SITE_FILES = {
    "changes": N_("changes"),  # the version history page
    "data": N_("data"),  # the folder of the published JSON and schemas
    "glossary": N_("glossary"),  # the abbreviations appended to every page (includes/), and the glossary's JSON
}


def site_file(key: str) -> str:
    """The file or folder name (no extension) ``key`` of :data:`SITE_FILES` in the current language."""
    return slug(_(SITE_FILES[key]))
NAV = {
    "home": N_("Home"), "cards": N_("Datasheets"), "card_index": N_("Datasheet index"), "rules": N_("Special rules A–Z"),
    "quick": N_("Quick reference"), "manual": N_("Manual"), "design": N_("For designers"), "data": N_("Data for tools"),
    "source": N_("Source code"),
}
# search weights: what a player looks for first (a datasheet before a rule or term of the same name)
WEIGHT_DATASHEET, WEIGHT_ENTITY, WEIGHT_PAGE, WEIGHT_HEADING, WEIGHT_DECL = 3.2, 3, 2.5, 1.5, 1
GLOSSARY_KIND = N_("Glossary")
SNIPPET = 600  # characters of text kept per search entry beyond its title


def slug(text: str, limit: int = PAGE_NAME_LIMIT) -> str:
    """ASCII, lower-case, hyphen-separated, at most ``limit`` characters (page file names)."""
    plain_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain_text).strip("-")[:limit].rstrip("-") or "x"


class SiteContext:
    """What every page shares: the program's noted mappings, the page map, links, titles,
    the page being rendered and the search index."""

    def __init__(self, program: ir.Program, package: ModuleType | None, odds: dict):
        # what a page reads of the program goes through mappings that note each read in ``self.reads``
        # while a page is rendered (``rulebook serve``'s page memo: see memo.PageMemo)
        self.reads = reads = PageReads()
        self.p = dataclasses.replace(program, decls=reads.noted("decls", program.decls))
        reads.sources["armies"] = program.armies  # a section page's own army lists (see memo.own)
        self.package = package
        self.odds = reads.noted("odds", odds)  # json/odds.json "tables", computed by the resolvers
        self.read = NotedReadable(program, reads)
        self.read.p = self.p
        self.records = reads.noted("records", program.records)
        self.catalogs = reads.noted("catalogs", program.catalogs)
        self.enums = reads.noted("enums", program.enums)
        self.member_titles = reads.noted("member_titles", {e.name: {m.name: m.title for m in e.members} for e in program.enums.values()})
        self.read.member_titles = self.member_titles
        reads.answers.update({
            "spelling": self.read.spelling, "word": self.read.word, "value": self.read.value,
            "entry_title": lambda key: self.read.entry_title(*key), "title": self._title_of, "kind": self.kind_of,
            "ref_catalog": lambda key: self._ref_catalog(*key),
        })
        # the page map
        self.pages = {key: slug(_(name)) + ".md" for key, name in PAGE_FILES.items()}
        self.taken = {INDEX_PAGE} | {page for key, page in self.pages.items() if key != "glossary"}
        # terms outside every section get a glossary page of their own (players find them there)
        self.front_terms = [item for item in program.front if isinstance(item, ir.Term)]
        if self.front_terms:
            self.taken.add(self.pages["glossary"])
        self.section_pages = [self.page_name(sec.slug) for sec in program.sections]
        self.source_pages = {f: self.page_name(f"{_(PAGE_PREFIXES['source'])}-{Path(f).stem}") for f in program.files}
        # each section's items, with the army lists declared in it put back in place (they are not section items in the IR)
        self.section_items = with_armies(program)
        self.page_of: dict[str, str] = {}
        for items, page in zip(self.section_items, self.section_pages):
            for item in items:
                if isinstance(item, ir.Decl):
                    self.page_of[item.name] = page
        for item in program.front:
            if isinstance(item, ir.Decl):
                self.page_of[item.name] = self.pages["glossary"] if isinstance(item, ir.Term) else self.pages["design"]
        self.ordered = [item for items in [program.front] + [sec.items for sec in program.sections] for item in items if isinstance(item, ir.Decl)]
        self.terms: list[ir.Term] = [d for d in self.ordered if isinstance(d, ir.Term)]
        self._plan_cards()
        # the page being rendered, and the search index
        self.current_page = ""
        self.page_ids: set[str] = set()
        self.page_prose: list[str] = []
        self.search: list[list] = []
        # who refers to what (reverse links), and what short labels mean
        rule_users, entry_users, same_id = references.reverse_links(self.ordered, self.fields, self.ref_catalog)
        self.abbreviations = references.abbreviations(self.terms, program)
        self.rule_users = reads.noted("rule_users", rule_users)
        self.entry_users = reads.noted("entry_users", entry_users)
        self.same_id = reads.noted("same_id", same_id)

    # ------------------------------------------------------------------ the page map
    def page_name(self, base: str) -> str:
        """A new page's file name: a bounded slug of ``base``, made unique among the pages."""
        stem = slug(base)
        name, i = f"{stem}.md", 2
        while name in self.taken:
            name, i = f"{stem}-{i}.md", i + 1
        self.taken.add(name)
        return name

    def _plan_cards(self) -> None:
        """Which catalogs get cards, on which pages; the page of each card.

        * ``@datasheet "Título"`` catalogs: one page per title (in rulebook order),
          one heading per catalog, one card per entry;
        * catalogs that those entries reference (``ref``): a page of cards each,
          so that a datasheet's weapon links to a card that links back;
        * the options of a datasheet page: a catalog without cards whose entries
          have the page's cost field and grant a special rule, declared in the same
          file before the page's first catalog (the nearest such), is listed on
          each of the page's cards with its costs;
        * each card on a page of its own; the catalogs' page is their index
          (name, type, cost, link), each row at the card's old anchor; a
          datasheet page's cards are also all on one page, to print.
        """
        groups: dict[str, list[str]] = {}
        for d in self.ordered:
            if isinstance(d, ir.Catalog) and d.datasheet is not None:
                groups.setdefault(d.datasheet, []).append(d.name)
        self.card_page: dict[str, str] = {}
        self.datasheet_pages: list[dict] = []
        for title, cats in groups.items():
            page = self.page_name(f"{_(PAGE_PREFIXES['cards'])}-{title}")
            self.datasheet_pages.append({"title": title, "page": page, "catalogs": cats, "options": self._options_of(cats)})
            for c in cats:
                self.card_page[c] = page
        self.datasheet_catalogs = set(self.card_page)
        self.reference_pages: list[dict] = []
        for page in list(self.datasheet_pages):
            for c in page["catalogs"]:
                for target in self._referenced_catalogs(T("record", self.catalogs[c].record)):
                    if target not in self.card_page and target in self.catalogs:
                        p = self.page_name(f"{_(PAGE_PREFIXES['cards'])}-{self.title_of(target)}")
                        self.card_page[target] = p
                        self.reference_pages.append({"title": self.title_of(target), "page": p, "catalogs": [target], "options": None})
        # one page per entry (one unit per screen, a URL per unit): ``<its index page>-<its title>``;
        # and all of an index's cards on one page, to print (``<its index page>-print``)
        for page in self.datasheet_pages + self.reference_pages:  # (the cards of what datasheets reference are printed on them)
            page["print"] = self.page_name(f"{page['page'].removesuffix('.md')}-{_(PRINT_SUFFIX)}") if page in self.datasheet_pages else None
        self.unit_page: dict[tuple[str, str], str] = {}
        for page in self.datasheet_pages + self.reference_pages:
            page["units"] = []
            for c in page["catalogs"]:
                for ident in self.catalogs[c].entries:
                    unit = self.page_name(f"{page['page'].removesuffix('.md')}-{self.read.entry_title(c, ident)}")
                    self.unit_page[(c, ident)] = unit
                    page["units"].append((c, ident, unit))

    def _options_of(self, catalogs: list[str]) -> str | None:
        first = self.catalogs[catalogs[0]]
        cost = first.cost
        if cost is None:
            return None
        found = None
        for d in self.ordered:
            if d is first:
                return found
            if isinstance(d, ir.Catalog) and d.datasheet is None and d.file == first.file:
                fields = {f.name: f.type.inner.kind for f in self.fields(d.record)}
                if fields.get(cost.field) == "int" and "rule" in fields.values():
                    found = d.name
        return found

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

    def common_key(self, program: ir.Program, lang: i18n.Language) -> bytes | None:
        """What every section page reads beside its own items, as the key of ``rulebook serve``'s page
        memo (:class:`rulebook.compiler.emit.site.pages.memo.PageMemo`): the page map, where each
        declaration and army list sits, the abbreviations, the uses between declarations, the army
        lists, the templates, the language; None when it does not pickle."""
        sections = [(s.name, s.title, s.file, s.slug, s.status, s.doc,
                     [(type(it).__name__, getattr(it, "name", None)) for it in items if not isinstance(it, PROSE)])
                    for s, items in zip(program.sections, self.section_items)]
        templates = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in (SITE_DIR / "templates").glob("*"))
        card_pages = [(pg["title"], pg["page"], pg["catalogs"], pg["options"], pg["units"], pg["print"])
                      for pg in self.datasheet_pages + self.reference_pages]
        data = pickled((
            sorted((k, sorted(v)) for k, v in program.uses.items()), list(program.armies), [i for i in program.front if not isinstance(i, PROSE)],
            sections, program.files, self.page_of, self.section_pages, self.card_page, self.abbreviations, self.source_pages, sorted(self.taken),
            card_pages, sorted(self.datasheet_catalogs), self.package is None, lang.code, templates,
        ))
        return None if data is None else hashlib.sha256(data).digest()

    # ------------------------------------------------------------------ the program, as pages read it
    def fields(self, record: str) -> tuple[ir.RecordField, ...]:
        rec = self.records.get(record)
        return rec.fields if rec is not None else ()

    def title_field(self, record: str) -> str | None:
        """The field that names an entry: the record's first ``text`` field."""
        return next((f.name for f in self.fields(record) if f.type.kind == "text"), None)

    def ref_catalog(self, t: T, ident: str) -> str | None:
        """The catalog (of those ``t`` names) that has entry ``ident``."""
        return self.reads.query("ref_catalog", (t.name, ident), lambda: self._ref_catalog(t.name, ident))

    def _ref_catalog(self, names: str | None, ident: str) -> str | None:
        for c in (names or "").split("|"):
            if c in self.catalogs and ident in self.catalogs[c].entries:
                return c
        return None

    def entry_title(self, catalog: str, ident: str) -> str:
        return self.read.entry_title(catalog, ident)

    def title_of(self, name: str) -> str:
        return self.reads.query("title", name, lambda: self._title_of(name))

    def _title_of(self, name: str) -> str:
        d = self.p.decls.get(name)
        return d.title if d is not None else name

    def kind_of(self, name: str) -> str | None:
        """The kind of declaration ``name`` (its class's name), None when there is none."""
        return self.reads.query("kind", name, lambda: type(self.p.decls[name]).__name__ if name in self.p.decls else None)

    # ------------------------------------------------------------------ links
    def url(self, page: str | None, frag: str | None = None) -> str | None:
        """The href of ``page`` (a ``.md`` name of the page map) at anchor ``frag``, from the current page."""
        if page is None:
            return None
        if frag and page == self.current_page:
            return f"#{frag}"
        return page.removesuffix(".md") + ".html" + (f"#{frag}" if frag else "")

    def href(self, name: str, entry: str | None = None) -> str | None:
        frag = anchor(name) if entry is None else f"{anchor(name)}--{anchor(entry, part=True)}"
        return self.url(self.page_of.get(name), frag)

    def entry_href(self, catalog: str, ident: str) -> str | None:
        """A catalog entry: its card (on the card's own page) if it has one, else its row in the manual's table."""
        if (catalog, ident) in self.unit_page:
            return self.url(self.unit_page[(catalog, ident)])
        return self.href(catalog, ident)

    def entry_group_href(self, catalog: str) -> str | None:
        """A catalog's entries: its cards' heading when it has cards, else its table in the manual."""
        if catalog in self.card_page:
            return self.url(self.card_page[catalog], anchor(catalog))
        return self.href(catalog)

    def source_link(self, span) -> tuple[str, str | None]:
        """(``file:line`` as HTML, href of that line on the file's source page)."""
        page = self.source_pages.get(span.file)
        return attr(f"{span.src}"), self.url(page, f"L{span.line}") if page and span.line > 0 else None

    def target(self, name: str) -> tuple[str | None, str]:
        """A ``[[name]]`` or ``[[catalog#id]]`` of the prose: (href, title)."""
        decl, _, entry = name.partition("#")
        if entry and decl in self.catalogs:
            return self.entry_href(decl, entry), self.entry_title(decl, entry)
        return self.href(decl), self.title_of(decl)

    def a(self, text: str, href: str | None, title: str | None = None) -> str:
        """``text`` (plain) escaped as Markdown, linked to ``href``."""
        return link(esc(text), href, title)

    def site_href(self, page: str | None, frag: str | None = None) -> str | None:
        """An href from the site's root (the search index), whatever the current page."""
        return None if page is None else page.removesuffix(".md") + ".html" + (f"#{frag}" if frag else "")

    # ------------------------------------------------------------------ the page being rendered
    def start_page(self, page: str, anchors: list[str] = ()) -> None:
        """Render into ``page`` from now on; ``anchors`` are taken on it already."""
        self.current_page = page
        self.page_ids = set(anchors)
        self.page_prose = []

    def claim_id(self, base: str) -> str:
        """A new id on the current page, ``base`` or ``base-2``…"""
        ident, i = base, 2
        while ident in self.page_ids:
            ident, i = f"{base}-{i}", i + 1
        self.page_ids.add(ident)
        return ident

    def index(self, title: str, href: str | None, kind: str, weight: float, text: str = "") -> None:
        """One entry of the search index (``href`` relative to the site's root)."""
        if href and title.strip():
            self.search.append([" ".join(title.split()), href, kind, weight, " ".join(text.split())[:SNIPPET]])


def card_anchor(catalog: str, ident: str) -> str:
    """The id of an entry's card (on its own page) and of its row on its catalogs' index page."""
    return f"{anchor(catalog)}--{anchor(ident, part=True)}"


def with_armies(program: ir.Program) -> list[list[ir.Item]]:
    """Each section's items with the army lists put back where the rules declare them: after the last
    item above them in the same file (first in the file's first section when nothing is above;
    an army in a file without sections is on no section page)."""
    out = [list(sec.items) for sec in program.sections]
    placed = {it.name for items in out for it in items if isinstance(it, ir.Army)}  # already a section item: left where it is
    for army in sorted(program.armies.values(), key=lambda a: (a.span.file, a.span.line, a.span.col)):
        if army.name in placed:
            continue
        here = (army.span.line, army.span.col)
        where = None
        for i, items in enumerate(out):
            for j, it in enumerate(items):
                span = getattr(it, "span", None)
                if span is not None and span.file == army.span.file and (span.line, span.col) < here:
                    where = (i, j + 1)
        if where is None:
            first = next((i for i, sec in enumerate(program.sections) if sec.file == army.span.file), None)
            if first is None:
                continue
            where = (first, 0)
        out[where[0]].insert(where[1], army)
    return out
