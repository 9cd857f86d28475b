"""The rulebook site, used as a player would: headless Chromium over HTTP.

Needs Debian's ``chromium`` and ``chromium-driver`` packages (installed by
``.ci/run``) and selenium. The bundled rulebook is built once per session
(``built`` fixture); the site is served from a local port, and every resource
the pages load must come from that server (the site works offline).
Screenshots are written to ``tests/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "headless Chromium is not installed (apt-get install -y chromium chromium-driver)",
        allow_module_level=True,
    )
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT = 30  # seconds; the search index is built in a web worker on first use


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - silence the access log
        pass


@pytest.fixture(scope="module")
def base_url(built):
    site = built / "site"
    assert (site / "index.html").exists()
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="rulebook-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1280,1400",
        f"--user-data-dir={profile}", "--lang=es",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


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


def test_home_page_loads(browser, base_url, artifacts):
    _open(browser, base_url + "index.html")
    assert "Manual del Juego" in browser.title
    h1 = browser.find_element(By.CSS_SELECTOR, "article h1")
    assert "Manual del Juego" in h1.text
    # navigation to the sections, the datasheets and the glossary
    links = {a.get_attribute("href").rsplit("/", 1)[-1] for a in browser.find_elements(By.CSS_SELECTOR, "article a[href]")}
    assert any(h.startswith("03-reglas-especiales") for h in links)
    assert any(h.startswith("fichas-") for h in links)
    assert any("glosario" in h for h in links)
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "es"
    assert _foreign_resources(browser, base_url) == []
    browser.save_screenshot(str(artifacts / "home.png"))


def _search(browser, base_url: str, query: str) -> list[str]:
    _open(browser, base_url + "index.html")
    box = WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, "input.md-search__input")))
    if not box.is_displayed():  # narrow window: the search opens from the header button
        browser.find_element(By.CSS_SELECTOR, "label.md-header__button[for='__search']").click()
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "input.md-search__input"))).click()
    box.send_keys(query)
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".md-search-result__item a.md-search-result__link")
    )
    return [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, ".md-search-result__item a.md-search-result__link")]


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("Pinned", "03-reglas-especiales.html"),
        ("Tiznao", "fichas-bando-"),
        ("Fricción", "05-turnos-mando-ordenes-y-acciones.html"),
        ("Troneras", "03-reglas-especiales.html"),
    ],
)
def test_search_finds_the_right_pages(browser, base_url, artifacts, query, page):
    hrefs = _search(browser, base_url, query)
    assert hrefs, f"no results for {query!r}"
    assert any(page in h for h in hrefs), (query, hrefs[:10])
    if query == "Pinned":
        browser.save_screenshot(str(artifacts / "search-pinned.png"))


def _card(browser, anchor: str):
    return browser.find_element(By.XPATH, f"//h3[@id='{anchor}']/ancestor::div[contains(@class, 'rb-datasheet')][1]")


def test_unit_special_rule_link_lands_on_the_rule(browser, base_url, artifacts):
    _open(browser, base_url + "fichas-bando-nacional.html#infanteria_nacional--n_cazadores_montana")
    card = _card(browser, "infanteria_nacional--n_cazadores_montana")
    link = card.find_element(By.LINK_TEXT, "LMG(2)")
    browser.execute_script("arguments[0].click();", link)
    WebDriverWait(browser, WAIT).until(lambda d: d.current_url.endswith("03-reglas-especiales.html#lmg"))
    target = WebDriverWait(browser, WAIT).until(EC.presence_of_element_located((By.ID, "lmg")))
    heading = target.find_element(By.XPATH, "following::h4[1]")
    WebDriverWait(browser, WAIT).until(lambda d: _in_viewport(d, heading))
    assert "LMG" in heading.text
    browser.save_screenshot(str(artifacts / "special-rule.png"))


def test_datasheet_shows_its_four_quality_costs(browser, base_url, artifacts):
    _open(browser, base_url + "fichas-bando-nacional.html#infanteria_nacional--n_milicia_falange")
    card = _card(browser, "infanteria_nacional--n_milicia_falange")
    cost = card.find_element(By.CSS_SELECTOR, ".rb-cost table")
    headers = [th.text.strip() for th in cost.find_elements(By.CSS_SELECTOR, "th")]
    values = [td.text.strip() for td in cost.find_elements(By.CSS_SELECTOR, "td")]
    assert headers == ["Verde", "Regular", "Veterano", "Élite"]
    # base 70: −20 %, 0 %, +30 %, +50 %
    assert values == ["56", "70", "91", "105"]
    # the weapon links to its profile card, and the card shows stats
    assert card.find_element(By.CSS_SELECTOR, "a[href*='fichas-perfiles-de-armas.html#perfiles_armas--fusiles_seccion']")
    assert card.find_element(By.CSS_SELECTOR, ".rb-stats table")
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'});", card)
    card.screenshot(str(artifacts / "datasheet.png"))


def test_deferred_aircraft_have_a_badge(browser, base_url):
    _open(browser, base_url + "fichas-bando-nacional.html#aviones_nacionales")
    badges = browser.find_elements(By.CSS_SELECTOR, ".rb-datasheet .rb-badge--deferred")
    assert badges and all(b.text.strip() for b in badges)


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


def test_procedure_page(browser, base_url, artifacts):
    _open(browser, base_url + "06-iniciativa-y-disparos.html#resolucion_impacto")
    anchor = browser.find_element(By.ID, "resolucion_impacto")
    steps = anchor.find_elements(By.XPATH, "following::ol[contains(@class, 'rb-steps')][1]/li")
    assert len(steps) >= 2
    # steps are rendered Markdown, not raw source
    assert "**" not in steps[0].text
    WebDriverWait(browser, WAIT).until(lambda d: _in_viewport(d, anchor.find_element(By.XPATH, "following::h4[1]")))
    browser.save_screenshot(str(artifacts / "procedure.png"))


def test_print_stylesheet_hides_the_chrome(browser, base_url, artifacts):
    _open(browser, base_url + "fichas-bando-nacional.html")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        hidden = browser.execute_script(
            "return ['.md-header', '.md-sidebar--primary', '.md-footer', 'details.rb-code']"
            ".map(s => document.querySelector(s)).filter(e => e)"
            ".map(e => getComputedStyle(e).display)"
        )
        assert hidden and all(d == "none" for d in hidden), hidden
        card = browser.find_element(By.CSS_SELECTOR, ".rb-datasheet")
        assert browser.execute_script("return getComputedStyle(arguments[0]).breakInside", card) == "avoid"
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    pdf = browser.print_page()
    import base64

    (artifacts / "datasheets-print.pdf").write_bytes(base64.b64decode(pdf))


def test_every_page_loads_only_local_resources(browser, base_url, built):
    for page in ("index.html", "03-reglas-especiales.html", "fichas-perfiles-de-armas.html", "17-glosario.html", "datos.html"):
        if not (built / "site" / page).exists():
            continue
        _open(browser, base_url + page)
        assert _foreign_resources(browser, base_url) == [], page
