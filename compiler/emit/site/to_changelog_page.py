"""The rulebook's version history (a ``@changelog`` catalog) → the site's changelog page.

Reads a checked :class:`rulebook.compiler.ir.Program`: the catalog marked ``@changelog``
(:attr:`rulebook.compiler.ir.Catalog.changelog`), whose entries hold ``version``,
``date`` (optional) and ``changes``, newest first, as the rulebook lists them.
Writes ``docs/cambios.md`` through ``site/templates/cambios.md.j2``. Every word
on the page comes from the rulebook (the catalog's title and ``@doc``, the
record's field titles, the entries), so the page is in the rulebook's language
without phrases of its own.

Entry point: :func:`write_page(pb, program, docs, env, weight) -> list[dict]` — the
navigation entry of the page (none without a ``@changelog`` catalog).
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import esc

def page_name() -> str:
    """The changelog page's file name in the current language (``cambios.md``, ``changes.md``)."""
    from rulebook.compiler.emit.site.pages.context import site_file

    return site_file("changes") + ".md"


def changelog(program: ir.Program) -> ir.Catalog | None:
    """The catalog holding the version history, if the rulebook declares one."""
    return next((c for c in program.of(ir.Catalog) if c.changelog), None)


def write_page(pb, program: ir.Program, docs: Path, env: jinja2.Environment, weight: float) -> list[dict]:
    """Write the changelog page; ``pb`` is the site's :class:`rulebook.compiler.emit.site.pages.context.SiteContext`
    (its search index gets the page with ``weight``). Returns the navigation entries."""
    catalog = changelog(program)
    if catalog is None:
        return []
    page = page_name()
    pb.start_page(page)
    versions = [
        {
            "version": esc(entry["version"]),
            "date": esc(entry["date"]) if entry.get("date") else None,
            "changes": [esc(change) for change in entry.get("changes") or []],
        }
        for entry in catalog.entries.values()
    ]
    text = env.get_template("cambios.md.j2").render(
        title=esc(catalog.title), doc=esc(catalog.doc) if catalog.doc else None,
        versions=versions,
    )
    (docs / page).write_text(text, encoding="utf-8")
    pb.index(catalog.title, pb.site_href(page), catalog.title, weight)
    return [{"title": catalog.title, "path": page}]
