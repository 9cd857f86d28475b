"""The rulebook sites, used as a player would: headless Chromium over HTTP and from disk.

Needs Debian's ``chromium`` and ``chromium-driver`` packages (installed by
``.ci/run``), selenium and selenium-axe-python (axe-core, injected into the
page). Every bundled rulebook is built once per session; each site is served
from a local port, and every resource its pages load must come from there.

For each rulebook: the home page, a section, a datasheet page, the page of a
special rule and the search results are drawn at 390×844 (a phone) and
1280×800, in the light and the dark palette (screenshots in
``tests/artifacts/``, kept by CI), and none may scroll sideways; axe-core finds
no serious or critical violation on the home page, a section, a datasheet
page, the special rules and the glossary, in both palettes; the searches of
``searches.toml`` find the right entity first, served and from ``file://``.
"""

from __future__ import annotations

import base64
import functools
import http.server
import io
import json
import re
import sys
import threading
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "site"))
sys.path.insert(0, str(Path(__file__).parent))

from bundled import BUNDLED, bundled_builds  # noqa: E402,F401 - the fixture
from chromium import AVAILABLE, SIZES, SKIP_REASON, WAIT, _QuietHandler, axe_violations, chromium  # noqa: E402
from chromium import look as _look  # noqa: E402
from chromium import reset as _reset  # noqa: E402

ARTIFACTS = ROOT / "tests" / "artifacts"
SEARCHES = tomllib.loads((Path(__file__).parent / "searches.toml").read_text(encoding="utf-8"))
FACTION_PRINT_LIMIT = 15  # A4 pages for one datasheet page (one faction)

if not AVAILABLE:
    pytest.skip(SKIP_REASON, allow_module_level=True)
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
pytest.importorskip("selenium_axe_python", reason="selenium-axe-python is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

class _SubFolderHandler(_QuietHandler):
    """The site under /sub/, and its 404.html (status 404) for any missing address, as a static host does."""

    def send_head(self):
        if not self.path.startswith("/sub/"):
            self.send_error(404)
            return None
        self.path = self.path[len("/sub"):]
        target = Path(self.translate_path(self.path))
        if target.is_file() or (target.is_dir() and (target / "index.html").is_file()):
            return super().send_head()
        page = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        return _Bytes(page)


class _Bytes:
    def __init__(self, data: bytes):
        self.data = data

    def read(self, *_args) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


def _serve(site: Path, handler=_QuietHandler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def servers(bundled_builds):
    """Rulebook → base URL of its site."""
    running = {name: _serve(build / "site") for name, build in bundled_builds.items()}
    yield {name: f"http://127.0.0.1:{s.server_address[1]}/" for name, s in running.items()}
    for s in running.values():
        s.shutdown()
        s.server_close()


@pytest.fixture(scope="module")
def base_url(servers):
    return servers["1936"]


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _open(browser, url: str):
    browser.get(url)
    WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "article.md-content__inner")))


def _foreign_resources(browser, base_url: str) -> list[str]:
    names = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [n for n in names if not n.startswith(base_url) and not n.startswith(("data:", "blob:"))]


def _in_viewport(browser, element) -> bool:
    return browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight;", element
    )


def _entries(build: Path) -> list[list]:
    """The site's search index: [title, href, kind, weight, text] per entry."""
    script = (build / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    return json.loads(script[script.index("{"):script.rindex("}") + 1])["entries"]


def _views(build: Path) -> dict[str, str]:
    """The pages drawn for a rulebook: home, a section, a datasheet page, a special rule (page#anchor)."""
    entries = _entries(build)
    sections = sorted(p.stem for p in (build / "docs").glob("*.md") if re.match(r"\d\d-", p.name))
    views = {"home": "index.html", "section": f"{sections[0]}.html"}
    datasheet = next((e[1] for e in entries if e[3] > 3), None)
    rule = next((e[1] for e in entries if e[2] == "Regla especial"), None)
    if datasheet:
        views["datasheet"] = datasheet
    if rule:
        views["rule"] = rule
    return views


def _overflow(browser) -> dict:
    """Sideways overflow of the page, and the scrolling boxes wider than the screen without a hint."""
    return browser.execute_script("""
        const page = document.documentElement.scrollWidth - window.innerWidth;
        const boxes = [...document.querySelectorAll('.md-typeset__scrollwrap, .rb-scroll')]
          .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1);
        const silent = boxes.filter(b => !/Desliza|Swipe/.test(getComputedStyle(b, '::before').content)
                                          || b.getAttribute('tabindex') !== '0');
        return {page: page, boxes: boxes.length, silent: silent.map(b => b.textContent.trim().slice(0, 60))};
    """)


def _search(browser, url: str, query: str) -> list[str]:
    """Type ``query`` into the header's search box; the hrefs of the results, best first."""
    browser.get(url)
    WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "article")))
    box = browser.find_element(By.CSS_SELECTOR, "[data-rb-search] input.md-search__input")
    if not box.is_displayed():  # narrow window: the search opens from the header button
        browser.find_element(By.CSS_SELECTOR, "label.md-header__button[for='__search']").click()
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-rb-search] input.md-search__input"))).click()
    box.send_keys(query)
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".md-search-result__item a.md-search-result__link"))
    return [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, ".md-search-result__item a.md-search-result__link")]


# ---------------------------------------------------------------- every bundled rulebook


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_views_at_phone_and_desktop_size_in_both_palettes(browser, servers, bundled_builds, artifacts, rulebook):
    """No page scrolls sideways; a table wider than the screen scrolls in its own box, with a hint."""
    views = _views(bundled_builds[rulebook])
    problems = []
    try:
        for size in SIZES:
            for scheme in ("light", "dark"):
                _look(browser, size, scheme)
                for name, page in views.items():
                    _open(browser, servers[rulebook] + page)
                    found = _overflow(browser)
                    if found["page"] > 0 or found["silent"]:
                        problems.append((page, size, scheme, found))
                    assert browser.execute_script("return document.body.getAttribute('data-md-color-scheme')") == (
                        "slate" if scheme == "dark" else "default")
                    browser.save_screenshot(str(artifacts / f"{rulebook}-{name}-{size}-{scheme}.png"))
                query = SEARCHES.get(rulebook, {}).get("searches", [["a", ""]])[0][0]
                _search(browser, servers[rulebook] + "index.html", query)
                browser.save_screenshot(str(artifacts / f"{rulebook}-search-{size}-{scheme}.png"))
    finally:
        _reset(browser)
    assert not problems, problems


AXE_VIEWS = ("home", "section", "datasheet", "rules", "glossary")


def _axe_pages(build: Path) -> dict[str, str]:
    views = _views(build)
    pages = {"home": "index.html", "section": views["section"]}
    if "datasheet" in views:
        pages["datasheet"] = views["datasheet"].split("#")[0]
    if "rule" in views:
        pages["rules"] = views["rule"].split("#")[0]
    glossary = [p.name for p in (build / "site").glob("*.html") if "glosario" in p.name]
    if glossary:
        pages["glossary"] = glossary[0]
    return pages


@pytest.mark.parametrize("rulebook", BUNDLED)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation(browser, servers, bundled_builds, rulebook, scheme):
    """No serious or critical violation (colour contrast among them) on the sampled pages, and on
    the section and datasheet pages again with "Detalles técnicos" on."""
    serious = {}
    try:
        _look(browser, "desktop", scheme)
        for name, page in _axe_pages(bundled_builds[rulebook]).items():
            for tech in (False, True) if name in ("section", "datasheet") else (False,):
                _open(browser, servers[rulebook] + page)
                if tech:  # pressed from the keyboard: no pointer over the button, no tooltip
                    browser.execute_script("document.querySelector('button.rb-tech-switch').click()")
                _settled(browser)
                bad = axe_violations(browser)
                if bad:
                    serious[page + (" (technical details)" if tech else "")] = bad
    finally:
        browser.execute_script("try { localStorage.clear() } catch (e) {}")
        _reset(browser)
    assert not serious, serious


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_searches_find_the_right_entity_first(browser, servers, rulebook):
    searches = SEARCHES.get(rulebook, {}).get("searches")
    assert searches, f"tests/browser/searches.toml has no searches for the bundled rulebook {rulebook!r}"
    for query, expected in searches:
        hrefs = _search(browser, servers[rulebook] + "index.html", query)
        assert hrefs[0].endswith("/" + expected), (query, [h.rsplit("/", 1)[-1] for h in hrefs[:5]])
        assert len(hrefs) >= 1


def _settled(browser) -> None:
    """Wait until no transition runs (the search overlay fades in): axe reads colours as drawn."""
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(
        "return document.getAnimations().every(a => a.playState !== 'running')"))


# what players typed that found nothing, or the wrong thing first (issue 27): rulebook → (query, expected first)
FORGIVING = {
    "1936": [("t26", "fichas-bando-republicano-t-26-b.html"),
             ("bt5", "fichas-bando-republicano-bt-5.html"),
             ("T-26 B", "fichas-bando-republicano-t-26-b.html")],
    "napoleonico": [("tendidos", "06-unidades-britanicas-a-pie-tendidas-en-tierra.html")],
}


def _marks(browser) -> list[list[str]]:
    """Each <mark> of the results: [the character before it, its text, the character after it]."""
    return browser.execute_script(
        "return [...document.querySelectorAll('.md-search-result mark')].map(m => {"
        "  const before = m.previousSibling ? m.previousSibling.textContent : '';"
        "  const after = m.nextSibling ? m.nextSibling.textContent : '';"
        "  return [before.slice(-1), m.textContent, after.slice(0, 1)]; });")


@pytest.mark.parametrize("rulebook", sorted(FORGIVING))
def test_search_forgives_at_phone_and_desktop_in_both_palettes(browser, bundled_builds, rulebook):
    """From disk, at 390 and 1280 px, light and dark: names typed without their hyphens or spaces
    and another form of a word find the right entity first; only whole terms are marked; the open
    search overlay has no serious axe violation (the marks' contrast among them)."""
    site = bundled_builds[rulebook] / "site"
    problems = []
    try:
        for size in SIZES:
            for scheme in ("light", "dark"):
                _look(browser, size, scheme)
                for query, expected in FORGIVING[rulebook]:
                    hrefs = _search(browser, (site / "index.html").as_uri(), query)
                    if not hrefs[0].endswith("/" + expected):
                        problems.append((size, scheme, query, [h.rsplit("/", 1)[-1] for h in hrefs[:4]]))
                    inside = [m for m in _marks(browser) if re.match(r"\w", m[0] + " ") or re.match(r"\w", m[2] + " ")]
                    if inside:
                        problems.append((size, scheme, query, "marked inside a word", inside[:5]))
                _settled(browser)
                bad = axe_violations(browser)
                if bad:
                    problems.append((size, scheme, "search overlay", bad))
    finally:
        _reset(browser)
    assert not problems, problems


def test_search_marks_only_the_terms_typed(browser, bundled_builds):
    """"T-26 B" marks the name T-26 B, never the t and b inside other words."""
    hrefs = _search(browser, (bundled_builds["1936"] / "site" / "index.html").as_uri(), "T-26 B")
    assert hrefs[0].endswith("/fichas-bando-republicano-t-26-b.html")
    marks = _marks(browser)
    assert marks and all(re.sub(r"[^0-9a-z]", "", m[1].lower()).startswith("t26") for m in marks), marks


def test_glossary_terms_are_reachable_by_keyboard(browser, bundled_builds):
    """Chapter VI from disk, at 390 and 1280 px: every glossary term takes the focus; Tab reaches
    one, and its definition shows in a tooltip."""
    from selenium.webdriver.common.keys import Keys

    page = next((bundled_builds["1936"] / "site").glob("06-*.html")).as_uri()
    try:
        for size in SIZES:
            _look(browser, size, "light")
            _open(browser, page)
            counts = browser.execute_script(
                "const terms = [...document.querySelectorAll('article abbr')];"
                "return [terms.length, terms.filter(t => t.tabIndex >= 0).length];")
            assert counts[0] > 0 and counts[0] == counts[1], (size, counts)
            browser.execute_script("document.activeElement && document.activeElement.blur()")
            for _ in range(400):
                ActionChains(browser).send_keys(Keys.TAB).perform()
                if browser.execute_script("return document.activeElement.tagName") == "ABBR":
                    break
            focused = browser.switch_to.active_element
            assert focused.tag_name == "abbr", (size, focused.tag_name)
            tip = WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(
                "const id = document.activeElement.getAttribute('aria-describedby');"
                "const tip = id && document.getElementById(id);"
                "return tip && getComputedStyle(tip).opacity === '1' && tip.textContent.trim();"))
            assert len(tip) > 10, (size, tip)
    finally:
        _reset(browser)


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_search_works_from_disk(browser, bundled_builds, rulebook):
    query, expected = SEARCHES[rulebook]["searches"][0]
    site = bundled_builds[rulebook] / "site"
    hrefs = _search(browser, (site / "index.html").as_uri().rsplit("/", 1)[0] + "/index.html", query)
    assert hrefs[0].startswith("file://") and hrefs[0].endswith("/" + expected), hrefs[:3]


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_the_404_page_works_in_a_sub_folder(browser, bundled_builds, rulebook):
    server = _serve(bundled_builds[rulebook] / "site", _SubFolderHandler)
    base = f"http://127.0.0.1:{server.server_address[1]}/sub/"
    try:
        for missing in ("no-existe.html", "a/b/no-existe.html"):
            browser.get(base + missing)
            link = WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "a[data-rb-root-link]")))
            WebDriverWait(browser, WAIT).until(lambda d: link.get_attribute("href") == base + "index.html")
            link.click()
            WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "article.md-content__inner")))
            assert browser.current_url == base + "index.html"
            failed = browser.execute_script(
                "return performance.getEntriesByType('resource').filter(e => e.responseStatus >= 400).map(e => e.name)")
            assert failed == [], failed
    finally:
        server.shutdown()
        server.server_close()


def _print(browser, url: str) -> tuple[bytes, list[str]]:
    """Print the page at ``url`` to PDF on A4 as Chromium's print dialog does (the page's own
    ``@page`` sizes win: a landscape page for a wide table); (the PDF, the tables' last headers
    shown in print whose text the PDF has fewer times than the printed page does)."""
    import unicodedata

    from pypdf import PdfReader

    def flat(text: str) -> str:
        return re.sub(r"\s+", "", unicodedata.normalize("NFC", text).replace("\u00ad", ""))

    _open(browser, url)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        heads, shown = browser.execute_script(
            "const tables = [...document.querySelectorAll('article table')].filter(t => t.offsetParent !== null);"
            "return [tables.map(t => [...t.querySelectorAll('thead th')].pop()).filter(th => th).map(th => th.innerText.trim()),"
            "        document.querySelector('article').innerText];")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    pdf = base64.b64decode(browser.execute_cdp_cmd("Page.printToPDF", {
        "paperWidth": 8.27, "paperHeight": 11.69, "preferCSSPageSize": True, "printBackground": True})["data"])
    printed = flat("".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages))
    missing = sorted({h for h in heads if h and printed.count(flat(h)) < flat(shown).count(flat(h))})
    return pdf, missing


def _page_count(pdf: bytes) -> tuple[int, int]:
    """(pages, landscape pages) of a PDF."""
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(pdf)).pages
    return len(pages), sum(1 for p in pages if p.mediabox.width > p.mediabox.height)


def _reference_pages(build: Path) -> list[str]:
    """The sheets printed for the table: the quick reference and the summary chapters."""
    site = build / "site"
    quick = [p.name for p in sorted(site.glob("*.html")) if 'class="rb-quick"' in p.read_text(encoding="utf-8")]
    summaries = [p.name for p in sorted(site.glob("[0-9][0-9]-*.html")) if re.search(r"resumen|summary", p.name)]
    return quick + summaries


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_printed_reference_sheets_keep_every_column(browser, bundled_builds, artifacts, rulebook):
    """The quick reference and the summary chapters, printed on A4 from disk: every table's last
    column is on the paper (its header's text is in the PDF's text as often as on the page)."""
    site = bundled_builds[rulebook] / "site"
    counts, lost = {}, {}
    for page in _reference_pages(bundled_builds[rulebook]):
        pdf, missing = _print(browser, (site / page).as_uri())
        counts[page] = _page_count(pdf)
        if missing:
            lost[page] = missing
        (artifacts / f"{rulebook}-{page.removesuffix('.html')}-print.pdf").write_bytes(pdf)
    print(rulebook, "printed pages (pages, landscape):", counts)
    assert counts, f"{rulebook}: no quick reference or summary page to print"
    assert not lost, lost


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_print_one_faction_compactly(browser, servers, bundled_builds, artifacts, rulebook):
    """A datasheet page (one faction) prints on at most 15 A4 pages: compact cards in two columns,
    without technical blocks, collapsibles or scrollbars, every table's last column on the paper."""
    counts, lost = {}, {}
    for page in _faction_pages(bundled_builds[rulebook]):
        _open(browser, servers[rulebook] + page)
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            hidden = browser.execute_script(
                "return ['.md-header', '.md-sidebar--primary', '.md-footer', '.rb-tech', 'details.rb-users', 'details.rb-options']"
                ".map(s => document.querySelector(s)).filter(e => e).map(e => getComputedStyle(e).display)"
            )
            assert hidden and all(d == "none" for d in hidden), (page, hidden)
            scrolling = browser.execute_script(
                "return [...document.querySelectorAll('.md-typeset__scrollwrap, .rb-scroll')]"
                ".filter(e => getComputedStyle(e).overflowX !== 'visible').length")
            assert scrolling == 0, page
        finally:
            browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        pdf, missing = _print(browser, servers[rulebook] + page)
        counts[page] = _page_count(pdf)[0]
        if missing:
            lost[page] = missing
        (artifacts / f"{rulebook}-{page.removesuffix('.html')}-print.pdf").write_bytes(pdf)
    print(rulebook, "printed datasheet pages:", counts)
    assert all(n <= FACTION_PRINT_LIMIT for n in counts.values()), counts
    assert not lost, lost


def _faction_pages(build: Path) -> list[str]:
    """The pages of all of a side's datasheets, to print: linked from its index page (the pages of the
    datasheets' entries, which have the datasheets' weight, above 3, in the search index)."""
    site = build / "site"
    cards = {e[1].split("#")[0] for e in _entries(build) if e[3] > 3}
    indexes = {m for page in cards for m in re.findall(r'<nav class="rb-unit-nav"[^>]*><a href="([^"]+)"', (site / page).read_text(encoding="utf-8"))}
    return sorted({m for page in indexes for m in re.findall(r'<p class="rb-meta rb-print-link"><a href="([^"]+)"', (site / page).read_text(encoding="utf-8"))})


# ---------------------------------------------------------------- the 1936 rulebook, in detail


def test_home_page_loads(browser, base_url, artifacts):
    _open(browser, base_url + "index.html")
    assert "Manual del Juego" in browser.title
    h1 = browser.find_element(By.CSS_SELECTOR, "article h1")
    assert "Manual del Juego" in h1.text
    links = {a.get_attribute("href").rsplit("/", 1)[-1] for a in browser.find_elements(By.CSS_SELECTOR, "article a[href]")}
    assert {"indice-de-fichas.html", "fichas-bando-nacional.html", "reglas-a-z.html", "17-glosario.html", "referencia-rapida.html"} <= links
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "es"
    assert _foreign_resources(browser, base_url) == []
    assert not [n for n in browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") if "search" in n]


def test_everything_a_player_needs_is_one_tap_from_home_on_a_phone(browser, base_url):
    try:
        _look(browser, "phone", "light")
        _open(browser, base_url + "index.html")
        tiles = browser.find_elements(By.CSS_SELECTOR, "a.rb-tile")
        assert len(tiles) >= 5
        assert all(_in_viewport(browser, t) for t in tiles), [t.text for t in tiles if not _in_viewport(browser, t)]
    finally:
        _reset(browser)


def test_technical_details_are_off_by_default_and_remembered(browser, base_url):
    _open(browser, base_url + "06-iniciativa-y-disparos.html#resolucion_impacto")
    browser.execute_script("localStorage.clear()")
    _open(browser, base_url + "06-iniciativa-y-disparos.html#resolucion_impacto")
    tech = browser.find_element(By.CSS_SELECTOR, ".rb-tech")
    assert not tech.is_displayed()
    switch = browser.find_element(By.CSS_SELECTOR, "button.rb-tech-switch")
    assert switch.get_attribute("aria-pressed") == "false"
    switch.click()
    assert tech.is_displayed() and switch.get_attribute("aria-pressed") == "true"
    _open(browser, base_url + "03-reglas-especiales.html")
    assert browser.find_element(By.CSS_SELECTOR, ".rb-tech").is_displayed()
    browser.find_element(By.CSS_SELECTOR, "button.rb-tech-switch").click()
    assert not browser.find_element(By.CSS_SELECTOR, ".rb-tech").is_displayed()


def test_datasheet_index_filters(browser, base_url):
    _open(browser, base_url + "indice-de-fichas.html")
    form = browser.find_element(By.CSS_SELECTOR, "form.rb-filter")
    total = len(browser.find_elements(By.CSS_SELECTOR, "#rb-card-index tbody tr"))
    Select(form.find_element(By.NAME, "group")).select_by_visible_text("Bando Nacional")
    Select(form.find_element(By.NAME, "rule")).select_by_value("maniobrable")
    visible = [r for r in browser.find_elements(By.CSS_SELECTOR, "#rb-card-index tbody tr") if r.is_displayed()]
    assert 0 < len(visible) < total
    assert all("Bando Nacional" in r.text for r in visible)
    assert browser.find_element(By.CSS_SELECTOR, "[data-rb-count]").text == str(len(visible))
    cost = form.find_element(By.NAME, "cost")
    cost.send_keys("100")
    shown = [r for r in browser.find_elements(By.CSS_SELECTOR, "#rb-card-index tbody tr") if r.is_displayed()]
    assert shown and all(int(r.get_attribute("data-cost")) <= 100 for r in shown)
    search = form.find_element(By.NAME, "q")
    search.send_keys("panzer")
    names = [r.find_element(By.TAG_NAME, "a").text for r in browser.find_elements(By.CSS_SELECTOR, "#rb-card-index tbody tr") if r.is_displayed()]
    assert names == ["Panzer I Ausf A/B"], names


def _card(browser, base_url: str, index: str, anchor: str):
    """Open ``index#anchor`` (an address the site has always had), follow the row's link to the card's
    own page, and return the card (the page's one card, under the heading at ``anchor``)."""
    _open(browser, f"{base_url}{index}#{anchor}")
    row = browser.find_element(By.ID, anchor)
    assert row.tag_name == "tr"
    link = row.find_element(By.TAG_NAME, "a")
    browser.execute_script("arguments[0].click();", link)
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"h1[id='{anchor}']"))
    (card,) = browser.find_elements(By.CSS_SELECTOR, ".rb-datasheet")
    return card


def test_unit_special_rule_link_lands_on_the_rule(browser, base_url, artifacts):
    card = _card(browser, base_url, "fichas-bando-nacional.html", "infanteria_nacional--n_cazadores_montana")
    link = card.find_element(By.LINK_TEXT, "LMG(2)")
    browser.execute_script("arguments[0].click();", link)
    WebDriverWait(browser, WAIT).until(lambda d: d.current_url.endswith("03-reglas-especiales.html#lmg"))
    heading = WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.ID, "lmg")))
    WebDriverWait(browser, WAIT).until(lambda d: _in_viewport(d, heading))
    assert "LMG" in heading.text
    browser.save_screenshot(str(artifacts / "special-rule.png"))


def test_datasheet_shows_its_four_quality_costs(browser, base_url, artifacts):
    card = _card(browser, base_url, "fichas-bando-nacional.html", "infanteria_nacional--n_milicia_falange")
    cost = card.find_element(By.CSS_SELECTOR, ".rb-cost table")
    headers = [th.text.strip() for th in cost.find_elements(By.CSS_SELECTOR, "th")]
    values = [td.text.strip() for td in cost.find_elements(By.CSS_SELECTOR, "td")]
    assert headers == ["Verde", "Regular", "Veterano", "Élite"]
    # base 70: −20 %, 0 %, +30 %, +50 %
    assert values == ["56", "70", "91", "105"]
    # the weapon links to its profile card, and its I and D by band are on the card
    assert card.find_element(By.CSS_SELECTOR, "a[href='fichas-perfiles-de-armas-seccion-de-fusileros.html']")
    assert "Corta" in card.find_element(By.CSS_SELECTOR, ".rb-weapon table").text
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'});", card)
    card.screenshot(str(artifacts / "datasheet.png"))


def test_a_wide_datasheet_fits_a_phone(browser, base_url):
    """The Panzer I card at 390 px: its numbers wrap, and the page never scrolls sideways."""
    try:
        _look(browser, "phone", "light")
        card = _card(browser, base_url, "fichas-bando-nacional.html", "carros_combate_nacionales--n_panzer_i")
        assert browser.execute_script("return arguments[0].getBoundingClientRect().right", card) <= 390
        for box in card.find_elements(By.CSS_SELECTOR, "dl.rb-statline > div"):
            assert browser.execute_script("return arguments[0].getBoundingClientRect().right", box) <= 390
        assert _overflow(browser)["page"] <= 0
    finally:
        _reset(browser)


def test_deferred_aircraft_have_a_badge(browser, base_url):
    _open(browser, base_url + "fichas-bando-nacional.html#aviones_nacionales")
    badges = browser.find_elements(By.CSS_SELECTOR, "h2[id='aviones_nacionales'] .rb-badge--deferred")
    assert badges and all(b.text.strip() for b in badges)
    _card(browser, base_url, "fichas-bando-nacional.html", "aviones_nacionales--n_avion_bf109")
    assert browser.find_elements(By.CSS_SELECTOR, "h1 .rb-badge--deferred")


def test_glossary_tooltip_on_a_term(browser, base_url, artifacts):
    _open(browser, base_url + "06-iniciativa-y-disparos.html")
    terms = browser.find_elements(By.CSS_SELECTOR, "article abbr[title]")
    by_text = {}
    for t in terms:
        by_text.setdefault(t.text.strip(), t)
    assert "INI" in by_text, sorted(by_text)[:20]
    abbr = by_text["INI"]
    assert "Iniciativa de disparo" in abbr.get_attribute("title")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", abbr)
    ActionChains(browser).move_to_element(abbr).perform()
    browser.save_screenshot(str(artifacts / "tooltip.png"))


def test_procedure_reads_as_steps_and_examples(browser, base_url, artifacts):
    _open(browser, base_url + "06-iniciativa-y-disparos.html#resolucion_impacto")
    heading = browser.find_element(By.ID, "resolucion_impacto")
    steps = heading.find_elements(By.XPATH, "following::ol[contains(@class, 'rb-steps')][1]/li")
    assert len(steps) >= 2 and steps[0].text.startswith("I efectivo = I base + M")
    example = heading.find_element(By.XPATH, "following::div[contains(@class, 'rb-example')][1]")
    assert "→" in example.text and "expect" not in example.text
    WebDriverWait(browser, WAIT).until(lambda d: _in_viewport(d, heading))
    browser.save_screenshot(str(artifacts / "procedure.png"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_procedure_steps_are_numbered_once_and_formulas_are_technical(browser, base_url, size):
    """A step numbered by its manual («2–3. Declara…») shows that number as its badge, which fits beside
    the text; its formulas appear only with the technical details switched on."""
    _look(browser, size, "light")
    try:
        _open(browser, base_url + "06-iniciativa-y-disparos.html#disparo_directo")
        heading = browser.find_element(By.ID, "disparo_directo")
        steps = heading.find_elements(By.XPATH, "following::ol[contains(@class, 'rb-steps')][1]/li")
        boxes = [browser.execute_script(
            "const b = getComputedStyle(arguments[0], '::before');"
            "return [b.content, parseFloat(b.width), parseFloat(getComputedStyle(arguments[0]).paddingLeft)];", li) for li in steps]
        assert [content for content, _w, _p in boxes] == ['"1"', '"2–3"', '"4"', '"5"', '"6"', '"7"']
        assert all(width < room for _c, width, room in boxes), boxes
        assert steps[1].text.startswith("Declara Fuego Preciso")
        formulas = steps[0].find_elements(By.CSS_SELECTOR, ".rb-formula")
        assert formulas and not any(f.is_displayed() for f in formulas)
        browser.find_element(By.CSS_SELECTOR, ".rb-tech-switch").click()
        WebDriverWait(browser, WAIT).until(lambda d: all(f.is_displayed() for f in formulas))
        assert "exige número de(entradas) > 0" in formulas[1].text
    finally:
        browser.execute_script("try { localStorage.clear() } catch (e) {} document.documentElement.removeAttribute('data-rb-tech')")
        _reset(browser)


def test_every_page_loads_only_local_resources(browser, base_url, built):
    browser.get_log("browser")  # what earlier tests left in the log
    for page in ("index.html", "03-reglas-especiales.html", "fichas-perfiles-de-armas.html", "17-glosario.html", "datos.html",
                 "indice-de-fichas.html", "reglas-a-z.html", "referencia-rapida.html"):
        assert (built / "site" / page).exists(), page
        _open(browser, base_url + page)
        assert _foreign_resources(browser, base_url) == [], page
        errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == [], (page, errors[:3])
