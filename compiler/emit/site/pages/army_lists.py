"""Army lists (``army``) → their blocks on the section pages that declare them.

Reads an :class:`rulebook.compiler.ir.Army` and the site's page map
(:class:`rulebook.compiler.emit.site.pages.context.SiteContext`: links to entries, titles).
Produces the view-model ``army.md.j2`` draws (:class:`ArmyLists`: the points of each game
size, the cost formula's quality step, what each group of entries may take and choose, the
limits), the Markdown of that block once the army builder pages are named
(:func:`army_markdown`, :func:`builder_pages`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import attr, esc, link, number
from rulebook.compiler.emit.site.pages import unit_options
from rulebook.compiler.emit.site.pages.values import cost_at, round_half_up, signed_percent
from rulebook.compiler.support.i18n import _, ngettext

if TYPE_CHECKING:
    from rulebook.compiler.emit.site.pages.context import SiteContext


class ArmyLists:
    """The blocks of army lists, over the site's context."""

    def __init__(self, ctx: SiteContext) -> None:
        self.ctx = ctx
        unit_options.note_fielded(ctx)  # before any page is rendered: rulebook serve's memo checks what cards read of it

    def source(self, src: ir.ArmySource | None, army: ir.Army, linked: bool = True) -> str | None:
        """Where a list-building rule comes from: its manual reference, linked to the declaration when it has a
        block (and ``linked``); nothing for the army itself (its reference is by its title)."""
        if src is None or src.id == army.name:
            return None
        chip = f'<span class="rb-source" title="{attr(_("Reference in the manual"))}">{attr(src.source or src.title)}</span>'
        return link(chip, self.ctx.href(src.id) if linked else None, src.title)

    def budget(self, d: ir.Army) -> dict:
        """The points of each game size (one column per role), agreed points and their bonus, the sides."""
        roles = [(r.id, r.title) for r in d.roles] or [(None, _("Points"))]
        rows = []
        for s in d.sizes:
            pts = s.points
            rows.append([esc(s.title)] + [number(pts.get(r) if isinstance(pts, dict) else pts) for r, _t in roles])
        titles = {r.id: r.title for r in d.roles}
        bonus = []
        sample = max(1000, d.agreed_min)  # a round number of agreed points for the worked example
        for role, pct in d.bonus:
            bonus.append(_("%(role)s: %(percent)s on the agreed points, rounded half up (%(points)s agreed → %(total)s)") % {
                "role": esc(titles.get(role, role)), "percent": signed_percent(pct), "points": number(sample),
                "total": number(sample + round_half_up(Fraction(sample * pct, 100)))})
        return {
            "sides": [esc(s.title) for s in d.sides],
            "header": [esc(_("Game size"))] + [esc(t) for _r, t in roles],
            "rows": rows,
            "source": self.source(d.sizes_rule, d),
            "agreed": number(d.agreed_min) if d.agreed else None,
            "bonus": bonus,
        }

    def cost_formula(self, d: ir.Army) -> dict | None:
        """The cost formula's quality step: each quality's percentage, and a worked example of the rounding."""
        if not d.quality:
            return None
        example = None
        for e in d.entries:
            for q in d.quality:
                if example is None and (e.cost * (100 + q.percent)) % 100 == 50:
                    example = {"entry": esc(e.name), "base": number(e.cost), "title": esc(q.title), "pct": signed_percent(q.percent),
                               "exact": number(Fraction(e.cost * (100 + q.percent), 100)), "rounded": number(cost_at(e.cost, q.percent))}
        return {
            "quality": esc(d.quality_title or _("Quality")),
            "header": [esc(q.title) for q in d.quality],
            "row": [signed_percent(q.percent) for q in d.quality],
            "source": self.source(d.quality_rule, d),
            "example": example,
        }

    def option(self, d: ir.Army, o: ir.ArmyOption) -> str:
        """One option as players read it: its name (linked to its entry), points, maximum and what it changes."""
        catalog, dot, ident = o.key.partition(".")
        text = self.ctx.a(o.title, self.ctx.entry_href(catalog, ident) if dot else None)
        extra = [ngettext("%(num)d point", "%(num)d points", o.cost) % {"num": o.cost}] if o.cost else []
        if o.max != 1:
            extra.append(_("up to %(max)s times") % {"max": number(o.max)})
        troops = d.troop_catalog
        if o.remove:
            extra.append(_("removes %(troops)s") % {"troops": ", ".join(self.ctx.a(self.ctx.entry_title(troops, t), self.ctx.entry_href(troops, t)) for t in o.remove)})
        if o.add:
            extra.append(_("adds %(troops)s") % {"troops": ", ".join(self.ctx.a(self.ctx.entry_title(troops, t), self.ctx.entry_href(troops, t)) for t in o.add)})
        return f"{text} ({'; '.join(extra)})" if extra else text

    def units(self, d: ir.Army) -> list[dict]:
        """The entries the army fields, one group per catalog and side: what each part of it may take, its choices."""
        side_titles = {s.id: s.title for s in d.sides}
        groups: dict[tuple, list[ir.ArmyEntry]] = {}
        for e in d.entries:
            groups.setdefault((e.catalog, e.side), []).append(e)
        out = []
        for (catalog, side), entries in groups.items():
            by_options: dict[tuple, list[ir.ArmyEntry]] = {}
            for e in entries:
                by_options.setdefault(e.options, []).append(e)
            takes = []
            largest = max(by_options, key=lambda k: len(by_options[k]))
            for keys in [k for k in by_options if k != largest] + [largest]:
                members = by_options[keys]
                if not keys and len(by_options) == 1:
                    continue
                options = [d.options[k] for k in keys]
                sources = list(dict.fromkeys(o.rule for o in options))
                takes.append({
                    "who": None if len(by_options) == 1 else esc(_("The others")) if keys == largest
                    else ", ".join(self.ctx.a(e.name, self.ctx.entry_href(e.catalog, e.id)) for e in members),
                    "options": [self.option(d, o) for o in options],
                    "each_once": bool(options) and all(o.max == 1 for o in options) and len(options) > 1,
                    "sources": [s for s in (self.source(x, d) for x in sources) if s],
                })
            choices = []
            troops = d.troop_catalog
            for e in entries:
                lines = [
                    _("%(count)s × one of %(troops)s") % {"count": number(slot.count), "troops": " / ".join(
                        self.ctx.a(self.ctx.entry_title(troops, t), self.ctx.entry_href(troops, t)) for t in slot.alternatives)}
                    for slot in e.composition if len(slot.alternatives) > 1
                ]
                if lines:
                    choices.append({"entry": self.ctx.a(e.name, self.ctx.entry_href(e.catalog, e.id)), "lines": lines})
            models = [
                _("%(entry)s: %(min)s models included in its points, up to %(max)s; each extra model +%(cost)s") % {
                    "entry": self.ctx.a(e.name, self.ctx.entry_href(e.catalog, e.id)), "min": number(e.models_min), "max": number(e.models_max),
                    "cost": number(e.per_model)}
                for e in entries if e.models_min is not None and e.models_max is not None
            ]
            out.append({
                "title": self.ctx.a(self.ctx.title_of(catalog), self.ctx.href(catalog)),
                "side": esc(side_titles.get(side, side)) if side else None,
                "count": len(entries),
                "source": self.source(entries[0].rule, d, linked=False),  # the title links to it
                "takes": takes,
                "choices": choices,
                "models": models,
            })
        return out

    def limits(self, d: ir.Army) -> dict:
        """How many units in all, of each category (weighted) and of each entry; the entries that count as more than one."""
        categories = {c.id: c.title for c in d.categories}
        names = {e.id: e for e in d.entries}
        rows = []
        for x in d.limits:
            if x.kind == "category":
                what = esc(categories.get(x.target, x.target))
            elif x.kind == "entry" and x.target in names:
                e = names[x.target]
                what = self.ctx.a(e.name, self.ctx.entry_href(e.catalog, e.id))
            else:
                what = esc(_("Units in the army"))
            rows.append([what, number(x.min) if x.min is not None else "—", number(x.max) if x.max is not None else "—",
                         self.source(x.rule, d) or ""])
        weighted = [f"{self.ctx.a(e.name, self.ctx.entry_href(e.catalog, e.id))} ({number(e.weight)})" for e in d.entries if e.weight != 1]
        return {
            "header": [esc(_("Units")), esc(_("Minimum")), esc(_("Maximum")), esc(_("Source"))],
            "rows": rows,
            "weighted": weighted if any(x.kind == "category" for x in d.limits) else [],
        }

    def block(self, d: ir.Army, b: dict) -> dict:
        """An ``army`` on its section page: budget, cost formula, what each group of entries may take, limits,
        added to ``b``, what every declaration's block shows (:meth:`rulebook.compiler.emit.site.pages.sections.SectionBlocks.common`).

        ``builder_href`` is filled in by :func:`army_markdown` once the army builder pages are named."""
        b["name"] = d.name
        b["budget"] = self.budget(d)
        b["cost"] = self.cost_formula(d)
        b["units"] = self.units(d)
        b["limits"] = self.limits(d)
        return b


def builder_pages(program: ir.Program, army_pages: list[dict]) -> dict[str, str]:
    """Army name → its builder page: :func:`rulebook.compiler.emit.site.to_army_page.write_pages` writes one per
    army document, in the order of their file names (``<army>.json``)."""
    names = sorted(program.armies, key=lambda name: f"{name}.json")
    return {name: page["path"] for name, page in zip(names, army_pages)} if len(names) == len(army_pages) else {}


def army_markdown(env: jinja2.Environment, b: dict, builder_href: str | None) -> dict:
    """An army list's block rendered by ``army.md.j2`` (a template of its own: ``macros.md.j2`` draws the other kinds)."""
    return {"kind": "paragraph", "md": env.get_template("army.md.j2").render(b=dict(b, builder_href=builder_href)).strip("\n")}
