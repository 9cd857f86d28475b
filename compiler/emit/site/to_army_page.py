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
limits, the print sheet's words from :mod:`rulebook.compiler.emit.site.army_sheet`) is a script, ``window.rbArmyData = <JSON>;``, not part of the page: the page's
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
from pathlib import Path

import jinja2

from rulebook.compiler.support.i18n import N_, _
from rulebook.compiler.emit.site.army_sheet import sheet_words
from rulebook.compiler.emit.site.markdown import esc
from rulebook.compiler.emit.site.pages.context import PAGE_FILES
from rulebook.compiler.emit.data.to_armies import ROSTER_MAX_BYTES, ROSTER_MAX_UNITS
from rulebook.compiler.emit.js import armies as js_armies
from rulebook.compiler.emit.js.names import js_without_comment_lines
from rulebook.compiler.emit.site.pages.site_build import css_without_comments

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
        "force": _("Your force"), "name": _("Name of the list"), "tools": _("Download, load, share and print"),
        "save": _("Download file"), "load": _("Load file"), "share": _("Share"), "print": _("Print"), "new_list": _("New list"),
        "share_label": _("Link to this list"), "copied": _("Link copied to the clipboard."),
        "share_ready": _("The link is in the box: copy it to share the list."),
        "units": _("Units in the force"), "empty": _("The list is empty: add units from the list below."),
        "add_unit": _("Add a unit"), "search": _("Search"), "list": _("List"), "all_lists": _("All lists"),
        "no_match": _("No unit matches the search."), "add": _("Add"), "add_named": _("Add {name}"),
        "added": _("{name} added."), "removed": _("{name} removed."), "remove": _("Remove"), "remove_named": _("Remove {name}"),
        "unit_name": _("Name (optional)"), "choose": _("— choose —"), "choose_troops": _("Troops to choose ({n})"),
        "not_offered": _("Not offered to this unit:"), "over": _("{n} points over the budget"),
        "saved": _("Saved as {file}."), "loaded": _("List loaded from {origin}; it is kept in your lists."),
        "the_link": _("the link"), "the_code": _("the code"),
        "not_json": _("{origin} is not a roster file: it is not JSON text. Nothing was loaded."),
        "not_json_short": _("it is not JSON text."),
        "not_read": _("{origin} could not be read. Nothing was loaded."),
        "refused": _("{origin} was not loaded:"),
        "bad_format_short": _("it does not follow the roster format:"),
        "other_army_short": _("it is a list of another army ({army}); open that army's builder."),
        "bad_code": _("{origin} does not hold a list: its code is incomplete or damaged (was it copied whole?). Nothing was loaded."),
        "too_big": _("{origin} is larger than {kb} kB, the most a roster may be; nothing was loaded."),
        "too_many_units": _("it has {n} units; a roster may have at most {max}."),
        "type_string": _("text"), "type_integer": _("a whole number"), "type_number": _("a number"), "type_array": _("a list"),
        "type_object": _("a group of fields"), "type_boolean": _("yes or no"),
        "schema_type": _("the field {field} must be {expected}"), "schema_required": _("the field {field} is missing"),
        "schema_additionalProperties": _("{field}: not a field of a roster"), "schema_enum": _("the field {field} must be one of {allowed}"),
        "schema_const": _("the field {field} must be {allowed}"), "schema_minimum": _("the field {field} must be at least {n}"),
        "schema_maximum": _("the field {field} must be at most {n}"), "schema_other": _("the field {field} is not valid"),
        "lists": _("Your lists"), "open_list": _("Open list"), "duplicate": _("Duplicate"), "delete": _("Delete"),
        "untitled": _("Untitled list {n}"), "n_units": _("{n} u."), "copy_of": _("{name} (copy)"),
        "created": _("New empty list; the previous one is kept in your lists."), "duplicated": _("{name} created."),
        "switched": _("{name} opened."), "deleted": _("{name} deleted."),
        "confirm_delete": _("Delete the list {name}? It cannot be recovered."), "confirm_yes": _("Delete it"), "confirm_no": _("Keep it"),
        "kept": _("Your lists are kept in this browser, on this device (also when the page is opened from disk); download a list to keep it elsewhere."),
        "no_storage": _("This browser does not let the page keep anything: your lists are lost when the page is closed. Download them as files."),
        "storage_full": _("The browser refused to keep the list (its storage is full): download it as a file."),
        "stored_damaged": _("Some lists kept in this browser were damaged and were not opened:"),
        "stored_unreadable": _("The lists kept in this browser could not be read (the stored data is damaged); a new list was started."),
        "from_disk": _("This page is opened from a file on this device, so a link to it only works here. To share the list, send the downloaded file or the code below; the other player loads either in the army builder."),
        "code_label": _("Code of this list"), "copy_code": _("Copy code"), "code_copied": _("Code copied to the clipboard."),
        "code_ready": _("The code is selected in its box: copy it."),
        "paste_label": _("Load a list from its code or link"), "load_code": _("Load code"),
        "sheet_points": _("Points"), "sheet_base": _("{n} on its datasheet"),
        "sheet_how": _("A unit's points: the cost on its datasheet, changed by the percentage of its quality (rounded half up), plus each option it takes."),
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
                "limits": {"bytes": ROSTER_MAX_BYTES, "units": ROSTER_MAX_UNITS},  # the same as `rulebook roster validate`
                "sheet": sheet_words(pb, army)}
        script = f"{DATA_FOLDER}/{Path(page).stem}.js"
        (docs / DATA_FOLDER).mkdir(parents=True, exist_ok=True)
        (docs / script).write_text(data_script(data), encoding="utf-8")
        text = env.get_template("ejercito.md.j2").render(title=esc(title), army_title=esc(army["title"]), data_src=script, module_src=ARMY_MODULE)
        (docs / page).write_text(text, encoding="utf-8")
        pb.index(title, pb.site_href(page), _(NAV_TITLE), weight, army["title"])
        nav.append({"title": title, "path": page})
    module = js_armies.browser_script({a["id"]: a for a in docs_list}, schema)
    (docs / ARMY_MODULE).write_text(module, encoding="utf-8", newline="\n")
    for asset in ASSETS:  # as pages load them: without the comments
        text = (SITE_ASSETS / asset).read_text(encoding="utf-8")
        text = js_without_comment_lines(text) if asset.endswith(".js") else css_without_comments(text)
        (docs / "assets" / asset).write_text(text, encoding="utf-8")
    return nav
