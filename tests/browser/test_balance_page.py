"""The designers' balance section (issue 28, point 4), read as a designer would: headless Chromium, from ``file://``.

Builds the small rulebook ``tests/data/balance`` with its site once, opens its page for designers
(``for-designers.html``) from disk at 390×844 (a phone) and 1280×800, in the light and the dark palette, and checks that the
balance section shows the ranking with the outlier of its category marked, the heatmap (every cell
prints its value, not only its colour), the engagement odds as bars with their numbers, that its
tables scroll inside their own box (the page never scrolls sideways), and that its text keeps the
palette's colours (readable on both). Needs Debian's ``chromium`` and ``chromium-driver`` and selenium.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))

from chromium import AVAILABLE, SKIP_REASON, chromium, look  # noqa: E402

if not AVAILABLE:
    pytest.skip(SKIP_REASON, allow_module_level=True)
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from rulebook.compiler.pipeline import driver

    out = tmp_path_factory.mktemp("balance-site") / "build"
    result = driver.build(ROOT / "tests" / "data" / "balance", out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return out / "site"


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_balance_section_reads_at_every_size_and_palette(site, browser, size, scheme):
    page = (site / "for-designers.html").as_uri()  # an English rulebook: the page's English name
    browser.get(page)
    look(browser, size, scheme)
    browser.get(page + "#balance")
    section = browser.find_element(By.ID, "balance")
    assert "Balance" in section.text
    # the ranking: Elite is the high outlier of the Foot category
    outliers = browser.find_elements(By.CSS_SELECTOR, "#balance ~ .rb-balance-scroll .rb-balance-high")
    assert any("Elite" in row.get_attribute("textContent") for row in outliers)
    # the heatmap: one row per unit, every cell prints its value
    heat = browser.find_elements(By.CSS_SELECTOR, ".rb-balance-heat")[0]
    cells = heat.find_elements(By.CSS_SELECTOR, "tbody td")
    assert len(cells) == 8 * 8 and all(c.get_attribute("textContent").strip() for c in cells)
    assert heat.find_elements(By.CSS_SELECTOR, "td.rb-heat-5")  # the strongest pairing is marked
    # the engagements: a bar per pairing, with its numbers and an accessible label
    bars = browser.find_elements(By.CSS_SELECTOR, ".rb-balance-fights .rb-fight-bar")
    assert len(bars) >= 9 and all(b.get_attribute("aria-label") for b in bars)
    # nothing scrolls sideways but the tables' own boxes
    assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # the text keeps the palette's colour: dark text on light, light text on dark
    color = browser.execute_script(
        "const c = getComputedStyle(document.querySelector('.rb-balance-heat td')).color.match(/\\d+/g).map(Number);"
        "return (c[0] + c[1] + c[2]) / 3;")
    assert (color < 128) if scheme == "light" else (color > 128)
    browser.save_screenshot(str(ROOT / "tests" / "artifacts" / f"balance-{size}-{scheme}.png")) if (ROOT / "tests" / "artifacts").is_dir() else None
