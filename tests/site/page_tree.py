"""A built HTML page as a small tree, for the site tests.

Reads one page's HTML (the ``<article>`` of a MkDocs page, or any fragment);
produces :class:`Node` objects with their tag, attributes, children and text,
and helpers to select nodes by tag and class and to read visible text.
Entry point: :func:`parse`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list["Node | str"] = field(default_factory=list)
    parent: "Node | None" = None

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self, skip: set[str] = frozenset()) -> str:
        """The text inside, with the subtrees of classes ``skip`` left out; spaces collapsed."""
        parts: list[str] = []

        def walk(node: Node) -> None:
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif not (child.classes & skip):
                    walk(child)
                    if child.tag in ("p", "li", "td", "th", "dt", "dd", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6"):
                        parts.append(" ")

        walk(self)
        return " ".join("".join(parts).split())

    def iter(self, skip: set[str] = frozenset()):
        """Every node below, in document order, not entering the subtrees of classes ``skip``."""
        for child in self.children:
            if isinstance(child, Node) and not (child.classes & skip):
                yield child
                yield from child.iter(skip)

    def find_all(self, tag: str | None = None, cls: str | None = None, skip: set[str] = frozenset()) -> list["Node"]:
        return [n for n in self.iter(skip) if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)]

    def inside(self, cls: str) -> bool:
        node = self.parent
        while node is not None:
            if cls in node.classes:
                return True
            node = node.parent
        return False


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, parent=self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(page: str, article: bool = True) -> Node:
    """The page's ``<article>`` (or the whole text with ``article=False``) as a tree."""
    if article:
        m = re.search(r"<article\b[^>]*>(.*)</article>", page, re.S)
        page = m.group(1) if m else page
    builder = _Builder()
    builder.feed(page)
    builder.close()
    return builder.root
