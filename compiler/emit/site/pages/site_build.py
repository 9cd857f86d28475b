"""The pages under ``docs/`` → the HTML site: mkdocs.yml, the theme's files, the MkDocs run and its finishing.

Reads the site's page map and search index (:class:`rulebook.compiler.emit.site.pages.context.SiteContext`),
the navigation the pages make, ``site/assets`` and ``site/overrides``; for the bundle index, several
checked programs. Produces ``mkdocs.yml`` (its phrases in the rulebook's language:
:func:`site_messages`), ``docs/assets/search-index.js`` and the theme's files
(:func:`write_site_files`); the HTML site, ``mkdocs build --strict``, then what the site never loads
pruned, tooltips thinned and the theme's unused styles dropped (:func:`run_mkdocs`, :func:`finish_site`);
and the page linking several rulebooks' sites (:func:`write_bundle_index`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.js.names import js_without_comment_lines
from rulebook.compiler.emit.site.markdown import attr
from rulebook.compiler.emit.site.pages.context import SiteContext, site_file
from rulebook.compiler.emit.site.pages.templates import SITE_DIR, environment
from rulebook.compiler.support import i18n
from rulebook.compiler.support.i18n import _

SEARCH_SCRIPT = "assets/search-index.js"


_CSS_STRING_OR_COMMENT = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|/\*.*?\*/""", re.S)


def css_without_comments(css: str) -> str:
    """A stylesheet without its comments (explanations for who edits it, in every page's first visit) and
    the blank lines they leave; strings are kept whole."""
    text = _CSS_STRING_OR_COMMENT.sub(lambda m: m.group(1) or "", css)
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip()) + "\n"


def write_site_files(ctx: SiteContext, env: jinja2.Environment, out_dir: Path, docs: Path, nav: list[dict], title: str,
                     rb: ir.RulebookInfo | None, lang: i18n.Language) -> None:
    """The search index as a script, the site's assets and theme overrides, and ``mkdocs.yml`` with ``nav``."""
    (docs / SEARCH_SCRIPT).write_text(
        "window.rulebookSearch = " + json.dumps({"entries": ctx.search}, ensure_ascii=False, separators=(",", ":")) + ";\n",
        encoding="utf-8",
    )
    script = (SITE_DIR / "assets" / "rulebook.js").read_text(encoding="utf-8")
    (docs / "assets" / "rulebook.js").write_text(js_without_comment_lines(script), encoding="utf-8")
    css = (SITE_DIR / "assets" / "extra.css").read_text(encoding="utf-8")
    (docs / "assets" / "extra.css").write_text(css_without_comments(css), encoding="utf-8")
    if (out_dir / "overrides").exists():
        shutil.rmtree(out_dir / "overrides")
    shutil.copytree(SITE_DIR / "overrides", out_dir / "overrides")
    mk = env.get_template("mkdocs.yml.j2").render(
        site_name=title,
        site_description=_("%(title)s: a rulebook generated from its rules in the rules language.") % {"title": title},
        copyright=(_("%(title)s — version %(version)s") % {"title": title, "version": rb.version}) if rb else title,
        nav=nav,
        not_in_nav=sorted("/" + page for page in [*ctx.source_pages.values(), *ctx.unit_page.values(),
                                                  *(pg["print"] for pg in ctx.datasheet_pages if pg["print"])]),
        language=lang.code,
        messages=site_messages(),
        glossary_include=f"{site_file('glossary')}.md",
    )
    (out_dir / "mkdocs.yml").write_text(mk, encoding="utf-8")


def site_messages() -> dict:
    """The phrases of the theme overrides (``config.extra.rb``) and, under ``script``, of
    ``site/assets/rulebook.js`` (``{n}`` stands for a number), in the current language."""
    return {
        "menu": _("Menu"), "tech": _("Technical details"), "tech_title": _("Technical details: names, types and source code"),
        "search": _("Search"), "search_dialog": _("Search the rulebook"), "close_search": _("Close the search"),
        "search_options": _("Search options"), "clear_query": _("Clear"),
        "search_hint": _("Type to search: datasheets, special rules, terms and sections; accents and capitals do not matter."),
        "not_found": _("Page not found"), "go_home": _("Go to the home page"),
        "not_found_text": _("This address is not a page of the rulebook. The link may be misspelt, or the page may have been renamed."),
        "script": {
            "search_failed": _("The search index could not be loaded."), "no_results": _("No results"),
            "one_result": _("1 result"), "n_results": _("{n} results"), "scroll_hint": _("Swipe to see the whole table"),
            "calculate": _("Calculate"), "calc_loading": _("Loading the calculator…"),
            "calc_failed": _("The calculator could not be loaded."),
        },
    }


def write_bundle_index(out_dir: Path, books: list[tuple[str, ir.Program]]) -> Path:
    """``out_dir/index.html``: links to the sites of rulebooks built into ``out_dir/<folder>/``.

    ``books``: (folder name, checked program) in the order to list them. The page
    is in the rulebooks' language when they share one, else the default one.
    Returns the page's path."""
    langs = {i18n.of_rulebook(program) for _folder, program in books}
    code = langs.pop() if len(langs) == 1 else i18n.DEFAULT
    with i18n.using(code) as lang:
        entries = [{
            "title": attr(program.rulebook.title if program.rulebook else folder),
            "version": attr(program.rulebook.version) if program.rulebook else "",
            "lang": attr(i18n.of_rulebook(program)),
            "href": attr(f"{quote(folder)}/site/index.html"),
            "folder": attr(folder),
        } for folder, program in books]
        page = environment(lang).get_template("bundle-index.html.j2").render(lang=code, books=entries)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "index.html"
    partial = out_dir / ".index.html.partial"
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target


# Files of the theme that the site never loads: source maps, and Material's own
# search (replaced by the rulebook's search index, which also works from disk).
UNSHIPPED = ("assets/javascripts/lunr", "assets/javascripts/workers", "sitemap.xml", "sitemap.xml.gz")
SOURCE_MAP_COMMENT = re.compile(rb"\n?(?://# sourceMappingURL=[^\n]*|/\*# sourceMappingURL=[^*]*\*/)\s*$")
TOOLTIP_OR_HEADING = re.compile(r'<abbr title="[^"]*">([^<]*)</abbr>|<h[1-6][\s>]')


KEEPS_WHITESPACE = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2>)", re.S | re.I)
INDENTATION = re.compile(r">[ \t\r]*\n[ \t\r\n]*<")


def collapse_indentation(page: str) -> str:
    """The page without the template's indentation between tags: each run of blank lines and spaces
    there becomes one line break (the same white space to a browser), except inside ``pre``,
    ``textarea``, ``script`` and ``style``."""
    out, last = [], 0
    for kept in KEEPS_WHITESPACE.finditer(page):
        out += [INDENTATION.sub(">\n<", page[last:kept.start()]), kept.group(0)]
        last = kept.end()
    out.append(INDENTATION.sub(">\n<", page[last:]))
    return "".join(out)


def thin_tooltips(page: str) -> str:
    """Keep a term's tooltip on its first occurrence under each heading; later ones are plain text.

    Python-Markdown's ``abbr`` puts the whole definition on every occurrence
    (a term used a hundred times on a page weighs a hundred definitions)."""
    seen: set[str] = set()

    def keep_first(m: re.Match) -> str:
        if m.group(1) is None:
            seen.clear()
            return m.group(0)
        if m.group(1) in seen:
            return m.group(1)
        seen.add(m.group(1))
        return m.group(0)

    return TOOLTIP_OR_HEADING.sub(keep_first, page)


THEME_STYLESHEETS = "assets/stylesheets/*.min.css"  # the theme's own rules and its palettes
CLASS_ATTRIBUTE = re.compile(r'\bclass="([^"]*)"')
WORD = re.compile(r"[A-Za-z_][\w-]*")
SELECTOR_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
SELECTOR_VALUE = re.compile(r"\[[\w-]+~?=[\"']?([\w-]+)[\"']?(?: [is])?\]")  # [attribute=value], [attribute~=value]
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|/\*.*?\*/', re.S)  # strings and comments
TOP_LEVEL_COMMA = re.compile(r",(?![^()]*\))")


def css_blocks(text: str) -> list[tuple[str, str | None]]:
    """A stylesheet's top-level blocks: (prelude, body inside the braces); the text after the last block has body None."""
    out, i = [], 0
    while i < len(text):
        start = text.find("{", i)
        if start < 0:
            out.append((text[i:], None))
            break
        depth, k = 0, start
        while True:
            c = text[k]
            if c in "\"'":  # a string: skip to its closing quote (past escaped characters)
                k += 1
                while text[k] != c:
                    k += 2 if text[k] == "\\" else 1
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        out.append((text[i:start], text[start + 1:k]))
        i = k + 1
    return out


def _without_negations(selector: str) -> str:
    """``selector`` without its ``:not(…)`` parts (a class there may be absent: the rule still applies)."""
    while (i := selector.find(":not(")) >= 0:
        depth, k = 0, i + 4
        while k < len(selector):
            depth += {"(": 1, ")": -1}.get(selector[k], 0)
            if depth == 0:
                break
            k += 1
        selector = selector[:i] + selector[k + 1:]
    return selector


def purge_stylesheet(css: str, known: set[str], words: set[str]) -> str:
    """``css`` without the selectors that name a class not in ``known`` or an attribute's value not in
    ``words`` (a rule without any selector left goes; at-rules keep their place, an emptied ``@media`` goes)."""
    out = []
    for prelude, body in css_blocks(css):
        head = prelude.strip()
        if body is None:
            out.append(prelude)
        elif head.startswith(("@media", "@supports", "@layer", "@container")):
            inner = purge_stylesheet(body, known, words)
            if inner.strip():
                out.append(f"{prelude}{{{inner}}}")
        elif head.startswith("@"):
            out.append(f"{prelude}{{{body}}}")
        else:
            kept = [sel for sel in TOP_LEVEL_COMMA.split(prelude) if _may_apply(sel, known, words)]
            if kept:
                out.append(f"{','.join(kept)}{{{body}}}")
    return "".join(out)


def _may_apply(selector: str, known: set[str], words: set[str]) -> bool:
    """Whether every class and attribute value that ``selector`` requires (outside ``:not()``) is known."""
    required = _without_negations(selector)
    values = SELECTOR_VALUE.findall(required)
    required = QUOTED.sub("", SELECTOR_VALUE.sub("", required))
    return all(c in known for c in SELECTOR_CLASS.findall(required)) and all(v in words for v in values)


def purge_theme_styles(site: Path) -> None:
    """Drop from the theme's stylesheets the rules for classes and attribute values that no page
    and no script of ``site`` has.

    Material's stylesheets style every feature, colour and writing direction of the theme (about
    150 KB); a rulebook uses a few. A class counts as used when a page's ``class`` attribute or any
    word of a script (which is how the theme's scripts add classes) names it; an attribute's value
    (``[dir=rtl]``, ``[data-md-color-primary=red]``) when a word of a page or a script is that value."""
    known: set[str] = set()  # classes
    words: set[str] = set()  # attribute values
    for path in sorted(site.rglob("*.html")):
        page = path.read_text(encoding="utf-8")
        for m in CLASS_ATTRIBUTE.finditer(page):
            known.update(m.group(1).split())
        words.update(WORD.findall(page))
    for path in sorted(site.rglob("*.js")):
        found = WORD.findall(path.read_text(encoding="utf-8", errors="replace"))
        known.update(found)
        words.update(found)
    for path in sorted(site.glob(THEME_STYLESHEETS)):
        css = path.read_text(encoding="utf-8")
        purged = purge_stylesheet(css, known, words)
        if purged != css:
            path.write_text(purged, encoding="utf-8")


def _dies_with_parent():
    """For a child process: be killed when this process dies, even by SIGKILL, so no
    mkdocs outlives a killed build (Linux ``prctl(PR_SET_PDEATHSIG)``; None elsewhere)."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def set_death_signal() -> None:
        prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != parent:  # the build died before prctl took effect
            os._exit(1)

    return set_death_signal


def run_mkdocs(out_dir: Path) -> str | None:
    """``mkdocs build --strict``, then drop what the site never loads; returns the error output on failure."""
    env = dict(os.environ)
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    if not env.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        env["SOURCE_DATE_EPOCH"] = "0"
    env["PYTHONHASHSEED"] = "0"
    site = out_dir / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(out_dir / "mkdocs.yml"), "-d", str(site)],
        capture_output=True, text=True, env=env, cwd=out_dir, preexec_fn=_dies_with_parent(),
    )
    if proc.returncode != 0:
        return (proc.stderr or proc.stdout)[-4000:]
    finish_site(site)
    return None


def finish_site(site: Path, pages: list[Path] | None = None) -> None:
    """Drop what the site never loads, thin the tooltips of ``pages`` (every page when
    None; ``rulebook serve`` passes the pages it re-rendered) and collapse their indentation,
    strip source-map comments;
    on a whole site, drop the theme's styles that nothing uses (:func:`purge_theme_styles`).
    ``rulebook serve`` keeps its first build's stylesheet: an edit that brings a kind of
    element the site had nowhere may show it unstyled until the next full build."""
    for rel in UNSHIPPED:
        path = site / rel
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    for path in sorted(site.rglob("*.map")):
        path.unlink()
    for path in sorted(site.rglob("*.html")) if pages is None else [p for p in pages if p.is_file()]:
        page = path.read_text(encoding="utf-8")
        thinned = collapse_indentation(thin_tooltips(page))
        if thinned != page:
            path.write_text(thinned, encoding="utf-8")
    for path in sorted([*site.rglob("*.js"), *site.rglob("*.css")]):
        data = path.read_bytes()
        stripped = SOURCE_MAP_COMMENT.sub(b"\n", data)
        if stripped != data:
            path.write_bytes(stripped)
    if pages is None:
        purge_theme_styles(site)
