"""The rulebook's version history (a ``@changelog`` catalog) → the site's changelog page.

Reads a checked :class:`rulebook.compiler.ir.Program`: the catalog marked ``@changelog``
(:attr:`rulebook.compiler.ir.Catalog.changelog`), whose entries hold ``version``,
``date`` (optional) and ``changes``, newest first, as the rulebook lists them.
It also reads the versions the builds published (:attr:`rulebook.compiler.ir.RulebookInfo.releases`,
newest first: each with the previous version, the level of the change — major, minor,
patch — and the classified changes, as ``json/changelog.json`` holds them).
Writes ``docs/cambios.md`` through ``site/templates/cambios.md.j2``: the designer's
history (every word from the rulebook: the catalog's title and ``@doc``, the record's
field titles, the entries), then, once a build has published a change, each published
version with its changes (phrases from the message catalogs).

Entry point: :func:`write_page(pb, program, docs, env, weight) -> list[dict]` — the
navigation entry of the page (none without a ``@changelog`` catalog or a published change).
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import esc
from rulebook.compiler.support.i18n import N_, _

LEVELS = {"major": N_("major change"), "minor": N_("minor change"), "patch": N_("patch")}
"""How a level is named on the page."""

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
    published = _published(program)
    if catalog is None and not published:
        return []
    page = page_name()
    pb.start_page(page)
    versions = [
        {
            "version": esc(entry["version"]),
            "date": esc(entry["date"]) if entry.get("date") else None,
            "changes": [esc(change) for change in entry.get("changes") or []],
        }
        for entry in (catalog.entries.values() if catalog is not None else ())
    ]
    title = catalog.title if catalog is not None else _("Versions")
    text = env.get_template("cambios.md.j2").render(
        title=esc(title), doc=esc(catalog.doc) if catalog is not None and catalog.doc else None,
        versions=versions, published=published, published_title=esc(_("Published versions")),
    )
    (docs / page).write_text(text, encoding="utf-8")
    pb.index(title, pb.site_href(page), title, weight)
    return [{"title": title, "path": page}]


def _published(program: ir.Program) -> list[dict]:
    """The published versions with their classified changes, as the page shows them
    ([] until a build has published a change over a previous one)."""
    releases = program.rulebook.releases if program.rulebook else ()
    if not any(r.get("previous") for r in releases):
        return []
    out = []
    for r in releases:
        changes = []
        for c in r.get("changes", []):
            values = f"{c['old']} → {c['new']}" if c["kind"] == "changed" else (c["new"] if c["kind"] == "added" else c["old"]) or ""
            mark = {"added": "+", "removed": "−", "changed": "~"}[c["kind"]]
            where = f" ({c['where']})" if c.get("where") else ""
            changes.append({"level": esc(_(LEVELS[c["level"]])), "text": esc(f"{mark} {c['label']}" + (f": {values}" if values else "") + where)})
        out.append({
            "version": esc(r["version"]),
            "heading": esc(_("%(level)s since %(previous)s") % {"level": _(LEVELS[r["level"]]), "previous": r["previous"]}) if r.get("previous") and r.get("level") else None,
            "changes": changes,
            "omitted": esc(_("and %(count)d more changes (json/changelog.json)") % {"count": r["omitted"]}) if r.get("omitted") else None,
        })
    return out
