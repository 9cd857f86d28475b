"""Headless Chromium for the army builder's tests: start it, serve a site, size and palette, open the builder.

Used by tests/browser/test_site_browser.py, tests/browser/test_army_builder.py
and tests/test_army_agreement.py (Debian's ``chromium`` + ``chromium-driver``,
each site served from a local port).
``AVAILABLE`` says whether both are installed; import selenium only when it is.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
AVAILABLE = CHROMIUM.exists() and CHROMEDRIVER.exists()
SKIP_REASON = "headless Chromium is not installed (apt-get install -y chromium chromium-driver)"
WAIT = 30  # seconds
BUILDER_PAGE = "ejercito.html"
ARMY_BOOKS = ("1936", "tercios")  # the bundled rulebooks that declare an army
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - silence the access log
        pass


@contextmanager
def served(site: Path):
    """The folder ``site`` over HTTP on a free local port; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium(downloads: Path | None = None):
    """A headless Chromium driven by selenium (downloads saved into ``downloads``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="rulebook-army-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1280,1400",
        "--hide-scrollbars", f"--user-data-dir={profile}", "--lang=es", "--allow-file-access-from-files",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(300)
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_builder(driver, url: str, keep: bool = False) -> None:
    """Open the builder page at ``url`` and wait until its script has drawn it. The lists the
    builder keeps in the browser (localStorage) are forgotten first, unless ``keep``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    if not keep:
        origin = "file://" if url.startswith("file:") else "/".join(url.split("/")[:3])
        driver.get("about:blank")  # a new document: the same page with another #fragment would only scroll
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "local_storage"})
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#rb-army[data-ready='1']"))


def look(driver, size: str, scheme: str) -> None:
    """Window size (``SIZES``) and palette: the system preference, with no palette remembered by the site."""
    width, height = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": size == "phone"})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    driver.execute_script("try { localStorage.clear() } catch (e) {}")


def reset(driver) -> None:
    """Back to the browser's own size and media."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})


def axe_violations(driver, impacts: tuple[str, ...] = ("serious", "critical")) -> list[list]:
    """axe-core (from selenium-axe-python) run on the open page: ``[id, impact, nodes, first target]``
    per violation of one of these ``impacts``."""
    from importlib import resources

    driver.execute_script((resources.files("selenium_axe_python") / "axe-core" / "axe.min.js").read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then("
        "  r => done(r.violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])),"
        "  e => done([['axe-error', 'critical', 1, String(e)]]));")
    return [v for v in found if v[1] in impacts]
