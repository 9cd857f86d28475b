"""The site's search, timed as a player types: a built site (its index.html, from disk) → milliseconds per query.

Reads a built rulebook site (``--site``, default ``build/1936/site``: run ``rulebook build`` first) and
opens it in headless Chromium (tests/browser/chromium.py). Prints, for each query, the time from the
input event to the drawn results (median of ``--repeat`` runs), the number of results and the first one.

    python bench/search.py
    python bench/search.py --site build/napoleonico/site --query tendidos --query desorden
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

QUERIES = ["t26", "bt5", "T-26 B", "ordenes", "panzer i", "tizano", "disparo apuntado", "moral"]

TIME_ONE = """
const [query, done] = arguments;
const box = document.querySelector('[data-rb-search] input.md-search__input');
const start = performance.now();
box.value = query;
box.dispatchEvent(new Event('input'));
const took = performance.now() - start;
const first = document.querySelector('.md-search-result__item a');
done([took, document.querySelectorAll('.md-search-result__item').length,
      first ? first.getAttribute('href').split('/').pop() : '']);
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "build" / "1936" / "site")
    parser.add_argument("--query", action="append", help="a query (repeatable); default: the issue-27 queries of 1936")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    from chromium import chromium

    with chromium() as driver:
        driver.get((args.site / "index.html").resolve().as_uri())
        driver.execute_async_script(
            "const done = arguments[0]; document.querySelector('[data-rb-search] input').focus();"
            "const wait = () => window.rulebookSearch ? setTimeout(done, 200) : setTimeout(wait, 50); wait();")
        for query in args.query or QUERIES:
            runs = [driver.execute_async_script(TIME_ONE, query) for _ in range(args.repeat)]
            ms = statistics.median(r[0] for r in runs)
            print(f"{query!r:>22}  {ms:7.1f} ms  {runs[0][1]:4d} results  first: {runs[0][2]}")


if __name__ == "__main__":
    main()
