"""``rulebook serve`` in a browser: an edit on disk updates the open page by itself,
and a broken edit shows its diagnostics over the last good page.

Headless Chromium (Debian's ``chromium`` + ``chromium-driver``, see
``chromium.py``) opens a page of a served copy of a small rulebook and marks
the window; the test edits the file and waits, without navigating, until the
page shows the new text: put in place by the page's own script (the mark kept,
the content new, the scroll position kept), or, for the banner of a broken edit,
in a fresh window (the mark gone). The time from the edit to the updated page is
printed (``-s``). With several tabs open, only those whose page the edit changed
are updated; the others keep their state. ``RULEBOOK_SERVE_PAGE`` set to ``1936`` runs the same on a
copy of content/1936 (a minute or more per edit on a busy machine).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from chromium import AVAILABLE, SKIP_REASON, chromium, look  # noqa: E402
from test_serve import RULES, Served  # noqa: E402

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=SKIP_REASON)

BIG = os.environ.get("RULEBOOK_SERVE_PAGE") == "1936"
FILE = "06-disparo.rules" if BIG else "reglas.rules"
PAGE = "06-iniciativa-y-disparos.html" if BIG else "01-disparo.html"
PROSE = "Esta sección sustituye al antiguo sistema de disparo." if BIG else "### 11. Dados de disparo"
EDITED = PROSE.replace("antiguo", "antiguo y retirado") if BIG else "### 11. Dados de disparo del navegador"
SHOWN = "antiguo y retirado" if BIG else "Dados de disparo del navegador"
WAIT = 600 if BIG else 120


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve-browser")
    folder = tmp / "reglas"
    if BIG:
        shutil.copytree(ROOT / "content" / "1936", folder)
    else:
        folder.mkdir()
        shutil.copy(RULES, folder / "reglas.rules")
    running = Served(folder, tmp)
    yield running
    running.proc.terminate()
    running.proc.wait(timeout=60)


def _wait(browser, condition, seconds: float) -> float:
    t0 = time.perf_counter()
    while not browser.execute_script(condition):
        assert time.perf_counter() - t0 < seconds, f"waited {seconds} s for: {condition}"
        time.sleep(0.01)
    return time.perf_counter() - t0


def _edit(served, old: str, new: str) -> None:
    path = served.folder / FILE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


_MATERIAL_SET_UP = """var box = document.querySelector('[data-md-component=container]');
return [box.querySelectorAll('article table').length, box.querySelectorAll('.md-typeset__scrollwrap table').length,
        box.querySelectorAll('article pre > code').length, box.querySelectorAll('article pre [data-md-type=copy]').length];"""


@pytest.mark.parametrize("size, scheme", [("desktop", "light"), ("phone", "dark")])
def test_an_edit_updates_the_open_page_in_place(served, size, scheme):
    """The page's own HTML changed: its script puts the new content in place (no reload:
    the window's mark stays), where the reader was, and Material sets it up (its tables
    wrapped to scroll, its code blocks given copy buttons), on a phone in the dark palette
    as on a desktop in the light one."""
    if EDITED in (served.folder / FILE).read_text(encoding="utf-8"):  # left so by a test before
        mark = len(served.output)
        _edit(served, EDITED, PROSE)
        served.wait_for_output("reloading", WAIT, mark)
    with chromium() as browser:
        look(browser, size, scheme)
        browser.get(served.url + PAGE)
        _wait(browser, "return document.readyState === 'complete'", 60)
        assert SHOWN not in browser.find_element("tag name", "body").text
        time.sleep(0.5)  # the page's event stream is connected
        tables, wrapped, code, copy = browser.execute_script(_MATERIAL_SET_UP)
        assert tables and tables == wrapped and code and code == copy
        palette = browser.execute_script("return document.body.getAttribute('data-md-color-scheme')")
        assert palette == ("slate" if scheme == "dark" else "default")
        browser.execute_script("window.scrollTo(0, 400); window.__beforeEdit = document.querySelector('[data-md-component=container]')")
        y = browser.execute_script("return scrollY")
        t0 = time.perf_counter()
        _edit(served, PROSE, EDITED)
        _wait(browser, f"return document.body && document.body.innerText.includes({SHOWN!r})", WAIT)
        elapsed = time.perf_counter() - t0
        print(f"\nedit → page updated in Chromium: {elapsed:.2f} s ({'content/1936' if BIG else 'small rulebook'})")
        assert browser.current_url.endswith(PAGE)
        assert browser.execute_script("return !!window.__beforeEdit"), "the page was reloaded, not updated in place"
        assert browser.execute_script("return window.__beforeEdit !== document.querySelector('[data-md-component=container]')")
        assert browser.execute_script(_MATERIAL_SET_UP) == [tables, wrapped, code, copy]
        assert abs(browser.execute_script("return scrollY") - y) <= 1
        assert browser.execute_script("return document.body.getAttribute('data-md-color-scheme')") == palette
        # and it goes on listening: the next edit is put in place too
        _edit(served, EDITED, PROSE)
        _wait(browser, f"return !document.body.innerText.includes({SHOWN!r})", WAIT)
        assert browser.execute_script("return !!window.__beforeEdit")


def test_only_the_pages_an_edit_changed_are_updated(served):
    """Several tabs: the edited page is updated by itself; a tab showing a page the edit did not
    change keeps its state (neither reloaded nor updated), and the server agrees it is unchanged."""
    from test_serve import _version

    candidates = [name for name in ("index.html", "glosario.html", "tablas.html") if served.get(name)[0] == 200]
    with chromium() as browser:
        tabs = {}
        for name in [PAGE, *candidates]:
            if tabs:
                browser.switch_to.new_window("tab")
            browser.get(served.url + name)
            _wait(browser, "return document.readyState === 'complete'", 60)
            browser.execute_script("window.__beforeEdit = document.querySelector('[data-md-component=container]')")
            tabs[name] = (browser.current_window_handle, int(re.search(r"var v=(\d+);", browser.page_source).group(1)))
        time.sleep(0.5)  # the pages' event streams are connected
        mark = len(served.output)
        base = EDITED if EDITED in (served.folder / FILE).read_text(encoding="utf-8") else PROSE  # after the test above, or alone
        again = base + " otra vez"
        _edit(served, base, again)
        try:
            browser.switch_to.window(tabs[PAGE][0])
            shown_again = again.lstrip("# 0123456789.")
            _wait(browser, f"return document.body.innerText.includes({shown_again!r})", WAIT)
            served.wait_for_output("reloading", WAIT, mark)
            time.sleep(1.0)  # time enough for any other reload
            unchanged = []
            for name in candidates:
                handle, shown = tabs[name]
                browser.switch_to.window(handle)
                updated = browser.execute_script(
                    "return window.__beforeEdit !== document.querySelector('[data-md-component=container]')")  # reloaded or put in place
                stale = _version(served, f"?v={shown}&page=/{name}") != shown
                assert updated == stale, (name, updated, stale)
                if not stale:
                    unchanged.append(name)
            assert unchanged, candidates  # at least one open page was left alone
        finally:
            mark = len(served.output)
            _edit(served, again, base)
            served.wait_for_output("reloading", WAIT, mark)


def test_a_broken_edit_shows_its_errors_over_the_last_good_page(served):
    edited = EDITED in (served.folder / FILE).read_text(encoding="utf-8")  # after the tests above, or alone
    base, shown = (EDITED, SHOWN) if edited else (PROSE, PROSE.lstrip("# 0123456789."))
    with chromium() as browser:
        browser.get(served.url + PAGE)
        _wait(browser, "return document.readyState === 'complete'", 60)
        time.sleep(0.5)
        browser.execute_script("window.__beforeEdit = true")
        _edit(served, base, base + "\n\n```rules\nenum <i>Roto</i> {\n```\n")
        _wait(browser, "return !window.__beforeEdit && !!document.getElementById('rulebook-serve-errors')", WAIT)
        banner = browser.find_element("id", "rulebook-serve-errors").text
        assert "<i>Roto</i>" in banner  # shown as text, not markup
        assert not browser.find_elements("css selector", "#rulebook-serve-errors i")
        assert shown in browser.find_element("tag name", "body").text  # the last good page
