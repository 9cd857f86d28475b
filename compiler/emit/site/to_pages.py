"""Checked program (:class:`rulebook.compiler.ir.Program`) → Markdown pages, a search index and mkdocs.yml.

Reads only the IR, the generated resolver package (already imported by the
driver; it evaluates the worked examples) and the odds tables the resolvers
computed (the ``"tables"`` of ``json/odds.json``, handed over in memory). Writes
``docs/`` (the pages, ``assets/search-index.js``) and ``mkdocs.yml`` under the
output folder through the Jinja2 templates of ``site/``.

The pages, for players first: the home page (one tap to the datasheets, the
special rules A–Z, the glossary and the quick reference), one page per section
(with each ``army`` list drawn where it is declared, ``army.md.j2``: budget, cost
formula, options, choices, limits, a link to its builder page),
datasheet pages (one card per catalog entry), an index of every datasheet that
filters in the browser, the special rules A–Z, a quick-reference sheet, and,
for designers, the front matter, the data for tools and the rules source of
every file (not in the navigation; finished HTML, marked by
:func:`rulebook.compiler.emit.site.markdown.verbatim` so that Python-Markdown never parses
it: :mod:`rulebook.compiler.emit.site.mkdocs_raw`). What only designers need — declaration
names, types, the rules source, test-style expectations — sits in ``.rb-tech``
blocks that the technical-details switch shows.

Every phrase the pages, the theme overrides and ``rulebook.js`` show, the page
file names and the number notation are in the rulebook's ``lang``
(:mod:`rulebook.compiler.i18n`: ``_()`` here, ``_()``/``ngettext()`` in the templates,
``extra.rb`` in mkdocs.yml for the overrides).

Every link is made by :meth:`PageBuilder.url`, the one function that knows
which page holds what: it writes the final ``page.html#anchor`` (Markdown
never rewrites a link, so raw HTML and Markdown links are the same), and every
anchor is given by the page builder, unique on its page.

Entry points: :func:`write_docs` (the pages; with a :class:`PageMemo`, as
``rulebook serve`` passes, a section or datasheet page whose inputs did not
change since the previous build is not rendered again), :func:`run_mkdocs` (the
HTML site, ``mkdocs build --strict``, then the shipped files pruned) and
:func:`write_bundle_index` (the page linking several rulebooks' sites).

Templates receive data only: every text from the rules is escaped by
:mod:`rulebook.compiler.emit.site.markdown` before it reaches a template, and no rules text is
ever used as template source.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import unicodedata
import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import jinja2

from rulebook.compiler.support import i18n, package_data
from rulebook.compiler import ir
from rulebook.compiler.emit.site import to_army_page, to_changelog_page
from rulebook.compiler.support.ahead import Ahead
from rulebook.compiler.analysis.evaluations import evaluated
from rulebook.compiler.support.i18n import N_, _, ngettext
from rulebook.compiler.emit.site.markdown import (
    abbr_term,
    abbr_text,
    anchor,
    attr,
    bar_width,
    esc,
    exact_probability,
    highlight,
    highlight_lines,
    inlines,
    link,
    number,
    percent,
    percent_sign,
    plain,
    verbatim,
)
from rulebook.compiler.support.memo import ALL, NotedMapping, pickled
from rulebook.compiler.emit.site.readable import WORD, Readable, fold, looks_like_code, quoted
from rulebook.compiler.ir.types import T

SITE_DIR = package_data.folder("site")
# declaration class → (block kind in the templates, what the page calls it: a message id, see rulebook.compiler.i18n)
BLOCK_KINDS: dict[type, tuple[str, str]] = {
    ir.Table: ("table", N_("Table")), ir.Catalog: ("catalog", N_("Catalog")), ir.Enum: ("enum", N_("Enumeration")),
    ir.Record: ("record", N_("Record")), ir.Rule: ("rule", N_("Special rule")), ir.Procedure: ("procedure", N_("Procedure")),
    ir.Die: ("die", N_("Die")), ir.Bag: ("bag", N_("Bag")), ir.Term: ("term", N_("Term")), ir.Odds: ("odds", N_("Probabilities")),
    ir.Const: ("const", N_("Constant")), ir.Army: ("army", N_("Army list")),
}
STATUS_BADGES = {"deferred": (N_("Deferred"), "rb-badge--deferred"), "not_playable": (N_("Not playable"), "rb-badge--not-playable")}
PAGE_NAME_LIMIT = 80  # characters of a page's file name before ".md" (file systems allow 255 bytes)
INDEX_PAGE = "index.md"
# the file names (without ".md") of the site's own pages, and the prefixes of datasheet and
# source pages: message ids, so that an English site has English addresses (rulebook.compiler.i18n)
PAGE_FILES = {
    "card_index": N_("datasheet-index"), "rules": N_("special-rules-a-z"), "quick": N_("quick-reference"),
    "design": N_("for-designers"), "data": N_("data-for-tools"),
    "glossary": N_("glossary"),  # the glossary terms declared outside any section (a file without `section`)
}
PAGE_PREFIXES = {"cards": N_("datasheets"), "source": N_("source")}
SEARCH_SCRIPT = "assets/search-index.js"
NAV = {
    "home": N_("Home"), "cards": N_("Datasheets"), "card_index": N_("Datasheet index"), "rules": N_("Special rules A–Z"),
    "quick": N_("Quick reference"), "manual": N_("Manual"), "design": N_("For designers"), "data": N_("Data for tools"),
    "source": N_("Source code"),
}
# search weights: what a player looks for first (a datasheet before a rule or term of the same name)
WEIGHT_DATASHEET, WEIGHT_ENTITY, WEIGHT_PAGE, WEIGHT_HEADING, WEIGHT_DECL = 3.2, 3, 2.5, 1.5, 1
GLOSSARY_KIND = N_("Glossary")
SNIPPET = 600  # characters of text kept per search entry beyond its title
ABBREVIATION = re.compile(r"^[A-ZÁÉÍÓÚÑ]{1,4}$")


class SiteError(Exception):
    """A declaration cannot be laid out on the site."""


def slug(text: str, limit: int = PAGE_NAME_LIMIT) -> str:
    """ASCII, lower-case, hyphen-separated, at most ``limit`` characters (page file names)."""
    plain_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain_text).strip("-")[:limit].rstrip("-") or "x"


def heading_id(text: str) -> str:
    """The anchor of a prose heading, as Python-Markdown's ``toc`` would make it (``4. Distancias`` → ``4-distancias``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()) or "h"


def round_half_up(x: Fraction) -> int:
    """The nearest integer; halves go up (110,5 → 111)."""
    return math.floor(x + Fraction(1, 2))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def _yaml_json(obj, **kw) -> str:
    """json.dumps for YAML: no surrogate pairs (YAML would decode them wrongly)."""
    kw.setdefault("ensure_ascii", False)
    return json.dumps(obj, **kw)


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the process, by name and source checksum
    (Jinja checks it), so the environment of each build (``rulebook serve``) or
    language does not compile the same templates again."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


_TEMPLATE_CODE = CompiledTemplates()


def environment(lang: i18n.Language | None = None) -> jinja2.Environment:
    """The templates' environment; their phrases (``_()``, ``{% trans %}``) in ``lang`` (the current language by default)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(SITE_DIR / "templates"), str(SITE_DIR)]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        bytecode_cache=_TEMPLATE_CODE,
    )
    env.install_gettext_translations((lang or i18n.current()).translations, newstyle=True)  # type: ignore[attr-defined]
    env.policies["json.dumps_function"] = _yaml_json
    env.filters["attr"] = attr
    env.filters["verbatim"] = verbatim
    return env


def _badge(status: str) -> dict | None:
    badge = STATUS_BADGES.get(status)
    return {"text": _(badge[0]), "cls": badge[1]} if badge else None


def _sentences(text: str) -> list[str]:
    """A text cut after each ``.``, ``:``, ``!`` or ``?`` that a space follows."""
    return [s for s in re.split(r"(?<=[.:!?])\s+", text.strip()) if s]


def _sentence_key(sentence: str) -> str:
    """A sentence compared with the page's prose: spacing, case and final punctuation aside."""
    return " ".join(sentence.split()).casefold().rstrip(".:!? ")


def _header_source(source: str) -> str:
    """The head of a declaration's source: its lines up to the opening ``{`` (a procedure's signature)."""
    cut = -1
    for _ in range(9):  # only the first eight lines are read: split no more (a catalog's source is long)
        cut = source.find("\n", cut + 1)
        if cut < 0:
            break
    lines = (source if cut < 0 else source[:cut + 1]).splitlines()
    for i, line in enumerate(lines[:8]):
        if line.rstrip().endswith("{"):
            return "\n".join(lines[:i] + [line.rstrip()[:-1].rstrip()])
    return lines[0] if lines else ""


UNKNOWN = object()
"""A query's answer when it cannot be known (the dependency never matches: the page is rendered again)."""


class _Log:
    """What the page being rendered reads (``rulebook serve``'s :class:`PageMemo`): ``deps`` maps
    each dependency to its digest when known at once, None until asked (see
    :meth:`PageBuilder.dependency`); ``deps`` is None while no page is noted. A dependency is a
    key looked up in one of the page builder's mappings (``("catalogs", name)``), a whole mapping
    (``("catalogs", ALL)``: the page iterated it), or a query's answer (``("example", index)``,
    ``("spelling", words)``: see :data:`QUERIES`) — what a page shows that the builder works
    out from more of the program than the page should depend on."""

    __slots__ = ("deps",)

    def __init__(self) -> None:
        self.deps: dict[tuple, bytes | None] | None = None

    def note(self, source: str, key: Any) -> None:
        """A key ``key`` of the mapping ``source`` read (:data:`rulebook.compiler.support.memo.ALL`: all of it)."""
        if self.deps is not None:
            self.deps.setdefault((source, key), None)

    def query(self, source: str, key: Any, compute):
        """``compute()``, noted as dependency ``(source, key)`` with the digest of its answer
        (what it reads meanwhile is not noted: the answer is)."""
        deps = self.deps
        if deps is None:
            return compute()
        self.deps = None
        try:
            answer = compute()
        finally:
            self.deps = deps
        deps[(source, key)] = _digest(answer)
        return answer


class _Reading(Readable):
    """:class:`Readable` whose answers that read the whole rulebook (a name's spelling in
    all of its prose, a value among all enumerations' members) are noted as queries."""

    def __init__(self, program: ir.Program, log: _Log) -> None:
        super().__init__(program)
        self.log = log
        self.known: dict[tuple, Any] = {}  # ("spelling", words) / ("word", word) → the answer (kept across builds of the same text)
        self.previous: tuple[str, dict[tuple, Any]] | None = None  # another text and its answers: see _unchanged
        self._near_edit: set[str] | None = None
        self._scans = 0  # look-ups answered by scanning the text (see _words)

    def _words(self):
        """The text's words, indexed (:class:`rulebook.compiler.emit.site.readable._WordIndex`), or, for the first
        :data:`SCANS` look-ups after an edit (when most answers are the previous text's), a scan of
        the text for each: indexing it costs several scans."""
        if self._index is None and self.previous is not None and self._scans < SCANS:
            self._scans += 1
            return _Scan(*self._text())
        return super()._words()

    def corpus(self) -> bytes | None:
        """The digest of the text that spellings are taken from (the same text, the same spellings)."""
        return _digest(self._text())

    def spelling(self, words: tuple[str, ...]) -> str | None:
        return self.log.query("spelling", words, lambda: self._known("spelling", words, super(_Reading, self).spelling))

    def word(self, word: str) -> str:
        return self.log.query("word", word, lambda: self._known("word", word, super(_Reading, self).word))

    def _known(self, query: str, arg: Any, answer) -> Any:
        key = (query, arg)
        if key not in self.known:
            old = self.previous[1].get(key, UNKNOWN) if self.previous is not None else UNKNOWN
            self.known[key] = old if old is not UNKNOWN and self._unchanged(query, arg) else answer(arg)
        return self.known[key]

    def _unchanged(self, query: str, arg: Any) -> bool:
        """Whether the answer to a spelling query is the same in the ``previous`` text as in this
        one, because the words it looks for are not written where the texts differ.

        A spelling counts the runs of words (``\\w+`` in the folded text) that match a phrase,
        left to right without overlap (:class:`rulebook.compiler.emit.site.readable._WordIndex`); a word
        with no spelling of its own takes that of the words beginning with its stem. Outside the
        span where the two texts differ (their longest common beginning and end) the words and
        what lies between them are the same. So when no word of the phrase is among the words of
        that span in either text, nor the word just before it or just after it (a run across the
        span joins those two), every run that matches is outside it, the same in both texts, and
        so are the counts; for a stem, when no word of the span, or next to it, begins with it.
        Phrases of words that are not plain words are looked up by a scan: never reused."""
        near = self._words_near_edit()
        if query == "spelling":
            words = [fold(w) for w in arg]
            return bool(words) and all(WORD.fullmatch(w) and w not in near for w in words)
        if query == "word":
            folded = fold(arg)
            if not WORD.fullmatch(folded) or folded in near:
                return False
            stem = folded[: max(4, len(arg) - 2)]
            return len(stem) < 4 or ("_" not in stem and not any(w.startswith(stem) for w in near))
        return False

    def _words_near_edit(self) -> set[str]:
        """The folded words of the span where the previous text and this one differ, and the word on each side, in both texts."""
        if self._near_edit is None:
            assert self.previous is not None
            old, new = self.previous[0], self._text()[0]
            start = _common_length(old, new, len(old), len(new), 0)
            same_end = _common_length(old, new, len(old), len(new), min(len(old), len(new)) - start)
            self._near_edit = _words_around(fold(old), start, len(old) - same_end) | _words_around(self._text()[1], start, len(new) - same_end)
        return self._near_edit

    def entry_title(self, catalog: str, ident: str) -> str:
        return self.log.query("entry_title", (catalog, ident), lambda: super(_Reading, self).entry_title(catalog, ident))

    def _title(self, name: str) -> str:
        return self.log.query("title", name, lambda: super(_Reading, self)._title(name))

    def value(self, v: Any) -> str:
        if isinstance(v, str):
            return self.log.query("value", v, lambda: super(_Reading, self).value(v))
        return super().value(v)


SCANS = 64


class _Scan:
    """What :class:`rulebook.compiler.emit.site.readable._WordIndex` finds, by scanning the folded text for the
    expressions it stands for (``(?<!\\w)w1\\s+w2…(?!\\w)`` for a phrase, ``(?<!\\w)stem[^\\W_]*`` for a
    stem), counting the original text's spellings: as ``re.finditer`` finds them (left to right,
    without overlap), trying only where the first word is written (``str.find``)."""

    def __init__(self, corpus: str, folded: str) -> None:
        self.corpus, self.folded = corpus, folded

    def phrase(self, words: list[str]) -> Counter:
        return self._found(words[0] if words else "", r"\s+".join(re.escape(w) for w in words) + r"(?!\w)")

    def kin(self, stem: str) -> Counter:
        return self._found(stem, re.escape(stem) + r"[^\W_]*")

    def _found(self, first: str, rest: str) -> Counter:
        """The original spellings of what ``(?<!\\w)`` + ``rest`` matches, each match starting with ``first``."""
        found: Counter = Counter()
        if not first:  # nothing to look for first: every position
            return Counter(self.corpus[m.start():m.end()] for m in re.finditer(r"(?<!\w)" + rest, self.folded))
        pattern, folded = re.compile(rest), self.folded
        at = folded.find(first)
        while at >= 0:
            m = None if at > 0 and _WORD_CHAR.match(folded, at - 1) else pattern.match(folded, at)
            if m is not None:
                found[self.corpus[at:m.end()]] += 1
                at = folded.find(first, max(m.end(), at + 1))
            else:
                at = folded.find(first, at + 1)
        return found


def _common_length(a: str, b: str, len_a: int, len_b: int, limit: int) -> int:
    """With ``limit`` 0: the length of the longest common beginning of ``a`` and ``b``; else the
    length, up to ``limit``, of their longest common end. (A binary search over slices: the
    comparisons run in C.)"""
    if limit == 0:
        low, high = 0, min(len_a, len_b)
        while low < high:
            mid = (low + high + 1) // 2
            if a[:mid] == b[:mid]:
                low = mid
            else:
                high = mid - 1
        return low
    low, high = 0, max(limit, 0)
    while low < high:
        mid = (low + high + 1) // 2
        if a[len_a - mid:] == b[len_b - mid:]:
            low = mid
        else:
            high = mid - 1
    return low


_WORD_CHAR = re.compile(r"\w")


def _words_around(folded: str, start: int, end: int) -> set[str]:
    """The words (``\\w+``) of ``folded`` that overlap or touch ``[start, end)``, and the word before and after those."""
    a = start
    for word in (True, False, True):  # the word touching the span, the gap before it, the word before
        while a > 0 and bool(_WORD_CHAR.match(folded, a - 1)) == word:
            a -= 1
    b = end
    for word in (True, False, True):
        while b < len(folded) and bool(_WORD_CHAR.match(folded, b)) == word:
            b += 1
    return set(WORD.findall(folded, a, b))


def _digest(value: Any) -> bytes | None:
    """The SHA-256 of ``value`` pickled without the memo (:func:`pickled`), a text as itself
    (marked apart); None when it does not pickle."""
    import hashlib

    if type(value) is str:
        return b"s" + value.encode("utf-8", "surrogatepass")
    if value is None:
        return b"n"
    data = pickled(value)
    return None if data is None else hashlib.sha256(data).digest()


class PageBuilder:
    """Turns the program into page view-models (escaped strings and lists), the page map and the search index."""

    def __init__(self, program: ir.Program, package: ModuleType | None, odds: dict):
        # what a page reads of the program goes through mappings that note each read in ``self.log``
        # while a page is rendered (``rulebook serve``'s page memo: see :class:`PageMemo`)
        self.log = _Log()
        self.sources: dict[str, dict] = {}  # a noted mapping's name → the mapping itself
        self.digests: dict[tuple, bytes | None] = {}  # this build's digest of each dependency (see dependency())
        self.decl_digests: dict[str, bytes] = {}  # this build's digest of each declaration, when the caller has them (PageMemo.decls)
        self.example_digests: list[bytes] = []  # and of each worked example (PageMemo.examples)
        self.same_corpus = False  # whether the spellings' text is the previous build's (their answers are then the same)
        self.cards: tuple[dict, dict, bytes] | None = None  # while a card page is rendered with a memo: see remembered_card
        self.p = dataclasses.replace(program, decls=self._noted("decls", program.decls))
        self.sources["armies"] = program.armies  # a section page's own army lists (see _own)
        self.package = package
        self.odds = self._noted("odds", odds)  # json/odds.json "tables", computed by the resolvers
        self.read = _Reading(program, self.log)
        self.read.p = self.p
        self.records = self._noted("records", program.records)
        self.catalogs = self._noted("catalogs", program.catalogs)
        self.enums = self._noted("enums", program.enums)
        self.member_titles = self._noted("member_titles", {e.name: {m.name: m.title for m in e.members} for e in program.enums.values()})
        self.read.member_titles = self.member_titles
        self.pages = {key: slug(_(name)) + ".md" for key, name in PAGE_FILES.items()}
        self.taken = {INDEX_PAGE} | {page for key, page in self.pages.items() if key != "glossary"}
        # terms outside every section get a glossary page of their own (players find them there)
        self.front_terms = [item for item in program.front if isinstance(item, ir.Term)]
        if self.front_terms:
            self.taken.add(self.pages["glossary"])
        self.section_pages = [self.page_name(sec.slug) for sec in program.sections]
        self.source_pages = {f: self.page_name(f"{_(PAGE_PREFIXES['source'])}-{Path(f).stem}") for f in program.files}
        self.page_of: dict[str, str] = {}
        # each section's items, with the army lists declared in it put back in place (they are not section items in the IR)
        self.section_items = _with_armies(program)
        # catalog entry → (the first army with a quality that fields it, its army entry): its card's cost at each quality
        army_quality_costs: dict[tuple[str, str], tuple[ir.Army, ir.ArmyEntry]] = {}
        for army in program.armies.values():
            for e in army.entries if army.quality else ():
                army_quality_costs.setdefault((e.catalog, e.id), (army, e))
        self.army_quality_costs = self._noted("army_quality_costs", army_quality_costs)
        for items, page in zip(self.section_items, self.section_pages):
            for item in items:
                if isinstance(item, ir.Decl):
                    self.page_of[item.name] = page
        for item in program.front:
            if isinstance(item, ir.Decl):
                self.page_of[item.name] = self.pages["glossary"] if isinstance(item, ir.Term) else self.pages["design"]
        examples_of: dict[str, list[tuple[int, ir.Example]]] = {}
        for index, ex in enumerate(program.examples):
            examples_of.setdefault(ex.procedure, []).append((index, ex))
        self.examples_of = self._noted("examples_of", examples_of)
        self.current_page = ""
        self.page_ids: set[str] = set()
        self.page_prose: list[str] = []
        self._said: tuple[list[str], int, set[str]] = ([], 0, set())
        self.ordered = [item for items in [program.front] + [sec.items for sec in program.sections] for item in items if isinstance(item, ir.Decl)]
        # indexes over the whole program that pages look up by key (so that a page reads only the keys it asks for)
        grouped_odds: dict[str, list[ir.Odds]] = {}  # catalog → the odds tables with ``each x in`` it
        param_procedures: dict[str, list[str]] = {}  # a name → the procedures with a parameter of that name
        titled: dict[str, list[str]] = {}  # a title (spacing and case aside) → the declarations but terms with that title
        for d in self.ordered:
            if isinstance(d, ir.Odds) and d.each is not None:
                grouped_odds.setdefault(d.each.of, []).append(d)
            if isinstance(d, ir.Procedure):
                for param in dict.fromkeys(p.name for p in d.params):
                    param_procedures.setdefault(param, []).append(d.name)
            if not isinstance(d, ir.Term) and d.has_title:
                titled.setdefault(" ".join(d.title.split()).casefold(), []).append(d.name)
        entry_catalog: dict[str, str] = {}  # an entry id → the first catalog with an entry of that id
        for cat in program.catalogs.values():
            for ident in cat.entries:
                entry_catalog.setdefault(ident, cat.name)
        self.grouped_odds = self._noted("grouped_odds", grouped_odds)
        self.param_procedures = self._noted("param_procedures", param_procedures)
        self.titled = self._noted("titled", titled)
        self.entry_catalog = self._noted("entry_catalog", entry_catalog)
        self.terms: list[ir.Term] = [d for d in self.ordered if isinstance(d, ir.Term)]
        self.search: list[list] = []
        # the words of a formula that say nothing beside a step's label ("result", "if", "otherwise")
        self.filler_words = {
            w for phrase in (_("result: %(value)s"), _("if %(condition)s:"), _("otherwise, if %(condition)s:"), _("otherwise: %(line)s"))
            for w in re.findall(r"\w+", fold(re.sub(r"%\(\w+\)s", " ", phrase)))
        }
        self._plan_cards()
        self._index_references()
        self._collect_abbreviations()
        self.rule_users = self._noted("rule_users", self.rule_users)
        self.entry_users = self._noted("entry_users", self.entry_users)
        self.same_id = self._noted("same_id", self.same_id)

    # ------------------------------------------------------------------ what a page reads
    def _noted(self, name: str, data: dict) -> Mapping:
        self.sources[name] = data
        return NotedMapping(data, functools.partial(self.log.note, name))

    def dependency(self, dep: tuple) -> bytes | None:
        """The digest, in this build, of one thing a page read (``(mapping, key)``, ``(mapping, ALL)``
        or ``(query, argument)``: see :class:`_Log`); None when it does not pickle."""
        if dep in self.digests:
            return self.digests[dep]
        source, key = dep
        if source in QUERIES:
            value = QUERIES[source](self, key)
            if value is UNKNOWN:
                self.digests[dep] = None
                return None
        elif source in DECLARATIONS and key in self.sources[source] and key in self.decl_digests:
            self.digests[dep] = digest = b"+" + self.decl_digests[key]
            return digest
        elif source == "examples_of" and key is not ALL and len(self.example_digests) == len(self.p.examples):
            value = [(index, self.example_digests[index]) for index, _ex in self.sources[source].get(key, ())]
        elif key is ALL:
            value = list(self.sources[source].items())
        else:
            data = self.sources[source]
            value = (True, data[key]) if key in data else (False, None)
        self.digests[dep] = digest = _digest(value)
        return digest

    # ------------------------------------------------------------------ plan
    def page_name(self, base: str) -> str:
        """A new page's file name: a bounded slug of ``base``, made unique among the pages."""
        stem = slug(base)
        name, i = f"{stem}.md", 2
        while name in self.taken:
            name, i = f"{stem}-{i}.md", i + 1
        self.taken.add(name)
        return name

    def _plan_cards(self) -> None:
        """Which catalogs get cards, on which pages.

        * ``@datasheet "Título"`` catalogs: one page per title (in rulebook order),
          one heading per catalog, one card per entry;
        * catalogs that those entries reference (``ref``): a page of cards each,
          so that a datasheet's weapon links to a card that links back;
        * the options of a datasheet page: a catalog without cards whose entries
          have the page's cost field and grant a special rule, declared in the same
          file before the page's first catalog (the nearest such), is listed on
          each of the page's cards with its costs.
        """
        groups: dict[str, list[str]] = {}
        for d in self.ordered:
            if isinstance(d, ir.Catalog) and d.datasheet is not None:
                groups.setdefault(d.datasheet, []).append(d.name)
        self.card_page: dict[str, str] = {}
        self.datasheet_pages: list[dict] = []
        for title, cats in groups.items():
            page = self.page_name(f"{_(PAGE_PREFIXES['cards'])}-{title}")
            self.datasheet_pages.append({"title": title, "page": page, "catalogs": cats, "options": self._options_of(cats)})
            for c in cats:
                self.card_page[c] = page
        self.datasheet_catalogs = set(self.card_page)
        self.reference_pages: list[dict] = []
        for page in list(self.datasheet_pages):
            for c in page["catalogs"]:
                for target in self._referenced_catalogs(T("record", self.catalogs[c].record)):
                    if target not in self.card_page and target in self.catalogs:
                        p = self.page_name(f"{_(PAGE_PREFIXES['cards'])}-{self.title_of(target)}")
                        self.card_page[target] = p
                        self.reference_pages.append({"title": self.title_of(target), "page": p, "catalogs": [target], "options": None})

    def _options_of(self, catalogs: list[str]) -> str | None:
        first = self.catalogs[catalogs[0]]
        cost = first.cost
        if cost is None:
            return None
        found = None
        for d in self.ordered:
            if d is first:
                return found
            if isinstance(d, ir.Catalog) and d.datasheet is None and d.file == first.file:
                fields = {f.name: f.type.inner.kind for f in self.fields(d.record)}
                if fields.get(cost.field) == "int" and "rule" in fields.values():
                    found = d.name
        return found

    def fields(self, record: str) -> tuple[ir.RecordField, ...]:
        rec = self.records.get(record)
        return rec.fields if rec is not None else ()

    def _referenced_catalogs(self, t: T, seen: set | None = None) -> list[str]:
        """Catalogs named by ``ref`` types anywhere inside type ``t`` (in field order)."""
        seen = set() if seen is None else seen
        k = t.kind
        if k in ("opt", "list", "map"):
            return self._referenced_catalogs(t.args[0], seen)
        if k in ("ref", "refs"):
            return [c for c in (t.name or "").split("|") if c]
        if k == "record" and t.name not in seen:
            seen.add(t.name)
            out: list[str] = []
            for f in self.fields(t.name):
                out += [c for c in self._referenced_catalogs(f.type, seen) if c not in out]
            return out
        return []

    def _index_references(self) -> None:
        """Reverse links: which catalog entries apply each rule / reference each entry."""
        self.rule_users: dict[str, list[tuple[str, str, dict]]] = {}
        self.entry_users: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.same_id: dict[str, list[tuple[str, str]]] = {}
        for d in self.ordered:
            if not isinstance(d, ir.Catalog):
                continue
            fields = self.fields(d.record)
            for ident, rec in d.entries.items():
                self.same_id.setdefault(ident, []).append((d.name, ident))
                rules: list[dict] = []
                refs: list[tuple[str, str]] = []
                for f in fields:
                    self._walk(rec.get(f.name), f.type, rules, refs)
                for r in rules:
                    users = self.rule_users.setdefault(r["rule"], [])
                    if not any(c == d.name and i == ident and u == r for c, i, u in users):
                        users.append((d.name, ident, r))
                for ref in refs:
                    users = self.entry_users.setdefault(ref, [])
                    if (d.name, ident) not in users:
                        users.append((d.name, ident))

    def _walk(self, v, t: T, rules: list, refs: list) -> None:
        """Collect the rule applications and catalog references inside value ``v`` of type ``t``."""
        if v is None:
            return
        k = t.kind
        if k == "opt":
            self._walk(v, t.args[0], rules, refs)
        elif k == "list":
            for x in v:
                self._walk(x, t.args[0], rules, refs)
        elif k == "map":
            for x in v.values():
                self._walk(x, t.args[0], rules, refs)
        elif k == "record":
            for f in self.fields(t.name):
                self._walk(v.get(f.name), f.type, rules, refs)
        elif k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is not None:
                refs.append((cat, v))
        elif k == "rule":
            rules.append(v)

    def _collect_abbreviations(self) -> None:
        """What each short capitalised label means (``FC``, ``P``), in the rulebook's words.

        Taken from the glossary (a term titled like the label, or a definition
        that starts ``P: …``) and from prose lists that define labels
        (``- **FC**: Front cover;``, with the paragraph above as context)."""
        self.abbreviations: dict[str, str] = {}
        for t in self.terms:
            head, sep, rest = t.definition.partition(":")
            if ABBREVIATION.match(t.title):
                self.abbreviations.setdefault(t.title, t.definition)
            elif sep and ABBREVIATION.match(head.strip()):
                self.abbreviations.setdefault(head.strip(), f"{t.title}: {rest.strip()}")
        items = list(self.p.front) + [i for s in self.p.sections for i in s.items]
        for before, item in zip([None] + items, items):
            if not isinstance(item, ir.ListBlock):
                continue
            lead = plain(before.inlines).rstrip(":. ") if isinstance(before, ir.Paragraph) else ""
            context = lead.rsplit(", ", 1)[-1] if len(lead) > 60 else lead
            for runs in item.items:
                if runs and isinstance(runs[0], ir.Strong) and ABBREVIATION.match(runs[0].text.strip()):
                    meaning = plain(runs[1:]).strip(" :;.,")
                    if meaning:
                        text = meaning[:1].upper() + meaning[1:]
                        self.abbreviations.setdefault(runs[0].text.strip(), f"{text} ({context[:80]})" if context else text)

    def ref_catalog(self, t: T, ident: str) -> str | None:
        """The catalog (of those ``t`` names) that has entry ``ident``."""
        return self.log.query("ref_catalog", (t.name, ident), lambda: self._ref_catalog(t.name, ident))

    def _ref_catalog(self, names: str | None, ident: str) -> str | None:
        for c in (names or "").split("|"):
            if c in self.catalogs and ident in self.catalogs[c].entries:
                return c
        return None

    # ------------------------------------------------------------------ links
    def url(self, page: str | None, frag: str | None = None) -> str | None:
        """The href of ``page`` (a ``.md`` name of the page map) at anchor ``frag``, from the current page."""
        if page is None:
            return None
        if frag and page == self.current_page:
            return f"#{frag}"
        return page.removesuffix(".md") + ".html" + (f"#{frag}" if frag else "")

    def href(self, name: str, entry: str | None = None) -> str | None:
        frag = anchor(name) if entry is None else f"{anchor(name)}--{anchor(entry, part=True)}"
        return self.url(self.page_of.get(name), frag)

    def entry_href(self, catalog: str, ident: str) -> str | None:
        """A catalog entry: its card if it has one, else its row in the manual's table."""
        if catalog in self.card_page:
            return self.url(self.card_page[catalog], f"{anchor(catalog)}--{anchor(ident, part=True)}")
        return self.href(catalog, ident)

    def source_link(self, span) -> tuple[str, str | None]:
        """(``file:line`` as HTML, href of that line on the file's source page)."""
        page = self.source_pages.get(span.file)
        return attr(f"{span.src}"), self.url(page, f"L{span.line}") if page and span.line > 0 else None

    def title_field(self, record: str) -> str | None:
        """The field that names an entry: the record's first ``text`` field."""
        return next((f.name for f in self.fields(record) if f.type.kind == "text"), None)

    def entry_title(self, catalog: str, ident: str) -> str:
        return self.read.entry_title(catalog, ident)

    def title_of(self, name: str) -> str:
        return self.log.query("title", name, lambda: self._title_of(name))

    def _title_of(self, name: str) -> str:
        d = self.p.decls.get(name)
        return d.title if d is not None else name

    def kind_of(self, name: str) -> str | None:
        """The kind of declaration ``name`` (its class's name), None when there is none."""
        return self.log.query("kind", name, lambda: type(self.p.decls[name]).__name__ if name in self.p.decls else None)

    def target(self, name: str) -> tuple[str | None, str]:
        """A ``[[name]]`` or ``[[catalog#id]]`` of the prose: (href, title)."""
        decl, _, entry = name.partition("#")
        if entry and decl in self.catalogs:
            return self.entry_href(decl, entry), self.entry_title(decl, entry)
        return self.href(decl), self.title_of(decl)

    def a(self, text: str, href: str | None, title: str | None = None) -> str:
        """``text`` (plain) escaped as Markdown, linked to ``href``."""
        return link(esc(text), href, title)

    def claim_id(self, base: str) -> str:
        """A new id on the current page, ``base`` or ``base-2``…"""
        ident, i = base, 2
        while ident in self.page_ids:
            ident, i = f"{base}-{i}", i + 1
        self.page_ids.add(ident)
        return ident

    def start_page(self, page: str, anchors: list[str] = ()) -> None:
        """Render into ``page`` from now on; ``anchors`` are taken on it already."""
        self.current_page = page
        self.page_ids = set(anchors)
        self.page_prose = []

    def index(self, title: str, href: str | None, kind: str, weight: float, text: str = "") -> None:
        """One entry of the search index (``href`` relative to the site's root)."""
        if href and title.strip():
            self.search.append([" ".join(title.split()), href, kind, weight, " ".join(text.split())[:SNIPPET]])

    def site_href(self, page: str | None, frag: str | None = None) -> str | None:
        """An href from the site's root (the search index), whatever the current page."""
        return None if page is None else page.removesuffix(".md") + ".html" + (f"#{frag}" if frag else "")

    # ------------------------------------------------------------------ values
    def label(self, f: ir.RecordField) -> str:
        """A field's title for players: an identifier-like title is spelt out (an enum's own title when it has one)."""
        title = f.title or f.name
        inner = f.type.inner
        if looks_like_code(title) and inner.kind == "enum" and inner.name in self.enums and self.enums[inner.name].has_title:
            return self.enums[inner.name].title
        return self.read.label(title)

    def label_html(self, text: str) -> str:
        """A label as HTML, with its meaning as a tooltip when it is an abbreviation the rulebook explains."""
        meaning = self.abbreviations.get(text.strip())
        return f'<abbr title="{attr(meaning)}">{attr(text)}</abbr>' if meaning else attr(text)

    def cell(self, v: Any, t: T) -> str:
        """A data value as escaped Markdown for a table cell."""
        k = t.kind
        if v is None:
            return "—"
        if k == "opt":
            return self.cell(v, t.args[0])
        if k == "bool":
            return _("Yes") if v else _("No")
        if k in ("int", "decimal"):
            return number(v)
        if k == "enum":
            return esc(self.member_titles.get(t.name, {}).get(v, v))
        if k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            if cat is None:
                return esc(v)
            return self.a(self.entry_title(cat, v), self.entry_href(cat, v))
        if k == "rule":
            return self.a(self.rule_label(v["rule"], v["args"].values()), self.href(v["rule"]))
        if k == "list":
            if not v:
                return "—"
            sep = "<br>" if t.args[0].inner.kind in ("record", "map") else ", "
            return sep.join(self.cell(x, t.args[0]) for x in v)
        if k == "map":
            titles = self.member_titles.get(t.name, {})
            return " · ".join(f"{esc(titles.get(m, m))} {self.cell(x, t.args[0])}" for m, x in v.items())
        if k == "record":
            shown = self.records[t.name].display if t.name in self.records else None
            if shown:  # @display "{cantidad} × {tropas}": the text escaped, each field as a cell
                types = {f.name: f.type for f in self.fields(t.name)}
                return "".join(self.cell(v.get(x), types[x]) if i % 2 else esc(x) for i, x in enumerate(re.split(r"\{([^{}]*)\}", shown)))
            parts = []
            for f in self.fields(t.name):
                x = v.get(f.name)
                if x is None or x == []:
                    continue
                parts.append(f"*{esc(self.label(f))}*: {self.cell(x, f.type)}")
            return "; ".join(parts) or "—"
        return esc(str(v))

    def plain_value(self, v: Any, t: T) -> str:
        """A data value as plain words (the search index): titles of values, entries and rules."""
        k = t.kind
        if v is None:
            return ""
        if k in ("opt", "list"):
            return " ".join(self.plain_value(x, t.args[0]) for x in (v if k == "list" else [v]))
        if k == "map":
            return " ".join(self.plain_value(x, t.args[0]) for x in v.values())
        if k == "record":
            return " ".join(self.plain_value(v.get(f.name), f.type) for f in self.fields(t.name))
        if k in ("ref", "refs"):
            cat = self.ref_catalog(t, v)
            return self.entry_title(cat, v) if cat else str(v)
        if k == "rule":
            return self.rule_label(v["rule"], v["args"].values())
        if k in ("int", "decimal", "bool"):
            return ""
        return self.read.value(v)

    @staticmethod
    def rule_args(values) -> str:
        """The arguments of a rule application as the manual writes them (``2, high``)."""
        return ", ".join(number(a) if _is_number(a) else str(a) for a in values)

    def rule_label(self, rule: str, values) -> str:
        """``Sniper(2)``: a rule application as the manual writes it (plain text)."""
        args = self.rule_args(values)
        return self.title_of(rule) + (f"({args})" if args else "")

    def rule_summary(self, rule: str) -> str | None:
        """The first sentence of a special rule's text (a link's tooltip)."""
        d = self.p.get(rule, ir.Rule)
        if d is None or not d.texts:
            return None
        first = re.split(r"(?<=[.!?])\s", d.texts[0].strip(), maxsplit=1)[0]
        return first if len(first) <= 200 else first[:199] + "…"

    @staticmethod
    def range_text(r: ir.Range) -> str:
        lo = None if r.lo is None else number(r.lo)
        hi = None if r.hi is None else number(r.hi)
        if lo is not None and hi is not None:
            if r.lo == r.hi:
                return lo
            if r.lo_inclusive and r.hi_inclusive:
                return f"{lo}–{hi}"
            a = _("more than %(n)s") % {"n": lo} if not r.lo_inclusive else lo
            b = _("less than %(n)s") % {"n": hi} if not r.hi_inclusive else hi
            joined = _("%(low)s and %(high)s") if not r.hi_inclusive else _("%(low)s to %(high)s")
            return joined % {"low": a, "high": b}
        if lo is not None:
            return (_("%(n)s or more") if r.lo_inclusive else _("more than %(n)s")) % {"n": lo}
        if hi is not None:
            return (_("%(n)s or less") if r.hi_inclusive else _("less than %(n)s")) % {"n": hi}
        return _("any")

    def value_label(self, v) -> str:
        """A scalar value: an enum member's title, a catalog entry (linked), a number, yes/no."""
        cat = self.entry_catalog.get(v) if isinstance(v, str) else None
        if cat is not None:
            return self.a(self.entry_title(cat, v), self.entry_href(cat, v))
        return esc(self.read.value(v)) if v is not None else "—"

    # ------------------------------------------------------------------ blocks
    def common(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        """What every declaration block shows: heading, reference, badge, doc; and its technical details."""
        kind, kind_title = BLOCK_KINDS[type(d)]
        kind_title = _(kind_title)
        where, source_href = self.source_link(d.span)
        doc = self.unsaid(d.doc) if d.doc and not d.doc_is_prose else None
        return {
            "kind": kind,
            "kind_title": kind_title,
            "anchor": anchor(d.name) + anchor_suffix,
            "title": esc(d.title),
            "level": 4,
            "ref": attr(d.ref),
            "badge": _badge(d.status),
            "doc": esc(doc) if doc else None,
            "original": None,
            "cards_href": None,
            "users": None,
            "procedures": [],
            "also": [],
            "related": [],
            "columns_title": None,
            "tech": {"kind_title": kind_title, "name": attr(d.name), "where": where, "source_href": source_href,
                     "head": highlight(_header_source(d.source_text)) if isinstance(d, ir.Procedure) else None,
                     "code": "\n<span></span>".join(attr(line) for line in _header_source(d.source_text).splitlines())
                     if not isinstance(d, ir.Procedure) else None},
        }

    def unsaid(self, text: str) -> str | None:
        """``text`` without the sentences that the page's prose already says (a doc that repeats the paragraph above)."""
        prose, counted, said = self._said
        if prose is not self.page_prose or counted > len(prose):  # another page, or its prose set anew
            prose, counted, said = self.page_prose, 0, set()
        said.update(_sentence_key(s) for p in prose[counted:] for s in _sentences(p))
        self._said = (prose, len(prose), said)
        kept = [s for s in _sentences(text) if _sentence_key(s) not in said]
        self.page_prose.append(text)  # in the set at the next call
        return " ".join(kept) or None

    def block(self, item: ir.Item) -> dict | None:
        if isinstance(item, ir.Army):
            return self.army_block(item)
        if isinstance(item, ir.Heading):
            text = plain(item.inlines, self.target)
            return {"kind": "heading", "level": item.level, "md": inlines(item.inlines, self.target), "id": self.claim_id(heading_id(text)), "text": text}
        if isinstance(item, ir.Paragraph):
            return {"kind": "paragraph", "md": inlines(item.inlines, self.target)}
        if isinstance(item, ir.ListBlock):
            return {"kind": "list", "ordered": item.ordered, "start": item.start, "items": [inlines(i, self.target) for i in item.items]}
        if isinstance(item, ir.Note):
            return {"kind": "note", "md": inlines(item.inlines, self.target)}
        if isinstance(item, ir.Separator):
            return {"kind": "separator"}
        if isinstance(item, ir.Show):
            d = self.p.decls.get(item.name)
            if d is None:
                return None
            b = self.decl(d, anchor_suffix=self.show_suffix())
            b["original"] = self.href(item.name)
            return b
        if getattr(item, "internal", False):  # @internal: a typing-only record or enum
            return None
        return self.decl(item)

    def show_suffix(self) -> str:
        return "--" + anchor(self.current_page.removesuffix(".md"))

    def decl(self, d: ir.Declaration, anchor_suffix: str = "") -> dict:
        b = self.common(d, anchor_suffix)
        if isinstance(d, ir.Table):
            self.table_block(d, b)
        elif isinstance(d, ir.Catalog):
            self.catalog_block(d, b, anchor_suffix)
        elif isinstance(d, ir.Enum):
            b["values"] = [esc(m.title) for m in d.members]
            b["tech"]["rows"] = [[f"<code>{attr(m.name)}</code>", esc(m.title)] for m in d.members]
        elif isinstance(d, ir.Record):
            b["tech"]["rows"] = [[f"<code>{attr(f.name)}</code>", f"<code>{attr(str(f.type))}</code>", esc(f.title or "")] for f in d.fields]
        elif isinstance(d, ir.Rule):
            b["signature"] = esc(d.title + (f"({', '.join(p.name for p in d.params)})" if d.params else ""))
            b["texts"] = [esc(t) for t in d.texts]
            b["levels"] = [(lvl, esc(t)) for lvl, t in d.levels]
            b["grants"] = [self.a(self.rule_label(g.rule, [v for _p, v in g.args]), self.href(g.rule)) for g in d.grants]
            b["stacking"] = esc(d.stacking) if d.stacking else None
            if not anchor_suffix:
                self.rule_extras(d, b)
        elif isinstance(d, ir.Die):
            if d.face_enum is not None:
                b["faces"] = [esc(self.member_titles.get(d.face_enum, {}).get(f, f)) for f in d.faces]
            else:
                b["faces"] = [number(f) if f <= 0 else f"+{f}" for f in d.faces]
        elif isinstance(d, ir.Bag):
            b["tokens"] = [(esc(self.token_title(kind)), count) for kind, count in d.tokens]
            b["total"] = sum(count for _kind, count in d.tokens)
        elif isinstance(d, ir.Procedure):
            self.procedure_block(d, b)
        elif isinstance(d, ir.Term):
            self.term_block(d, b)
        elif isinstance(d, ir.Odds):
            self.odds_block(d, b)
        elif isinstance(d, ir.Const):
            b["value"] = self.cell(d.value, d.type)
        return b

    def token_title(self, kind: str) -> str:
        """A bag's kind of token: an enum value's title, or its name in the rulebook's words."""
        title = self.read.value(kind)
        return self.read.label(kind) if title == kind else title

    def table_block(self, d: ir.Table, b: dict) -> None:
        header = [esc(k.title or k.name) for k in d.keys]
        value_types = [c.type for c in d.columns]
        if d.across is not None:
            header += [self.cell(a, d.across.type) for a in d.across_values]
            value_types = [d.columns[0].type] * len(d.across_values)
        else:
            header += [esc(c.title or c.name) for c in d.columns]
        rows = []
        for row in d.rows:
            cells = []
            for key, k in zip(d.keys, row.keys):
                if isinstance(k, ir.Range):
                    cells.append(esc(self.range_text(k)))
                elif row.title:
                    cells.append(esc(row.title))
                else:
                    cells.append(self.cell(k, key.type))
            if d.across is not None:
                cells += [self.cell(v, d.columns[0].type) for v in row.across]
            else:
                cells += [self.cell(row.values[c.name], c.type) for c in d.columns]
            rows.append(cells)
        b["header"] = header
        b["rows"] = rows
        b["align"] = [("---:" if (k.type.inner.kind in ("int", "decimal") or k.ranged) else "---") for k in d.keys]
        b["align"] += ["---:" if t.inner.kind in ("int", "decimal") else "---" for t in value_types]

    def catalog_block(self, d: ir.Catalog, b: dict, suffix: str) -> None:
        """The manual's table of a catalog: the entry's title (linked to its card) first, no ids."""
        by = {f.name: f for f in self.fields(d.record)}
        cols = [c for c in (d.columns or list(by)) if c in by]
        title_field = self.title_field(d.record)
        if title_field in cols:
            cols.remove(title_field)
        first_title = esc(self.label(by[title_field])) if title_field else "Id"
        b["header"] = [first_title] + [esc(self.label(by[c])) for c in cols]
        b["align"] = ["---"] + ["---:" if by[c].type.inner.kind in ("int", "decimal") else "---" for c in cols]
        rows = []
        card = d.name in self.card_page
        for ident, rec in d.entries.items():
            aid = f"{anchor(d.name)}--{anchor(ident, part=True)}{suffix}"
            name = esc(self.entry_title(d.name, ident)) if title_field else f"<code>{attr(ident)}</code>"
            first = link(name, self.entry_href(d.name, ident)) if card else name
            rows.append([f'<span id="{attr(aid)}"></span>{first}'] + [self.cell(rec.get(c), by[c].type) for c in cols])
        b["rows"] = rows
        b["cards_href"] = self.entry_group_href(d.name) if card else None

    # ------------------------------------------------------------------ cards
    @staticmethod
    def cost_at(base: int, pct: int) -> int:
        return round_half_up(Fraction(base * (100 + pct), 100))

    def cost_note(self, cost: ir.CostDisplay, catalogs: list[str]) -> dict:
        """The explanation of a cost display, with a worked example of the rounding from the data."""
        example = None
        for c in catalogs:
            for rec in self.catalogs[c].entries.values():
                base = rec.get(cost.field)
                for _m, title, pct in cost.levels:
                    if isinstance(base, int) and (base * (100 + pct)) % 100 == 50 and example is None:
                        exact = Fraction(base * (100 + pct), 100)
                        example = {"base": number(base), "title": esc(title), "pct": self.signed_percent(pct),
                                   "exact": number(exact), "rounded": number(self.cost_at(base, pct))}
        return {
            "field_title": esc(cost.field_title),
            "enum_title": esc(self.title_of(cost.enum)),
            "table": self.a(self.title_of(cost.table), self.href(cost.table)),
            "levels": [(esc(title), self.signed_percent(pct)) for _m, title, pct in cost.levels],
            "example": example,
        }

    @staticmethod
    def signed_percent(v: int) -> str:
        """A percentage added to a cost: ``+30 %``, ``−20 %``."""
        return percent_sign(("+" if v > 0 else "") + number(v))

    def card_catalog(self, catalog: str, level: int, options: str | None) -> dict:
        """A catalog on a card page: heading, badge, link to the manual's table, its cards."""
        d = self.catalogs[catalog]
        procs = sorted(u for u in self.p.uses.get(catalog, ()) if self.p.get(u, ir.Procedure) is not None)
        return {
            "anchor": anchor(catalog),
            "title": esc(d.title),
            "badge": _badge(d.status),
            "ref": attr(d.ref),
            "table_href": self.href(catalog),
            "procedures": [self.a(self.title_of(pr), self.href(pr)) for pr in procs],
            "cards": [self.remembered_card(d, ident, rec, level, options) for ident, rec in d.entries.items()],
        }

    def remembered_card(self, d: ir.Catalog, ident: str, rec: dict, level: int, options: str | None) -> dict:
        """:meth:`card`, or the card of the previous build of this page (``self.cards``: the previous
        build's cards of the page, this build's, and the page's key, :func:`_page_key`) when the entry,
        what the card reads of its catalog beside it and all the card read through the noted mappings
        and queries are as they were. A data edit renders one card of its page again."""
        import hashlib

        if self.cards is None or self.log.deps is None:
            return self.card(d, ident, rec, level, options)
        old, new, page_key = self.cards
        own = pickled((d.name, d.title, d.status, d.record, d.cost, d.entry_spans.get(ident, d.span), ident, rec, level, options))
        if own is None:
            return self.card(d, ident, rec, level, options)
        key = hashlib.sha256(page_key + own).digest()
        found = old.get((d.name, ident))
        if found is not None and found[0] == key and all(digest is not None and self.dependency(dep) == digest for dep, digest in found[1].items()):
            self.log.deps.update(found[1])
            self.search.extend(list(entry) for entry in found[2])
            new[(d.name, ident)] = found
            return found[3]
        page_deps, self.log.deps = self.log.deps, {}
        before = len(self.search)
        try:
            card = self.card(d, ident, rec, level, options)
        finally:
            deps, self.log.deps = self.log.deps, page_deps
        page_deps.update(deps)
        new[(d.name, ident)] = (key, _digests(self, deps), [list(entry) for entry in self.search[before:]], card)
        return card

    def options_block(self, catalog: str | None) -> dict | None:
        """The options a page's entries may take, with their cost (the page's box and each card's list)."""
        if catalog is None:
            return None
        d = self.catalogs[catalog]
        cost_field = next(f.name for f in self.fields(d.record) if f.type.inner.kind == "int")
        priced = [(ident, number(rec[cost_field])) for ident, rec in d.entries.items() if isinstance(rec.get(cost_field), int)]
        return {
            "title": esc(d.title),
            "href": self.href(catalog),
            "items": [(self.a(self.entry_title(catalog, ident), self.entry_href(catalog, ident)), cost) for ident, cost in priced],
            "names": [(esc(self.entry_title(catalog, ident)), cost) for ident, cost in priced],
        }

    def card(self, d: ir.Catalog, ident: str, rec: dict, level: int, options: str | None) -> dict:
        """One datasheet card: facts, a line of stats, lists (weapons with their profile), the cost at each level, options, reverse links."""
        cost_display = d.cost
        skip = {self.title_field(d.record), cost_display.field if cost_display else None}
        facts, stats, lists = [], [], []
        for f in self.fields(d.record):
            if f.name in skip:
                continue
            label = self.label(f)
            v = rec.get(f.name)
            inner = f.type.inner
            if inner.kind == "list":
                item = inner.args[0].inner
                if item.kind == "record":
                    lists.append({"label": esc(label), **self.record_list(v or [], item.name)})
                else:
                    lists.append({"label": esc(label), "inline": ", ".join(self.cell(x, inner.args[0]) for x in v) if v else "—"})
                continue
            if v is None:
                continue
            if inner.kind in ("int", "decimal"):
                stats.append((self.label_html(label), attr(number(v))))
            elif inner.kind == "record" and self.numeric_record(inner.name):
                parts = [(self.label(sf), v.get(sf.name)) for sf in self.fields(inner.name)]
                stats.append((f"{self.label_html(label)} <small>({attr(' / '.join(p for p, _x in parts))})</small>",
                              attr(" / ".join(number(x) if x is not None else "—" for _p, x in parts))))
            else:
                facts.append((esc(label), self.cell(v, f.type)))
        cost = None
        if cost_display is not None and isinstance(rec.get(cost_display.field), int):
            base = rec[cost_display.field]
            cost = {
                "label": _("%(cost)s by %(levels)s") % {"cost": esc(cost_display.field_title), "levels": esc(self.title_of(cost_display.enum))},
                "header": [esc(title) for _m, title, _p in cost_display.levels],
                "row": [number(self.cost_at(base, pct)) for _m, _t, pct in cost_display.levels],
                "base": number(base),
            }
        elif (d.name, ident) in self.army_quality_costs:  # no @cost_modifier: the cost at each quality of the army that fields it
            army, entry = self.army_quality_costs[(d.name, ident)]
            cost = {
                "label": _("%(cost)s by %(levels)s") % {"cost": esc(_("Points")), "levels": esc(army.quality_title or _("Quality"))},
                "header": [esc(q.title) for q in army.quality],
                "row": [number(self.cost_at(entry.cost, q.percent)) for q in army.quality],
                "base": number(entry.cost),
            }
        title = self.entry_title(d.name, ident)
        card_anchor = f"{anchor(d.name)}--{anchor(ident, part=True)}"
        self.index(title, self.site_href(self.card_page[d.name], card_anchor), d.title,
                   WEIGHT_DATASHEET if d.name in self.datasheet_catalogs else WEIGHT_PAGE,
                   " ".join(self.plain_value(rec.get(f.name), f.type) for f in self.fields(d.record) if f.name not in skip))
        where, source_href = self.source_link(d.entry_spans.get(ident, d.span))
        return {
            "anchor": card_anchor,
            "level": level,
            "title": esc(title),
            "catalog": attr(d.title),
            "badge": _badge(d.status),
            "row_href": self.href(d.name, ident),
            "facts": facts,
            "stats": stats,
            "lists": lists,
            "cost": cost,
            "options": self.options_block(options),
            "odds": self.card_odds(d.name, ident),
            "users": self.users_of(self.entry_users.get((d.name, ident), [])),
            "tech": {"kind_title": attr(d.title), "name": attr(ident), "where": where, "source_href": source_href},
        }

    def numeric_record(self, record: str) -> bool:
        fields = self.fields(record)
        return bool(fields) and all(f.type.inner.kind in ("int", "decimal") for f in fields)

    def compact(self, v, t: T) -> str:
        """A cell value; a record of numbers as ``3 / 1`` (its header names the parts)."""
        inner = t.inner
        if v is not None and inner.kind == "record" and self.numeric_record(inner.name):
            parts = [v.get(f.name) for f in self.fields(inner.name)]
            while parts and parts[-1] is None:
                parts.pop()
            return " / ".join(number(x) if x is not None else "—" for x in parts) or "—"
        return self.cell(v, t)

    def compact_label(self, title: str, t: T) -> str:
        inner = t.inner
        if inner.kind == "record" and self.numeric_record(inner.name):
            return f"{esc(title)} ({esc(' / '.join(self.label(f) for f in self.fields(inner.name)))})"
        return esc(title)

    def record_list(self, items: list, record: str) -> dict:
        """A list of records on a card: a table, or — when each item references an entry with
        tables of its own (a weapon and its profile) — one block per item with those tables."""
        fields = self.fields(record)
        embedded = next((f for f in fields if f.type.inner.kind in ("ref", "refs") and self._embeddable(f.type.inner)), None)
        if embedded is None:
            return self.record_list_table(items, record)
        blocks = []
        for it in items:
            facts = [self.cell(it.get(f.name), f.type) for f in fields if it.get(f.name) not in (None, [])]
            ident = it.get(embedded.name)
            cat = self.ref_catalog(embedded.type.inner, ident) if ident is not None else None
            tables = []
            if cat is not None:
                target = self.catalogs[cat]
                for tf in self.fields(target.record):
                    sub = target.entries[ident].get(tf.name)
                    if tf.type.inner.kind == "list" and tf.type.inner.args[0].inner.kind == "record" and sub:
                        tables.append(self.record_list_table(sub, tf.type.inner.args[0].inner.name))
            blocks.append({"line": " · ".join(facts), "tables": tables})
        return {"blocks": blocks}

    def _embeddable(self, t: T) -> bool:
        return any(
            c in self.card_page and any(f.type.inner.kind == "list" and f.type.inner.args[0].inner.kind == "record" for f in self.fields(self.catalogs[c].record))
            for c in (t.name or "").split("|") if c in self.catalogs
        )

    def record_list_table(self, items: list, record: str) -> dict:
        """A list of records as a table: one column per field that any item has.

        Records whose map fields all share one enum are pivoted: one row per
        item and map field, one column per enum value (bands, zones…)."""
        all_fields = self.fields(record)
        maps = [f for f in all_fields if f.type.inner.kind == "map"]
        if maps and len({f.type.inner.name for f in maps}) == 1:
            members = self.enums[maps[0].type.inner.name].members
            keys = [f for f in all_fields if f.type.inner.kind != "map" and any(it.get(f.name) not in (None, []) for it in items)]
            rows = []
            for it in items:
                for f in maps:
                    m = it.get(f.name) or {}
                    vt = f.type.inner.args[0]
                    rows.append([self.cell(it.get(k.name), k.type) for k in keys] + [self.compact_label(self.label(f), vt)]
                                + [self.compact(m.get(mv.name), vt) for mv in members])
            return {
                "header": [esc(self.label(k)) for k in keys] + [esc(_("Value"))] + [esc(mv.title) for mv in members],
                "rows": rows,
            }
        fields = [f for f in all_fields if any(it.get(f.name) not in (None, []) for it in items)]
        return {
            "header": [esc(self.label(f)) for f in fields],
            "rows": [[self.cell(it.get(f.name), f.type) for f in fields] for it in items],
        }

    def users_of(self, users: list[tuple], rule: bool = False) -> dict:
        """Reverse links grouped by catalog: datasheet catalogs first ("cards"), then the rest."""
        groups: dict[str, dict] = {}
        for u in users:
            cat, ident = u[0], u[1]
            g = groups.setdefault(cat, {"title": esc(self.title_of(cat)), "href": self.entry_group_href(cat), "items": [], "card": cat in self.datasheet_catalogs})
            label = self.a(self.entry_title(cat, ident), self.entry_href(cat, ident))
            if rule:
                label += self.rule_app_args(u[2])
            g["items"].append(label)
        cards = [g for g in groups.values() if g["card"]]
        other = [g for g in groups.values() if not g["card"]]
        return {"cards": cards, "other": other, "count": sum(len(g["items"]) for g in cards), "other_count": sum(len(g["items"]) for g in other)}

    def rule_app_args(self, app: dict) -> str:
        """`` (X = 2)``: the arguments of a rule application in a list of users (empty without arguments)."""
        vals = list(app["args"].values())
        args = self.rule_args(vals)
        if not args:
            return ""
        names = [p.name for p in self.p.decls[app["rule"]].params]
        if len(names) != len(vals):
            return f" ({esc(args)})"
        return " (" + ", ".join(f"{esc(nm)} = {number(x) if _is_number(x) else esc(x)}" for nm, x in zip(names, vals)) + ")"

    def entry_group_href(self, catalog: str) -> str | None:
        if catalog in self.card_page:
            return self.url(self.card_page[catalog], anchor(catalog))
        return self.href(catalog)

    def rule_extras(self, d: ir.Rule, b: dict) -> None:
        """Reverse links of a special rule: entries that apply it, procedures, related data."""
        name = d.name
        b["users"] = self.users_of(self.rule_users.get(name, []), rule=True)
        listed = {c for c, _i, _u in self.rule_users.get(name, [])}
        procs, also = [], []
        for u in sorted(self.p.uses.get(name, ())):
            kind = self.kind_of(u)
            if kind == ir.Procedure.__name__:
                procs.append(self.a(self.title_of(u), self.href(u)))
            elif kind in (ir.Table.__name__, ir.Catalog.__name__) and u not in listed:
                also.append(self.a(self.title_of(u), self.href(u)))
        for proc in self.param_procedures.get(name, ()):
            if proc not in self.p.uses.get(name, ()):
                procs.append(self.a(self.title_of(proc), self.href(proc)))
        b["procedures"] = procs
        b["also"] = also
        b["related"] = [
            self.a(f"{self.title_of(c)}: {self.entry_title(c, i)}", self.entry_href(c, i))
            for c, i in self.same_id.get(name, [])
        ]

    # ------------------------------------------------------------------ odds
    def odds_block(self, d: ir.Odds, b: dict) -> None:
        """A table of exact probabilities computed by the resolvers."""
        t = self.odds.get(d.name)
        b["procedure"] = self.a(self.title_of(d.procedure), self.href(d.procedure))
        b["grouped"] = None
        if t is None:
            b["header"], b["rows"], b["errors"] = [], [], []
            return
        cols = t.get("columns") or {}
        if cols.get("title") and len(cols.get("values") or []) > 1:
            b["columns_title"] = esc(cols["title"])
        groups = t.get("groups")
        if groups:
            catalog = d.each.of
            b["header"], b["rows"] = [], []
            b["grouped"] = {
                "title": esc(groups.get("title") or groups.get("variable") or ""),
                "links": [self.a(self.entry_title(catalog, g), self.entry_href(catalog, g)) for g in groups["values"]],
            }
            b["errors"] = []
            return
        b["header"], b["rows"] = self.odds_grid(t, t.get("cells", []))
        b["errors"] = [esc(e) for e in t.get("errors", [])]

    def odds_grid(self, t: dict, cells: list) -> tuple[list[str], list[list[str]]]:
        """Header and rows of one grid of an odds table (probabilities as bars)."""
        rows, cols = t.get("rows") or {}, t.get("columns") or {}
        col_values = cols.get("values") or [None]
        header = [esc(rows.get("title") or rows.get("variable") or "")]
        header += [self.value_label(c) if c is not None else esc(_("Probability")) for c in col_values]
        out = []
        for rv, line in zip(rows.get("values", []), cells):
            row = [self.value_label(rv)]
            for c in line:
                if c is None:
                    row.append("—")
                    continue
                p = Fraction(c) if not isinstance(c, bool) else Fraction(int(c))
                row.append(f'<span class="rb-prob" style="--p: {bar_width(p)}%" title="{attr(exact_probability(p))}">{self.probability_text(p)}</span>')
            out.append(row)
        return header, out

    def card_odds(self, catalog: str, ident: str) -> list[dict]:
        """Slices of grouped odds tables (``each x in catalog``) for one entry's card."""
        out = []
        for d in self.grouped_odds.get(catalog, ()):
            t = self.odds.get(d.name) or {}
            values = (t.get("groups") or {}).get("values") or []
            if ident not in values:
                continue
            grid = t["cells"][values.index(ident)]
            if all(c is None for line in grid for c in line):
                continue  # the procedure refuses every input for this entry (e.g. no such fire mode)
            header, rows = self.odds_grid(t, grid)
            out.append({"title": esc(d.title), "href": self.href(d.name), "header": header, "rows": rows})
        return out

    @staticmethod
    def probability_text(p: Fraction) -> str:
        """A probability in a grid cell: ``37,5 %`` (``37.5%`` in English); certain and impossible without decimals."""
        if p == 0:
            return percent_sign("0")
        if p == 1:
            return percent_sign("100")
        return percent_sign(percent(p))

    # ------------------------------------------------------------------ glossary, procedures
    def term_block(self, d: ir.Term, b: dict) -> None:
        b["definition"] = esc(d.definition)
        key = " ".join(d.title.split()).casefold()
        b["see"] = [
            self.a(f"{_(BLOCK_KINDS[type(o)][1])} {quoted(o.title)}", self.href(o.name))
            for o in (self.p.decls[name] for name in self.titled.get(key, ()))
            if self.href(o.name)
        ]

    def procedure_block(self, d: ir.Procedure, b: dict) -> None:
        """Numbered steps in prose with their formulas; worked examples as inputs → results."""
        steps = []
        loose: list[str] = []
        for st in d.body:
            if isinstance(st, ir.Step):
                said = set(re.findall(r"\w+", fold(st.label)))
                formulas = [line for s in st.body for line in self.read.statement(s)
                            if not set(re.findall(r"\w+", fold(line))) <= said | self.filler_words]
                steps.append({"label": esc(st.label), "formulas": [attr(f) for f in formulas]})
            else:
                loose += self.read.statement(st)
        if loose:
            steps.append({"label": esc(_("Result")), "formulas": [attr(f) for f in loose]})
        b["steps"] = steps
        b["tech"]["result"] = attr(str(d.result))
        b["examples"] = [self.log.query("example", index, lambda: self.example(index, ex)) for index, ex in self.examples_of.get(d.name, [])]

    def example(self, index: int, ex: ir.Example) -> dict:
        """A worked example (``index`` in ``program.examples``) as a sentence: its inputs → what results,
        evaluated by the generated resolvers when they are at hand; the test-style checks are technical."""
        inputs = ", ".join(f"{self.read.name(param)}: {self.read.expr(value)}" for param, value, _text in ex.given)
        where, source_href = self.source_link(ex.span)
        out = {"title": esc(ex.title), "inputs": esc(inputs), "results": [], "error": None, "stops": False,
               "tech": {"given": [(attr(param), attr(text)) for param, _value, text in ex.given], "where": where,
                        "source_href": source_href, "expects": [], "failed": []}}
        if self.package is None:
            out["results"] = [esc(self.expect_text(x, None)) for x in ex.expects if x.expr is not None]
            out["tech"]["expects"] = [attr(x.text if x.expr is not None else "error") for x in ex.expects]
            return out
        ev, actuals = evaluated(self.package, index)  # resolved once per package (rulebook.compiler.analysis.evaluations)
        if ev.error is not None:
            out["error"] = esc(ev.error.message)
            out["stops"] = ev.expected_error is not None and ev.expected_error in ev.error.message
            out["tech"]["expects"] = [attr(f"error {ev.expected_error!r}")] if ev.expected_error is not None else []
            if not out["stops"]:
                out["tech"]["failed"] = [attr(str(ev.error))]
            return out
        out["tech"]["expects"] = [attr(check.text) for check in ev.checks if check.ok]
        out["tech"]["failed"] = [attr(f"{check.text}: {check.detail}") for check in ev.checks if not check.ok]
        out["results"] = [esc(self.expect_text(x, a)) for x, a in zip([x for x in ex.expects if x.expr is not None], actuals)]
        return out

    def expect_text(self, x: ir.Expect, actual: Any) -> str:
        """``probability(result.hit) == 1/3`` → ``hit: probability 1/3 (33.3%)`` (in the rulebook's language); other checks as formulas."""
        e = x.expr
        if isinstance(e, ir.Binary) and e.op == "==" and isinstance(e.left, ir.BuiltinCall) and e.left.name == "probability":
            what = self.read.expr(e.left.args[0])
            if isinstance(actual, Fraction) or _is_number(actual):
                p = exact_probability(Fraction(actual))
            else:
                p = self.read.expr(e.right)
            return _("%(what)s: probability %(p)s") % {"what": what, "p": p}
        text = self.read.expr(e)
        return text[:1].upper() + text[1:]

    # ------------------------------------------------------------------ pages
    # ------------------------------------------------------------------ army lists
    def army_source(self, src: ir.ArmySource | None, army: ir.Army, linked: bool = True) -> str | None:
        """Where a list-building rule comes from: its manual reference, linked to the declaration when it has a
        block (and ``linked``); nothing for the army itself (its reference is by its title)."""
        if src is None or src.id == army.name:
            return None
        chip = f'<span class="rb-source" title="{attr(_("Reference in the manual"))}">{attr(src.source or src.title)}</span>'
        return link(chip, self.href(src.id) if linked else None, src.title)

    def army_budget(self, d: ir.Army) -> dict:
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
                "role": esc(titles.get(role, role)), "percent": self.signed_percent(pct), "points": number(sample),
                "total": number(sample + round_half_up(Fraction(sample * pct, 100)))})
        return {
            "sides": [esc(s.title) for s in d.sides],
            "header": [esc(_("Game size"))] + [esc(t) for _r, t in roles],
            "rows": rows,
            "source": self.army_source(d.sizes_rule, d),
            "agreed": number(d.agreed_min) if d.agreed else None,
            "bonus": bonus,
        }

    def army_cost(self, d: ir.Army) -> dict | None:
        """The cost formula's quality step: each quality's percentage, and a worked example of the rounding."""
        if not d.quality:
            return None
        example = None
        for e in d.entries:
            for q in d.quality:
                if example is None and (e.cost * (100 + q.percent)) % 100 == 50:
                    example = {"entry": esc(e.name), "base": number(e.cost), "title": esc(q.title), "pct": self.signed_percent(q.percent),
                               "exact": number(Fraction(e.cost * (100 + q.percent), 100)), "rounded": number(self.cost_at(e.cost, q.percent))}
        return {
            "quality": esc(d.quality_title or _("Quality")),
            "header": [esc(q.title) for q in d.quality],
            "row": [self.signed_percent(q.percent) for q in d.quality],
            "source": self.army_source(d.quality_rule, d),
            "example": example,
        }

    def army_option(self, d: ir.Army, o: ir.ArmyOption) -> str:
        """One option as players read it: its name (linked to its entry), points, maximum and what it changes."""
        catalog, dot, ident = o.key.partition(".")
        text = self.a(o.title, self.entry_href(catalog, ident) if dot else None)
        extra = [ngettext("%(num)d point", "%(num)d points", o.cost) % {"num": o.cost}] if o.cost else []
        if o.max != 1:
            extra.append(_("up to %(max)s times") % {"max": number(o.max)})
        troops = d.troop_catalog
        if o.remove:
            extra.append(_("removes %(troops)s") % {"troops": ", ".join(self.a(self.entry_title(troops, t), self.entry_href(troops, t)) for t in o.remove)})
        if o.add:
            extra.append(_("adds %(troops)s") % {"troops": ", ".join(self.a(self.entry_title(troops, t), self.entry_href(troops, t)) for t in o.add)})
        return f"{text} ({'; '.join(extra)})" if extra else text

    def army_units(self, d: ir.Army) -> list[dict]:
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
                    else ", ".join(self.a(e.name, self.entry_href(e.catalog, e.id)) for e in members),
                    "options": [self.army_option(d, o) for o in options],
                    "each_once": bool(options) and all(o.max == 1 for o in options) and len(options) > 1,
                    "sources": [s for s in (self.army_source(x, d) for x in sources) if s],
                })
            choices = []
            troops = d.troop_catalog
            for e in entries:
                lines = [
                    _("%(count)s × one of %(troops)s") % {"count": number(slot.count), "troops": " / ".join(
                        self.a(self.entry_title(troops, t), self.entry_href(troops, t)) for t in slot.alternatives)}
                    for slot in e.composition if len(slot.alternatives) > 1
                ]
                if lines:
                    choices.append({"entry": self.a(e.name, self.entry_href(e.catalog, e.id)), "lines": lines})
            models = [
                _("%(entry)s: %(min)s models included in its points, up to %(max)s; each extra model +%(cost)s") % {
                    "entry": self.a(e.name, self.entry_href(e.catalog, e.id)), "min": number(e.models_min), "max": number(e.models_max),
                    "cost": number(e.per_model)}
                for e in entries if e.models_min is not None and e.models_max is not None
            ]
            out.append({
                "title": self.a(self.title_of(catalog), self.href(catalog)),
                "side": esc(side_titles.get(side, side)) if side else None,
                "count": len(entries),
                "source": self.army_source(entries[0].rule, d, linked=False),  # the title links to it
                "takes": takes,
                "choices": choices,
                "models": models,
            })
        return out

    def army_limits(self, d: ir.Army) -> dict:
        """How many units in all, of each category (weighted) and of each entry; the entries that count as more than one."""
        categories = {c.id: c.title for c in d.categories}
        names = {e.id: e for e in d.entries}
        rows = []
        for x in d.limits:
            if x.kind == "category":
                what = esc(categories.get(x.target, x.target))
            elif x.kind == "entry" and x.target in names:
                e = names[x.target]
                what = self.a(e.name, self.entry_href(e.catalog, e.id))
            else:
                what = esc(_("Units in the army"))
            rows.append([what, number(x.min) if x.min is not None else "—", number(x.max) if x.max is not None else "—",
                         self.army_source(x.rule, d) or ""])
        weighted = [f"{self.a(e.name, self.entry_href(e.catalog, e.id))} ({number(e.weight)})" for e in d.entries if e.weight != 1]
        return {
            "header": [esc(_("Units")), esc(_("Minimum")), esc(_("Maximum")), esc(_("Source"))],
            "rows": rows,
            "weighted": weighted if any(x.kind == "category" for x in d.limits) else [],
        }

    def army_block(self, d: ir.Army) -> dict:
        """An ``army`` on its section page: budget, cost formula, what each group of entries may take, limits.

        ``builder_href`` is filled in by :func:`_army_markdown` once the army builder pages are named."""
        b = self.common(d)
        b["name"] = d.name
        b["budget"] = self.army_budget(d)
        b["cost"] = self.army_cost(d)
        b["units"] = self.army_units(d)
        b["limits"] = self.army_limits(d)
        return b

    def section_blocks(self, items: list[ir.Item], page: str, context: str = "", base_level: int = 2) -> list[dict]:
        """The blocks of one page, with headings that never skip a level and unique anchors;
        records the page's entries in the search index."""
        anchors = []
        suffix = "--" + anchor(page.removesuffix(".md"))
        for it in items:
            if isinstance(it, ir.Decl):
                anchors.append(anchor(it.name))
                if isinstance(it, ir.Catalog):
                    anchors += [f"{anchor(it.name)}--{anchor(i, part=True)}" for i in it.entries]
            elif isinstance(it, ir.Show) and it.name in self.p.decls:
                anchors.append(anchor(it.name) + suffix)
        self.start_page(page, anchors)
        self.page_prose = [plain(it.inlines) for it in items if isinstance(it, ir.Paragraph)]
        levels = sorted({it.level for it in items if isinstance(it, ir.Heading)})
        rank = {lvl: base_level + i for i, lvl in enumerate(levels)}
        last = base_level - 1
        blocks = []
        entry: list | None = None
        for it in items:
            b = self.block(it)
            if b is None:
                continue
            if b["kind"] == "heading":
                b["level"] = min(rank[it.level], last + 1, 6)
                last = b["level"]
                entry = [" ".join(b["text"].split()), self.site_href(page, b["id"]), context, WEIGHT_HEADING, ""]
                self.search.append(entry)
            elif b["kind"] in ("paragraph", "list", "note"):
                if entry is not None:
                    text = " ".join([plain(it.inlines, self.target)] if not isinstance(it, ir.ListBlock) else [plain(i, self.target) for i in it.items])
                    entry[4] = " ".join((entry[4] + " " + text).split())[:SNIPPET]
            elif b["kind"] != "separator":
                b["level"] = min(last + 1, 6)
                if not isinstance(it, ir.Show):
                    self.index_decl(it, page)
            blocks.append(b)
        return blocks

    def index_decl(self, d: ir.Declaration, page: str) -> None:
        if isinstance(d, ir.Record):
            return
        href = self.site_href(page, anchor(d.name))
        kind = _(BLOCK_KINDS[type(d)][1])
        if isinstance(d, ir.Rule):
            self.index(d.title, href, kind, WEIGHT_ENTITY, " ".join(d.texts))
        elif isinstance(d, ir.Term):
            self.index(d.title, href, _(GLOSSARY_KIND), WEIGHT_ENTITY, d.definition)
        else:
            self.index(d.title, href, kind, WEIGHT_DECL, d.doc or "")


def _section_heading(sec: ir.Section) -> str:
    """``VI. Iniciativa y disparos``; a section named like its title (an appendix) shows the title once."""
    return sec.title if sec.name == sec.title else f"{sec.name}. {sec.title}"


def _with_armies(program: ir.Program) -> list[list[ir.Item]]:
    """Each section's items with the army lists put back where the rules declare them: after the last
    item above them in the same file (first in the file's first section when nothing is above;
    an army in a file without sections is on no section page)."""
    out = [list(sec.items) for sec in program.sections]
    placed = {it.name for items in out for it in items if isinstance(it, ir.Army)}  # already a section item: left where it is
    for army in sorted(program.armies.values(), key=lambda a: (a.span.file, a.span.line, a.span.col)):
        if army.name in placed:
            continue
        here = (army.span.line, army.span.col)
        where = None
        for i, items in enumerate(out):
            for j, it in enumerate(items):
                span = getattr(it, "span", None)
                if span is not None and span.file == army.span.file and (span.line, span.col) < here:
                    where = (i, j + 1)
        if where is None:
            first = next((i for i, sec in enumerate(program.sections) if sec.file == army.span.file), None)
            if first is None:
                continue
            where = (first, 0)
        out[where[0]].insert(where[1], army)
    return out


def _builder_pages(program: ir.Program, army_pages: list[dict]) -> dict[str, str]:
    """Army name → its builder page: :func:`rulebook.compiler.emit.site.to_army_page.write_pages` writes one per
    army document, in the order of their file names (``<army>.json``)."""
    names = sorted(program.armies, key=lambda name: f"{name}.json")
    return {name: page["path"] for name, page in zip(names, army_pages)} if len(names) == len(army_pages) else {}


def _army_markdown(env: jinja2.Environment, b: dict, builder_href: str | None) -> dict:
    """An army list's block rendered by ``army.md.j2`` (a template of its own: ``macros.md.j2`` draws the other kinds)."""
    return {"kind": "paragraph", "md": env.get_template("army.md.j2").render(b=dict(b, builder_href=builder_href)).strip("\n")}


PROSE = (ir.Heading, ir.Paragraph, ir.ListBlock, ir.Note, ir.Separator)


class PageMemo:
    """The section and datasheet pages of the previous build (``rulebook serve``), each with
    what it read, so that an edit renders again only the pages whose output it can change.

    What a page reads is found while it is rendered (dynamic dependencies, as build systems
    such as Shake find them): its key holds what every page reads (:func:`_pages_key`: the page
    map, where each declaration and army list sits, the abbreviations, the uses between
    declarations, the army lists, the templates, the language) and its own items (prose and
    declarations, with their source positions); everything else it reads of the program goes
    through the page builder's noted mappings and queries (:class:`_Log`): each declaration,
    catalog, record or enumeration it looks up, each entry of the builder's indexes (who applies
    a rule, who references an entry, the worked examples of a procedure, the odds tables), each
    worked example it shows (as shown), each spelling of a name taken from the whole rulebook's
    prose. A page is reused when its key is the same and each of those reads has the same digest
    in this build (:meth:`PageBuilder.dependency`); a page that iterates a whole mapping depends
    on all of it. ``program`` is set by the caller for each build once the program is known to
    pickle (see ``rulebook.compiler.commands.serve``); None: no page is reused.

    When the rulebook's text changed, a spelling is taken again from the previous text when the
    words it looks for are not written where the two texts differ (:meth:`_Reading._unchanged`).
    A page of a file's rules source is reused while the file's name and text and what every
    page reads are the same. A card page rendered again reuses each card whose entry, catalog
    and reads are as they were (:meth:`PageBuilder.remembered_card`)."""

    def __init__(self) -> None:
        self.program: bytes | None = None
        self.decls: dict[str, bytes] = {}  # this build's digest of each declaration, when the caller has them
        self.examples: list[bytes] = []  # and of each worked example (in the order of program.examples)
        self.corpus: bytes | None = None  # the digest of the previous build's text of spellings (_Reading.corpus)
        self.text: str | None = None  # that text
        self.spellings: dict[tuple, Any] = {}  # the spellings found in that text (_Reading.known)
        # page → (its key, what it read with each read's digest, its search entries, its Markdown)
        self.pages: dict[str, tuple[bytes, dict[tuple, bytes | None], list[list], str]] = {}
        # card page → (catalog, entry) → (its key, what it read with each read's digest, its search entries, its view)
        self.cards: dict[str, dict[tuple[str, str], tuple[bytes, dict[tuple, bytes | None], list[list], dict]]] = {}
        # the rules source pages: page → ((what every page reads, file name, file text), its Markdown)
        self.listings: dict[str, tuple[tuple, str]] = {}


def _pages_key(program: ir.Program, pb: PageBuilder, memo: PageMemo | None, lang: i18n.Language) -> bytes | None:
    """What every section page reads beside its own items (see :class:`PageMemo`); None: no memo."""
    import hashlib

    if memo is None or memo.program is None:
        return None
    sections = [(s.name, s.title, s.file, s.slug, s.status, s.doc,
                 [(type(it).__name__, getattr(it, "name", None)) for it in items if not isinstance(it, PROSE)])
                for s, items in zip(program.sections, pb.section_items)]
    templates = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in (SITE_DIR / "templates").glob("*"))
    card_pages = [(pg["title"], pg["page"], pg["catalogs"], pg["options"]) for pg in pb.datasheet_pages + pb.reference_pages]
    data = pickled((
        sorted((k, sorted(v)) for k, v in program.uses.items()), list(program.armies), [i for i in program.front if not isinstance(i, PROSE)],
        sections, program.files, pb.page_of, pb.section_pages, pb.card_page, pb.abbreviations, pb.source_pages, sorted(pb.taken),
        card_pages, sorted(pb.datasheet_catalogs), pb.package is None, lang.code, templates,
    ))
    return None if data is None else hashlib.sha256(data).digest()


def _by_name(program: ir.Program, item: ir.Item) -> Any:
    """An item of a page for its key: a declaration or army list of the program by its kind and
    name (the page depends on its value: :func:`_own`), anything else (prose, ``show``) as it is."""
    name = getattr(item, "name", None)
    if not isinstance(item, (ir.Show, *PROSE)) and (program.decls.get(name) is item or program.armies.get(name) is item):
        return (type(item).__name__, name)
    return item


def _own(program: ir.Program, items: list) -> dict[tuple, bytes | None]:
    """The dependencies of a page on its own declarations and army lists (its key holds them by name: :func:`_by_name`)."""
    own = {}
    for it in items:
        name = getattr(it, "name", None)
        if program.decls.get(name) is it:
            own[("decls", name)] = None
        elif program.armies.get(name) is it:
            own[("armies", name)] = None
    return own


def _kept(memo: PageMemo | None, pb: PageBuilder, page: str, key: bytes | None) -> tuple | None:
    """The previous build's ``page`` if its key is ``key`` and all it read is as it was."""
    old = memo.pages.get(page) if memo is not None and key is not None else None
    if old is None or old[0] != key:
        return None
    same = pb.same_corpus
    return old if all(d is not None and ((same and dep[0] in SPELLINGS) or pb.dependency(dep) == d) for dep, d in old[1].items()) else None


def _digests(pb: PageBuilder, deps: dict[tuple, bytes | None]) -> dict[tuple, bytes | None]:
    """``deps`` with this build's digest of each (those noted without one: :meth:`PageBuilder.dependency`)."""
    return {dep: pb.dependency(dep) if d is None else d for dep, d in deps.items()}


def _page_key(common: bytes | None, page: str, heading: str, items: list, notes: dict) -> bytes | None:
    """The key of one section page: what all pages read, and its own items."""
    import hashlib

    if common is None:
        return None
    data = pickled((page, heading, items, notes))
    return None if data is None else hashlib.sha256(common + data).digest()


def write_docs(program: ir.Program, out_dir: Path, package: ModuleType | None, odds: dict, shown: Invocation,
               memo: PageMemo | None = None, ahead: ListingsAhead | None = None) -> None:
    """Render docs/ (Markdown, the search index) and mkdocs.yml into ``out_dir``.

    ``package`` is the generated resolver package (it evaluates the worked
    examples; None shows them unevaluated), ``odds`` the ``"tables"`` of
    ``json/odds.json``, ``shown`` the rulebook and output folder the data page's
    commands name. Reads ``out_dir/json`` and ``out_dir/schemas`` (already
    written) to publish them under ``docs/datos/``. Every phrase is in the
    rulebook's ``lang`` (:mod:`rulebook.compiler.i18n`). ``memo``: the section pages of
    the previous build (:class:`PageMemo`), reused where nothing they read changed, and
    replaced by this build's. ``ahead``: the source listings' lines, worked out meanwhile
    (:class:`ListingsAhead`).
    """
    with i18n.using(i18n.of_rulebook(program)) as lang:
        _write_docs(program, out_dir, package, odds, lang, shown, memo, ahead)


def _write_docs(program: ir.Program, out_dir: Path, package: ModuleType | None, odds: dict, lang: i18n.Language,
                shown: Invocation, memo: PageMemo | None = None, ahead: ListingsAhead | None = None) -> None:
    env = environment(lang)
    pb = PageBuilder(program, package, odds)
    docs = out_dir / "docs"
    for sub in ("includes", "assets"):
        (docs / sub).mkdir(parents=True, exist_ok=True)
    rb = program.rulebook
    title = rb.title if rb else _("Rulebook")

    def write(page: str, template: str, **context) -> None:
        (docs / page).write_text(env.get_template(template).render(**context), encoding="utf-8")

    # the manual, section by section
    sections, manual_nav, appendix_nav = [], [], []
    section_pages = []  # written once the army builder pages, which their army lists link to, are named
    common = _pages_key(program, pb, memo, lang)
    corpus = None
    if common is not None and memo is not None:
        pb.decl_digests, pb.example_digests = memo.decls, memo.examples
        corpus = pb.read.corpus()
        pb.same_corpus = corpus is not None and corpus == memo.corpus
        if pb.same_corpus:
            pb.read.known = memo.spellings  # the same text: the same spellings
        elif memo.corpus is not None and memo.text is not None:  # those of the previous text that an edit cannot change
            pb.read.previous = (memo.text, memo.spellings)
    kept: dict[str, tuple[bytes, dict[tuple, bytes | None], list[list], str]] = {}  # this build's pages for the memo
    cards: dict[str, dict] = {}  # and each card page's cards (PageBuilder.remembered_card)
    for sec, items, page in zip(program.sections, pb.section_items, pb.section_pages):
        heading = _section_heading(sec)
        pb.index(sec.title, pb.site_href(page), _("Section"), WEIGHT_PAGE)
        notes = {"badge": _badge(sec.status), "doc": esc(sec.doc) if sec.doc else None}
        key = _page_key(common, page, heading, [_by_name(program, it) for it in items], notes)
        old = _kept(memo, pb, page, key)
        if old is not None:  # nothing it reads changed: its Markdown as it was
            _key, deps, entries, text = old
            pb.search.extend(list(entry) for entry in entries)
            section_pages.append((page, heading, None, notes, key, deps, entries, text))
        else:
            before = len(pb.search)
            pb.log.deps = _own(program, items) if key is not None else None
            blocks = pb.section_blocks(items, page, heading)
            deps, pb.log.deps = pb.log.deps, None
            section_pages.append((page, heading, blocks, notes, key, deps, [list(entry) for entry in pb.search[before:]], None))
        (appendix_nav if sec.name == sec.title else manual_nav).append({"title": heading, "path": page})
        sections.append({"heading": esc(heading), "heading_html": attr(heading), "appendix": sec.name == sec.title, "page": page})

    # datasheets and the cards of what they reference
    card_nav = []
    for pg in pb.datasheet_pages + pb.reference_pages:
        pb.start_page(pg["page"])
        single = len(pg["catalogs"]) == 1 and pb.title_of(pg["catalogs"][0]) == pg["title"]
        pb.index(pg["title"], pb.site_href(pg["page"]), _(NAV["cards"]), WEIGHT_PAGE)
        card_nav.append({"title": pg["title"], "path": pg["page"], "count": sum(len(pb.catalogs[c].entries) for c in pg["catalogs"])})
        key = _page_key(common, pg["page"], "", [], pg)  # a card page reads no prose: the declarations and the page map
        old = _kept(memo, pb, pg["page"], key)
        if old is not None:
            _key, _deps, entries, text = kept[pg["page"]] = old
            cards[pg["page"]] = memo.cards.get(pg["page"], {}) if memo is not None else {}
            pb.search.extend(list(entry) for entry in entries)
            (docs / pg["page"]).write_text(text, encoding="utf-8")
            continue
        before = len(pb.search)
        pb.log.deps = {} if key is not None else None
        if key is not None and memo is not None:
            pb.cards = (memo.cards.get(pg["page"], {}), cards.setdefault(pg["page"], {}), key)
        catalogs = [pb.card_catalog(c, 2 if single else 3, pg["options"]) for c in pg["catalogs"]]  # one card per entry
        pb.cards = None
        notes, seen = [], []
        for c in pg["catalogs"]:
            cost = pb.catalogs[c].cost
            if cost is not None and cost not in seen:
                seen.append(cost)
                notes.append(pb.cost_note(cost, [x for x in pg["catalogs"] if pb.catalogs[x].cost == cost]))
        options = pb.options_block(pg["options"])
        deps, pb.log.deps = pb.log.deps, None
        text = env.get_template("datasheets.md.j2").render(title=esc(pg["title"]), single=single, catalogs=catalogs, cost_notes=notes,
                                                          options=options)
        (docs / pg["page"]).write_text(text, encoding="utf-8")
        if key is not None:
            kept[pg["page"]] = (key, _digests(pb, deps), [list(entry) for entry in pb.search[before:]], text)

    # glossary: abbreviations appended to every page (tooltips), and as data
    terms = []
    for t in pb.terms:
        term, definition = abbr_term(t.title), abbr_text(t.definition)
        if term is not None and definition:
            terms.append({"term": term, "definition": definition})
    (docs / "includes" / "glosario.md").write_text(env.get_template("glosario.md.j2").render(terms=terms), encoding="utf-8")
    glossary = next((s for s, sec in zip(sections, program.sections) if any(isinstance(i, ir.Term) for i in sec.items)), None)
    glossary_nav = []
    if pb.front_terms:
        blocks = pb.section_blocks(pb.front_terms, pb.pages["glossary"], _(GLOSSARY_KIND))
        write(pb.pages["glossary"], "page.md.j2", section={"heading": esc(_(GLOSSARY_KIND))}, blocks=blocks)
        pb.index(_(GLOSSARY_KIND), pb.site_href(pb.pages["glossary"]), _(GLOSSARY_KIND), WEIGHT_PAGE)
        glossary_nav = [{"title": _(GLOSSARY_KIND), "path": pb.pages["glossary"]}]
        glossary = glossary or {"page": pb.pages["glossary"]}

    # pages for the table: every datasheet, the special rules A–Z, the quick reference
    pb.start_page(pb.pages["card_index"])
    card_index = _card_index(pb)
    if card_index["rows"]:
        write(pb.pages["card_index"], "fichas.md.j2", **card_index)
        pb.index(_(NAV["card_index"]), pb.site_href(pb.pages["card_index"]), _(NAV["cards"]), WEIGHT_PAGE)
    pb.start_page(pb.pages["rules"])
    rules = _rules_a_to_z(pb)
    if rules:
        write(pb.pages["rules"], "reglas.md.j2", letters=rules)
        pb.index(_(NAV["rules"]), pb.site_href(pb.pages["rules"]), _(NAV["rules"]), WEIGHT_PAGE)
    pb.start_page(pb.pages["quick"])
    quick = _quick_reference(pb, sections)
    if quick["groups"] or quick["odds"]:
        write(pb.pages["quick"], "referencia.md.j2", **quick)
        pb.index(_(NAV["quick"]), pb.site_href(pb.pages["quick"]), _(NAV["quick"]), WEIGHT_PAGE)

    # for designers: the front matter, the data for tools, the rules source of every file
    data = _publish_data(program, pb, out_dir, docs / "datos", package)
    pb.start_page(pb.pages["data"])
    data["examples"] = _data_examples(program, pb, package, shown)
    write(pb.pages["data"], "datos.md.j2", title=esc(title), **data)
    army_pages = to_army_page.write_pages(pb, out_dir, docs, env, WEIGHT_PAGE)  # the army builder, one page per army
    builders = _builder_pages(program, army_pages)
    for page, heading, blocks, notes, key, deps, entries, text in section_pages:
        if text is None:
            pb.start_page(page)
            blocks = [_army_markdown(env, b, pb.url(builders.get(b["name"]))) if b["kind"] == "army" else b for b in blocks]
            text = env.get_template("page.md.j2").render(section={"heading": esc(heading), **notes}, blocks=blocks)
        (docs / page).write_text(text, encoding="utf-8")
        if key is not None:
            kept[page] = (key, _digests(pb, deps), entries, text)
    if memo is not None:
        memo.pages, memo.cards = kept, cards
        memo.corpus = corpus if common is not None else None  # the text of the kept pages' spellings
        memo.text = pb.read._text()[0] if common is not None else None
        memo.spellings = pb.read.known
    army_nav = army_pages + to_changelog_page.write_page(pb, program, docs, env, WEIGHT_PAGE)  # the version history (@changelog)
    sources, listings = [], {}
    for file, page in pb.source_pages.items():
        key = (common, file, program.sources[file])  # a listing reads its file's name and text (and the templates: common)
        old = memo.listings.get(page) if memo is not None and common is not None else None
        text = old[1] if old is not None and old[0] == key else env.get_template("codigo.md.j2").render(
            file=attr(file), lines=_listing_lines(ahead, file, program.sources[file]))
        (docs / page).write_text(text, encoding="utf-8")
        listings[page] = (key, text)
        sources.append({"file": attr(file), "href": None, "page": page})
    if memo is not None:
        memo.listings = listings if common is not None else {}
    front = pb.section_blocks([i for i in program.front if not isinstance(i, ir.Term)], pb.pages["design"], _(NAV["design"]))
    for s in sources:
        s["href"] = pb.url(s["page"])
    write(pb.pages["design"], "disenadores.md.j2", blocks=front, sources=sources, data_href=pb.url(pb.pages["data"]), title=esc(title))

    # the home page: one tap to what players use at the table
    pb.start_page(INDEX_PAGE)
    intro = []
    for item in program.front:
        if not isinstance(item, ir.Paragraph):
            break
        intro.append(inlines(item.inlines, pb.target))
    write(INDEX_PAGE, "index.md.j2", title=esc(title), version=attr(rb.version) if rb else "", intro=intro,
          sections=[dict(s, href=pb.url(s["page"])) for s in sections],
          datasheets=[{"title": attr(c["title"]), "href": pb.url(c["path"]), "count": c["count"]} for c in card_nav],
          card_index={"href": pb.url(pb.pages["card_index"]), "count": len(card_index["rows"])} if card_index["rows"] else None,
          rules={"href": pb.url(pb.pages["rules"]), "count": sum(len(g["rules"]) for g in rules)} if rules else None,
          glossary={"href": pb.url(glossary["page"]), "count": len(pb.terms)} if glossary else None,
          quick=pb.url(pb.pages["quick"]) if quick["groups"] or quick["odds"] else None,
          armies=[{"title": attr(a["title"]), "href": pb.url(a["path"])} for a in army_pages],
          design=pb.url(pb.pages["design"]), data=pb.url(pb.pages["data"]))
    pb.index(title, pb.site_href(INDEX_PAGE), _(NAV["home"]), WEIGHT_PAGE)

    (docs / SEARCH_SCRIPT).write_text(
        "window.rulebookSearch = " + json.dumps({"entries": pb.search}, ensure_ascii=False, separators=(",", ":")) + ";\n",
        encoding="utf-8",
    )
    for asset in ("extra.css", "rulebook.js"):
        shutil.copy2(SITE_DIR / "assets" / asset, docs / "assets" / asset)
    if (out_dir / "overrides").exists():
        shutil.rmtree(out_dir / "overrides")
    shutil.copytree(SITE_DIR / "overrides", out_dir / "overrides")
    nav: list[dict] = [{"title": _(NAV["home"]), "path": INDEX_PAGE}]
    cards = ([{"title": _(NAV["card_index"]), "path": pb.pages["card_index"]}] if card_index["rows"] else []) + card_nav
    nav += [{"title": _(NAV["cards"]), "children": cards}] if cards else []
    nav += [{"title": _(NAV["rules"]), "path": pb.pages["rules"]}] if rules else []
    nav += [{"title": _(NAV["quick"]), "path": pb.pages["quick"]}] if quick["groups"] or quick["odds"] else []
    nav += army_nav
    nav += [{"title": _(NAV["manual"]), "children": manual_nav}] if manual_nav else []
    nav += appendix_nav + glossary_nav
    nav.append({"title": _(NAV["design"]), "children": [{"title": _(NAV["design"]), "path": pb.pages["design"]}, {"title": _(NAV["data"]), "path": pb.pages["data"]}]})
    mk = env.get_template("mkdocs.yml.j2").render(
        site_name=title,
        site_description=_("%(title)s: a rulebook generated from its rules in the rules language.") % {"title": title},
        copyright=(_("%(title)s — version %(version)s") % {"title": title, "version": rb.version}) if rb else title,
        nav=nav,
        not_in_nav=sorted("/" + page for page in pb.source_pages.values()),
        language=lang.code,
        messages=site_messages(),
    )
    (out_dir / "mkdocs.yml").write_text(mk, encoding="utf-8")


QUERIES = {
    "spelling": lambda pb, words: pb.read.spelling(words),
    "word": lambda pb, word: pb.read.word(word),
    "value": lambda pb, v: pb.read.value(v),
    "entry_title": lambda pb, key: pb.read.entry_title(*key),
    "title": lambda pb, name: pb._title_of(name),
    "kind": lambda pb, name: pb.kind_of(name),
    "ref_catalog": lambda pb, key: pb._ref_catalog(*key),
    "example": lambda pb, index: pb.example(index, pb.p.examples[index]) if index < len(pb.p.examples) else UNKNOWN,
}
"""The queries a page's answer is noted under (:meth:`_Log.query`), as this build answers them."""
SPELLINGS = ("spelling", "word")  # the queries answered from the rulebook's text alone (:meth:`_Reading.corpus`)
DECLARATIONS = ("decls", "catalogs", "records", "enums")  # the noted mappings whose values are the program's declarations


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


def _card_index(pb: PageBuilder) -> dict:
    """Every datasheet entry in one filterable table: its page, catalog, base cost and special rules."""
    rows, groups, types, rules = [], [], [], {}
    cost_title = None
    for pg in pb.datasheet_pages:
        groups.append(attr(pg["title"]))
        for c in pg["catalogs"]:
            d = pb.catalogs[c]
            types.append(attr(d.title)) if attr(d.title) not in types else None
            cost_field = d.cost.field if d.cost else None
            cost_title = cost_title or (d.cost.field_title if d.cost else None)
            rule_fields = [f for f in pb.fields(d.record) if f.type.inner.kind == "list" and f.type.inner.args[0].kind == "rule"]
            for ident, rec in d.entries.items():
                apps = [app for f in rule_fields for app in rec.get(f.name) or []]
                for app in apps:
                    rules.setdefault(app["rule"], pb.title_of(app["rule"]))
                cost = rec.get(cost_field) if cost_field else None
                title = pb.entry_title(c, ident)
                rows.append({
                    "title": attr(title), "href": attr(pb.entry_href(c, ident)), "group": attr(pg["title"]), "type": attr(d.title),
                    "cost": attr(number(cost)) if isinstance(cost, int) else "—", "cost_value": cost if isinstance(cost, int) else "",
                    "rules": ", ".join(link(attr(pb.rule_label(app["rule"], app["args"].values())), pb.href(app["rule"])) for app in apps),
                    "rule_ids": attr(" ".join(sorted({app["rule"] for app in apps}))),
                    "text": attr(fold(" ".join([title, pg["title"], d.title] + [pb.title_of(app["rule"]) for app in apps]))),
                    "badge": _badge(d.status),
                })
    rule_options = sorted(((attr(k), attr(v)) for k, v in rules.items()), key=lambda kv: fold(kv[1]))
    return {"rows": rows, "groups": groups, "types": types, "rules": rule_options, "cost_title": attr(cost_title or "")}


def _rules_a_to_z(pb: PageBuilder) -> list[dict]:
    """Every special rule, sorted by title without accents or case, grouped by initial."""
    letters: dict[str, list[dict]] = {}
    for d in sorted(pb.p.of(ir.Rule), key=lambda r: (fold(r.title), r.name)):
        users = pb.rule_users.get(d.name, [])
        initial = (fold(d.title)[:1] or "#").upper()
        letters.setdefault(initial if initial.isalpha() else "#", []).append({
            "link": pb.a(d.title + (f"({', '.join(p.name for p in d.params)})" if d.params else ""), pb.href(d.name)),
            "summary": esc(pb.rule_summary(d.name) or ""),
            "ref": attr(d.ref),
            "badge": _badge(d.status),
            "count": len({(c, i) for c, i, _u in users if c in pb.datasheet_catalogs}),
        })
    out = []
    for letter, items in letters.items():
        ident = pb.claim_id(f"letra-{letter.lower() if letter.isalpha() else 'otros'}")
        out.append({"letter": letter, "id": ident, "href": pb.url(pb.pages["rules"], ident), "rules": items})
    return out


def _quick_reference(pb: PageBuilder, sections: list[dict]) -> dict:
    """The rulebook's highlighted formulas (its ``> notes``), each after its heading unless it names
    itself (``> **Aviación:** …``), and its odds tables."""
    groups = []
    for sec, page_info in zip(pb.p.sections, sections):
        heading, lines = None, []
        for item in sec.items:
            if isinstance(item, ir.Heading):
                heading = plain(item.inlines, pb.target)
            elif isinstance(item, ir.Note):
                labelled = bool(item.inlines) and isinstance(item.inlines[0], ir.Strong) and item.inlines[0].text.rstrip().endswith(":")
                lines.append((esc(heading) if heading and not labelled else None, inlines(item.inlines, pb.target)))
        if lines:
            merged: list[dict] = []
            for h, note in lines:
                if merged and h is not None and merged[-1]["heading"] == h:
                    merged[-1]["notes"].append(note)
                else:
                    merged.append({"heading": h, "notes": [note]})
            groups.append({"title": page_info["heading"], "href": pb.url(page_info["page"]), "items": merged})
    odds = []
    for d in pb.ordered:
        if isinstance(d, ir.Odds) and d.each is None and d.name in pb.odds:
            header, rows = pb.odds_grid(pb.odds[d.name], pb.odds[d.name].get("cells", []))
            if rows:
                odds.append({"title": pb.a(d.title, pb.href(d.name)), "header": header, "rows": rows})
    return {"groups": groups, "odds": odds}


class ListingsAhead:
    """The source listings' highlighted lines (:func:`_source_lines` of each file), worked
    out in a forked worker process (:class:`rulebook.compiler.support.ahead.Ahead`) while a one-shot
    build runs its Python, odds and JSON stages: highlighting (Pygments) is about a third of
    the docs stage and reads only the sources, so on a second core it is off the build's
    path. :meth:`lines` is the worker's answer for a file, or None (the worker failed, was
    not started, or is slow): the caller then works it out itself, with the same function,
    so the bytes are the same. Started by :meth:`rulebook.compiler.pipeline.driver.Stages.listings`;
    ``serve`` remembers the listings instead."""

    def __init__(self, sources: Mapping[str, str], worker: Ahead | None = None) -> None:
        self._sources = dict(sources)  # what the worker was given: its answer holds for these texts only
        if worker is None:
            highlight_lines("")  # Pygments and the rules lexer imported here, before the fork
            worker = Ahead(_all_source_lines, self._sources)
        self._worker = worker
        self._answer: dict[str, list[str]] | None = None

    @classmethod
    def start(cls, sources: Mapping[str, str]) -> ListingsAhead | None:
        """A worker for ``sources`` when it can help (:meth:`rulebook.compiler.support.ahead.Ahead.start`)."""
        highlight_lines("")  # as in __init__: before the fork
        worker = Ahead.start(_all_source_lines, dict(sources))
        return cls(sources, worker) if worker is not None else None

    def lines(self, file: str, text: str) -> list[str] | None:
        if self._answer is None:
            self._answer = self._worker.answer() or {}
        return self._answer.get(file) if self._sources.get(file) == text else None

    def close(self) -> None:
        """Stop the worker if it is still at its task (:meth:`rulebook.compiler.support.ahead.Ahead.close`)."""
        self._worker.close()


def _all_source_lines(sources: dict[str, str]) -> dict[str, list[str]]:
    """:func:`_source_lines` of every source (the worker's task)."""
    return {file: _source_lines(text) for file, text in sources.items()}


def _source_lines(text: str) -> list[str]:
    """A literate rules file as HTML lines: the ```` ```rules ```` fences highlighted, prose as text."""
    out: list[str] = []
    fence: list[str] | None = None
    for line in text.splitlines():
        if fence is None:
            out.append(attr(line))
            if line.strip().startswith("```"):
                fence = []
        elif line.strip() == "```":
            out += highlight_lines("\n".join(fence)) if fence else []
            out.append(attr(line))
            fence = None
        else:
            fence.append(line)
    if fence:
        out += highlight_lines("\n".join(fence))
    return out


def _listing_lines(ahead: ListingsAhead | None, file: str, text: str) -> list[str]:
    """A source file's listing lines: from the worker when it has them."""
    lines = ahead.lines(file, text) if ahead is not None else None
    return lines if lines is not None else _source_lines(text)


def _link_or_copy(src: str, dst: str) -> None:
    """``dst`` as a second name of ``src`` (a hard link: no bytes copied; the build never writes
    a file in place), or a copy where the file system has no hard links."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


@functools.lru_cache(maxsize=256)
def _data_heading(text: str) -> tuple[Any, Any, Any]:
    """``id``, ``kind`` (default "") and ``title`` of a JSON document's text; remembered, as
    ``serve`` lists the same documents after every edit."""
    try:
        obj = json.loads(text)
    except ValueError:
        obj = {}
    return obj.get("id"), obj.get("kind", ""), obj.get("title")


def _publish_data(program: ir.Program, pb: PageBuilder, out_dir: Path, dest: Path, package: ModuleType | None) -> dict:
    """Copy json/ and schemas/ under docs/datos/, write the glossary as JSON, and
    build the view-model of the data page (its file list)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    pb.start_page(pb.pages["data"])
    files = []
    for sub in ("json", "schemas"):
        if (out_dir / sub).is_dir():
            shutil.copytree(out_dir / sub, dest / sub, copy_function=_link_or_copy)
    glossary = {
        "kind": "glossary",
        "terms": [{"id": t.name, "term": t.title, "definition": t.definition, "source": t.ref} for t in pb.terms],
    }
    (dest / "glosario.json").write_text(json.dumps(glossary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for path in sorted((dest / "json").glob("*.json")) if (dest / "json").is_dir() else []:
        doc_id, kind, title = _data_heading(path.read_text(encoding="utf-8"))
        schema = dest / "schemas" / f"{path.stem}.schema.json"
        name = doc_id or path.stem
        files.append({
            "name": esc(path.name),
            "href": f"datos/json/{path.name}",
            "schema": f"datos/schemas/{schema.name}" if schema.exists() else None,
            "schema_name": esc(schema.name),
            "kind": esc(kind),
            "title": pb.a(title or name, pb.href(name) if name in program.decls else None),
        })
    procedures = sorted((dest / "schemas" / "procedures").glob("*.schema.json")) if (dest / "schemas" / "procedures").is_dir() else []
    proc_schemas: dict[str, dict[str, str]] = {}
    for path in procedures:
        pname, _, role = path.name.removesuffix(".schema.json").rpartition(".")
        proc_schemas.setdefault(pname, {})[role] = f"datos/schemas/procedures/{path.name}"
    proc_rows = [
        {"title": pb.a(pb.title_of(pn), pb.href(pn)), "name": attr(pn), "input": r.get("input"), "result": r.get("result")}
        for pn, r in proc_schemas.items()
    ]
    return {
        "files": files,
        "procedures": proc_rows,
        "rulebook_name": attr(program.rulebook.name if program.rulebook else ""),
    }


def _json_scalar(v) -> bool:
    return isinstance(v, (bool, int, str)) or v is None


@dataclass(frozen=True)
class Invocation:
    """How the build was asked for, as the data page's commands repeat it: the rulebook's
    path and the output folder, as given on the command line (or relative to where it runs)."""

    rulebook: str
    output: str = "build"


def _typical_call(program: ir.Program, package: ModuleType) -> tuple[str, dict] | None:
    """A worked example to show as a call: JSON-shaped inputs (about four), no expected error."""
    calls = [
        (ex.procedure, generated.inputs)
        for ex, generated in zip(program.examples, package.examples.EXAMPLES)
        if ex.expected_error is None and generated.inputs and all(_json_scalar(v) for v in generated.inputs.values())
    ]
    return min(calls, key=lambda call: abs(len(call[1]) - 4), default=None)


def _data_examples(program: ir.Program, pb: PageBuilder, package: ModuleType | None, shown: Invocation) -> dict:
    """Usage examples built from this rulebook's own data and this build's folders (highlighted HTML).

    Every snippet runs as shown from the folder the build was run in: the Python
    ones with the project installed, the shell ones with ``rulebook`` and ``jq``."""
    rb = program.rulebook.name if program.rulebook else "rulebook"
    site_data = f"{shown.output}/site/datos"
    out: dict[str, Any] = {"python": None, "cli": None, "jq": None, "js": None, "schema": None,
                           "build": highlight(f"rulebook build {shlex.quote(shown.rulebook)} -o {shlex.quote(shown.output)}\n", "bash"),
                           "python_dir": esc(f"{shown.output}/python/"), "site_data": esc(site_data + "/")}
    call = _typical_call(program, package) if package is not None else None
    if call is not None:
        proc, inputs = call
        package_note = _("the package that `rulebook build` generated")
        input_note = _("the JSON of %(schema)s") % {"schema": f"schemas/procedures/{proc}.input.schema.json"}
        fraction_note = _("p is an exact fraction")
        out["python"] = highlight(
            "import sys\n"
            f"sys.path.insert(0, {shown.output + '/python'!r})  # {package_note}\n"
            f"import {rb}\nfrom {rb} import runtime\n\n"
            f"proc = {rb}.PROCEDURES[{proc!r}]\n"
            f"inputs = {inputs!r}  # {input_note}\n"
            "dist = runtime.exact(proc.function, **proc.convert(inputs))\n"
            "for result, p in dist.items():\n"
            f"    print(result, p)  # {fraction_note}\n"
            "result, trace = runtime.sample(proc.function, seed=1, trace=True, **proc.convert(inputs))\n"
            f"print(trace.render_text(lang={rb}.LANG))\n",
            "python",
        )
        out["cli"] = highlight(
            f"rulebook resolve {shlex.quote(proc)} --rulebook {shlex.quote(shown.rulebook)} --exact"
            f" --input {shlex.quote(json.dumps(inputs, ensure_ascii=False))}\n",
            "bash",
        )
        out["proc_title"] = pb.a(pb.title_of(proc), pb.href(proc))
    # a catalog entry: the JSON examples
    with_entries = [c.name for c in pb.catalogs.values() if c.entries]
    cat = ([c for c in with_entries if c in pb.datasheet_catalogs] or with_entries or [None])[0]
    if cat is not None:
        ident = next(iter(pb.catalogs[cat].entries))
        fields = pb.fields(pb.catalogs[cat].record)
        field = next((f.name for f in fields if f.type.kind == "int"), fields[0].name if fields else None)
        doc = shlex.quote(f"{site_data}/json/{cat}.json")
        out["jq"] = highlight(f"jq {shlex.quote('.entries[' + json.dumps(ident) + ']')} {doc}\njq '.entries | keys' {doc}\n", "bash")
        out["js"] = highlight(
            f"const catalog = await (await fetch({json.dumps(f'datos/json/{cat}.json')})).json();\n"
            f"console.log(catalog.title, catalog.entries[{json.dumps(ident)}]" + (f"[{json.dumps(field)}]" if field else "") + ");\n",
            "javascript",
        )
        invalid_note = _("ValidationError if it does not conform")
        out["schema"] = highlight(
            "import json, pathlib\n"
            "from jsonschema import Draft202012Validator\n"
            "from referencing import Registry, Resource\n\n"
            f"root = pathlib.Path({site_data!r})\n"
            "schemas = [json.loads(p.read_text()) for p in (root / \"schemas\").rglob(\"*.schema.json\")]\n"
            "registry = Registry().with_resources((s[\"$id\"], Resource.from_contents(s)) for s in schemas)\n"
            f"data = json.loads((root / \"json\" / {cat + '.json'!r}).read_text())\n"
            f"schema = json.loads((root / \"schemas\" / {cat + '.schema.json'!r}).read_text())\n"
            f"Draft202012Validator(schema, registry=registry).validate(data)  # {invalid_note}\n",
            "python",
        )
        out["catalog"] = pb.a(pb.title_of(cat), pb.href(cat))
    return out


# Files of the theme that the site never loads: source maps, and Material's own
# search (replaced by the rulebook's search index, which also works from disk).
UNSHIPPED = ("assets/javascripts/lunr", "assets/javascripts/workers", "sitemap.xml", "sitemap.xml.gz")
SOURCE_MAP_COMMENT = re.compile(rb"\n?(?://# sourceMappingURL=[^\n]*|/\*# sourceMappingURL=[^*]*\*/)\s*$")
TOOLTIP_OR_HEADING = re.compile(r'<abbr title="[^"]*">([^<]*)</abbr>|<h[1-6][\s>]')


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
    None; ``rulebook serve`` passes the pages it re-rendered), strip source-map comments."""
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
        thinned = thin_tooltips(page)
        if thinned != page:
            path.write_text(thinned, encoding="utf-8")
    for path in sorted([*site.rglob("*.js"), *site.rglob("*.css")]):
        data = path.read_bytes()
        stripped = SOURCE_MAP_COMMENT.sub(b"\n", data)
        if stripped != data:
            path.write_bytes(stripped)
