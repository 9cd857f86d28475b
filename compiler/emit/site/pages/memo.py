"""What each page reads, and ``rulebook serve``'s memo of the previous build's pages.

Reads what the page builders look up while a page is rendered (through the noted
mappings and queries of :class:`PageReads`) and the previous build's :class:`PageMemo`.
Produces: the digest of each thing a page read, as this build has it
(:meth:`PageReads.dependency`); the key of each section and datasheet page (:func:`page_key`,
over what every page reads:
:meth:`rulebook.compiler.emit.site.pages.context.SiteContext.common_key`); the previous build's
page when nothing it read changed (:meth:`PageMemo.kept`); the memo of this build, for the next one.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.support.memo import ALL, NotedMapping, pickled

UNKNOWN = object()
"""A query's answer when it cannot be known (the dependency never matches: the page is rendered again)."""
SPELLINGS = ("spelling", "word")  # the queries answered from the rulebook's text alone (NotedReadable.corpus)
DECLARATIONS = ("decls", "catalogs", "records", "enums")  # the noted mappings whose values are the program's declarations
PROSE = (ir.Heading, ir.Paragraph, ir.ListBlock, ir.Note, ir.Separator)


def digest(value: Any) -> bytes | None:
    """The SHA-256 of ``value`` pickled without the memo (:func:`pickled`), a text as itself
    (marked apart); None when it does not pickle."""
    if type(value) is str:
        return b"s" + value.encode("utf-8", "surrogatepass")
    if value is None:
        return b"n"
    data = pickled(value)
    return None if data is None else hashlib.sha256(data).digest()


class PageReads:
    """What the page being rendered reads (``rulebook serve``'s :class:`PageMemo`), and this
    build's digest of each thing a page can read.

    ``deps`` maps each dependency to its digest when known at once, None until asked (see
    :meth:`dependency`); ``deps`` is None while no page is noted. A dependency is a key looked
    up in one of the mappings made by :meth:`noted` (``("catalogs", name)``), a whole mapping
    (``("catalogs", ALL)``: the page iterated it), or a query's answer (``("example", index)``,
    ``("spelling", words)``: see :meth:`query`) — what a page shows that the builders work
    out from more of the program than the page should depend on. ``answers`` holds, for each
    kind of query, how this build answers it again (registered by the builders that ask it)."""

    __slots__ = ("deps", "sources", "answers", "digests", "decl_digests", "example_digests", "same_corpus")

    def __init__(self) -> None:
        self.deps: dict[tuple, bytes | None] | None = None
        self.sources: dict[str, Mapping] = {}  # a noted mapping's name → the mapping itself
        self.answers: dict[str, Callable[[Any], Any]] = {}  # a query's name → its answer in this build, by argument
        self.digests: dict[tuple, bytes | None] = {}  # this build's digest of each dependency (see dependency())
        self.decl_digests: dict[str, bytes] = {}  # this build's digest of each declaration, when the caller has them (PageMemo.decls)
        self.example_digests: list[bytes] | None = None  # and of each worked example (PageMemo.examples), None: not at hand
        self.same_corpus = False  # whether the spellings' text is the previous build's (their answers are then the same)

    def noted(self, name: str, data: Mapping) -> Mapping:
        """``data`` as a mapping whose reads are noted under ``name`` while a page is rendered."""
        self.sources[name] = data
        return NotedMapping(data, functools.partial(self.note, name))

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
        deps[(source, key)] = digest(answer)
        return answer

    def dependency(self, dep: tuple) -> bytes | None:
        """The digest, in this build, of one thing a page read (``(mapping, key)``, ``(mapping, ALL)``
        or ``(query, argument)``); None when it does not pickle."""
        if dep in self.digests:
            return self.digests[dep]
        source, key = dep
        if source in self.answers:
            value = self.answers[source](key)
            if value is UNKNOWN:
                self.digests[dep] = None
                return None
        elif source in DECLARATIONS and key in self.sources[source] and key in self.decl_digests:
            self.digests[dep] = found = b"+" + self.decl_digests[key]
            return found
        elif source == "examples_of" and key is not ALL and self.example_digests is not None:
            value = [(index, self.example_digests[index]) for index, _ex in self.sources[source].get(key, ())]
        elif key is ALL:
            value = list(self.sources[source].items())
        else:
            data = self.sources[source]
            value = (True, data[key]) if key in data else (False, None)
        self.digests[dep] = found = digest(value)
        return found

    def digests_of(self, deps: dict[tuple, bytes | None]) -> dict[tuple, bytes | None]:
        """``deps`` with this build's digest of each (those noted without one: :meth:`dependency`)."""
        return {dep: self.dependency(dep) if d is None else d for dep, d in deps.items()}


class PageMemo:
    """The section and datasheet pages of the previous build (``rulebook serve``), each with
    what it read, so that an edit renders again only the pages whose output it can change.

    What a page reads is found while it is rendered (dynamic dependencies, as build systems
    such as Shake find them): its key holds what every page reads
    (:meth:`rulebook.compiler.emit.site.pages.context.SiteContext.common_key`: the page map, where each declaration and army list sits, the abbreviations, the uses between
    declarations, the army lists, the templates, the language) and its own items (prose and
    declarations, with their source positions); everything else it reads of the program goes
    through the noted mappings and queries (:class:`PageReads`): each declaration, catalog,
    record or enumeration it looks up, each entry of the builders' indexes (who applies
    a rule, who references an entry, the worked examples of a procedure, the odds tables), each
    worked example it shows (as shown), each spelling of a name taken from the whole rulebook's
    prose. A page is reused when its key is the same and each of those reads has the same digest
    in this build (:meth:`PageReads.dependency`); a page that iterates a whole mapping depends
    on all of it. ``program`` is set by the caller for each build once the program is known to
    pickle (see ``rulebook.compiler.commands.serve``); None: no page is reused.

    When the rulebook's text changed, a spelling is taken again from the previous text when the
    words it looks for are not written where the two texts differ
    (:meth:`rulebook.compiler.emit.site.pages.reading.NotedReadable._unchanged`).
    A page of a file's rules source is reused while the file's name and text and what every
    page reads are the same. A card page rendered again reuses each card whose entry, catalog
    and reads are as they were (:meth:`rulebook.compiler.emit.site.pages.datasheets.Cards.remembered_card`)."""

    def __init__(self) -> None:
        self.program: bytes | None = None
        self.decls: dict[str, bytes] = {}  # this build's digest of each declaration, when the caller has them
        self.examples: list[bytes] = []  # and of each worked example (in the order of program.examples)
        self.corpus: bytes | None = None  # the digest of the previous build's text of spellings (NotedReadable.corpus)
        self.text: str | None = None  # that text
        self.spellings: dict[tuple, Any] = {}  # the spellings found in that text (NotedReadable.known)
        # page → (its key, what it read with each read's digest, its search entries, its Markdown)
        self.pages: dict[str, tuple[bytes, dict[tuple, bytes | None], list[list], str]] = {}
        # card page → (catalog, entry) → (its key, what it read with each read's digest, its search entries, its view)
        self.cards: dict[str, dict[tuple[str, str], tuple[bytes, dict[tuple, bytes | None], list[list], dict]]] = {}
        # the rules source pages: page → ((what every page reads, file name, file text), its Markdown)
        self.listings: dict[str, tuple[tuple, str]] = {}

    def lend(self, program: ir.Program, reads: PageReads) -> None:
        """Hand this build the digests of the declarations and worked examples, as the caller has them
        (the spellings: :meth:`rulebook.compiler.emit.site.pages.reading.NotedReadable.recall`)."""
        reads.decl_digests = self.decls
        reads.example_digests = self.examples if len(self.examples) == len(program.examples) else None

    def kept(self, reads: PageReads, page: str, key: bytes | None) -> tuple | None:
        """The previous build's ``page`` if its key is ``key`` and all it read is as it was."""
        old = self.pages.get(page) if key is not None else None
        if old is None or old[0] != key:
            return None
        same = reads.same_corpus
        return old if all(d is not None and ((same and dep[0] in SPELLINGS) or reads.dependency(dep) == d) for dep, d in old[1].items()) else None


def by_name(program: ir.Program, item: ir.Item) -> Any:
    """An item of a page for its key: a declaration or army list of the program by its kind and
    name (the page depends on its value: :func:`own`), anything else (prose, ``show``) as it is."""
    name = getattr(item, "name", None)
    if not isinstance(item, (ir.Show, *PROSE)) and (program.decls.get(name) is item or program.armies.get(name) is item):
        return (type(item).__name__, name)
    return item


def own(program: ir.Program, items: list) -> dict[tuple, bytes | None]:
    """The dependencies of a page on its own declarations and army lists (its key holds them by name: :func:`by_name`)."""
    found = {}
    for it in items:
        name = getattr(it, "name", None)
        if program.decls.get(name) is it:
            found[("decls", name)] = None
        elif program.armies.get(name) is it:
            found[("armies", name)] = None
    return found


def page_key(common: bytes | None, page: str, heading: str, items: list, notes: dict) -> bytes | None:
    """The key of one section page: what all pages read, and its own items."""
    if common is None:
        return None
    data = pickled((page, heading, items, notes))
    return None if data is None else hashlib.sha256(common + data).digest()
