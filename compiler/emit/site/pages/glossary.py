"""Glossary terms → the abbreviations every page explains, and the glossary page of terms outside any section.

Reads the program's terms (through the site's context,
:class:`rulebook.compiler.emit.site.pages.context.SiteContext`) and the section pages.
Produces ``docs/includes/glosario.md`` (``glosario.md.j2``: each term as an abbreviation that
Python-Markdown appends to every page, a tooltip wherever the term is written), the glossary
page of the terms declared outside any section (``page.md.j2``, their blocks drawn by
:class:`rulebook.compiler.emit.site.pages.sections.SectionBlocks`), and where the home page
links for the glossary.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import abbr_term, abbr_text, esc
from rulebook.compiler.emit.site.pages.context import GLOSSARY_KIND, WEIGHT_PAGE, SiteContext, site_file
from rulebook.compiler.emit.site.pages.sections import Manual, SectionBlocks
from rulebook.compiler.support.i18n import _


def write_glossary(program: ir.Program, ctx: SiteContext, blocks: SectionBlocks, env: jinja2.Environment, docs: Path,
                   manual: Manual) -> tuple[dict | None, list[dict]]:
    """Write the abbreviations of every page and, when terms are declared outside any section, their
    page. Returns where the glossary is (the first section with terms, else that page; None: no
    glossary) and the navigation entries of that page."""
    terms = []
    for t in ctx.terms:
        term, definition = abbr_term(t.title), abbr_text(t.definition)
        if term is not None and definition:
            terms.append({"term": term, "definition": definition})
    (docs / "includes" / f"{site_file('glossary')}.md").write_text(env.get_template("glosario.md.j2").render(terms=terms), encoding="utf-8")
    glossary = next((s for s, sec in zip(manual.sections, program.sections) if any(isinstance(i, ir.Term) for i in sec.items)), None)
    if not ctx.front_terms:
        return glossary, []
    page = ctx.pages["glossary"]
    shown = blocks.section_blocks(ctx.front_terms, page, _(GLOSSARY_KIND))
    (docs / page).write_text(env.get_template("page.md.j2").render(section={"heading": esc(_(GLOSSARY_KIND))}, blocks=shown),
                             encoding="utf-8")
    ctx.index(_(GLOSSARY_KIND), ctx.site_href(page), _(GLOSSARY_KIND), WEIGHT_PAGE)
    return glossary or {"page": page}, [{"title": _(GLOSSARY_KIND), "path": page}]
