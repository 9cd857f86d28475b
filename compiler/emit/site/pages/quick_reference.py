"""The rulebook's highlighted formulas, looked-up numbers and odds tables → the quick-reference page.

Reads the sections' prose (its ``> notes`` and the headings above them), the constants and
tables marked ``@quick_reference`` and the odds tables the resolvers computed, through the
site's context (:class:`rulebook.compiler.emit.site.pages.context.SiteContext`). Produces
``docs/<quick-reference>.md`` (``referencia.md.j2``): one group per section with its notes, each
after its heading unless it names itself, its marked constants (title and value) and tables
(as printed), then every odds table that is not grouped by entry.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import esc, inlines, plain
from rulebook.compiler.emit.site.pages.context import NAV, WEIGHT_PAGE, SiteContext
from rulebook.compiler.emit.site.pages.values import Values, badge, shows_probabilities
from rulebook.compiler.support.i18n import _


def quick_reference(ctx: SiteContext, values: Values, sections: list[dict]) -> dict:
    """The rulebook's highlighted formulas (its ``> notes``), each after its heading unless it names
    itself (``> **Aviación:** …``), the constants and tables marked ``@quick_reference``, and its
    odds tables."""
    groups = []
    for sec, page_info in zip(ctx.p.sections, sections):
        heading, lines = None, []
        numbers: list[dict] = []
        tables: list[dict] = []
        for item in sec.items:
            if isinstance(item, ir.Heading):
                heading = plain(item.inlines, ctx.target)
            elif isinstance(item, ir.Note):
                labelled = bool(item.inlines) and isinstance(item.inlines[0], ir.Strong) and item.inlines[0].text.rstrip().endswith(":")
                lines.append((esc(heading) if heading and not labelled else None, inlines(item.inlines, ctx.target)))
            elif isinstance(item, ir.Const) and item.quick_reference:
                numbers.append({"title": ctx.a(item.title, ctx.href(item.name)), "value": values.cell(item.value, item.type), "badge": _badge_html(item.status)})
            elif isinstance(item, ir.Table) and item.quick_reference:
                header, rows, align = values.table_grid(item)
                tables.append({"title": ctx.a(item.title, ctx.href(item.name)), "header": header, "rows": rows, "align": align, "badge": _badge_html(item.status)})
        if lines or numbers or tables:
            merged: list[dict] = []
            for h, note in lines:
                if merged and h is not None and merged[-1]["heading"] == h:
                    merged[-1]["notes"].append(note)
                else:
                    merged.append({"heading": h, "notes": [note]})
            groups.append({"title": page_info["heading"], "href": ctx.url(page_info["page"]), "items": merged,
                           "numbers": numbers, "tables": tables})
    odds = []
    for d in ctx.ordered:
        if isinstance(d, ir.Odds) and d.each is None and d.name in ctx.odds:
            header, rows = values.odds_grid(ctx.odds[d.name], ctx.odds[d.name].get("cells", []), shows_probabilities(d))
            if rows:
                odds.append({"title": ctx.a(d.title, ctx.href(d.name)), "header": header, "rows": rows})
    return {"groups": groups, "odds": odds}


def _badge_html(status: str) -> str:
    """The status badge after a title (deferred, not playable), or nothing."""
    shown = badge(status)
    return f' <span class="rb-badge {shown["cls"]}">{esc(shown["text"])}</span>' if shown else ""


def write_quick_reference(ctx: SiteContext, values: Values, env: jinja2.Environment, docs: Path, sections: list[dict]) -> dict:
    """Write the quick-reference page (when there is anything to put on it); returns its view
    (its ``groups`` and ``odds``: neither, no page). ``sections``: the section pages (their heading and page)."""
    page = ctx.pages["quick"]
    ctx.start_page(page)
    quick = quick_reference(ctx, values, sections)
    if quick["groups"] or quick["odds"]:
        (docs / page).write_text(env.get_template("referencia.md.j2").render(**quick), encoding="utf-8")
        ctx.index(_(NAV["quick"]), ctx.site_href(page), _(NAV["quick"]), WEIGHT_PAGE)
    return quick
