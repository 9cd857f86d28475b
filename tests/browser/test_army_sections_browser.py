"""The army lists on their section pages, in a browser: at phone and desktop size, light and dark.

The page never scrolls sideways (a table wider than the screen scrolls in its
own box), the army's block stays inside the screen, and axe-core finds no
serious or critical problem inside it (contrast in both palettes included).
Skipped when headless Chromium is not installed.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "site"))

from bundled import bundled_builds  # noqa: E402,F401 - the fixture
from chromium import ARMY_BOOKS, AVAILABLE, SIZES, SKIP_REASON, WAIT, chromium, look, reset, served  # noqa: E402

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=SKIP_REASON)
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
pytest.importorskip("selenium_axe_python", reason="selenium-axe-python is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARMY = ".rb-army-list"


def _army_pages(site: Path) -> list[str]:
    """The section pages that draw an army list."""
    return sorted(p.name for p in site.glob("[0-9][0-9]-*.html") if 'class="rb-army-list"' in p.read_text(encoding="utf-8"))


def _axe_inside(driver, selector: str) -> list[list]:
    driver.execute_script((resources.files("selenium_axe_python") / "axe-core" / "axe.min.js").read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document.querySelector(arguments[0]), {resultTypes: ['violations']}).then("
        "  r => done(r.violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])),"
        "  e => done([['axe-error', 'critical', 1, String(e)]]));", selector)
    return [v for v in found if v[1] in ("serious", "critical")]


@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_army_list_fits_the_phone_in_both_palettes(bundled_builds, rulebook):
    site = bundled_builds[rulebook] / "site"
    pages = _army_pages(site)
    assert pages, "the rulebook declares an army: a section page draws it"
    problems = []
    with chromium() as driver, served(site) as url:
        try:
            for size in SIZES:
                for scheme in ("light", "dark"):
                    look(driver, size, scheme)
                    for page in pages:
                        driver.get(url + page)
                        WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, ARMY)))
                        found = driver.execute_script("""
                            const army = document.querySelector(arguments[0]);
                            const boxes = [...army.querySelectorAll('table')].map(t => t.closest('.md-typeset__scrollwrap, .rb-scroll'));
                            return {page: document.documentElement.scrollWidth - window.innerWidth,
                                    right: army.getBoundingClientRect().right - window.innerWidth,
                                    unboxed: boxes.filter(b => b === null).length};
                        """, ARMY)
                        if found["page"] > 0 or found["right"] > 0 or found["unboxed"]:
                            problems.append((page, size, scheme, found))
                        violations = _axe_inside(driver, ARMY)
                        if violations:
                            problems.append((page, size, scheme, violations))
        finally:
            reset(driver)
    assert not problems, problems
