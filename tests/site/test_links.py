"""Every link of every bundled rulebook's site leads somewhere, and no page repeats an id.

The crawl (tests/site/crawl.py) reads the built HTML as a browser follows it:
every ``href`` and ``src`` of every element, raw HTML included, and every
``#fragment`` against the ids of the target page.
"""

from __future__ import annotations

import re

import pytest

from bundled import BUNDLED, bundled_builds  # noqa: F401 - the fixture
from crawl import crawl


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_broken_link_and_no_duplicate_id(bundled_builds, rulebook):
    report = crawl(bundled_builds[rulebook] / "site")
    assert report.links > 1000, report.summary()
    assert report.broken == [], report.broken[:10]
    assert report.duplicate_ids == [], report.duplicate_ids[:10]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_the_404_page_is_self_contained(bundled_builds, rulebook):
    """Served for a missing address at any depth: no theme assets, no root-absolute path."""
    page = (bundled_builds[rulebook] / "site" / "404.html").read_text(encoding="utf-8")
    assert not re.search(r'<(?:link|script)\b[^>]*\b(?:href|src)=', page)
    assert not re.search(r'(?:href|src)="/', page)
    assert 'href="index.html"' in page


def test_the_crawl_finds_what_is_broken(tmp_path):
    """The checker itself: a missing page, a missing anchor, a root-absolute path and a repeated id."""
    (tmp_path / "a.html").write_text(
        '<p id="x"></p><p id="x"></p><a href="b.html#y">1</a><a href="b.html#nope">2</a>'
        '<a href="c.html">3</a><link href="/assets/s.css"><a href="https://example.org/">4</a><a href="#x">5</a>',
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text('<h2 id="y">B</h2>', encoding="utf-8")
    report = crawl(tmp_path)
    assert [(url, reason.split()[0]) for _page, url, reason in report.broken] == [
        ("b.html#nope", "no"), ("c.html", "no"), ("/assets/s.css", "root-absolute")]
    assert report.duplicate_ids == [("a.html", "x", 2)]
    assert report.links == 5
