"""Army lists → what each datasheet card says its unit may take.

Reads the program's army lists (:class:`rulebook.compiler.ir.Army`: each entry's options,
with their titles, costs and the rule they come from) over the site's context
(:class:`rulebook.compiler.emit.site.pages.context.SiteContext`: links to entries and
declarations). Produces the options block of one card (:func:`card_options`): the options
the army lists that field the entry allow it, the same ones the army builder offers and
``rulebook roster validate`` accepts, so that the card and the builder cannot disagree.
A rulebook without army lists keeps the card's options of its page (the upgrade catalog
its datasheet page names); a rulebook with army lists shows none on the card of an entry
no army fields.

The lists are read through a noted mapping (``fielded_options``, registered by
:func:`note_fielded` when the site's blocks are made, before any page is rendered), so that
``rulebook serve`` renders a card again when what its unit may take changes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from rulebook.compiler.emit.site.markdown import esc, number
from rulebook.compiler.support.i18n import _
from rulebook.compiler.support.memo import NotedMapping

if TYPE_CHECKING:
    from rulebook.compiler.emit.site.pages.context import SiteContext

NOTED = "fielded_options"  # the noted mapping's name in ctx.reads


def fielded(ctx: SiteContext) -> dict[tuple[str, str], tuple]:
    """(catalog, entry id) → the options the army lists that field it allow, in declaration order:
    ``((title, cost, max, rule title, rule id), ...)``, one per option (the first army's, then any
    other army's new ones); and ``("", "armies")`` → the number of army lists."""
    out: dict[tuple[str, str], list] = {}
    for army in ctx.p.armies.values():
        for e in army.entries:
            taken = out.setdefault((e.catalog, e.id), [])
            for key in e.options:
                o = army.options[key]
                item = (o.title, o.cost, o.max, o.rule.title, o.rule.id)
                if item not in taken:
                    taken.append(item)
    found: dict[tuple[str, str], tuple] = {k: tuple(v) for k, v in out.items()}
    found[("", "armies")] = (len(ctx.p.armies),)
    return found


def note_fielded(ctx: SiteContext):
    """The mapping of :func:`fielded`, noted in ``ctx.reads`` (worked out once per site context)."""
    data = ctx.reads.sources.get(NOTED)
    if data is None:
        return ctx.reads.noted(NOTED, fielded(ctx))
    return NotedMapping(data, functools.partial(ctx.reads.note, NOTED))


def card_options(ctx: SiteContext, catalog: str, ident: str, page_options: Callable[[], dict | None]) -> dict | None:
    """A card's options block (``{title, href, items, names}``, as ``macros.md.j2`` draws it): what the army
    lists let the entry take, or ``page_options()`` when the rulebook has no army list."""
    lists = note_fielded(ctx)
    if not lists[("", "armies")][0]:
        return page_options()
    taken = lists.get((catalog, ident))
    if not taken:
        return None
    rules = list(dict.fromkeys((title, rule) for _t, _c, _m, title, rule in taken))
    names = []
    for title, cost, most, _rt, _ri in taken:
        label = esc(title) if most == 1 else esc(_("%(option)s (up to %(max)s)") % {"option": title, "max": number(most)})
        names.append((label, number(cost)))
    return {
        "title": esc(rules[0][0]) if len(rules) == 1 else esc(_("Options")),
        "href": ctx.href(rules[0][1]) if len(rules) == 1 else None,
        "items": names,
        "names": names,
    }
