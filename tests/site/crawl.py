"""A built site, read the way a browser follows it: every page, every link, every id.

Reads the HTML files of a built site folder (``build/site``); produces a
:class:`Crawl` with the internal links that lead nowhere (a missing file or a
``#fragment`` that no element of the target page carries), the ids that a page
carries more than once, and the size of each page. Links are taken from the
``href`` and ``src`` attributes of every element, raw HTML included, exactly
as they reach the browser.

Entry point: :func:`crawl`. Also runnable: ``python tests/site/crawl.py build/site``
prints the summary (used for the measurements in the issue's closing note).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

EXTERNAL_SCHEMES = ("http", "https", "mailto", "data", "javascript", "blob", "tel")


class _Page(HTMLParser):
    """The ids and the (attribute, url) references of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.append(value)
            elif name in ("href", "src") and not (tag == "link" and ("rel", "canonical") in attrs):
                self.refs.append(value)

    handle_startendtag = handle_starttag


@dataclass
class Crawl:
    """What a crawl found: broken links as (page, url, reason), duplicate ids as (page, id, count)."""

    pages: dict[str, int] = field(default_factory=dict)  # page → size in bytes
    links: int = 0
    broken: list[tuple[str, str, str]] = field(default_factory=list)
    duplicate_ids: list[tuple[str, str, int]] = field(default_factory=list)

    def summary(self) -> str:
        largest = max(self.pages.items(), key=lambda kv: kv[1]) if self.pages else ("—", 0)
        return (f"{len(self.pages)} pages, {self.links} internal links, {len(self.broken)} broken, "
                f"{len(self.duplicate_ids)} duplicate ids, largest page {largest[0]} ({largest[1] / 1024:.0f} KB)")


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def crawl(site: Path) -> Crawl:
    """Follow every internal ``href``/``src`` of every HTML page under ``site``."""
    result = Crawl()
    parsed: dict[PurePosixPath, _Page] = {}
    for path in sorted(site.rglob("*.html")):
        rel = PurePosixPath(path.relative_to(site).as_posix())
        parsed[rel] = _parse(path)
        result.pages[str(rel)] = path.stat().st_size
    for rel, page in parsed.items():
        for ident, count in sorted(Counter(page.ids).items()):
            if count > 1:
                result.duplicate_ids.append((str(rel), ident, count))
        for url in page.refs:
            parts = urlsplit(url)
            if parts.scheme in EXTERNAL_SCHEMES or parts.netloc:
                continue
            result.links += 1
            if parts.path.startswith("/"):
                result.broken.append((str(rel), url, "root-absolute path (breaks when the site is in a sub-folder)"))
                continue
            target = PurePosixPath(*_normalize(rel.parent / unquote(parts.path))) if parts.path else rel
            if not (site / target).is_file():
                result.broken.append((str(rel), url, "no such file"))
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(site / target).ids
                if unquote(parts.fragment) not in ids:
                    result.broken.append((str(rel), url, "no element with this id"))
    return result


def _normalize(path: PurePosixPath) -> list[str]:
    """The parts of a relative path with ``.`` and ``..`` resolved (never above the site)."""
    out: list[str] = []
    for part in path.parts:
        if part == "..":
            if out:
                out.pop()
        elif part not in (".", ""):
            out.append(part)
    return out


if __name__ == "__main__":
    report = crawl(Path(sys.argv[1]))
    print(report.summary())
    for page, url, reason in report.broken[: int(sys.argv[2]) if len(sys.argv) > 2 else 20]:
        print(f"  broken: {page}: {url} ({reason})")
    for page, ident, count in report.duplicate_ids[:20]:
        print(f"  duplicate id: {page}: #{ident} ×{count}")
