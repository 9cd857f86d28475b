"""The army builder at the table (issue 27, points 1, 3, 4 and 7), as a player uses it: headless
Chromium, the 1936 site opened from disk (``file://``), at 390 and 1280 px in the light and dark palettes.

1. a list is kept: Back from a unit's card, a reload and a new tab find it; the lists are a
   library (new, duplicate, rename, delete after asking, switch); damaged or hostile stored
   data is refused with a message and nothing runs;
3. every card lists the options the builder offers its unit (the army list decides);
4. the print sheet, printed to PDF, has readable labels, the weapons' values and says how a
   unit's points are counted;
7. sharing from disk says that a link only works on this device and offers a file and a code,
   both loaded back; a broken link or code is refused in the page's language, naming the field.

The builder's speed with a long list is measured by bench/army_builder.py, not here.
"""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))

from chromium import AVAILABLE, SIZES, SKIP_REASON, WAIT, chromium, look, open_builder, reset  # noqa: E402

if not AVAILABLE:
    pytest.skip(SKIP_REASON, allow_module_level=True)
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed (pip install -e '.[test]')")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.print_page_options import PrintOptions  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from rulebook.compiler.commands import roster as rosters  # noqa: E402

ARTIFACTS = ROOT / "tests" / "artifacts"
LOOKS = [(size, scheme) for size in SIZES for scheme in ("light", "dark")]
SIDE, TANK, OTHER_TANK, SECTION = "republicano", "r_t26_b", "r_bt5", "r_milicia_cnt"  # the audit's list: T-26 B and BT-5
BROWSER_ENGLISH = ("Failed to execute", "atob", "Unexpected token", "is not valid JSON", "SyntaxError", "undefined", "[object")


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("army-lists-downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    with chromium(downloads) as driver:
        yield driver
        reset(driver)


@pytest.fixture(scope="module")
def site(built) -> dict:
    """The 1936 site from disk: the builder's address, its army document and its interface's phrases."""
    (path,) = sorted((built / "json" / "armies").glob("*.json"))
    data = (built / "site" / "assets" / "armies" / "ejercito.js").read_text(encoding="utf-8")
    return {"url": (built / "site" / "ejercito.html").as_uri(), "army": json.loads(path.read_text(encoding="utf-8")),
            "text": json.loads(data[data.index("=") + 1:].strip().rstrip(";"))["text"]}


def _wait(browser, what, timeout=WAIT):
    return WebDriverWait(browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(what)


def _add(browser, entry: str) -> None:
    before = len(browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit"))
    row = browser.find_element(By.CSS_SELECTOR, f".rb-army__entry[data-entry='{entry}']")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    row.find_element(By.CSS_SELECTOR, "button").click()
    _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) == before + 1)


def _click(browser, ident: str) -> None:
    """Click an element by its id, brought to the middle of the screen first (the sticky header covers the top)."""
    el = browser.find_element(By.ID, ident)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def _units(browser) -> list[str]:
    return [u.get_attribute("data-entry") for u in browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit")]


def _library(browser) -> list[str]:
    return [o.text for o in Select(browser.find_element(By.ID, "rb-army-library")).options]


def _fits(browser) -> int:
    """How far the page scrolls sideways (0: it fits the screen)."""
    return browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")


def _total(army: dict, roster: dict) -> int:
    return rosters.validate(army, roster)["total"]


# ------------------------------------------------------------------ 1. the list is kept


@pytest.mark.parametrize("size, scheme", LOOKS)
def test_a_list_is_kept_across_back_reload_and_a_new_tab(browser, site, size, scheme):
    """The audit's steps: add T-26 B and BT-5, tap the T-26 B title, press Back; then reload; then
    close the tab and open the builder in a new one: the list is there each time."""
    look(browser, size, scheme)
    open_builder(browser, site["url"])
    Select(browser.find_element(By.ID, "rb-army-side")).select_by_value(SIDE)
    _add(browser, TANK)
    _add(browser, OTHER_TANK)
    total = browser.find_element(By.ID, "rb-army-total").text
    assert _fits(browser) <= 0
    link = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='0'] .rb-army__unit-title a")
    card = link.get_attribute("href")
    browser.execute_script("arguments[0].click()", link)
    _wait(browser, lambda d: d.current_url == card)
    assert browser.execute_script(ON_CARD)
    browser.back()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    assert _units(browser) == [TANK, OTHER_TANK] and browser.find_element(By.ID, "rb-army-total").text == total
    browser.refresh()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    assert _units(browser) == [TANK, OTHER_TANK]
    old = browser.current_window_handle
    browser.switch_to.new_window("tab")
    fresh = browser.current_window_handle
    browser.switch_to.window(old)
    browser.close()
    browser.switch_to.window(fresh)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": SIZES[size][0], "height": SIZES[size][1], "deviceScaleFactor": 1, "mobile": size == "phone"})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    open_builder(browser, site["url"], keep=True)
    assert _units(browser) == [TANK, OTHER_TANK] and browser.find_element(By.ID, "rb-army-total").text == total
    assert browser.find_element(By.ID, "rb-army-store-note").text == site["text"]["kept"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"1936-army-lists-{size}-{scheme}.png"))


@pytest.mark.parametrize("size, scheme", [LOOKS[0], LOOKS[-1]])
def test_the_lists_are_a_library_and_deleting_asks_first(browser, site, size, scheme):
    """New list keeps the previous one (nothing is discarded); switch, duplicate, rename; Delete asks
    first, and "keep it" keeps it; what is left is there after a reload."""
    t = site["text"]
    look(browser, size, scheme)
    open_builder(browser, site["url"])
    Select(browser.find_element(By.ID, "rb-army-side")).select_by_value(SIDE)
    name = browser.find_element(By.ID, "rb-army-name")
    name.send_keys("Columna Durruti")
    _add(browser, SECTION)
    _click(browser, "rb-army-new")
    assert _units(browser) == [] and not browser.find_element(By.ID, "rb-army-confirm").is_displayed()
    assert len(_library(browser)) == 2 and _library(browser)[0].startswith("Columna Durruti")
    Select(browser.find_element(By.ID, "rb-army-library")).select_by_index(0)
    assert _units(browser) == [SECTION] and browser.find_element(By.ID, "rb-army-name").get_attribute("value") == "Columna Durruti"
    _click(browser, "rb-army-duplicate")
    copy = t["copy_of"].replace("{name}", "Columna Durruti")
    assert browser.find_element(By.ID, "rb-army-name").get_attribute("value") == copy and _units(browser) == [SECTION]
    name = browser.find_element(By.ID, "rb-army-name")
    name.clear()
    name.send_keys("Reserva")
    assert len(_library(browser)) == 3 and _library(browser)[2].startswith("Reserva")
    _click(browser, "rb-army-delete")
    confirm = browser.find_element(By.ID, "rb-army-confirm")
    assert confirm.is_displayed() and "Reserva" in confirm.text and _fits(browser) <= 0
    _click(browser, "rb-army-confirm-no")
    assert len(_library(browser)) == 3 and not confirm.is_displayed()
    _click(browser, "rb-army-delete")
    _click(browser, "rb-army-confirm-yes")
    assert len(_library(browser)) == 2 and not any(o.startswith("Reserva") for o in _library(browser))
    browser.refresh()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    assert len(_library(browser)) == 2 and _library(browser)[0].startswith("Columna Durruti")


HOSTILE = "<img src=x onerror=\"window.__pwned=1\">"


@pytest.mark.parametrize("size, scheme", [LOOKS[1], LOOKS[2]])
def test_damaged_or_hostile_stored_lists_are_refused_with_a_message(browser, site, size, scheme):
    """What another page, an old version or a hand could leave in localStorage: text that is not
    JSON, lists that are not rosters, markup in names and entries. The page says what it left out,
    in its language, opens a usable list and runs nothing."""
    army, t = site["army"], site["text"]
    prefix = f"rulebook:{army['rulebook']}:army:{army['id']}"
    look(browser, size, scheme)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "window.alert = () => { window.__pwned = 1; };"})
    open_builder(browser, site["url"])
    browser.execute_script("localStorage.setItem(arguments[0] + ':index', '{not json')", prefix)
    browser.refresh()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    assert browser.find_element(By.ID, "rb-army-store-problems").text == t["stored_unreadable"]
    assert len(_library(browser)) == 1 and _units(browser) == []
    good = {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "side": SIDE, "name": "Buena", "units": [{"entry": TANK}]}
    stored = {
        "l1": {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "name": HOSTILE, "units": [{"entry": HOSTILE, "__proto__": {"x": 1}}], "x": HOSTILE},
        "l2": "{",
        "l3": dict(good, army="otro"),
        "l4": dict(good, units=[{"entry": TANK, "models": "muchas"}]),
        "l5": good,
    }
    browser.execute_script(
        "const [prefix, lists] = arguments;"
        "for (const [id, value] of Object.entries(lists)) localStorage.setItem(prefix + ':list:' + id, typeof value === 'string' ? value : JSON.stringify(value));"
        "localStorage.setItem(prefix + ':index', JSON.stringify({format: 1, current: 'l1', next: 9, lists: ['l1', 'l2', 'l3', 'l4', 'l5', '../x', 5, {}]}));",
        prefix, stored)
    browser.refresh()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    said = browser.find_element(By.ID, "rb-army-store-problems").text
    assert said.startswith(t["stored_damaged"]) and said.count("\n") == 4, said
    assert "units[0]" in said and "army" in said and "units[0].models" in said and t["not_json_short"] in said
    assert not any(word in said for word in BROWSER_ENGLISH), said
    assert _library(browser) == ["Buena (" + t["n_units"].replace("{n}", "1") + ")"] and _units(browser) == [TANK]
    made = browser.execute_script("return [document.querySelectorAll('#rb-army img, #rb-army svg, #rb-army script').length, !!window.__pwned]")
    assert made == [0, False]
    assert _fits(browser) <= 0


# ------------------------------------------------------------------ 3. the card and the builder agree


def _builder_offers(browser) -> dict[str, dict]:
    """Each unit on the page: its card's address and the options its form offers ("Title cost")."""
    return browser.execute_script(
        "const out = {};"
        "for (const u of document.querySelectorAll('.rb-army__unit')) {"
        "  const a = u.querySelector('.rb-army__unit-title a');"
        "  const offered = [...u.querySelectorAll('.rb-army__option label')].map(l => l.textContent.replace(/ \\(≤ \\d+\\)$/, '').replace(/ \\(\\+(\\d+)\\)/, ' $1'));"
        "  out[u.dataset.entry] = {href: a ? a.href : null, offered};"
        "}"
        "return out;")


ON_CARD = (
    "const id = decodeURIComponent(location.hash.slice(1));"
    "return !!(id ? document.getElementById(id) : document.querySelector('.rb-datasheet'))"
)
"""Whether the page opened shows the card linked to: its anchor, or the card of a unit's own page."""


def _card_lists(browser, anchors: list[str]) -> dict[str, dict]:
    """The options each card (by its anchor; "" for the card of a unit's own page) lists: the summary's
    count and its "Title cost" items."""
    return browser.execute_script(
        "const out = {};"
        "for (const id of arguments[0]) {"
        "  const head = id ? document.getElementById(id) : document.querySelector('.rb-datasheet');"
        "  const card = head && (head.closest('.rb-datasheet') || head.parentElement);"
        "  const box = card && card.querySelector('details.rb-options');"
        "  out[id] = box ? {summary: box.querySelector('summary').textContent,"
        "    items: box.querySelector('p').textContent.split(' · ').map(s => s.trim()).filter(Boolean)} : {summary: null, items: []};"
        "}"
        "return out;", anchors)


def test_every_card_lists_the_options_the_builder_offers(browser, site, tmp_path):
    """All 123 units of the army in the builder, then each one's card: the same options, at the same cost.
    The T-26 B of the audit: Munición only, on the card and in the builder (the army list's reading)."""
    army = site["army"]
    roster = {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "units": [{"entry": e["id"]} for e in army["entries"]]}
    path = tmp_path / "todas.json"
    path.write_text(json.dumps(roster), encoding="utf-8")
    look(browser, "desktop", "light")
    open_builder(browser, site["url"])
    browser.find_element(By.ID, "rb-army-file").send_keys(str(path))
    _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) == len(army["entries"]))
    offers = _builder_offers(browser)
    pages: dict[str, list[str]] = {}
    for entry, seen in offers.items():
        assert seen["href"], entry
        page, _hash, anchor = seen["href"].partition("#")
        pages.setdefault(page, []).append(anchor)
    cards = {}
    for page, anchors in pages.items():
        browser.get(page)
        cards.update({f"{page}#{a}" if a else page: v for a, v in _card_lists(browser, anchors).items()})
    disagree = []
    for entry, seen in offers.items():
        card = cards[seen["href"]]
        if card["items"] != seen["offered"] or (card["summary"] is not None and f"({len(seen['offered'])})" not in card["summary"]):
            disagree.append((entry, card, seen["offered"]))
    assert not disagree, disagree[:5]
    tank = offers[TANK]["offered"]
    assert len(tank) == 1 and tank[0].startswith(army["options"]["mejoras_republicanas.r_municion"]["title"])
    assert not any(o.startswith("Cascos") for o in cards[offers[TANK]["href"]]["items"])
    # the T-26 B card as players see it, at each size and palette
    for size, scheme in LOOKS:
        look(browser, size, scheme)
        browser.get(offers[TANK]["href"])
        summary = browser.execute_script(
            "const id = decodeURIComponent(location.hash.slice(1));"
            "const c = id ? document.getElementById(id).closest('.rb-datasheet') : document.querySelector('.rb-datasheet');"
            "const s = c.querySelector('details.rb-options summary'); s.scrollIntoView(); return s.textContent")
        assert summary.endswith("(1)"), (size, scheme, summary)


# ------------------------------------------------------------------ 4. the print sheet


def _pdf_text(browser) -> tuple[str, int]:
    options = PrintOptions()
    options.page_width, options.page_height = 21.0, 29.7
    pdf = base64.b64decode(browser.print_page(options))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages), len(reader.pages), pdf


@pytest.mark.parametrize("size, scheme", LOOKS)
def test_the_print_sheet_is_usable_at_the_table(browser, site, size, scheme):
    """A T-26 B and a Green section with two upgrades, printed to PDF: readable labels (no
    ``BajasMaximas``), each weapon with its values, and each unit's points worked out from its
    datasheet's cost to the total (65 on the card, 60 in the list: the quality's −20 % and the upgrades)."""
    army = site["army"]
    look(browser, size, scheme)
    open_builder(browser, site["url"])
    Select(browser.find_element(By.ID, "rb-army-side")).select_by_value(SIDE)
    _add(browser, TANK)
    _add(browser, SECTION)
    unit = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='1']")
    Select(unit.find_element(By.CSS_SELECTOR, "select[data-field='quality']")).select_by_value("green")
    for option in ("cascos", "r_municion"):
        unit.find_element(By.CSS_SELECTOR, f"input[data-option='{option}']").click()
    roster = {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "side": SIDE, "size": army["budget"]["sizes"][0]["id"],
              "units": [{"entry": TANK, "quality": "regular"}, {"entry": SECTION, "quality": "green", "options": ["cascos", "r_municion"]}]}
    result = rosters.validate(army, roster)
    assert browser.find_element(By.ID, "rb-army-total").text == str(result["total"])
    text, pages, pdf = _pdf_text(browser)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"1936-army-sheet-{size}-{scheme}.pdf").write_bytes(pdf)
    flat = re.sub(r"\s+", " ", text)
    assert 1 <= pages <= 2, pages
    for raw in ("BajasMaximas", "MoralTamano", "TipoCobertura", " inf "):
        assert raw not in flat, raw
    assert "Bajas máximas" in flat and "Tamaño a efectos de Moral" in flat and "Infantería" in flat
    # the section's rifles and the tank's guns, with their values (I and D by range band)
    assert "Sección de fusileros: Tiro tenso: I Fuego Preciso" in flat and "9 / 7 / 5" in flat
    assert flat.count("Tiro tenso") >= 3, flat
    # the points, from the card's cost to the total
    section = next(e for e in army["entries"] if e["id"] == SECTION)
    line = result["units"][1]["cost"]
    assert f"{section['cost']} en su ficha · Verde −20 % → {line['quality']} · + Cascos 5 · + Munición 3 = {line['total']}" in flat, flat
    assert f"{result['total']} / " in flat


# ------------------------------------------------------------------ 7. sharing from disk, and what is refused


def _problems(browser) -> str:
    return _wait(browser, lambda d: d.find_element(By.ID, "rb-army-load-problems").text)


def _link(site: dict, payload: bytes | str) -> str:
    code = payload if isinstance(payload, str) else base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return site["url"] + "#roster=" + code


@pytest.mark.parametrize("size, scheme", LOOKS)
def test_sharing_from_disk_offers_a_file_and_a_code(browser, site, downloads, size, scheme):
    """Opened from disk, Share says the link only works on this device and gives the list's code and
    a download; the code (pasted) and the file (loaded) both bring the list back. A broken link, a
    broken code and a roster with bad fields are refused in Spanish, naming the fields."""
    army, t = site["army"], site["text"]
    look(browser, size, scheme)
    open_builder(browser, site["url"])
    Select(browser.find_element(By.ID, "rb-army-side")).select_by_value(SIDE)
    _add(browser, TANK)
    browser.find_element(By.ID, "rb-army-name").send_keys(f"Compartida {size} {scheme}")
    _click(browser, "rb-army-share")
    note = browser.find_element(By.ID, "rb-army-disk-note")
    assert note.is_displayed() and note.text == t["from_disk"]
    code = browser.find_element(By.ID, "rb-army-code").get_attribute("value")
    assert re.fullmatch(r"[A-Za-z0-9_-]+", code) and _fits(browser) <= 0
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})  # also in a new tab
    _click(browser, "rb-army-download")
    stem = f"Compartida-{size}-{scheme}"
    saved = downloads / f"{stem}.json"
    for _ in range(100):
        if saved.exists() and saved.stat().st_size:
            break
        time.sleep(0.1)
    # the list changed after it was shared: a reload opens it as it is now, not the shared one beside it
    _add(browser, OTHER_TANK)
    browser.refresh()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    assert _units(browser) == [TANK, OTHER_TANK] and len(_library(browser)) == 1
    # another player: a fresh browser state, the code pasted, then the file loaded
    open_builder(browser, site["url"])
    browser.find_element(By.ID, "rb-army-code-input").send_keys(code)
    _click(browser, "rb-army-code-load")
    _wait(browser, lambda d: _units(d) == [TANK])
    assert browser.find_element(By.ID, "rb-army-name").get_attribute("value") == f"Compartida {size} {scheme}"
    open_builder(browser, site["url"])
    browser.find_element(By.ID, "rb-army-file").send_keys(str(saved))
    _wait(browser, lambda d: _units(d) == [TANK])
    assert json.loads(saved.read_text(encoding="utf-8"))["units"] == [{"entry": TANK, "quality": "regular"}]

    # refusals: not base64, not JSON, bad fields
    for link in (_link(site, "%%%no-es-base64"), _link(site, b"\xff\xfe{no"), _link(site, "QUJD")):
        open_builder(browser, site["url"])
        browser.get("about:blank")  # a new document for each link
        browser.get(link)
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
        said = _problems(browser)
        assert said == t["bad_code"].replace("{origin}", t["the_link"]) and not any(w in said for w in BROWSER_ENGLISH), said
        assert _units(browser) == []
    bad = {"format": 1, "army": army["id"], "units": [{"entry": 5, "models": -1, "armas": "todas"}], "tropas": 1}
    open_builder(browser, site["url"])
    browser.get("about:blank")
    browser.get(_link(site, json.dumps(bad).encode()))
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))
    said = _problems(browser)
    for field in ("rulebook", "units[0].entry", "units[0].models", "units[0].armas", "tropas"):
        assert field in said, (field, said)
    assert t["type_string"] in said and not any(w in said for w in BROWSER_ENGLISH), said
    assert _units(browser) == []
    code_box = browser.find_element(By.ID, "rb-army-code-input")
    code_box.send_keys("esto no es un código")
    _click(browser, "rb-army-code-load")
    assert _problems(browser) == t["bad_code"].replace("{origin}", t["the_code"])
