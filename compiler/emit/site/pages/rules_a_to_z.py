"""Special rules → the page of every special rule A–Z.

Reads the program's special rules (through the site's context,
:class:`rulebook.compiler.emit.site.pages.context.SiteContext`: their pages, and which datasheet
entries apply each). Produces ``docs/<special-rules-a-z>.md`` (``reglas.md.j2``): the rules sorted
by title without accents or case, grouped by initial, each linked to its block with the first
sentence of its text and how many datasheets apply it.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import attr, esc
from rulebook.compiler.emit.site.pages.context import NAV, WEIGHT_PAGE, SiteContext
from rulebook.compiler.emit.site.pages.values import Values, badge
from rulebook.compiler.emit.site.readable import fold
from rulebook.compiler.support.i18n import _


def rules_a_to_z(ctx: SiteContext, values: Values) -> list[dict]:
    """Every special rule, sorted by title without accents or case, grouped by initial."""
    letters: dict[str, list[dict]] = {}
    for d in sorted(ctx.p.of(ir.Rule), key=lambda r: (fold(r.title), r.name)):
        users = ctx.rule_users.get(d.name, [])
        initial = (fold(d.title)[:1] or "#").upper()
        letters.setdefault(initial if initial.isalpha() else "#", []).append({
            "link": ctx.a(d.title + (f"({', '.join(p.name for p in d.params)})" if d.params else ""), ctx.href(d.name)),
            "summary": esc(values.rule_summary(d.name) or ""),
            "ref": attr(d.ref),
            "badge": badge(d.status),
            "count": len({(c, i) for c, i, _u in users if c in ctx.datasheet_catalogs}),
        })
    out = []
    for letter, items in letters.items():
        ident = ctx.claim_id(f"letra-{letter.lower() if letter.isalpha() else 'otros'}")
        out.append({"letter": letter, "id": ident, "href": ctx.url(ctx.pages["rules"], ident), "rules": items})
    return out


def write_rules_a_to_z(ctx: SiteContext, values: Values, env: jinja2.Environment, docs: Path) -> list[dict]:
    """Write the page of every special rule (when there is any); returns its letters (none: no page)."""
    page = ctx.pages["rules"]
    ctx.start_page(page)
    letters = rules_a_to_z(ctx, values)
    if letters:
        (docs / page).write_text(env.get_template("reglas.md.j2").render(letters=letters), encoding="utf-8")
        ctx.index(_(NAV["rules"]), ctx.site_href(page), _(NAV["rules"]), WEIGHT_PAGE)
    return letters
