"""Checked program (:class:`rulebook.compiler.ir.Program`) → Markdown pages, a search index and mkdocs.yml.

Reads only the IR, the generated resolver package (already imported by the
driver; it evaluates the worked examples) and the odds tables the resolvers
computed (the ``"tables"`` of ``json/odds.json``, handed over in memory). Writes
``docs/`` (the pages, ``assets/search-index.js``) and ``mkdocs.yml`` under the
output folder through the Jinja2 templates of ``site/``.

The pages, for players first: the home page (one tap to the datasheets, the
special rules A–Z, the glossary and the quick reference), one page per section
(with each ``army`` list drawn where it is declared, ``army.md.j2``: budget, cost
formula, options, choices, limits, a link to its builder page),
datasheet pages (one card per catalog entry), an index of every datasheet that
filters in the browser, the special rules A–Z, a quick-reference sheet, the
calculators (one per procedure, on one page and under each procedure:
:mod:`rulebook.compiler.emit.site.pages.calculators`), and,
for designers, the front matter, the data for tools and the rules source of
every file (not in the navigation; finished HTML, marked by
:func:`rulebook.compiler.emit.site.markdown.verbatim` so that Python-Markdown never parses
it: :mod:`rulebook.compiler.emit.site.mkdocs_raw`). What only designers need — declaration
names, types, the rules source, test-style expectations — sits in ``.rb-tech``
blocks that the technical-details switch shows.

This module puts the pages together, in the order their links and the search index
need; each kind of page is a module of :mod:`rulebook.compiler.emit.site.pages`, over
the context every page shares (:class:`rulebook.compiler.emit.site.pages.context.SiteContext`:
the page map, and :meth:`~rulebook.compiler.emit.site.pages.context.SiteContext.url`, the
one function that knows which page holds what; every anchor is given by the page
builders, unique on its page).

Every phrase the pages, the theme overrides and ``rulebook.js`` show, the page
file names and the number notation are in the rulebook's ``lang``
(:mod:`rulebook.compiler.i18n`: ``_()`` here, ``_()``/``ngettext()`` in the templates,
``extra.rb`` in mkdocs.yml for the overrides).

Entry points: :func:`write_docs` (the pages; with a :class:`PageMemo`, as
``rulebook serve`` passes, a section or datasheet page whose inputs did not
change since the previous build is not rendered again), :func:`run_mkdocs` (the
HTML site, ``mkdocs build --strict``, then the shipped files pruned),
:func:`finish_site` and :func:`write_bundle_index` (the page linking several
rulebooks' sites).

Templates receive data only: every text from the rules is escaped by
:mod:`rulebook.compiler.emit.site.markdown` before it reaches a template, and no rules text is
ever used as template source.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from rulebook.compiler import ir
from rulebook.compiler.emit.site import to_army_page, to_changelog_page
from rulebook.compiler.emit.site.markdown import attr, esc, inlines
from rulebook.compiler.emit.site.pages import balance_page
from rulebook.compiler.emit.site.pages.army_lists import builder_pages
from rulebook.compiler.emit.site.pages.calculators import write_calculators
from rulebook.compiler.emit.site.pages.context import INDEX_PAGE, NAV, PAGE_NAME_LIMIT, WEIGHT_PAGE, SiteContext
from rulebook.compiler.emit.site.pages.data_page import write_data_page
from rulebook.compiler.emit.site.pages.datasheets import Cards, write_card_index, write_card_pages
from rulebook.compiler.emit.site.pages.glossary import write_glossary
from rulebook.compiler.emit.site.pages.listings import ListingsAhead, write_listings
from rulebook.compiler.emit.site.pages.memo import PageMemo
from rulebook.compiler.emit.site.pages.quick_reference import write_quick_reference
from rulebook.compiler.emit.site.pages.rules_a_to_z import write_rules_a_to_z
from rulebook.compiler.emit.site.pages.sections import SectionBlocks, render_sections, write_sections
from rulebook.compiler.emit.site.pages.site_build import finish_site, run_mkdocs, write_bundle_index, write_site_files
from rulebook.compiler.emit.site.pages.templates import CompiledTemplates, environment
from rulebook.compiler.emit.site.pages.values import Values, round_half_up
from rulebook.compiler.support import i18n
from rulebook.compiler.support.i18n import _

__all__ = [
    "CompiledTemplates", "ListingsAhead", "PAGE_NAME_LIMIT", "PageMemo", "environment", "finish_site",
    "round_half_up", "run_mkdocs", "write_bundle_index", "write_docs",
]


def write_docs(program: ir.Program, out_dir: Path, package: ModuleType | None, odds: dict,
               memo: PageMemo | None = None, ahead: ListingsAhead | None = None, balance_ahead=None) -> None:
    """Render docs/ (Markdown, the search index) and mkdocs.yml into ``out_dir``.

    ``package`` is the generated resolver package (it evaluates the worked
    examples; None shows them unevaluated), ``odds`` the ``"tables"`` of
    ``json/odds.json``. Reads ``out_dir/json`` and ``out_dir/schemas`` (already
    written) to publish them under ``docs/<data>/`` (``datos`` in Spanish); nothing written depends on
    where ``out_dir`` or the rulebook is (the data page's commands name them by
    placeholders). Every phrase is in the
    rulebook's ``lang`` (:mod:`rulebook.compiler.i18n`). ``memo``: the section pages of
    the previous build (:class:`PageMemo`), reused where nothing they read changed, and
    replaced by this build's. ``ahead``: the source listings' lines, worked out meanwhile
    (:class:`ListingsAhead`).
    """
    with i18n.using(i18n.of_rulebook(program)) as lang:
        _write_docs(program, out_dir, package, odds, lang, memo, ahead, balance_ahead)


def _write_docs(program: ir.Program, out_dir: Path, package: ModuleType | None, odds: dict, lang: i18n.Language,
                memo: PageMemo | None = None, ahead: ListingsAhead | None = None, balance_ahead=None) -> None:
    env = environment(lang)
    ctx = SiteContext(program, package, odds)
    values = Values(ctx, program)
    blocks = SectionBlocks(ctx, values, program, package)
    cards = Cards(ctx, values, program)
    docs = out_dir / "docs"
    for sub in ("includes", "assets"):
        (docs / sub).mkdir(parents=True, exist_ok=True)
    rb = program.rulebook
    title = rb.title if rb else _("Rulebook")
    common = ctx.common_key(program, lang) if memo is not None and memo.program is not None else None  # None: no memo
    corpus = None
    if common is not None and memo is not None:
        memo.lend(program, ctx.reads)
        corpus = ctx.read.recall(memo)
    kept: dict[str, tuple] = {}  # this build's pages for the memo

    # the manual, section by section: written once the army builder pages, which their army lists link to, are named
    manual = render_sections(program, ctx, blocks, memo, common)
    # datasheets and the cards of what they reference
    card_nav, remembered_cards = write_card_pages(ctx, cards, env, docs, memo, common, kept)
    # glossary: abbreviations appended to every page (tooltips), and the terms outside any section
    glossary, glossary_nav = write_glossary(program, ctx, blocks, env, docs, manual)
    # pages for the table: every datasheet, the special rules A–Z, the quick reference
    card_index = write_card_index(ctx, values, env, docs)
    rules = write_rules_a_to_z(ctx, values, env, docs)
    quick = write_quick_reference(ctx, values, env, docs, manual.sections)
    has_quick = bool(quick["groups"] or quick["odds"])

    # for designers: the data for tools, the army builder, the version history, the rules source of every file, the front matter
    write_data_page(program, ctx, env, out_dir, docs, package, title)
    army_pages = to_army_page.write_pages(ctx, out_dir, docs, env, WEIGHT_PAGE)  # the army builder, one page per army
    calculators = write_calculators(program, ctx, env, out_dir, docs, lang)  # a calculator per procedure, on one page
    write_sections(ctx, manual, env, docs, builder_pages(program, army_pages), kept)
    if memo is not None:
        memo.pages, memo.cards = kept, remembered_cards
        memo.corpus = corpus if common is not None else None  # the text of the kept pages' spellings
        memo.text = ctx.read._text()[0] if common is not None else None
        memo.spellings = ctx.read.known
    army_nav = army_pages + to_changelog_page.write_page(ctx, program, docs, env, WEIGHT_PAGE)  # the version history (@changelog)
    sources = write_listings(program, ctx, env, docs, memo, common, ahead)
    front = blocks.section_blocks([i for i in program.front if not isinstance(i, ir.Term)], ctx.pages["design"], _(NAV["design"]))
    computed = balance_ahead.answer() if balance_ahead is not None else None  # a worker's (rulebook build), else here
    balance = balance_page.balance_view(program, computed if computed is not None else balance_page.compute(program, package))
    (docs / ctx.pages["design"]).write_text(env.get_template("disenadores.md.j2").render(
        blocks=front, sources=sources, data_href=ctx.url(ctx.pages["data"]), title=esc(title), balance=balance), encoding="utf-8")

    # the home page: one tap to what players use at the table
    ctx.start_page(INDEX_PAGE)
    intro = []
    for item in program.front:
        if not isinstance(item, ir.Paragraph):
            break
        intro.append(inlines(item.inlines, ctx.target))
    (docs / INDEX_PAGE).write_text(env.get_template("index.md.j2").render(
        title=esc(title), version=attr(rb.version) if rb else "", intro=intro,
        sections=[dict(s, href=ctx.url(s["page"])) for s in manual.sections],
        datasheets=[{"title": attr(c["title"]), "href": ctx.url(c["path"]), "count": c["count"]} for c in card_nav],
        card_index={"href": ctx.url(ctx.pages["card_index"]), "count": len(card_index["rows"])} if card_index["rows"] else None,
        rules={"href": ctx.url(ctx.pages["rules"]), "count": sum(len(g["rules"]) for g in rules)} if rules else None,
        glossary={"href": ctx.url(glossary["page"]), "count": len(ctx.terms)} if glossary else None,
        quick=ctx.url(ctx.pages["quick"]) if has_quick else None,
        armies=[{"title": attr(a["title"]), "href": ctx.url(a["path"])} for a in army_pages],
        calculators={"href": ctx.url(calculators[0]["path"]), "count": len(program.of(ir.Procedure))} if calculators else None,
        design=ctx.url(ctx.pages["design"]), data=ctx.url(ctx.pages["data"])), encoding="utf-8")
    ctx.index(title, ctx.site_href(INDEX_PAGE), _(NAV["home"]), WEIGHT_PAGE)

    nav: list[dict] = [{"title": _(NAV["home"]), "path": INDEX_PAGE}]
    datasheets = ([{"title": _(NAV["card_index"]), "path": ctx.pages["card_index"]}] if card_index["rows"] else []) + card_nav
    nav += [{"title": _(NAV["cards"]), "children": datasheets}] if datasheets else []
    nav += [{"title": _(NAV["rules"]), "path": ctx.pages["rules"]}] if rules else []
    nav += [{"title": _(NAV["quick"]), "path": ctx.pages["quick"]}] if has_quick else []
    nav += calculators
    nav += army_nav
    nav += [{"title": _(NAV["manual"]), "children": manual.manual_nav}] if manual.manual_nav else []
    nav += manual.appendix_nav + glossary_nav
    nav.append({"title": _(NAV["design"]), "children": [{"title": _(NAV["design"]), "path": ctx.pages["design"]},
                                                        {"title": _(NAV["data"]), "path": ctx.pages["data"]}]})
    write_site_files(ctx, env, out_dir, docs, nav, title, rb, lang)
