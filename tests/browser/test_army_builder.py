"""The army builder page (issue 14 §4), used as a player would: headless Chromium.

Same harness as test_site_browser.py (Debian's chromium + chromium-driver, the
bundled rulebooks built once, each site served from a local port). For each
rulebook with an army: a roster is built by clicking (side, size, units from
the search, quality, an option, a choice) and the total shown is the one
``rulebook.compiler.commands.roster`` computes; a roster file with an over-budget total and an
option the unit may not take shows those errors with the command's messages;
the roster is saved (a download), loaded again, shared as a link and opened
from it, and printed (PDF); the page is drawn at 390 and 1280 px in both
palettes without sideways scrolling (screenshots in tests/artifacts/); axe-core
finds no serious or critical violation; it also works from ``file://``.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "site"))
sys.path.insert(0, str(Path(__file__).parent))

from bundled import bundled_builds  # noqa: E402,F401 - the fixture
from chromium import ARMY_BOOKS, AVAILABLE, BUILDER_PAGE, SIZES, SKIP_REASON, WAIT, axe_violations, chromium, look, open_builder, reset, served  # noqa: E402

if not AVAILABLE:
    pytest.skip(SKIP_REASON, allow_module_level=True)
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
pytest.importorskip("selenium_axe_python", reason="selenium-axe-python is not installed (pip install -e '.[test]')")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.common.print_page_options import PrintOptions  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from rulebook.compiler.commands import roster as rosters  # noqa: E402

ARTIFACTS = ROOT / "tests" / "artifacts"
PRINT_PAGE_LIMIT = 4  # A4 pages for a sheet of a few units with their cards


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("army-downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    with chromium(downloads) as driver:
        yield driver


@pytest.fixture(scope="module")
def sites(bundled_builds):
    """Rulebook → base URL of its served site."""
    with served(bundled_builds["1936"] / "site") as a, served(bundled_builds["tercios"] / "site") as b:
        yield {"1936": a, "tercios": b}


def _army(build: Path) -> dict:
    (path,) = sorted((build / "json" / "armies").glob("*.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def _plan(army: dict) -> dict:
    """What to click, read from the army document: a side, a size, two entries of that side (the
    first with a paid option, and a choice where the army has one), a quality that changes the cost."""
    side = army["sides"][-1]["id"] if army["sides"] else None
    role = army["roles"][-1]["id"] if army["roles"] else None
    of_side = [e for e in army["entries"] if e["side"] in (None, side)]
    first = next((e for e in of_side if any(army["options"][k]["cost"] > 0 for k in e["options"])), None) or next(e for e in of_side if e["options"])
    choosing = [e for e in of_side if any(len(s["alternatives"]) > 1 for s in e["composition"])]
    second = choosing[0] if choosing else next(e for e in of_side if e is not first)
    option = max((army["options"][k] for k in first["options"]), key=lambda o: o["cost"])
    quality = max(army["quality"]["values"], key=lambda q: q["percent"]) if army["quality"] else None
    return {"side": side, "role": role, "size": army["budget"]["sizes"][0]["id"], "first": first, "second": second,
            "option": option, "quality": quality}


def _expected_cost(army: dict, entry: dict, quality: dict | None, options: list[dict]) -> int:
    """The manual's arithmetic, by hand: the quality's percent on the cost (halves up), then the options."""
    own = entry["cost"]
    if army["quality"]:
        own = (2 * own * (100 + (quality["percent"] if quality else 0)) + 100) // 200
    return own + sum(o["cost"] for o in options)


def _plain_quality(army: dict) -> dict | None:
    """The quality a unit is added with: the one that leaves the cost as it is."""
    return next((q for q in army["quality"]["values"] if q["percent"] == 0), army["quality"]["values"][0]) if army["quality"] else None


def _add(browser, entry: dict) -> None:
    search = browser.find_element(By.ID, "rb-army-search")
    search.clear()
    search.send_keys(entry["name"])
    row = browser.find_element(By.CSS_SELECTOR, f".rb-army__entry[data-entry='{entry['id']}']")
    assert row.is_displayed()
    row.find_element(By.CSS_SELECTOR, "button").click()


def _text(browser, ident: str) -> str:
    return browser.find_element(By.ID, ident).text


def _load_file(browser, path: Path) -> None:
    browser.find_element(By.ID, "rb-army-file").send_keys(str(path))


def _wait_for(browser, what, timeout=WAIT):
    """Wait until ``what(browser)`` is true (the file input reads files asynchronously)."""
    return WebDriverWait(browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(what)


def _saved(downloads: Path, name: str) -> dict:
    path = downloads / name
    for _ in range(100):
        if path.exists() and path.stat().st_size > 0:
            break
        time.sleep(0.1)
    return json.loads(path.read_text(encoding="utf-8"))


def _broken_roster(army: dict, plan: dict) -> dict:
    """A roster of the plan's side over its budget, with an option its unit may not take."""
    first = plan["first"]
    mine = {army["options"][k]["id"] for k in first["options"]}
    other = next(o for o in army["options"].values() if o["id"] not in mine)
    units = [{"entry": first["id"], "options": [other["id"]]}]
    for e in [e for e in army["entries"] if e["side"] in (None, plan["side"])][:12]:
        unit = {"entry": e["id"]}
        if army["quality"]:
            unit["quality"] = plan["quality"]["id"]
        choosing = [s for s in e["composition"] if len(s["alternatives"]) > 1]
        if choosing:
            unit["choices"] = [s["alternatives"][0] for s in choosing]
        units.append(unit)
    if army["quality"]:
        units[0]["quality"] = plan["quality"]["id"]
    roster = {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "size": plan["size"], "units": units}
    for key in ("side", "role"):
        if plan[key]:
            roster[key] = plan[key]
    return roster


@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_build_check_save_load_share_and_print(browser, sites, bundled_builds, downloads, tmp_path, rulebook):
    build = bundled_builds[rulebook]
    army, plan = _army(build), _plan(_army(build))
    open_builder(browser, sites[rulebook] + BUILDER_PAGE)
    assert browser.find_element(By.ID, "rb-army-state").text.startswith(army["labels"]["illegal"])  # an empty list

    # build it by clicking
    if plan["side"]:
        Select(browser.find_element(By.ID, "rb-army-side")).select_by_value(plan["side"])
    if plan["role"]:
        Select(browser.find_element(By.ID, "rb-army-role")).select_by_value(plan["role"])
    Select(browser.find_element(By.ID, "rb-army-budget")).select_by_value("size:" + plan["size"])
    _add(browser, plan["first"])
    unit = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='0']")
    if plan["quality"]:
        Select(unit.find_element(By.CSS_SELECTOR, "select[data-field='quality']")).select_by_value(plan["quality"]["id"])
    option = unit.find_element(By.CSS_SELECTOR, f"input[data-option='{plan['option']['id']}']")
    if option.get_attribute("type") == "checkbox":
        option.click()
    else:
        option.clear()
        option.send_keys("1")
    # the second unit with the keyboard only: its Add button, then Enter
    search = browser.find_element(By.ID, "rb-army-search")
    search.clear()
    search.send_keys(plan["second"]["name"])
    add = browser.find_element(By.CSS_SELECTOR, f".rb-army__entry[data-entry='{plan['second']['id']}'] button")
    browser.execute_script("arguments[0].focus()", add)
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    second = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='1']")
    choices = second.find_elements(By.CSS_SELECTOR, "select[data-field='choice']")
    if choices:  # take the last alternative of the first choice
        line = next(s for s in plan["second"]["composition"] if len(s["alternatives"]) > 1)
        Select(choices[0]).select_by_value(line["alternatives"][-1])

    expected = _expected_cost(army, plan["first"], plan["quality"], [plan["option"]]) + _expected_cost(army, plan["second"], _plain_quality(army), [])
    assert _text(browser, "rb-army-total") == str(expected)
    budget = army["budget"]["sizes"][0]["points"]
    budget = budget[plan["role"]] if isinstance(budget, dict) else budget
    assert _text(browser, "rb-army-budget-points") == str(budget)

    # save: the download is a roster the command line finds legal, with the same total
    browser.find_element(By.ID, "rb-army-save").click()
    saved = _saved(downloads, f"{army['id']}.json")
    result = rosters.validate(army, saved)
    assert result["total"] == expected and [u["entry"] for u in saved["units"]] == [plan["first"]["id"], plan["second"]["id"]]
    assert not rosters.schema_problems(saved, json.loads((build / "schemas" / "roster.schema.json").read_text(encoding="utf-8")))
    if choices:
        assert saved["units"][1]["choices"][0] == line["alternatives"][-1]
    assert browser.find_element(By.ID, "rb-army-state").text == (
        army["labels"]["legal"] if result["legal"] else f"{army['labels']['illegal']} ({army['labels']['errors']}: {len(result['errors'])})")

    # an illegal roster from a file: over the budget, and an option the unit may not take
    broken = _broken_roster(army, plan)
    bad_file = tmp_path / "broken.json"
    bad_file.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    _load_file(browser, bad_file)
    _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-code='over-budget']"))
    want = rosters.validate(army, broken)
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#rb-army-problems [data-code], #rb-army-units [data-code]')]"
        ".map(e => [e.dataset.code, e.dataset.path, e.querySelector('.rb-army__message').textContent])")
    assert sorted(map(tuple, shown)) == sorted((e["code"], e["path"], e["message"]) for e in want["errors"] + want["warnings"])
    assert {"over-budget", "option-not-allowed"} <= {c for c, _p, _m in shown}
    assert _text(browser, "rb-army-total") == str(want["total"])
    stray = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='0'] .rb-army__stray")
    assert stray.is_displayed()

    # reload the saved roster (a fresh page), then share it as a link and open the link
    open_builder(browser, sites[rulebook] + BUILDER_PAGE)
    _load_file(browser, downloads / f"{army['id']}.json")
    _wait_for(browser, lambda d: d.find_element(By.ID, "rb-army-total").text == str(expected))
    assert len(browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) == 2
    browser.find_element(By.ID, "rb-army-share").click()
    link = browser.find_element(By.ID, "rb-army-share-url").get_attribute("value")
    fragment = link.split("#roster=", 1)[1]
    decoded = json.loads(base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4)).decode("utf-8"))
    assert decoded == {k: v for k, v in saved.items() if k != "$schema"}
    browser.get("about:blank")
    open_builder(browser, link)
    assert _text(browser, "rb-army-total") == str(expected)
    assert len(browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) == 2

    # print: only the sheet, with the units' cards, on a few A4 pages
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        drawn = browser.execute_script(
            "return ['#rb-army-units', '#rb-army-entries', '#rb-army-status', '.md-header', '.md-sidebar--primary', '#rb-army-sheet']"
            ".map(s => document.querySelector(s).getClientRects().length > 0)")
        assert drawn == [False] * 5 + [True], drawn
        sheet = browser.find_element(By.ID, "rb-army-sheet").text
        assert plan["first"]["name"] in sheet and plan["first"]["card"][0]["value"] in sheet
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    options = PrintOptions()
    options.page_width, options.page_height = 21.0, 29.7
    pdf = base64.b64decode(browser.print_page(options))
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{rulebook}-army-print.pdf").write_bytes(pdf)
    assert 1 <= pages <= PRINT_PAGE_LIMIT, pages


@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_a_file_that_is_not_a_roster_is_refused_and_says_why(browser, sites, tmp_path, rulebook):
    open_builder(browser, sites[rulebook] + BUILDER_PAGE)
    not_json = tmp_path / "not.json"
    not_json.write_text("{units: [", encoding="utf-8")
    _load_file(browser, not_json)
    _wait_for(browser, lambda d: d.find_element(By.ID, "rb-army-load-problems").text)
    assert "not.json" in _text(browser, "rb-army-load-problems")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": 1, "units": [{"entry": 5}]}), encoding="utf-8")
    _load_file(browser, wrong)
    _wait_for(browser, lambda d: "units[0].entry" in d.find_element(By.ID, "rb-army-load-problems").text)
    assert not browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit"), "a refused file must not replace the list"


@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_builder_at_phone_and_desktop_in_both_palettes_is_axe_clean(browser, sites, bundled_builds, tmp_path, rulebook):
    army = _army(bundled_builds[rulebook])
    roster_file = tmp_path / "broken.json"
    roster_file.write_text(json.dumps(_broken_roster(army, _plan(army)), ensure_ascii=False), encoding="utf-8")
    problems, serious = [], {}
    try:
        for size in SIZES:
            for scheme in ("light", "dark"):
                look(browser, size, scheme)
                open_builder(browser, sites[rulebook] + BUILDER_PAGE)
                _load_file(browser, roster_file)
                _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".rb-army__unit"))
                assert browser.execute_script("return document.body.getAttribute('data-md-color-scheme')") == (
                    "slate" if scheme == "dark" else "default")
                overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                if overflow > 0:
                    problems.append((size, scheme, overflow))
                browser.save_screenshot(str(ARTIFACTS / f"{rulebook}-army-{size}-{scheme}.png"))
                browser.execute_script("document.getElementById('rb-army-units').scrollIntoView(); window.scrollBy(0, -80)")
                browser.save_screenshot(str(ARTIFACTS / f"{rulebook}-army-units-{size}-{scheme}.png"))
                if size == "desktop":
                    bad = axe_violations(browser)
                    if bad:
                        serious[scheme] = bad
    finally:
        reset(browser)
    assert not problems, problems
    assert not serious, serious


def test_builder_works_from_disk(browser, bundled_builds):
    """Opened as a file (file://): the embedded data is read, units are added, the total is live,
    and the shared link opens the same list."""
    build = bundled_builds["tercios"]
    army = _army(build)
    open_builder(browser, (build / "site" / BUILDER_PAGE).as_uri())
    entry = army["entries"][0]
    _add(browser, entry)
    total = str(_expected_cost(army, entry, _plain_quality(army), []))
    assert _text(browser, "rb-army-total") == total
    browser.find_element(By.ID, "rb-army-share").click()
    link = browser.find_element(By.ID, "rb-army-share-url").get_attribute("value")
    assert link.startswith("file://") and "#roster=" in link
    browser.get("about:blank")
    open_builder(browser, link)
    assert _text(browser, "rb-army-total") == total
    assert [u.get_attribute("data-entry") for u in browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit")] == [entry["id"]]


HOSTILE = ROOT / "tests" / "data" / "armies" / "hostile"
HOSTILE_NAME = "</script><img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """The rulebook of tests/data/armies/hostile (names that try to become markup), built with its site and served."""
    from rulebook.compiler.pipeline import driver

    out = tmp_path_factory.mktemp("hostile-army") / "build"
    result = driver.build(HOSTILE, out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    with served(out / "site") as url:
        yield url


def test_names_from_the_rules_and_the_roster_are_shown_as_text(browser, hostile_site, tmp_path):
    """A unit named ``</script><img src=x onerror=alert(1)>`` (and hostile titles of the army, side,
    size and option, and a player's unit name) is text everywhere on the builder page: in the unit
    index, the list, the errors and the print sheet; no element is made of it and no script runs."""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "window.alert = () => { window.__pwned = true; };"})
    open_builder(browser, hostile_site + BUILDER_PAGE)
    entry = browser.find_element(By.CSS_SELECTOR, ".rb-army__entry[data-entry='lancero']")
    assert HOSTILE_NAME in entry.text
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", entry)
    entry.find_element(By.CSS_SELECTOR, "button").click()
    unit = browser.find_element(By.CSS_SELECTOR, ".rb-army__unit[data-unit='0']")
    assert HOSTILE_NAME in unit.text and "<img src=y onerror=alert(3)> Escudo" in unit.text
    # a player's own name for a unit, from a file, and an error that quotes the names
    roster = {"format": 1, "rulebook": "hostil", "army": "banda", "side": "rojo", "size": "normal",
              "units": [{"entry": "lancero", "name": "<img src=z onerror=alert(5)>", "options": ["escudo", "escudo"]},
                        {"entry": "arquero"}] * 4}
    path = tmp_path / "hostil.json"
    path.write_text(json.dumps(roster), encoding="utf-8")
    _load_file(browser, path)
    _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-code='option-max']"))
    area = browser.find_element(By.ID, "rb-army")
    sheet = browser.find_element(By.ID, "rb-army-sheet").get_attribute("textContent")
    assert HOSTILE_NAME in sheet and "<img src=z onerror=alert(5)>" in sheet and '"<svg onload=alert(2)>" & {{ 7*7 }}' in sheet
    assert HOSTILE_NAME in area.find_element(By.CSS_SELECTOR, "[data-code='option-max']").text
    made = browser.execute_script(
        "const a = document.getElementById('rb-army');"
        "return [a.querySelectorAll('img, svg, script, b, i, u').length, document.querySelectorAll('img[src=x], img[src=y], img[src=z]').length, !!window.__pwned]")
    assert made == [0, 0, False]


def test_the_status_line_takes_the_player_to_the_first_error(browser, sites, bundled_builds, tmp_path):
    """An illegal list: the state in the sticky status line says how many errors and is a button
    that brings the first one (here the unit that may not take an option) into view, focused."""
    army = _army(bundled_builds["1936"])
    open_builder(browser, sites["1936"] + BUILDER_PAGE)
    path = tmp_path / "ilegal.json"
    path.write_text((ROOT / "examples" / "rosters" / "1936-ilegal.json").read_text(encoding="utf-8"), encoding="utf-8")
    _load_file(browser, path)
    _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-code='over-budget']"))
    want = rosters.validate(army, json.loads(path.read_text(encoding="utf-8")))
    state = browser.find_element(By.ID, "rb-army-goto")
    assert state.text == f"{army['labels']['illegal']} ({army['labels']['errors']}: {len(want['errors'])})"
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    state.click()
    assert want["errors"][0]["path"].startswith("$.units[0]")
    first = browser.switch_to.active_element
    assert first.get_attribute("id") == "rb-army-unit-0"
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", first)
    assert 0 <= top < browser.execute_script("return window.innerHeight")


def test_a_file_over_the_limit_is_refused_before_it_is_read(browser, sites, tmp_path):
    """The builder refuses a roster file larger than the command line accepts (rulebook.compiler.commands.roster.MAX_BYTES),
    and one with more units than it accepts (MAX_UNITS), with a message naming the file; nothing is loaded."""
    open_builder(browser, sites["tercios"] + BUILDER_PAGE)
    big = tmp_path / "enorme.json"
    big.write_text(" " * (rosters.MAX_BYTES + 1) + "{}", encoding="utf-8")
    _load_file(browser, big)
    _wait_for(browser, lambda d: "enorme.json" in d.find_element(By.ID, "rb-army-load-problems").text)
    assert str(rosters.MAX_BYTES // 1000) in _text(browser, "rb-army-load-problems")
    many = tmp_path / "muchas.json"
    many.write_text(json.dumps({"format": 1, "rulebook": "tercios", "army": "lista_ejercito", "units": [{"entry": "x"}] * (rosters.MAX_UNITS + 1)}), encoding="utf-8")
    _load_file(browser, many)
    _wait_for(browser, lambda d: "muchas.json" in d.find_element(By.ID, "rb-army-load-problems").text)
    assert str(rosters.MAX_UNITS + 1) in _text(browser, "rb-army-load-problems")
    assert not browser.find_elements(By.CSS_SELECTOR, ".rb-army__unit")
