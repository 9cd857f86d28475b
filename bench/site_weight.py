"""What a player's browser loads and scrolls, per built site: the heaviest page, the heaviest first visit, the tallest page.

Takes: build folders (each with ``site/``), e.g. ``build/1936 build/tercios``; ``--heights`` also
opens every page in headless Chromium at 390 × 844 px from ``file://`` (slow: a second or so a page).
Prints, per build: the number of pages, the heaviest page's HTML, the heaviest first visit (the
HTML with the stylesheets and scripts it loads by itself, uncompressed: tests/site/test_weight.py),
the home page's first visit, the pages over 250 KB of HTML or a 400 KB first visit and, with
``--heights``, the tallest page at 390 px and the tallest datasheet card page.

    python bench/site_weight.py build/1936 build/tercios --heights
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "site"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from test_weight import FIRST_VISIT_LIMIT, PAGE_LIMIT, first_visit  # noqa: E402


def weights(site: Path) -> dict[str, tuple[int, int]]:
    """Every page: (bytes of HTML, bytes of its first visit)."""
    out = {}
    for path in sorted(site.rglob("*.html")):
        page = path.relative_to(site).as_posix()
        loaded = first_visit(site, page)
        out[page] = (loaded[page], sum(loaded.values()))
    return out


def heights(site: Path, pages: list[str]) -> dict[str, int]:
    """Every page's height in px at 390 × 844 (light palette), from ``file://``."""
    from chromium import chromium, look

    out = {}
    with chromium() as driver:
        look(driver, "phone", "light")
        for page in pages:
            driver.get((site / page).as_uri())
            out[page] = driver.execute_script("window.dispatchEvent(new Event('resize')); return document.documentElement.scrollHeight")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", type=Path)
    parser.add_argument("--heights", action="store_true", help="measure every page's height at 390 px in Chromium")
    args = parser.parse_args()
    for build in args.builds:
        site = build / "site"
        w = weights(site)
        heavy = max(w, key=lambda p: w[p][0])
        visit = max(w, key=lambda p: w[p][1])
        over = sorted(p for p, (html, total) in w.items() if html > PAGE_LIMIT or total > FIRST_VISIT_LIMIT)
        print(f"{build}: {len(w)} pages; heaviest page {heavy} {w[heavy][0] / 1000:.0f} KB; heaviest first visit {visit} "
              f"{w[visit][1] / 1000:.0f} KB; home first visit {w['index.html'][1] / 1000:.0f} KB; "
              f"over 250 KB / 400 KB: {len(over)} {over}")
        if args.heights:
            h = heights(site, sorted(w))
            tallest = max(h, key=h.get)
            cards = {p: v for p, v in h.items() if re.search(r"<div class=\"rb-datasheet\"", (site / p).read_text(encoding="utf-8"))
                     and (site / p).read_text(encoding="utf-8").count('<div class="rb-datasheet"') == 1}
            card = max(cards, key=cards.get) if cards else None
            print(f"    tallest at 390 px: {tallest} {h[tallest]} px; tallest one-card page: "
                  f"{card} {cards[card] if card else '-'} px")


if __name__ == "__main__":
    main()
