"""Datasheet catalogs → their card pages, and the index of every datasheet.

Reads the site's page map (:class:`rulebook.compiler.emit.site.pages.context.SiteContext`: which
catalogs get cards, on which pages, planned from ``@datasheet``), the catalogs' entries, the odds
tables grouped by entry, the army lists' quality costs and, in ``rulebook serve``, the previous
build's card pages and cards (:class:`rulebook.compiler.emit.site.pages.memo.PageMemo`). Produces
one page per card (``datasheet.md.j2``: facts, a line of stats, lists of records, the cost at each
level, options, odds, who references it), one index page per datasheet title and per catalog those
datasheets reference (``datasheets.md.j2``: a row per card at the card's permanent anchor, and how
costs are worked out), a datasheet title's cards all on one page to print (``datasheets_print.md.j2``),
each kept from the previous build when nothing it reads changed (:class:`Cards`,
:func:`write_card_pages`); and the index of every datasheet that filters in the browser
(``fichas.md.j2``, :func:`write_card_index`).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import anchor, attr, esc, link, number
from rulebook.compiler.emit.site.pages import memo as page_memo, unit_options
from rulebook.compiler.emit.site.pages.context import NAV, WEIGHT_DATASHEET, WEIGHT_PAGE, SiteContext, card_anchor
from rulebook.compiler.emit.site.pages.values import Values, badge, cost_at, shows_probabilities, signed_percent
from rulebook.compiler.emit.site.readable import fold
from rulebook.compiler.support.i18n import _
from rulebook.compiler.support.memo import pickled


class Cards:
    """The cards of the datasheet pages, over the site's context."""

    def __init__(self, ctx: SiteContext, values: Values, program: ir.Program) -> None:
        self.ctx, self.values = ctx, values
        self.remembered: tuple[dict, dict, bytes] | None = None  # while a card page is rendered with a memo: see remembered_card
        grouped_odds: dict[str, list[ir.Odds]] = {}  # catalog → the odds tables with ``each x in`` it
        for d in ctx.ordered:
            if isinstance(d, ir.Odds) and d.each is not None:
                grouped_odds.setdefault(d.each.of, []).append(d)
        self.grouped_odds = ctx.reads.noted("grouped_odds", grouped_odds)
        # catalog entry → (the first army with a quality that fields it, its army entry): its card's cost at each quality
        army_quality_costs: dict[tuple[str, str], tuple[ir.Army, ir.ArmyEntry]] = {}
        for army in program.armies.values():
            for e in army.entries if army.quality else ():
                army_quality_costs.setdefault((e.catalog, e.id), (army, e))
        self.army_quality_costs = ctx.reads.noted("army_quality_costs", army_quality_costs)

    def card_catalog(self, catalog: str, level: int, options: str | None) -> dict:
        """A catalog on a card page: heading, badge, link to the manual's table, its cards."""
        d = self.ctx.catalogs[catalog]
        procs = sorted(u for u in self.ctx.p.uses.get(catalog, ()) if self.ctx.p.get(u, ir.Procedure) is not None)
        return {
            "anchor": anchor(catalog),
            "title": esc(d.title),
            "badge": badge(d.status),
            "ref": attr(d.ref),
            "table_href": self.ctx.href(catalog),
            "procedures": [self.ctx.a(self.ctx.title_of(pr), self.ctx.href(pr)) for pr in procs],
            "cards": [self.unit_card(d, ident, rec, level, options) for ident, rec in d.entries.items()],
        }

    def unit_card(self, d: ir.Catalog, ident: str, rec: dict, level: int, options: str | None) -> dict:
        """:meth:`remembered_card`, its links made from the card's own page."""
        self.ctx.current_page = self.ctx.unit_page[(d.name, ident)]
        return self.remembered_card(d, ident, rec, level, options)

    def remembered_card(self, d: ir.Catalog, ident: str, rec: dict, level: int, options: str | None) -> dict:
        """:meth:`card`, or the card of the previous build of this page (``self.remembered``: the previous
        build's cards of the page, this build's, and the page's key, :func:`memo.page_key`) when the entry,
        what the card reads of its catalog beside it and all the card read through the noted mappings
        and queries are as they were. A data edit renders one card of its page again."""
        if self.remembered is None or self.ctx.reads.deps is None:
            return self.card(d, ident, rec, level, options)
        old, new, page_key = self.remembered
        own = pickled((d.name, d.title, d.status, d.record, d.cost, d.entry_spans.get(ident, d.span), ident, rec, level, options))
        if own is None:
            return self.card(d, ident, rec, level, options)
        key = hashlib.sha256(page_key + own).digest()
        found = old.get((d.name, ident))
        if found is not None and found[0] == key and all(digest is not None and self.ctx.reads.dependency(dep) == digest for dep, digest in found[1].items()):
            self.ctx.reads.deps.update(found[1])
            self.ctx.search.extend(list(entry) for entry in found[2])
            new[(d.name, ident)] = found
            return found[3]
        page_deps, self.ctx.reads.deps = self.ctx.reads.deps, {}
        before = len(self.ctx.search)
        try:
            card = self.card(d, ident, rec, level, options)
        finally:
            deps, self.ctx.reads.deps = self.ctx.reads.deps, page_deps
        page_deps.update(deps)
        new[(d.name, ident)] = (key, self.ctx.reads.digests_of(deps), [list(entry) for entry in self.ctx.search[before:]], card)
        return card

    def options_block(self, catalog: str | None) -> dict | None:
        """The options a page's entries may take, with their cost (the page's box and each card's list)."""
        if catalog is None:
            return None
        d = self.ctx.catalogs[catalog]
        cost_field = next(f.name for f in self.ctx.fields(d.record) if f.type.inner.kind == "int")
        priced = [(ident, number(rec[cost_field])) for ident, rec in d.entries.items() if isinstance(rec.get(cost_field), int)]
        return {
            "title": esc(d.title),
            "href": self.ctx.href(catalog),
            "items": [(self.ctx.a(self.ctx.entry_title(catalog, ident), self.ctx.entry_href(catalog, ident)), cost) for ident, cost in priced],
            "names": [(esc(self.ctx.entry_title(catalog, ident)), cost) for ident, cost in priced],
        }

    def card(self, d: ir.Catalog, ident: str, rec: dict, level: int, options: str | None) -> dict:
        """One datasheet card: facts, a line of stats, lists (weapons with their profile), the cost at each level, options, reverse links."""
        cost_display = d.cost if d.cost is not None and d.cost.table is not None else None  # without a table the cost is one of the stats
        skip = {self.ctx.title_field(d.record), cost_display.field if cost_display else None}
        facts, stats, lists = [], [], []
        for f in self.ctx.fields(d.record):
            if f.name in skip:
                continue
            label = self.values.label(f)
            v = rec.get(f.name)
            inner = f.type.inner
            if inner.kind == "list":
                item = inner.args[0].inner
                if item.kind == "record":
                    lists.append({"label": esc(label), **self.values.record_list(v or [], item.name)})
                else:
                    lists.append({"label": esc(label), "inline": ", ".join(self.values.cell(x, inner.args[0]) for x in v) if v else "—"})
                continue
            if v is None:
                continue
            if inner.kind in ("int", "decimal"):
                stats.append((self.values.label_html(label), attr(number(v))))
            elif inner.kind == "record" and self.values.numeric_record(inner.name):
                parts = [(self.values.label(sf), v.get(sf.name)) for sf in self.ctx.fields(inner.name)]
                stats.append((f"{self.values.label_html(label)} <small>({attr(' / '.join(p for p, _x in parts))})</small>",
                              attr(" / ".join(number(x) if x is not None else "—" for _p, x in parts))))
            else:
                facts.append((esc(label), self.values.cell(v, f.type)))
        cost = None
        if cost_display is not None and isinstance(rec.get(cost_display.field), int):
            base = rec[cost_display.field]
            cost = {
                "label": _("%(cost)s by %(levels)s") % {"cost": esc(cost_display.field_title), "levels": esc(self.ctx.title_of(cost_display.enum))},
                "header": [esc(title) for _m, title, _p in cost_display.levels],
                "row": [number(cost_at(base, pct)) for _m, _t, pct in cost_display.levels],
                "base": number(base),
            }
        elif (d.name, ident) in self.army_quality_costs:  # no @cost_modifier: the cost at each quality of the army that fields it
            army, entry = self.army_quality_costs[(d.name, ident)]
            cost = {
                "label": _("%(cost)s by %(levels)s") % {"cost": esc(_("Points")), "levels": esc(army.quality_title or _("Quality"))},
                "header": [esc(q.title) for q in army.quality],
                "row": [number(cost_at(entry.cost, q.percent)) for q in army.quality],
                "base": number(entry.cost),
            }
        title = self.ctx.entry_title(d.name, ident)
        self.ctx.index(title, self.ctx.site_href(self.ctx.unit_page[(d.name, ident)]), d.title,
                   WEIGHT_DATASHEET if d.name in self.ctx.datasheet_catalogs else WEIGHT_PAGE,
                   " ".join(self.values.plain_value(rec.get(f.name), f.type) for f in self.ctx.fields(d.record) if f.name not in skip))
        where, source_href = self.ctx.source_link(d.entry_spans.get(ident, d.span))
        return {
            "anchor": card_anchor(d.name, ident),
            "level": level,
            "title": esc(title),
            "catalog": attr(d.title),
            "badge": badge(d.status),
            "row_href": self.ctx.href(d.name, ident),
            "facts": facts,
            "stats": stats,
            "lists": lists,
            "cost": cost,
            "options": unit_options.card_options(self.ctx, d.name, ident, lambda: self.options_block(options)),  # what the army lists allow
            "odds": self.card_odds(d.name, ident),
            "users": self.values.users_of(self.ctx.entry_users.get((d.name, ident), [])),
            "tech": {"kind_title": attr(d.title), "name": attr(ident), "where": where, "source_href": source_href},
        }

    def cost_note(self, cost: ir.CostDisplay, catalogs: list[str]) -> dict:
        """The explanation of a cost display, with a worked example of the rounding from the data."""
        example = None
        for c in catalogs:
            for rec in self.ctx.catalogs[c].entries.values():
                base = rec.get(cost.field)
                for _m, title, pct in cost.levels:
                    if isinstance(base, int) and (base * (100 + pct)) % 100 == 50 and example is None:
                        exact = Fraction(base * (100 + pct), 100)
                        example = {"base": number(base), "title": esc(title), "pct": signed_percent(pct),
                                   "exact": number(exact), "rounded": number(cost_at(base, pct))}
        return {
            "field_title": esc(cost.field_title),
            "enum_title": esc(self.ctx.title_of(cost.enum)),
            "table": self.ctx.a(self.ctx.title_of(cost.table), self.ctx.href(cost.table)),
            "levels": [(esc(title), signed_percent(pct)) for _m, title, pct in cost.levels],
            "example": example,
        }

    def card_odds(self, catalog: str, ident: str) -> list[dict]:
        """Slices of grouped odds tables (``each x in catalog``) for one entry's card."""
        out = []
        for d in self.grouped_odds.get(catalog, ()):
            t = self.ctx.odds.get(d.name) or {}
            values = (t.get("groups") or {}).get("values") or []
            if ident not in values:
                continue
            grid = t["cells"][values.index(ident)]
            if all(c is None for line in grid for c in line):
                continue  # the procedure refuses every input for this entry (e.g. no such fire mode)
            header, rows = self.values.odds_grid(t, grid, shows_probabilities(d))
            out.append({"title": esc(d.title), "href": self.ctx.href(d.name), "header": header, "rows": rows})
        return out


def write_card_pages(ctx: SiteContext, cards: Cards, env: jinja2.Environment, docs: Path, memo: page_memo.PageMemo | None,
                     common: bytes | None, kept: dict[str, tuple]) -> tuple[list[dict], dict[str, dict]]:
    """Write every card page into ``docs``: each card on a page of its own (``datasheet.md.j2``), its
    catalogs' page as their index (``datasheets.md.j2``: name, type, cost, a link to the card) and
    all of them on one page to print (``datasheets_print.md.j2``).
    A page and its cards' pages are the previous build's when nothing they read changed, else each
    card is the previous build's when nothing it read changed. Notes in ``kept`` the pages the memo
    keeps for the next build (their Markdown: file name → text); returns the index pages' navigation
    entries (``{title, path, count}``) and this build's cards of each page, for the memo."""
    nav = []
    remembered: dict[str, dict] = {}  # each card page's cards (Cards.remembered_card)
    for pg in ctx.datasheet_pages + ctx.reference_pages:
        ctx.start_page(pg["page"])
        single = len(pg["catalogs"]) == 1 and ctx.title_of(pg["catalogs"][0]) == pg["title"]
        ctx.index(pg["title"], ctx.site_href(pg["page"]), _(NAV["cards"]), WEIGHT_PAGE)
        nav.append({"title": pg["title"], "path": pg["page"], "count": sum(len(ctx.catalogs[c].entries) for c in pg["catalogs"])})
        key = page_memo.page_key(common, pg["page"], "", [], pg)  # a card page reads no prose: the declarations and the page map
        old = memo.kept(ctx.reads, pg["page"], key) if memo is not None else None
        if old is not None:
            _key, _deps, entries, texts = kept[pg["page"]] = old
            remembered[pg["page"]] = memo.cards.get(pg["page"], {})
            ctx.search.extend(list(entry) for entry in entries)
            for name, text in texts.items():
                (docs / name).write_text(text, encoding="utf-8")
            continue
        before = len(ctx.search)
        ctx.reads.deps = {} if key is not None else None
        if key is not None and memo is not None:
            cards.remembered = (memo.cards.get(pg["page"], {}), remembered.setdefault(pg["page"], {}), key)
        texts = {}
        catalogs = []
        for c in pg["catalogs"]:
            cat = cards.card_catalog(c, 1, pg["options"])  # one card per entry, each the heading of its own page
            catalogs.append(cat)
            for card, (_c, _ident, unit) in zip(cat["cards"], [unit for unit in pg["units"] if unit[0] == c]):
                texts[unit] = card
        cards.remembered = None
        ctx.start_page(pg["page"])
        notes, seen = [], []
        for c in pg["catalogs"]:
            cost = ctx.catalogs[c].cost
            if cost is not None and cost.table is not None and cost not in seen:
                seen.append(cost)
                notes.append(cards.cost_note(cost, [x for x in pg["catalogs"] if ctx.catalogs[x].cost == cost]))
        options = cards.options_block(pg["options"])
        rows = {c: index_rows(ctx, c) for c in pg["catalogs"]}
        unit_template = env.get_template("datasheet.md.j2")
        units = pg["units"]
        for i, (_c, _ident, unit) in enumerate(units):
            ctx.start_page(unit)
            texts[unit] = unit_template.render(card=texts[unit], index={"title": attr(pg["title"]), "href": ctx.url(pg["page"])},
                                               previous=unit_link(ctx, units[i - 1]) if i > 0 else None,
                                               next=unit_link(ctx, units[i + 1]) if i + 1 < len(units) else None)
        ctx.start_page(pg["page"])
        catalog_views = [dict(cat, rows=rows[c]) for c, cat in zip(pg["catalogs"], catalogs)]
        print_href = ctx.url(pg["print"]) if pg["print"] else None
        texts = {pg["page"]: env.get_template("datasheets.md.j2").render(
            title=esc(pg["title"]), single=single, catalogs=catalog_views, cost_notes=notes, options=options, print_href=print_href,
            cost_title=next((attr(ctx.catalogs[c].cost.field_title) for c in pg["catalogs"] if ctx.catalogs[c].cost), None)), **texts}
        if pg["print"]:
            ctx.start_page(pg["print"])
            # what print hides (technical details, reverse links, each card's options: the page lists them once) is left out
            printed = [dict(cat, cards=[dict(card, level=2 if single else 3, tech=None, users=None, options=None) for card in cat["cards"]])
                       for cat in catalogs]
            texts[pg["print"]] = env.get_template("datasheets_print.md.j2").render(
                title=esc(pg["title"]), single=single, catalogs=printed, cost_notes=notes, options=options, index_href=ctx.url(pg["page"]))
        deps, ctx.reads.deps = ctx.reads.deps, None
        for name, text in texts.items():
            (docs / name).write_text(text, encoding="utf-8")
        if key is not None:
            kept[pg["page"]] = (key, ctx.reads.digests_of(deps), [list(entry) for entry in ctx.search[before:]], texts)
    return nav, remembered


def unit_link(ctx: SiteContext, unit: tuple[str, str, str]) -> dict:
    """The title and href of a card's page, from the current page (``unit``: catalog, id, page)."""
    return {"title": attr(ctx.entry_title(unit[0], unit[1])), "href": attr(ctx.url(unit[2]))}


def index_rows(ctx: SiteContext, catalog: str) -> list[dict]:
    """A catalog's rows on its cards' index page: each card's id, name, link and base cost (HTML)."""
    d = ctx.catalogs[catalog]
    cost_field = d.cost.field if d.cost else None
    rows = []
    for ident, rec in d.entries.items():
        cost = rec.get(cost_field) if cost_field else None
        rows.append({"anchor": card_anchor(catalog, ident), "title": attr(ctx.entry_title(catalog, ident)),
                     "href": attr(ctx.url(ctx.unit_page[(catalog, ident)])), "type": attr(d.title),
                     "cost": attr(number(cost)) if isinstance(cost, int) else "—"})
    return rows


def card_index(ctx: SiteContext, values: Values) -> dict:
    """Every datasheet entry in one filterable table: its page, catalog, base cost and special rules."""
    rows, groups, types, rules = [], [], [], {}
    cost_title = None
    for pg in ctx.datasheet_pages:
        groups.append(attr(pg["title"]))
        for c in pg["catalogs"]:
            d = ctx.catalogs[c]
            types.append(attr(d.title)) if attr(d.title) not in types else None
            cost_field = d.cost.field if d.cost else None
            cost_title = cost_title or (d.cost.field_title if d.cost else None)
            rule_fields = [f for f in ctx.fields(d.record) if f.type.inner.kind == "list" and f.type.inner.args[0].kind == "rule"]
            for ident, rec in d.entries.items():
                apps = [app for f in rule_fields for app in rec.get(f.name) or []]
                for app in apps:
                    rules.setdefault(app["rule"], ctx.title_of(app["rule"]))
                cost = rec.get(cost_field) if cost_field else None
                title = ctx.entry_title(c, ident)
                rows.append({
                    "title": attr(title), "href": attr(ctx.entry_href(c, ident)), "group": attr(pg["title"]), "type": attr(d.title),
                    "cost": attr(number(cost)) if isinstance(cost, int) else "—", "cost_value": cost if isinstance(cost, int) else "",
                    "rules": ", ".join(link(attr(values.rule_label(app["rule"], app["args"].values())), ctx.href(app["rule"])) for app in apps),
                    "rule_ids": attr(" ".join(sorted({app["rule"] for app in apps}))),
                    "text": attr(fold(" ".join([title, pg["title"], d.title] + [ctx.title_of(app["rule"]) for app in apps]))),
                    "badge": badge(d.status),
                })
    rule_options = sorted(((attr(k), attr(v)) for k, v in rules.items()), key=lambda kv: fold(kv[1]))
    return {"rows": rows, "groups": groups, "types": types, "rules": rule_options, "cost_title": attr(cost_title or "")}


def write_card_index(ctx: SiteContext, values: Values, env: jinja2.Environment, docs: Path) -> dict:
    """Write the index of every datasheet (when there is any); returns its view (its ``rows``: none, no page)."""
    page = ctx.pages["card_index"]
    ctx.start_page(page)
    view = card_index(ctx, values)
    if view["rows"]:
        (docs / page).write_text(env.get_template("fichas.md.j2").render(**view), encoding="utf-8")
        ctx.index(_(NAV["card_index"]), ctx.site_href(page), _(NAV["cards"]), WEIGHT_PAGE)
    return view
