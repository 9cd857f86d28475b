"""MkDocs plugin ``rulebook-raw``: blocks of finished HTML go around Python-Markdown.

Reads: a page's Markdown as :mod:`rulebook.compiler.emit.site.to_pages` writes it, where
blocks of finished HTML with nothing for Markdown to do sit between the markers
of :func:`rulebook.compiler.emit.site.markdown.verbatim`: the rules source listings (the
other raw blocks of the pages are small or inside ``markdown`` containers; taking
the top-level ones out too made no measurable difference). Produces: the page's
HTML, byte for byte what Python-Markdown writes when it is given those blocks
without the markers, and the page's anchors (MkDocs checks links against them)
with the ids of the blocks.

Why: Python-Markdown passes such a block through unchanged, but only after
parsing it tag by tag to find where it ends (``md_in_html``, ``html.parser``),
and MkDocs parses the whole page once more for its anchors. A source listing is
a heading and one such block, and the listings are nearly half of a rulebook's
Markdown; ``rulebook serve`` converts the edited file's listing after each edit.

How: ``on_page_markdown`` replaces each marked block with a placeholder comment
(``<!--rb-verbatim:N-->``), itself a raw HTML block, which Markdown writes as it
is, where the block would have been; ``on_page_content`` puts the blocks back,
with the whitespace normalization Markdown applies to its whole source first
(:func:`normalized`). A marked block must be a block of the page's top level
(after a blank line, before one); a marker out of place, or a placeholder
Markdown did not write exactly once, is a build error rather than a page that
differs.

Registered as an entry point (``[project.entry-points."mkdocs.plugins"]`` in
pyproject.toml, so it works from a wheel) and listed in the generated
``mkdocs.yml`` (``site/mkdocs.yml.j2``); ``rulebook serve`` loads that file, so
its in-process builds use it too.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from rulebook.compiler.emit.site.markdown import VERBATIM_CLOSE, VERBATIM_OPEN

PLACEHOLDER = "<!--rb-verbatim:{}-->"
_PLACED = re.compile(r"<!--rb-verbatim:(\d+)-->")

TAB_LENGTH = 4
"""Python-Markdown's tab width (its default; MkDocs does not change it)."""

_BLANK_AFTER = re.compile(r"[ \t]*(?:\Z|\n[ \t]*(?:\n|\Z))")
_ID = re.compile(r'<[A-Za-z][^>]*?\sid="([^"]*)"')
_NAME = re.compile(r'<a\s[^>]*?\bname="([^"]*)"')


def normalized(block: str) -> str:
    """``block`` as Markdown's first preprocessor (``NormalizeWhitespace``) leaves it:
    no STX/ETX characters, ``\\n`` line ends, tabs expanded, lines of spaces empty.

    The block starts a line of the page, so its columns are the page's."""
    block = block.replace("\x02", "").replace("\x03", "").replace("\r\n", "\n").replace("\r", "\n")
    if "\t" in block:
        block = block.expandtabs(TAB_LENGTH)
    if " \n" in block:
        block = re.sub(r"(?<=\n) +\n", "\n", "\n" + block)[1:]
    return block


def anchors(block: str) -> set[str]:
    """The ids (and ``<a name>``) of a block of HTML whose attribute values are double-quoted
    and escaped, as MkDocs' own scan of raw HTML finds them."""
    found = {html.unescape(v) for v in _ID.findall(block)}
    if "<a" in block:
        found.update(html.unescape(v) for v in _NAME.findall(block))
    return found


def take_out(markdown: str, where: str = "<page>") -> tuple[str, list[str]]:
    """The page with each marked block replaced by its placeholder, and the blocks (normalized).

    Raises :class:`PluginError` when a marker is out of place: a block that does not start
    the page or follow a blank line, does not end the page or come before a blank line, is
    not closed, or holds a marker (Markdown would not pass such a block through whole)."""
    if VERBATIM_OPEN not in markdown:
        if VERBATIM_CLOSE in markdown:
            raise PluginError(f"rulebook-raw: {where}: a verbatim block's closing marker without its opening one")
        return markdown, []
    out: list[str] = []
    blocks: list[str] = []
    at = 0
    while (start := markdown.find(VERBATIM_OPEN, at)) >= 0:
        if start and (markdown[start - 1] != "\n" or markdown[markdown.rfind("\n", 0, start - 1) + 1:start - 1].strip(" \t")):
            raise PluginError(f"rulebook-raw: {where}: a verbatim block must start the page or follow a blank line")
        body = start + len(VERBATIM_OPEN)
        end = markdown.find(VERBATIM_CLOSE, body)
        if end < 0:
            raise PluginError(f"rulebook-raw: {where}: a verbatim block is not closed")
        after = end + len(VERBATIM_CLOSE)
        block = markdown[body:end]
        if VERBATIM_OPEN in block or VERBATIM_CLOSE in markdown[at:start]:
            raise PluginError(f"rulebook-raw: {where}: verbatim markers out of place")
        if not _BLANK_AFTER.match(markdown, after):
            raise PluginError(f"rulebook-raw: {where}: a verbatim block must end the page or come before a blank line")
        out += (markdown[at:start], PLACEHOLDER.format(len(blocks)))
        blocks.append(normalized(block))
        at = after
    if VERBATIM_CLOSE in markdown[at:]:
        raise PluginError(f"rulebook-raw: {where}: a verbatim block's closing marker without its opening one")
    out.append(markdown[at:])
    return "".join(out), blocks


def put_back(content: str, blocks: list[str], where: str = "<page>") -> str:
    """The page's HTML with each placeholder replaced by its block; each must be there once."""
    if not blocks:
        return content
    seen = [0] * len(blocks)

    def block(m: re.Match) -> str:
        n = int(m.group(1))
        if n >= len(blocks):
            raise PluginError(f"rulebook-raw: {where}: an unknown verbatim placeholder")
        seen[n] += 1
        return blocks[n]

    content = _PLACED.sub(block, content)
    if any(count != 1 for count in seen):
        raise PluginError(f"rulebook-raw: {where}: Markdown did not keep a verbatim block's place (it must be a block of the page's top level)")
    return content


class RawBlocks(BasePlugin):
    """The plugin: takes the marked blocks out before Markdown, puts them back after."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[str, list[str]] = {}

    def on_page_markdown(self, markdown, page, config, files):
        text, blocks = take_out(markdown, page.file.src_uri)
        self.blocks[page.file.src_uri] = blocks
        return text

    def on_page_content(self, content, page, config, files):
        blocks = self.blocks.pop(page.file.src_uri, [])
        if blocks and page.present_anchor_ids is not None:
            for block in blocks:
                page.present_anchor_ids |= anchors(block)
        return put_back(content, blocks, page.file.src_uri)
