"""What a player downloads: no source maps, section pages under 250 KB, a light first visit.

The first visit is the home page with everything it loads before any
interaction (stylesheets, scripts, images); the search index is loaded only
when the search box is used.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bundled import BUNDLED, bundled_builds  # noqa: F401 - the fixture

SECTION_PAGE_LIMIT = 250_000  # bytes of HTML
FIRST_VISIT_LIMIT = 600_000  # bytes, before compression


def _section_pages(build: Path) -> list[Path]:
    """The pages of the manual's sections (their Markdown starts with the section's number)."""
    names = [p.stem for p in sorted((build / "docs").glob("*.md")) if re.match(r"\d\d-", p.name)]
    assert names, "no section page"
    return [build / "site" / f"{name}.html" for name in names]


def first_visit(site: Path) -> dict[str, int]:
    """The home page and what it loads by itself: file → bytes."""
    home = (site / "index.html").read_text(encoding="utf-8")
    loaded = {"index.html": len(home.encode())}
    for tag in re.findall(r"<(?:link|script|img)\b[^>]*>", home):
        if "<link" in tag and not re.search(r'rel="(?:stylesheet|icon|shortcut icon)"', tag):
            continue
        for url in re.findall(r'(?:href|src)="([^"#?]+)', tag):
            if not re.match(r"[a-z]+:", url):
                loaded[url] = (site / url).stat().st_size
    return loaded


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_no_source_maps_are_shipped(bundled_builds, rulebook):
    site = bundled_builds[rulebook] / "site"
    assert not list(site.rglob("*.map"))
    for path in [*site.rglob("*.js"), *site.rglob("*.css")]:
        assert b"sourceMappingURL" not in path.read_bytes(), path.name


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_section_pages_are_under_250_kb(bundled_builds, rulebook):
    sizes = {p.name: p.stat().st_size for p in _section_pages(bundled_builds[rulebook])}
    assert max(sizes.values()) < SECTION_PAGE_LIMIT, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_first_visit_is_light_and_does_not_load_the_search_index(bundled_builds, rulebook):
    loaded = first_visit(bundled_builds[rulebook] / "site")
    assert "assets/rulebook.js" in loaded and any(name.endswith(".css") for name in loaded)
    assert not any("search" in name for name in loaded), loaded
    assert sum(loaded.values()) < FIRST_VISIT_LIMIT, loaded
