"""``rulebook serve``: the rulebook's site on localhost, rebuilt on every edit, with
the pages open in a browser updated when the new pages are ready.

Reads: a rulebook folder (or file), watched with ``watchfiles``; the command's
host and port. Produces: a full build in a private temporary folder (removed on
exit), served over HTTP; after each edit, the pages that changed. Entry point:
:func:`main(args) -> int`; :class:`Preview` does the work and can be driven
without a server (tests).

How an edit becomes an updated page (and why):

1. ``watchfiles`` (Rust ``notify``, no polling) reports changes to ``*.rules``
   files under the rulebook; changes that arrive together are one rebuild.
   "serving" is printed only once the watch exists (:func:`start_watching`), and
   an edit saved during the first build (before it existed) is rebuilt then:
   the rules are compared with a :func:`fingerprint` taken before that build.
2. :func:`rulebook.compiler.pipeline.driver.build` runs **without the site** into a second
   folder (``next/``): check, Python, odds, JSON and Markdown are all rebuilt,
   but what did not change is remembered rather than computed again, each memo
   keyed by everything its result reads (so a rebuild writes what a fresh build
   writes). Files whose text did not change are not parsed again (the parser is
   a pure function of the text). When what the Python generator reads is as it
   was (a prose edit that moves no declaration), the package is not generated
   again (:meth:`_Remembering.generate`); otherwise only the modules whose reads
   changed are (:class:`rulebook.compiler.emit.python.to_python.ModuleMemo`), and a module
   whose bytes did not change is not compiled again (:mod:`rulebook.compiler.pipeline.pyload`).
   JSON documents and schemas equal to the last build's are not serialised,
   validated or written again (:class:`rulebook.compiler.emit.data.to_json.JsonMemo`). Each worked
   example, test vector and odds table is remembered under the generated code and
   data it can reach (:mod:`rulebook.compiler.analysis.reads`): a prose edit resolves none
   again, a data edit only those reading the edited declaration, an edit in a
   procedure those of the procedure and its callers; the positions they show are
   the new ones. A section or datasheet page is rendered again only when what it
   read changed (:class:`rulebook.compiler.emit.site.to_pages.PageMemo`: what each page reads
   is noted while it is rendered; a prose edit renders its own section's page, a
   data edit the pages showing the edited declaration or a result that changed).
   Source highlighting and compiled templates
   (the pages' and the theme's) are remembered too. The garbage collector is off
   during a rebuild.
3. The Markdown tree of ``next/`` is compared with the served one file by file;
   only files whose bytes differ are copied over (so unchanged pages keep
   their modification times). MkDocs then runs **in this process** (imports,
   theme and Markdown extensions are loaded once) as a ``dirty`` build: it
   renders only the pages whose Markdown is newer than their HTML. That is the
   slow part of a full build (every page through Python-Markdown), cut to the
   edited pages. The changed pages open in a browser are rendered first, in a
   build of their own, and published at once; then the other changed pages (as
   Hugo's "fast render" does, but every changed page is rendered). When the
   glossary include or ``mkdocs.yml`` change, every page depends on them and all
   are rendered. The HTML gets the same finishing as a build
   (:func:`rulebook.compiler.emit.site.to_pages.finish_site`).
4. Every HTML page served gets a small script that listens on
   ``/__rulebook__/events?v=…&page=…`` (Server-Sent Events), naming the page and
   the site version it shows: the page counts as open while it listens, and the
   stream announces a newer version only once that page is stale (it changed,
   a file it names changed, such as its script or data, or every page did).
   When only the page's own HTML changed, the script fetches it and puts its
   content in place, as Material's instant navigation does (no reload: the
   browser neither parses the theme's styles and scripts again nor sets up the
   whole page; the scroll position and open ``<details>`` stay); otherwise it
   reloads the page. A failed rebuild keeps the last good site,
   prints the diagnostics in the terminal and shows them, escaped, in a banner
   on every page; fixing the error removes it.

The server binds ``127.0.0.1`` unless told otherwise, serves only files under
the site folder, and stops cleanly on Ctrl-C (the watcher, the server and the
temporary folder). Its HTTP side, with its bounds (connections, event streams, how long
a request may take to arrive), is :mod:`.serve_http`; its temporary folder, and the
removal of those of serves that were killed, :mod:`.serve_work`. A rulebook folder that
is removed or replaced while served is waited for, watched again and rebuilt (:func:`watch`).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import html
import gc
import logging
import os
import posixpath
import shutil
import signal
import stat
import sys
import threading
import time
from pathlib import Path

from rulebook.rules_dsl.diagnostics import escaped, render_all

from rulebook.compiler.pipeline import driver
from rulebook.compiler.analysis import reads
from rulebook.compiler.commands import serve_http, serve_work
from rulebook.compiler.commands.serve_http import EVENTS
from rulebook.compiler.support.i18n import diagnostics_summary
from rulebook.compiler.support.i18n import tell as _
from rulebook.compiler.support.i18n import tell_n as ngettext

PARSES_REMEMBERED = 4096
"""Declarations whose parse trees a preview keeps (:func:`rulebook.rules_dsl.parser.remember_parses`)."""

_CLIENT = """<script data-rulebook-serve="%(v)d">(function(){var v=%(v)d;
function listen(v){var s=new EventSource("%(events)s?v="+v+"&page="+encodeURIComponent(location.pathname));
s.addEventListener("version",function(e){var p=e.data.split(" ");if(+p[0]===v)return;s.close();
if(p[1]==="page"&&window.document$&&window.fetch&&window.DOMParser)update();else location.reload();});}
function update(){fetch(location.href,{cache:"no-store"}).then(function(r){if(!r.ok)throw r;return r.text();}).then(function(text){
var doc=new DOMParser().parseFromString(text,"text/html"),mark=doc.querySelector("script[data-rulebook-serve]"),
box=doc.querySelector("[data-md-component=container]"),old=document.querySelector("[data-md-component=container]");
if(!mark||!box||!old||box.querySelector("script[src]")||doc.getElementById("rulebook-serve-errors"))throw 0;
var open=[].map.call(old.querySelectorAll("details"),function(d){return d.open;}),x=scrollX,y=scrollY;
["[data-md-component=header-topic]","[data-md-component=skip]","[data-md-component=announce]"].forEach(function(q){
var a=document.querySelector(q),b=doc.querySelector(q);if(a&&b)a.replaceWith(b);});
document.title=doc.title;old.replaceWith(box);box.querySelectorAll("script").forEach(function(a){
if(a.type&&!/javascript|module/.test(a.type))return;var b=document.createElement("script");
[].forEach.call(a.attributes,function(n){b.setAttribute(n.name,n.value);});b.textContent=a.textContent;a.replaceWith(b);});
var ds=box.querySelectorAll("details");if(ds.length===open.length)ds.forEach(function(d,i){d.open=open[i];});
scrollTo(x,y);requestAnimationFrame(function(){setTimeout(function(){try{
window.document$.next(document);scrollTo(x,y);listen(+mark.getAttribute("data-rulebook-serve"));}catch(e){location.reload();}},0);});
}).catch(function(){location.reload();});}
listen(v);})();</script>"""
"""The reload script: the stream is told which page this is and which version it shows,
and announces a newer version only once that page (or what it loads) changed. When only
the page's own HTML changed (``data: <version> page``), the script fetches it and puts
its content in place, as Material's instant navigation does (the container, the header's
title; its inline scripts run, data scripts stay data; once that is drawn, ``document$``
tells Material and the site's scripts to set up the new content, as a page load draws
before its scripts run), keeping the scroll position and which ``<details>`` are open;
otherwise, or if that fails (or the content loads scripts of its own), it reloads the page."""

HISTORY_KEPT = 1000
"""Versions whose changed files a preview remembers (a page older than those reloads on its next event)."""

_BANNER = """<div id="rulebook-serve-errors" role="alert" style="position:fixed;z-index:1000;left:0;right:0;bottom:0;
max-height:50vh;overflow:auto;margin:0;padding:.8em 1em;background:#3b0d0c;color:#ffdede;border-top:4px solid #ff5252;
font:13px/1.4 monospace"><strong>%s</strong><pre style="white-space:pre-wrap;margin:.5em 0 0">%s</pre></div>"""


class Preview:
    """A rulebook built into ``work`` and kept up to date by :meth:`rebuild`.

    ``site`` is the folder served; ``version`` counts the rebuilds that changed
    what a browser sees (new pages or new diagnostics); ``errors`` is the text
    of the last failed rebuild's diagnostics (empty when the last one succeeded).
    """

    def __init__(self, rulebook: Path, work: Path, log=print) -> None:
        self.rulebook = rulebook
        self.live = work / "live"
        self.next = work / "next"
        self.site = self.live / "site"
        self.version = 0
        self.errors = ""
        self.timings: dict[str, float] = {}
        self.changed: list[str] = []
        self.log = log
        self.ready = threading.Condition()
        self.templates = None  # the theme's compiled templates (to_pages.CompiledTemplates), from the first rebuild on
        self.parsed: dict[tuple[str, str], tuple] = {}  # (text, file name) → parse's answer, for the last build's files
        self.generated: tuple[bytes, str, dict[str, str]] | None = None  # last build's package: see _Remembering.generate
        self.pages = None  # the last build's section pages (to_pages.PageMemo): see _Remembering
        self.modules = None  # the last package's modules, each with what it read (to_python.ModuleMemo)
        self.json = None  # the last build's json/ and schemas/, found again in next/ (to_json.JsonMemo)
        self.theme_files: list[tuple[str, str]] | None = None  # the theme's static files (path, folder): _theme_files_once
        self.viewing: collections.Counter[str] = collections.Counter()  # pages (site paths) open in a browser: rendered first
        self.history: collections.deque[tuple[int, frozenset[str] | None]] = collections.deque(maxlen=HISTORY_KEPT)
        # (version, the site files it changed; None: every page, e.g. the diagnostics banner came or went)
        from rulebook.rules_dsl import parser

        parser.remember_parses(PARSES_REMEMBERED)  # an edited file: only the declarations that changed are parsed again

    # ------------------------------------------------------------------ building

    def build_all(self) -> bool:
        """The first build, with the site (as ``rulebook build``)."""
        t0 = time.perf_counter()
        stages = _Remembering(self)
        with reads.across_builds():
            result = driver.build(self.rulebook, self.live, site=True, stages=stages, base=None)  # a preview: the declared version
        self.parsed = stages.parsed
        if not self._report(result):
            return False
        self._warm_up()
        self.timings = {"build": time.perf_counter() - t0}
        self._publish()
        return True

    def _warm_up(self) -> None:
        """MkDocs warmed up for the first edit: the smallest page rendered again (to the same
        bytes), so the theme's page templates are compiled and its files listed now, not
        during the first rebuild (about 0.12 s)."""
        docs = self.live / "docs"
        pages = sorted((p for p in docs.rglob("*.md") if p.relative_to(docs).parts[0] != "includes"),
                       key=lambda p: (p.stat().st_size, str(p)))
        warm = [str(pages[0].relative_to(docs))] if pages else []
        if pages:
            os.utime(pages[0])
        self._render(warm, everything=False, alone=True)

    def rebuild(self) -> bool:
        """Rebuild after an edit: everything but the site into ``next/``, then the
        changed pages of the site. Returns whether the site was updated.

        The cyclic garbage collector is off meanwhile: a rebuild makes millions of objects,
        and the collections they trigger (full ones included, over every object of the
        session) cost 0.15–0.3 s an edit; they run after it instead."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._rebuild()
        finally:
            if enabled:
                gc.enable()

    def _rebuild(self) -> bool:
        t0 = time.perf_counter()
        stages = _Remembering(self)
        with reads.across_builds():
            result = driver.build(self.rulebook, self.next, site=False, stages=stages, base=None)
        self.parsed = stages.parsed
        timings = {"no-site build": time.perf_counter() - t0, **result.timings}  # its stages after it
        if not self._report(result):
            return False
        if not self.site.is_dir():  # the first build failed: this is the first site
            return self.build_all()
        t = time.perf_counter()
        changed, everything = self._sync()
        timings["sync"] = time.perf_counter() - t
        t = time.perf_counter()
        viewed = self._viewed(changed, everything)
        if viewed:  # the pages open in a browser first, published at once; then the others
            self._render(viewed, everything=False, alone=True)
            timings["viewed pages"] = time.perf_counter() - t
            self._publish(_site_files(viewed))
            t = time.perf_counter()
            changed = [rel for rel in changed if rel not in viewed]
        if changed:
            self._render(changed, everything)
        timings["pages"] = time.perf_counter() - t
        self.timings = timings
        self.changed = viewed + changed
        self._publish(None if everything else _site_files(changed))
        return True

    def _viewed(self, changed: list[str], everything: bool) -> list[str]:
        """The changed pages (relative to docs/) a browser shows now, when rendering them
        first spares it waiting for the others: not when every page is rendered anyway,
        nor when they are all the pages that changed."""
        if everything:
            return []
        with self.ready:
            open_pages = {rel for rel, n in self.viewing.items() if n > 0}
        pages = [rel for rel in changed if rel.endswith(".md")]
        viewed = [rel for rel in pages if str(Path(rel).with_suffix(".html")) in open_pages]
        return viewed if len(viewed) < len(pages) else []

    def _report(self, result) -> bool:
        """Print the diagnostics; on errors keep them for the banner and tell the browsers."""
        if result.diagnostics:
            self.log(render_all(result.diagnostics, result.sources, "text", summarize=diagnostics_summary))
        if result.ok:
            return True
        errors = [d for d in result.diagnostics if d.severity == "error"]
        self.errors = render_all(errors, result.sources, "text", summarize=diagnostics_summary) or _("the build failed")
        self.log(_("the build failed; the last good site is still served"))
        self._bump()
        return False

    def _publish(self, files: frozenset[str] | None = None) -> None:
        """A new version of the site: ``files`` (site paths) changed, or every page (None)."""
        if self.errors:  # the banner goes: every page shows it
            files = None
        self.errors = ""
        self._bump(files)

    def _bump(self, files: frozenset[str] | None = None) -> None:
        with self.ready:
            self.version += 1
            self.history.append((self.version, files))
            self.ready.notify_all()

    def update(self, page: str, shown: int) -> str | None:
        """How ``page`` (a site path), as served at version ``shown``, is out of date: None
        when it is not; ``"page"`` when only its own HTML changed since, which the reload
        script puts in place without reloading (:data:`_CLIENT`); ``"reload"`` when a file
        it names changed (an asset: its script, its data), every page did, or ``shown`` is
        older than the kept history. Call with :attr:`ready` held."""
        if shown >= self.version:
            return None
        if not self.history or self.history[0][0] > shown + 1:  # older than the kept history
            return "reload"
        assets: set[str] = set()
        changed = False
        for version, files in self.history:
            if version <= shown:
                continue
            if files is None:
                return "reload"
            changed = changed or page in files
            assets.update(f for f in files if not f.endswith(".html"))
        if assets:
            try:
                text = (self.site / page).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return "reload"
            if any(posixpath.basename(f) in text for f in assets):
                return "reload"
        return "page" if changed else None

    def _sync(self) -> tuple[list[str], bool]:
        """Copy what differs from ``next/`` into ``live/`` (docs/, overrides/, mkdocs.yml,
        json/, schemas/, python/); remove what is gone. Returns the changed Markdown
        pages (relative to docs/) and whether every page must be rendered."""
        changed: list[str] = []
        everything = False
        for rel in _files(self.next, skip=("site",)):
            new, old = self.next / rel, self.live / rel
            data = new.read_bytes()
            if old.is_file() and old.read_bytes() == data:
                continue
            old.parent.mkdir(parents=True, exist_ok=True)
            tmp = old.with_name(old.name + ".serve-tmp")
            tmp.write_bytes(data)
            os.replace(tmp, old)
            if rel.startswith("docs/"):
                page = rel.removeprefix("docs/")
                if page.startswith("includes/"):
                    everything = True
                changed.append(page)
            elif rel == "mkdocs.yml" or rel.startswith("overrides/"):
                everything = True
                changed.append(rel)
        for rel in _files(self.live, skip=("site",)):
            if not (self.next / rel).exists():
                (self.live / rel).unlink()
                if rel.startswith("docs/") or rel.startswith("overrides/"):
                    everything = True
                    changed.append(rel)
        return sorted(changed), everything

    def _render(self, changed: list[str], everything: bool, alone: bool = False) -> None:
        """MkDocs in this process: a dirty build (only pages newer than their HTML; with
        ``alone``, only the pages of ``changed`` among them), or a full one when every page
        depends on what changed; then the build's finishing."""
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        from rulebook.compiler.emit.site import to_pages

        if self.templates is None:
            self.templates = to_pages.CompiledTemplates()
        logging.getLogger("mkdocs").setLevel(logging.ERROR)
        config = load_config(config_file=str(self.live / "mkdocs.yml"), site_dir=str(self.site))
        theme_env = config.theme.get_env

        def get_env():  # the theme's templates compiled once per session, not once per edit
            env = theme_env()
            env.bytecode_cache = self.templates
            return env

        config.theme.get_env = get_env
        if everything:
            self.theme_files = None
            for page in self.live.joinpath("docs").rglob("*.md"):
                os.utime(page)
        with self._theme_files_once(), _only_pages(set(changed) if alone else None):
            build(config, dirty=True)
        pages = None if everything else [self.site / Path(p).with_suffix(".html") for p in changed if p.endswith(".md")]
        to_pages.finish_site(self.site, pages)

    @contextlib.contextmanager
    def _theme_files_once(self):
        """During one MkDocs build, the theme's static files (found by listing and filtering
        every file of the theme's folders, the bulk of a dirty build's fixed cost) are those
        the first build found, less any a page of docs/ now shadows: the theme does not change
        during a session, and an edit that adds or removes a file of docs/ or overrides/ (or
        changes mkdocs.yml) clears them (``everything``)."""
        from mkdocs.structure.files import File, Files

        add = Files.add_files_from_theme
        preview = self

        def add_files_from_theme(files, env, config) -> None:
            if preview.theme_files is None:
                before = {f.src_uri for f in files}
                add(files, env, config)
                preview.theme_files = [(f.src_uri, f.src_dir) for f in files if f.src_uri not in before]
                return
            for path, folder in preview.theme_files:
                if files.get_file_from_path(path) is None:
                    files.append(File(path, folder, config.site_dir, config.use_directory_urls))

        Files.add_files_from_theme = add_files_from_theme
        try:
            yield
        finally:
            Files.add_files_from_theme = add

    # ------------------------------------------------------------------ serving

    def page(self, data: bytes) -> bytes:
        """An HTML page as served: with the reload script and, after a failed rebuild,
        the diagnostics banner."""
        extra = (_CLIENT % {"v": self.version, "events": EVENTS}).encode()
        if self.errors:
            extra += (_BANNER % (html.escape("rulebook serve: the last edit has errors; this is the last good site"),
                                 html.escape(self.errors))).encode()
        at = data.rfind(b"</body>")
        return data + extra if at < 0 else data[:at] + extra + data[at:]


class _Remembering(driver.Stages):
    """The stages of one build of a :class:`Preview` (:class:`rulebook.compiler.pipeline.driver.Stages`),
    answering from what the previous build kept when what a stage reads is as it was."""

    def __init__(self, preview: Preview) -> None:
        from rulebook.compiler.emit.site import to_pages

        self.preview = preview
        self.parsed: dict[tuple[str, str], tuple] = {}  # this build's files: what the next build may reuse
        if preview.pages is None:
            preview.pages = to_pages.PageMemo()
        preview.pages.program = None  # no page is reused until generate() has the digest of this build's program
        preview.pages.decls, preview.pages.examples = {}, []  # nor are the declarations' and examples' digests known
        self.pages = preview.pages
        if preview.modules is None:
            from rulebook.compiler.emit.python import to_python

            preview.modules = to_python.ModuleMemo()
        self.modules = preview.modules
        if preview.json is None:
            from rulebook.compiler.emit.data import to_json

            preview.json = to_json.JsonMemo(preview.next)
        self.json = preview.json

    def parse(self, text: str, filename: str) -> tuple:
        """A file whose text the previous build parsed is not parsed again:
        :func:`rulebook.rules_dsl.parser.parse` is a pure function of the text and the file
        name, and its nodes are immutable. Only the files of this build are kept."""
        key = (text, filename)
        module, diags = self.preview.parsed[key] if key in self.preview.parsed else super().parse(text, filename)
        self.parsed[key] = (module, diags)
        return module, list(diags)

    def listings(self, sources: dict[str, str]) -> None:
        """No worker highlights the listings: the page memo keeps each listing while its file is unchanged."""
        return None

    def odds_ahead(self, package) -> None:
        """No worker for the odds either: the odds tables are remembered from build to build."""
        return None

    def balance_ahead(self, program, package) -> None:
        """No worker for the designers' balance: computed in this process, whose distributions,
        kept by procedure across builds, a worker would lose with each edit."""
        return None

    def generate(self, program) -> dict[str, str]:
        """The Python package is not generated again when what
        :func:`rulebook.compiler.emit.python.to_python.generate` reads — the ``rulebook`` declaration, the
        declarations and the worked examples, source positions included — pickles (without the
        memo, so sharing does not matter) to the same bytes as in the previous build: equal values
        of the same types, so the same code. The one thing it reads beside them is the sources'
        content hash (``CONTENT_HASH`` of ``__init__.py``, :func:`rulebook.compiler.emit.data.to_json.content_hash`):
        the kept package gets the new one. A prose edit that moves no declaration is such an
        edit. After any other edit, only the modules whose reads changed are generated again
        (:class:`rulebook.compiler.emit.python.to_python.ModuleMemo`: a data edit generates ``data.py`` and
        ``__init__.py``); an IR that does not pickle generates the package. Each
        declaration and worked example is pickled on its own: the digest of its bytes is what the
        pages that read it compare (:class:`rulebook.compiler.emit.site.to_pages.PageMemo`) and what the
        modules that read it compare, and the pages are reused only once the program is known to pickle."""
        import hashlib

        from rulebook.compiler.emit.data.to_json import content_hash
        from rulebook.compiler.support.memo import pickled

        # the published versions carry the content hash, which the package reads only through _with_hash below
        rulebook = program.rulebook and dataclasses.replace(program.rulebook, releases=tuple(
            {k: v for k, v in release.items() if k != "content_hash"} for release in program.rulebook.releases))
        parts = [pickled(value) for value in (rulebook, *program.decls.items(), *program.examples)]
        if None in parts:  # a value that does not pickle (no memo: the bytes depend on the values alone)
            return super().generate(program)
        key, digest = b"".join(parts), content_hash(program)  # pickles end with STOP: the parts can be told apart
        self.pages.program = hashlib.sha256(key).digest()
        digests = [hashlib.sha256(part).digest() for part in parts[1:]]
        self.pages.decls = dict(zip(program.decls, digests))
        self.pages.examples = digests[len(program.decls):]
        files = _with_hash(self.preview.generated, key, digest)
        if files is None:
            files = self.modules.generate(program, self.pages.decls, self.pages.examples, hashlib.sha256(parts[0]).digest())
        self.preview.generated = (key, digest, files)
        return dict(files)


def _with_hash(generated: tuple[bytes, str, dict[str, str]] | None, key: bytes, digest: str) -> dict[str, str] | None:
    """The kept package (``generated``: its pickled input, content hash and files) if it was
    generated from ``key``, with ``digest`` for its content hash; None when it must be
    generated (another input, or the old hash not found exactly once, in ``__init__.py``)."""
    if generated is None or generated[0] != key:
        return None
    old, files = generated[1], generated[2]
    if old == digest:
        return files
    found = [rel for rel, text in files.items() if old in text]
    if len(found) != 1 or not found[0].endswith("/__init__.py") or files[found[0]].count(old) != 1:
        return None
    return {**files, found[0]: files[found[0]].replace(old, digest)}


@contextlib.contextmanager
def _only_pages(only: set[str] | None):
    """During one MkDocs dirty build, the pages not in ``only`` (paths relative to docs/)
    count as unmodified: they are rendered by the next build. Static files are unaffected."""
    if only is None:
        yield
        return
    from mkdocs.structure.files import File

    is_modified = File.is_modified

    def modified(file) -> bool:
        return is_modified(file) and (not file.is_documentation_page() or file.src_uri in only)

    File.is_modified = modified
    try:
        yield
    finally:
        File.is_modified = is_modified


def _site_files(changed: list[str]) -> frozenset[str]:
    """The site paths of changed files of docs/ (a page's HTML, a static file as it is)."""
    return frozenset(str(Path(rel).with_suffix(".html")) if rel.endswith(".md") else rel for rel in changed)


def _files(folder: Path, skip: tuple[str, ...]) -> list[str]:
    if not folder.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = os.path.relpath(dirpath, folder)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            out.append(posixpath.normpath(posixpath.join(rel_dir.replace(os.sep, "/"), name)))
    return sorted(out)


WATCH_TIMEOUT_MS = 200
"""How long the watcher waits in Rust before it reports "nothing yet": its first report says it
is watching; later ones only let it notice ``stopping``."""


def fingerprint(rulebook: Path) -> str:
    """SHA-256 of the names and bytes of every ``*.rules`` file the watcher would report
    (under the folder, or the one file): taken before the first build, compared once the
    watcher is ready, so an edit saved in between is not lost."""
    import hashlib

    folder = _watched_folder(rulebook)
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.rules")):
        try:
            data = path.read_bytes()
        except OSError:  # removed meanwhile, or unreadable: its absence is what is compared
            continue
        name = os.fsencode(path.relative_to(folder))
        digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def start_watching(preview: Preview, stopping: threading.Event, since: str, timeout: float = 60.0) -> threading.Thread:
    """Start the watcher thread and return once it watches: from then on every edit is
    seen. An edit saved since ``since`` (a :func:`fingerprint` taken before the first
    build) is rebuilt at once."""
    ready = threading.Event()
    watcher = threading.Thread(target=watch, args=(preview, stopping, ready, since), name="rulebook-watch", daemon=True)
    watcher.start()
    if not ready.wait(timeout):
        preview.log(_("warning: the watcher is slow to start; edits saved meanwhile are rebuilt when it does"))
    return watcher


def watch(preview: Preview, stopping: threading.Event, ready: threading.Event | None = None, since: str | None = None) -> None:
    """Rebuild on every batch of changes to ``*.rules`` files, until ``stopping``.

    ``watchfiles`` sets up its (inotify) watch when the iteration starts, and yields an
    empty batch when nothing changed for :data:`WATCH_TIMEOUT_MS`: its first yield, empty
    or not, proves the watch exists, so ``ready`` is set then; if the rules are not those
    of fingerprint ``since`` (edited while the first build ran, or before the watch
    existed), that first yield rebuilds even when it is empty.

    A watch dies with its folder: when the rulebook's folder is removed or replaced (``rm -rf``
    and a copy put back, a ``git checkout`` of its parent, a rename) — its own removal is
    reported, or the folder at its path is another one or none — the watcher says so, waits
    for a folder to be there again (:func:`_wait_for`), watches it, says it is back and
    rebuilds. Meanwhile the last good site is served."""
    import watchfiles

    folder = _watched_folder(preview.rulebook).absolute()
    root = os.path.normpath(folder)
    shown = escaped(str(folder))

    def rules_only(change, path: str) -> bool:
        return path.endswith(".rules") or os.path.normpath(path) == root

    back = False  # the folder came back: rebuild once it is watched again
    refused = ""  # the system's last refusal to watch
    while not stopping.is_set():
        identity = _identity(folder)
        if identity is None:
            if ready is not None:
                ready.set()  # nothing to watch until it is back
            preview.log(_("%(rulebook)s is gone; the last good site is still served; waiting for it to be back") % {"rulebook": shown})
            if not _wait_for(folder, stopping):
                return
            back = True
            continue
        first = True
        try:
            for changes in watchfiles.watch(folder, watch_filter=rules_only, debounce=400, step=30, stop_event=stopping,
                                            rust_timeout=WATCH_TIMEOUT_MS, yield_on_timeout=True, raise_interrupt=False):
                missed = first and since is not None and fingerprint(preview.rulebook) != since
                if first:
                    first, since = False, None
                    if ready is not None:
                        ready.set()
                if _identity(folder) != identity or any(os.path.normpath(p) == root for _, p in changes):
                    back = True  # removed or replaced: watch what is there now, or wait for it
                    break
                if back:
                    back = False
                    preview.log(_("%(rulebook)s is back; rebuilding…") % {"rulebook": shown})
                    _rebuild_and_log(preview)
                    continue
                if not changes and not missed:
                    continue
                names = sorted({escaped(os.path.relpath(p, folder)) for _, p in changes})
                preview.log(_("changed: %(files)s; rebuilding…") % {"files": ", ".join(names) or _("the rules, while the site was built")})
                _rebuild_and_log(preview)
            else:
                return  # stopping
        except OSError as exc:  # gone between the look and the watch, or the system refused a watch
            if _identity(folder) is not None:
                if str(exc) != refused:  # said once, not every try
                    refused = str(exc)
                    preview.log(_("warning: cannot watch %(rulebook)s: %(reason)s; trying again every %(seconds)s s")
                                % {"rulebook": shown, "reason": escaped(refused), "seconds": f"{WATCH_RETRY_SECONDS:g}"})
                if stopping.wait(WATCH_RETRY_SECONDS):
                    return
            back = True


def _watched_folder(rulebook: Path) -> Path:
    """The folder the watcher watches: the rulebook's folder, or the folder of a rulebook file."""
    if rulebook.is_dir():
        return rulebook
    return rulebook.parent if rulebook.is_file() or rulebook.suffix == ".rules" else rulebook


def _identity(folder: Path) -> tuple[int, int] | None:
    """Which folder is at ``folder`` now (device, inode); None when there is none."""
    try:
        info = os.stat(folder)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


WATCH_RETRY_SECONDS = 2.0
"""How often a watch the system refused is tried again."""

BACK_POLL_SECONDS = 0.25
"""How often a removed rulebook folder is looked for."""


def _wait_for(folder: Path, stopping: threading.Event) -> bool:
    """Wait until ``folder`` is a folder again (True) or ``stopping`` (False)."""
    while not stopping.wait(BACK_POLL_SECONDS):
        if _identity(folder) is not None:
            return True
    return False


def _rebuild_and_log(preview: Preview) -> None:
    t0 = time.perf_counter()
    try:
        ok = preview.rebuild()
    except Exception as exc:  # a bug in a stage: keep serving the last good site
        preview.errors = f"internal error: {type(exc).__name__}: {exc}"
        preview.log(preview.errors)
        preview._bump()
        return
    if ok:
        parts = ", ".join(f"{k} {v:.2f}s" for k, v in preview.timings.items())
        files = len(preview.changed)
        preview.log(ngettext("updated %(num)d file in %(seconds)ss (%(parts)s); reloading",
                             "updated %(num)d files in %(seconds)ss (%(parts)s); reloading", files)
                    % {"num": files, "seconds": f"{time.perf_counter() - t0:.2f}", "parts": parts})


def main(args) -> int:

    rulebook = (args.rulebook or driver.DEFAULT_RULEBOOK)
    if not rulebook.exists():
        print(_("error: no such file or folder: %(path)s") % {"path": escaped(str(rulebook))}, file=sys.stderr)
        return 1
    stopping = threading.Event()

    def stop(signum, frame):  # SIGTERM stops like Ctrl-C: the temporary folder is removed
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    with serve_work.claimed(log) as work:  # the folders of killed serves are removed first
        preview = Preview(rulebook, work, log=log)
        preview.log(_("building %(rulebook)s…") % {"rulebook": escaped(str(rulebook))})
        since = fingerprint(rulebook)  # an edit saved during the first build is rebuilt once the watcher is ready
        if preview.build_all():
            preview.log(_("built in %(seconds)ss") % {"seconds": f"{preview.timings['build']:.2f}"})
        else:
            preview.log(_("fix the errors: the site is built as soon as the rulebook checks"))
        try:
            server = serve_http.make_server(preview, stopping, args.host, args.port)
        except (OSError, OverflowError) as exc:  # in use, not this machine's, or no port at all
            print(_("error: cannot listen on %(address)s: %(reason)s")
                  % {"address": f"{escaped(str(args.host))}:{args.port}", "reason": escaped(str(getattr(exc, "strerror", None) or exc))},
                  file=sys.stderr)
            return 2 if isinstance(exc, OverflowError) else 1
        host, port = server.server_address[:2]
        watcher = start_watching(preview, stopping, since)
        preview.log(_("serving %(url)s — edit the .rules files; Ctrl-C stops") % {"url": f"http://{escaped(str(host))}:{port}/"})
        try:
            server.serve_forever(poll_interval=0.25)
        except KeyboardInterrupt:
            preview.log(_("stopping"))
        finally:
            stopping.set()
            with preview.ready:
                preview.ready.notify_all()
            server.server_close()
            watcher.join(timeout=5)
            if watcher.is_alive():  # Ctrl-C during a rebuild: the rebuild is abandoned, not awaited
                preview.log(_("stopped during a rebuild"))
                shutil.rmtree(work, ignore_errors=True)
                os._exit(0)
    return 0
