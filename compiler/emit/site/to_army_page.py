"""Army documents of a build → the army builder page(s) of its site.

Reads the army documents and the roster schema the build already wrote
(``json/armies/<army>.json``, ``schemas/roster.schema.json``, from
:mod:`rulebook.compiler.emit.data.to_armies`) and the page map of :class:`rulebook.compiler.emit.site.pages.context.SiteContext`
(page names, the href of each entry's card). Writes, for each army,
``docs/<army-builder>.md`` (``<army-builder>-<army>.md`` when a rulebook declares several;
``ejercito.md`` in Spanish) through
``site/templates/ejercito.md.j2``, its data beside the assets as
``docs/assets/armies/<page>.js`` (``ejercito.js``; ``army-builder.js`` in English), the army module of the JavaScript
package as a classic script, ``docs/assets/rulebook-armies.js`` (``js/armies.browser.js``
of the build, made by :mod:`rulebook.compiler.emit.js.armies` from the same documents:
the army documents and the validator ``rulebook roster validate`` agrees with), and
copies ``site/assets/army-*`` next to the other assets.

The page's data (the army's id, card links, the interface's phrases, the roster
limits) is a script, ``window.rbArmyData = <JSON>;``, not part of the page: the page's
Markdown then changes only when its own words do, and a browser caches the data like any
asset. The army document and the roster schema are only in ``rulebook-armies.js``
(``rbArmies.ARMIES[id]``, ``rbArmies.ROSTER_SCHEMA``): one copy, the one the builder
validates with (a prose edit changes the content hash, so that script; ``rulebook serve``
converts again only the pages whose Markdown changed). The JSON is a JSON literal (so a
JS expression) with ``<`` ``>`` ``&`` U+2028 U+2029 written as ``\\u....``: no text can
end the expression, nor a ``<script>`` if it were ever inlined. The page loads, with
``<script src>`` (which works from ``file://``, where ``fetch`` and ES modules do not),
the data, ``assets/rulebook-armies.js`` and ``assets/army-builder.js`` (the page), in that
order; nothing else is requested.

Entry point: :func:`write_pages` → the navigation entries of the pages written.
The interface's phrases come from the gettext catalogs (:mod:`rulebook.compiler.i18n`);
the army's own words (labels, messages) from the army document.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jinja2

from rulebook.compiler.support.i18n import N_, _
from rulebook.compiler.emit.site.markdown import esc
from rulebook.compiler.emit.site.pages.context import PAGE_FILES
from rulebook.compiler.emit.data.to_armies import ROSTER_MAX_BYTES, ROSTER_MAX_UNITS
from rulebook.compiler.emit.js import armies as js_armies

SITE_ASSETS = Path(__file__).resolve().parents[3] / "site" / "assets"
ASSETS = ("army-builder.js", "army-builder.css")
ARMY_MODULE = "assets/rulebook-armies.js"  # under docs/: js/armies.browser.js (window.rbArmies), for every army of the rulebook
NAV_TITLE = N_("Army builder")
DATA_FOLDER = "assets/armies"  # under docs/: one army's data, <page stem>.js (page names are unique slugs)
DATA_GLOBAL = "rbArmyData"  # what site/assets/army-builder.js reads


def script_json(data: dict) -> str:
    """JSON that no text can break out of, in a script file or inside ``<script>``: a JSON
    literal with ``<`` ``>`` ``&`` U+2028 U+2029 escaped (the same JSON text, read by ``JSON.parse``
    or as a JS expression)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def data_script(data: dict) -> str:
    """The text of ``docs/assets/armies/<page>.js``: ``window.rbArmyData = <JSON literal>;``.

    >>> print(data_script({"title": "</script>"}), end="")
    window.rbArmyData = {"title":"\\u003c/script\\u003e"};
    """
    return f"window.{DATA_GLOBAL} = {script_json(data)};\n"


def interface_text() -> dict[str, str]:
    """The builder's own phrases in the current language (``{name}`` placeholders are filled by the script)."""
    return {
        "force": _("Your force"), "name": _("Name of the force"), "tools": _("Save, load, share and print"),
        "save": _("Save"), "load": _("Load"), "share": _("Share link"), "print": _("Print"), "new_list": _("New list"),
        "share_label": _("Link to this list"), "copied": _("Link copied to the clipboard."),
        "share_ready": _("The link is in the box: copy it to share the list."),
        "units": _("Units in the force"), "empty": _("The list is empty: add units from the list below."),
        "add_unit": _("Add a unit"), "search": _("Search"), "list": _("List"), "all_lists": _("All lists"),
        "no_match": _("No unit matches the search."), "add": _("Add"), "add_named": _("Add {name}"),
        "added": _("{name} added."), "removed": _("{name} removed."), "remove": _("Remove"), "remove_named": _("Remove {name}"),
        "unit_name": _("Name (optional)"), "choose": _("— choose —"), "choose_troops": _("Troops to choose ({n})"),
        "not_offered": _("Not offered to this unit:"), "over": _("{n} points over the budget"),
        "cleared": _("New empty list."), "saved": _("Saved as {file}."), "loaded": _("List loaded from {origin}."),
        "the_link": _("the link"), "not_json": _("{origin} is not a JSON file: {reason}"),
        "not_read": _("{origin} could not be read: {reason}"),
        "bad_format": _("{origin} does not follow the roster format (nothing was loaded):"),
        "other_army": _("{origin} is a list of another army ({army}); open that army's builder."),
        "bad_link": _("The link does not hold a list: {reason}"),
        "too_big": _("{origin} is larger than {kb} kB, the most a roster may be; nothing was loaded."),
        "too_many": _("{origin} has {n} units; a roster may have at most {max}. Nothing was loaded."),
        "schema_type": _("the wrong kind of value"), "schema_required": _("a required field is missing"),
        "schema_additionalProperties": _("a field the format does not have"), "schema_enum": _("not one of the allowed values"),
        "schema_const": _("not the allowed value"), "schema_minimum": _("too small"), "schema_maximum": _("too large"),
    }


def write_pages(pb, out_dir: Path, docs: Path, env: jinja2.Environment, weight: float) -> list[dict]:
    """Write the builder page of every army document of ``out_dir/json/armies``, its data
    script (``docs/assets/armies/<page stem>.js``, :func:`data_script`) and the army module
    they all load (``docs/assets/rulebook-armies.js``).

    ``pb`` is the site's :class:`rulebook.compiler.emit.site.pages.context.SiteContext` (page names,
    card links and the search index, where the page gets ``weight``). Returns
    the navigation entries (``{"title", "path"}``), none when the rulebook
    declares no army."""
    armies = sorted((out_dir / "json" / "armies").glob("*.json")) if (out_dir / "json" / "armies").is_dir() else []
    schema_path = out_dir / "schemas" / "roster.schema.json"
    if not armies or not schema_path.is_file():
        return []
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    docs_list = [json.loads(p.read_text(encoding="utf-8")) for p in armies]
    nav = []
    for army in docs_list:
        # one army: its page name, kept free from the start (SiteContext.pages); several: one page each
        page = pb.pages["army"] if len(docs_list) == 1 else pb.page_name(f"{_(PAGE_FILES['army'])}-{army['id']}")
        pb.start_page(page)
        links = {"entries": {}, "troops": {}}
        for e in army["entries"]:
            href = pb.entry_href(e["catalog"], e["id"])
            if href:
                links["entries"][e["id"]] = href
        if army.get("troop_catalog"):
            for t in army["troops"]:
                href = pb.entry_href(army["troop_catalog"], t)
                if href:
                    links["troops"][t] = href
        title = _(NAV_TITLE) if len(docs_list) == 1 else f"{_(NAV_TITLE)}: {army['title']}"
        data = {"army_id": army["id"], "links": links, "text": interface_text(),
                "limits": {"bytes": ROSTER_MAX_BYTES, "units": ROSTER_MAX_UNITS}}  # the same as `rulebook roster validate`
        script = f"{DATA_FOLDER}/{Path(page).stem}.js"
        (docs / DATA_FOLDER).mkdir(parents=True, exist_ok=True)
        (docs / script).write_text(data_script(data), encoding="utf-8")
        text = env.get_template("ejercito.md.j2").render(title=esc(title), army_title=esc(army["title"]), data_src=script, module_src=ARMY_MODULE)
        (docs / page).write_text(text, encoding="utf-8")
        pb.index(title, pb.site_href(page), _(NAV_TITLE), weight, army["title"])
        nav.append({"title": title, "path": page})
    module = js_armies.browser_script({a["id"]: a for a in docs_list}, schema)
    (docs / ARMY_MODULE).write_text(module, encoding="utf-8", newline="\n")
    for asset in ASSETS:
        shutil.copy2(SITE_ASSETS / asset, docs / "assets" / asset)
    return nav
