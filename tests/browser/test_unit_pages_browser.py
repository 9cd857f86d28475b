"""One unit per screen, a URL per unit, in headless Chromium from ``file://`` (issue 27, points 5 and 9).

Reads every bundled rulebook's built site (``bundled_builds``). Opens every card's own page and
every index of cards at 390 px (and a sample at 1280 px, light and dark): no page and no card is
wider than the screen and no box inside a card hides columns sideways; a card's address opens
that card, and the old ``index#anchor`` address of a card leads to it; a catalog table of the
manual wider than a phone becomes labelled rows, and stays a table on a desktop. Writes the height
of every page it opened at 390 px to ``tests/artifacts/page-heights-<rulebook>.json`` and prints
the tallest.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "site"))

from bundled import BUNDLED, bundled_builds  # noqa: E402,F401 - the fixture
from chromium import AVAILABLE, SKIP_REASON, WAIT, chromium, look, reset  # noqa: E402
from unit_pages import unit_page  # noqa: E402

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=SKIP_REASON)
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PHONE_SCREENS = 8  # a card's page at 390 px is at most this many screens (844 px) tall
# what overflows sideways at the current width: the page, the card, boxes that hide content (none once stacked)
MEASURE = """
const width = document.documentElement.clientWidth;
const card = document.querySelector('.rb-datasheet');
const hidden = [...document.querySelectorAll('.md-content .md-typeset__scrollwrap, .md-content .rb-scroll')]
  .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1)
  .map(b => b.textContent.trim().slice(0, 40));
const wide = [...document.querySelectorAll('.md-content article *')]
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > width + 1 && !e.closest('pre, .md-typeset__scrollwrap, .rb-scroll'); })
  .map(e => e.tagName + '.' + e.className).slice(0, 3);
return {height: document.documentElement.scrollHeight, page: document.documentElement.scrollWidth - width,
        card: card ? Math.ceil(card.getBoundingClientRect().right - width) : null, hidden: hidden, wide: wide};
"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


def _card_pages(build: Path) -> tuple[list[str], list[str]]:
    """(index pages of cards, every card's own page) of a build, in file name order."""
    docs = build / "docs"
    mk = (build / "mkdocs.yml").read_text(encoding="utf-8")
    not_in_nav = set(re.findall(r"^  /(\S+)\.md$", mk, re.M))
    indexes, units = [], []
    for md in sorted(docs.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        if md.stem in not_in_nav and text.count('<div class="rb-datasheet"') == 1:  # (not a page of all the cards, to print)
            units.append(f"{md.stem}.html")
        elif md.stem not in not_in_nav and re.search(r'<tr id="[^"]+--[^"]+"><td><a href=', text):
            indexes.append(f"{md.stem}.html")
    return indexes, units


def _open(browser, site: Path, page: str) -> dict:
    browser.get((site / page).as_uri())
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
    browser.execute_script("window.dispatchEvent(new Event('resize'))")  # the stacking is drawn on load and resize
    return browser.execute_script(MEASURE)


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_every_card_page_fits_a_phone_and_the_tallest_page_is_reported(browser, bundled_builds, rulebook):
    build = bundled_builds[rulebook]
    site = build / "site"
    indexes, units = _card_pages(build)
    sections = sorted(f"{p.stem}.html" for p in (build / "docs").glob("*.md") if re.match(r"\d\d-", p.name))
    heights, problems = {}, []
    try:
        look(browser, "phone", "light")
        for page in indexes + units + sections:
            found = _open(browser, site, page)
            heights[page] = found["height"]
            if found["page"] > 0 or (found["card"] or 0) > 0 or found["hidden"] or found["wide"]:
                problems.append((page, found))
        for size in ("phone", "desktop"):
            for scheme in ("light", "dark"):
                look(browser, size, scheme)
                for page in indexes[:1] + units[:2] + units[-1:]:
                    found = _open(browser, site, page)
                    if found["page"] > 0 or (found["card"] or 0) > 0 or found["wide"]:
                        problems.append((page, size, scheme, found))
    finally:
        reset(browser)
    assert not problems, problems[:5]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tallest = sorted(heights.items(), key=lambda kv: -kv[1])
    (ARTIFACTS / f"page-heights-{rulebook}.json").write_text(json.dumps(dict(tallest), indent=1), encoding="utf-8")
    print(f"\n{rulebook}: tallest page at 390 px: {tallest[0]}; tallest card page: "
          f"{max(((h, p) for p, h in heights.items() if p in units), default=None)}")
    too_tall = [(p, heights[p]) for p in units if heights[p] > PHONE_SCREENS * 844]
    assert not too_tall, too_tall


def test_a_unit_address_opens_the_unit_and_the_old_address_leads_to_it(browser, bundled_builds):
    site = bundled_builds["1936"] / "site"
    index, anchor = "fichas-bando-republicano.html", "carros_combate_republicanos--r_t26_b"
    page = unit_page(site, index, anchor)
    assert page == "fichas-bando-republicano-t-26-b.html"
    try:
        for size in ("phone", "desktop"):
            for scheme in ("light", "dark"):
                look(browser, size, scheme)
                # the card's own address: its heading, one card, the way back and to its neighbours
                _open(browser, site, page)
                heading = browser.find_element(By.TAG_NAME, "h1")
                assert heading.get_attribute("id") == anchor and heading.text.startswith("T-26 B")
                assert len(browser.find_elements(By.CSS_SELECTOR, ".rb-datasheet")) == 1
                nav = browser.find_element(By.CSS_SELECTOR, "nav.rb-unit-nav")
                assert nav.find_element(By.CSS_SELECTOR, "a[rel=prev]") and nav.find_element(By.CSS_SELECTOR, "a[rel=next]")
                assert browser.execute_script("return document.documentElement.scrollHeight") < 4 * 844
                # the address the card had before (its faction's page at its anchor): the row, which links to it
                browser.get((site / index).as_uri() + "#" + anchor)
                row = browser.find_element(By.ID, anchor)
                assert browser.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight", row)
                browser.execute_script("arguments[0].click()", row.find_element(By.TAG_NAME, "a"))
                WebDriverWait(browser, WAIT).until(lambda d: d.current_url.endswith("/" + page))
                nav = browser.find_element(By.CSS_SELECTOR, "nav.rb-unit-nav")
                browser.execute_script("arguments[0].click()", nav.find_element(By.CSS_SELECTOR, f"a[href='{index}']"))
                WebDriverWait(browser, WAIT).until(lambda d: d.current_url.endswith("/" + index))
    finally:
        reset(browser)


def test_a_wide_catalog_table_becomes_labelled_rows_on_a_phone(browser, bundled_builds):
    """Chapter II's troop tables: on a phone every column is on screen, after its header's name,
    and a row is short; on a desktop the table stays a table."""
    site = bundled_builds["1936"] / "site"
    page = "02-costes-listas-y-estadisticas.html"
    table = "//*[@id='infanteria_republicana']/following::table[1]"
    try:
        look(browser, "phone", "light")
        found = _open(browser, site, page)
        assert found["page"] <= 0 and not found["hidden"] and not found["wide"], found
        element = browser.find_element(By.XPATH, table)
        assert "rb-stacked" in element.get_attribute("class")
        headers = [th.get_attribute("textContent").strip() for th in element.find_elements(By.CSS_SELECTOR, "thead th")]
        row = element.find_elements(By.CSS_SELECTOR, "tbody tr")[0]
        cells = row.find_elements(By.TAG_NAME, "td")
        assert [c.get_attribute("data-rb-label") for c in cells] == headers and len(headers) >= 10
        labels = [browser.execute_script("return getComputedStyle(arguments[0], '::before').content", c) for c in cells[1:]]
        assert all(h in label for h, label in zip(headers[1:], labels)), labels
        assert all(browser.execute_script("return arguments[0].getBoundingClientRect().right", c) <= 390 for c in cells)
        assert row.rect["height"] < 300, row.rect
        look(browser, "desktop", "dark")
        _open(browser, site, page)
        assert "rb-stacked" not in (browser.find_element(By.XPATH, table).get_attribute("class") or "")
    finally:
        reset(browser)
