"""The rules files → a page of each file's source, highlighted (for designers; not in the navigation).

Reads the program's sources (file name → text) and, in a one-shot build, the lines a forked
worker highlighted meanwhile (:class:`ListingsAhead`); in ``rulebook serve``, the previous build's
listings (:class:`rulebook.compiler.emit.site.pages.memo.PageMemo`). Produces
``docs/<source>-<file>.md`` (``codigo.md.j2``): finished HTML that Python-Markdown never parses
(:func:`rulebook.compiler.emit.site.markdown.verbatim`, :mod:`rulebook.compiler.emit.site.mkdocs_raw`),
the ```` ```rules ```` fences highlighted, one anchor per line (``#L12``), which every
declaration's technical details link to.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import attr, highlight_lines
from rulebook.compiler.emit.site.pages.context import SiteContext
from rulebook.compiler.emit.site.pages.memo import PageMemo
from rulebook.compiler.support.ahead import Ahead


class ListingsAhead:
    """The source listings' highlighted lines (:func:`source_lines` of each file), worked
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
            worker = Ahead(all_source_lines, self._sources)
        self._worker = worker
        self._answer: dict[str, list[str]] | None = None

    @classmethod
    def start(cls, sources: Mapping[str, str]) -> ListingsAhead | None:
        """A worker for ``sources`` when it can help (:meth:`rulebook.compiler.support.ahead.Ahead.start`)."""
        highlight_lines("")  # as in __init__: before the fork
        worker = Ahead.start(all_source_lines, dict(sources))
        return cls(sources, worker) if worker is not None else None

    def lines(self, file: str, text: str) -> list[str] | None:
        if self._answer is None:
            self._answer = self._worker.answer() or {}
        return self._answer.get(file) if self._sources.get(file) == text else None

    def close(self) -> None:
        """Stop the worker if it is still at its task (:meth:`rulebook.compiler.support.ahead.Ahead.close`)."""
        self._worker.close()


def all_source_lines(sources: dict[str, str]) -> dict[str, list[str]]:
    """:func:`source_lines` of every source (the worker's task)."""
    return {file: source_lines(text) for file, text in sources.items()}


def source_lines(text: str) -> list[str]:
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


def listing_lines(ahead: ListingsAhead | None, file: str, text: str) -> list[str]:
    """A source file's listing lines: from the worker when it has them."""
    lines = ahead.lines(file, text) if ahead is not None else None
    return lines if lines is not None else source_lines(text)


def write_listings(program: ir.Program, ctx: SiteContext, env: jinja2.Environment, docs: Path, memo: PageMemo | None,
                   common: bytes | None, ahead: ListingsAhead | None) -> list[dict]:
    """Write the source page of every rules file (the previous build's page while the file's name and text,
    and what every page reads, ``common``, are the same); returns the pages (``{file, href, page}``)."""
    sources, listings = [], {}
    for file, page in ctx.source_pages.items():
        key = (common, file, program.sources[file])  # a listing reads its file's name and text (and the templates: common)
        old = memo.listings.get(page) if memo is not None and common is not None else None
        text = old[1] if old is not None and old[0] == key else env.get_template("codigo.md.j2").render(
            file=attr(file), lines=listing_lines(ahead, file, program.sources[file]))
        (docs / page).write_text(text, encoding="utf-8")
        listings[page] = (key, text)
        sources.append({"file": attr(file), "href": ctx.url(page), "page": page})
    if memo is not None:
        memo.listings = listings if common is not None else {}
    return sources
