"""The army builder with a long list, in headless Chromium: the time of one "Add" click.

Reads a built site of content/1936 (``--site``, default ``build/site``; ``rulebook build
content/1936`` writes it) and the builder script of an earlier commit (``--before``, default
``f60504f``, the builder before issue 27: ``git show <rev>:site/assets/army-builder.js``). Copies the site twice into a
temporary folder, one with the earlier script and one with the working tree's, opens each
builder from disk (``file://``), loads a roster of ``--units`` units (990 by default: a roster
may have 1,000, and the clicks add more), and times ``--clicks`` clicks on an entry's "Add"
button: from the click to the end of the layout it causes (``performance.now()`` around the
click and a read of the page's height), in the page. Prints the median and the slowest click of
each script and their ratio, e.g.::

    python bench/army_builder.py                  # the builder before issue 27 against the working tree's
    python bench/army_builder.py --before f60504f --units 1000 --clicks 7
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "f60504f"  # the last commit whose builder drew every unit again on each change (issue 27, point 7)
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from chromium import AVAILABLE, SKIP_REASON, chromium, open_builder  # noqa: E402

CLICK = """
const button = document.querySelector(".rb-army__entry[data-entry='" + arguments[0] + "'] button");
const start = performance.now();
button.click();
void document.body.offsetHeight;  // the layout the new unit causes
return performance.now() - start;
"""


def roster(site: Path, units: int) -> tuple[dict, str]:
    """A roster of ``units`` units of one side, every entry of that side in turn; and the entry to add."""
    data = (site / "assets" / "armies" / "ejercito.js").read_text(encoding="utf-8")
    army_id = json.loads(data[data.index("=") + 1:].strip().rstrip(";"))["army_id"]
    module = (site / "assets" / "rulebook-armies.js").read_text(encoding="utf-8")
    docs = sorted((site.parent / "json" / "armies").glob("*.json")) if (site.parent / "json" / "armies").is_dir() else []
    army = json.loads(docs[0].read_text(encoding="utf-8")) if docs else None
    if army is None or army["id"] != army_id or army_id not in module:
        raise SystemExit(f"{site}: no army document beside the site (json/armies/{army_id}.json)")
    side = army["sides"][0]["id"] if army["sides"] else None
    of_side = [e for e in army["entries"] if e["side"] in (None, side)]
    out = {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "units": [{"entry": of_side[i % len(of_side)]["id"]} for i in range(units)]}
    if side:
        out["side"] = side
    if army["budget"]["sizes"]:
        out["size"] = army["budget"]["sizes"][-1]["id"]
    return out, of_side[0]["id"]


def timed(driver, site: Path, path: Path, entry: str, clicks: int, units: int) -> list[float]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    open_builder(driver, (site / "ejercito.html").as_uri())
    driver.execute_script("localStorage.clear()")
    open_builder(driver, (site / "ejercito.html").as_uri())
    driver.find_element(By.ID, "rb-army-file").send_keys(str(path))
    WebDriverWait(driver, 120).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) >= units)
    times = [driver.execute_script(CLICK, entry) for _ in range(clicks)]
    assert len(driver.find_elements(By.CSS_SELECTOR, ".rb-army__unit")) == units + clicks
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "build" / "site")
    parser.add_argument("--before", default=BEFORE, help="the commit whose site/assets/army-builder.js is compared")
    parser.add_argument("--units", type=int, default=990)
    parser.add_argument("--clicks", type=int, default=7)
    args = parser.parse_args(argv)
    if not AVAILABLE:
        print(SKIP_REASON)
        return 1
    before = subprocess.run(["git", "show", f"{args.before}:site/assets/army-builder.js"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    after = (ROOT / "site" / "assets" / "army-builder.js").read_text(encoding="utf-8")
    data, entry = roster(args.site, args.units)
    with tempfile.TemporaryDirectory(prefix="rulebook-army-bench-") as tmp:
        path = Path(tmp) / "roster.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        results = {}
        with chromium() as driver:
            for name, script in (("before", before), ("after", after)):
                site = Path(tmp) / name / "site"
                shutil.copytree(args.site, site)
                (site / "assets" / "army-builder.js").write_text(script, encoding="utf-8")
                results[name] = timed(driver, site, path, entry, args.clicks, args.units)
    print(f"army builder, {args.units} units loaded, one 'Add' click ({args.clicks} clicks each), ms:")
    for name, times in results.items():
        print(f"  {name:6}  median {statistics.median(times):8.1f}   slowest {max(times):8.1f}")
    print(f"  after ÷ before (median): {statistics.median(results['after']) / statistics.median(results['before']):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
