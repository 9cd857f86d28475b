"""``rulebook serve`` renders first the changed pages a browser shows, and tells each
browser to update only when its own page (or a file it loads) changed: in place when
only the page's HTML did, by a reload otherwise.

A page open in a browser is one whose reload script holds an event stream
(``/__rulebook__/events?page=…&v=…``). After an edit, the changed pages open in a
browser are rendered and published first (their browsers reload), then the other
changed pages. The site after both is, file by file, what a fresh build writes.
"""

from __future__ import annotations

import re
import shutil
import threading
import urllib.request

from test_serve import PAGE, RULES, Served, _version

LISTING = "codigo-reglas.html"


def _preview(tmp_path):
    from rulebook.compiler.commands.serve import Preview

    folder = tmp_path / "reglas"
    folder.mkdir()
    rules = folder / "reglas.rules"
    shutil.copy(RULES, rules)
    preview = Preview(folder, tmp_path / "work", log=lambda text: None)
    assert preview.build_all()
    return preview, rules


def _edit(rules, old: str, new: str) -> None:
    text = rules.read_text(encoding="utf-8")
    assert old in text
    rules.write_text(text.replace(old, new, 1), encoding="utf-8")


def _tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_page_in_view_is_published_before_the_other_changed_pages(tmp_path):
    from rulebook.compiler.pipeline import driver

    preview, rules = _preview(tmp_path)
    assert (preview.site / LISTING).is_file(), sorted(p.name for p in preview.site.glob("*.html"))
    seen: list[tuple[frozenset[str] | None, str, str]] = []  # at each publication: its files, the page, the listing
    bump = preview._bump

    def noting(files=None):
        seen.append((files, (preview.site / PAGE).read_text(encoding="utf-8"), (preview.site / LISTING).read_text(encoding="utf-8")))
        bump(files)

    preview._bump = noting
    preview.viewing[PAGE] += 1
    _edit(rules, "### 11. Dados de disparo", "### 11. Dados de disparo renovados")
    assert preview.rebuild()
    assert "viewed pages" in preview.timings
    (first, page, listing), (second, _, listing_after) = seen
    assert first == frozenset({PAGE})
    assert "Dados de disparo renovados" in page and "Dados de disparo renovados" not in listing  # the listing waits
    assert LISTING in second and PAGE not in second and "Dados de disparo renovados" in listing_after
    fresh = driver.build(preview.rulebook, tmp_path / "fresh", site=True)
    assert fresh.ok
    served, built = _tree(preview.live), _tree(tmp_path / "fresh")
    assert sorted(served) == sorted(built)
    assert [name for name in built if served[name] != built[name]] == []


def test_no_page_in_view_one_publication(tmp_path):
    preview, rules = _preview(tmp_path)
    version = preview.version
    _edit(rules, "### 11. Dados de disparo", "### 11. Dados de disparo renovados")
    assert preview.rebuild()
    assert preview.version == version + 1 and "viewed pages" not in preview.timings
    files = preview.history[-1][1]
    assert {PAGE, LISTING} <= files


def test_a_page_is_stale_when_it_or_what_it_loads_changed(tmp_path):
    """Stale pages, and how: a page whose own HTML alone changed is put in place by its
    browser ("page"); one that loads a changed file, every page after a failed rebuild
    (the banner), and one older than the history are reloaded ("reload")."""
    preview, rules = _preview(tmp_path)
    shown = preview.version
    pages = sorted(str(p.relative_to(preview.site)) for p in preview.site.rglob("*.html"))
    _edit(rules, "### 11. Dados de disparo", "### 11. Dados de disparo renovados")
    assert preview.rebuild()
    changed = preview.history[-1][1]
    assets = [f for f in changed if not f.endswith(".html")]
    with preview.ready:
        assert preview.update(PAGE, shown) is not None and preview.update(LISTING, shown) is not None
        assert preview.update(PAGE, shown) == preview.update(LISTING, shown) == "page"
        assert preview.update(PAGE, preview.version) is None
        verdicts = {page: preview.update(page, shown) for page in pages}
    names = {p: (preview.site / p).read_text(encoding="utf-8") for p in pages}
    loading = [p for p in pages if any(a.rsplit("/", 1)[-1] in names[p] for a in assets)]
    unchanged = [p for p in pages if p not in changed and p not in loading]
    assert unchanged and not any(verdicts[p] for p in unchanged)
    assert loading and all(verdicts[p] == "reload" for p in loading)  # e.g. the army builder page, whose data file changed
    assert all(verdicts[p] == "page" for p in changed if p.endswith(".html") and p not in loading)
    _edit(rules, "enum Conserva {", "enum Conserva { {")  # a failed rebuild: the banner is on every page
    assert not preview.rebuild()
    with preview.ready:
        assert all(preview.update(p, preview.version - 1) == "reload" for p in unchanged)
    preview.history.clear()  # older than what is remembered: stale
    with preview.ready:
        assert preview.update(unchanged[0], shown) == "reload"


def test_over_http_a_browser_reloads_only_for_its_own_page(tmp_path):
    folder = tmp_path / "reglas"
    folder.mkdir()
    shutil.copy(RULES, folder / "reglas.rules")
    served = Served(folder, tmp_path)
    try:
        status, page = served.get(PAGE)
        assert 'page="+encodeURIComponent(location.pathname)' in page
        shown = int(re.search(r"var v=(\d+);", page).group(1))
        events = f"{served.url}__rulebook__/events?v={shown}&page="
        query = f"?v={shown}&page="
        announced: list[str] = []
        opened = threading.Event()

        def listen():  # the browser showing PAGE, listening while the edit is rebuilt
            with urllib.request.urlopen(events + "/" + PAGE, timeout=120) as stream:
                for raw in stream:
                    opened.set()
                    line = raw.decode()
                    if line.startswith("data: "):
                        announced.append(line[6:].strip())
                        if len(announced) == 2:
                            return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert opened.wait(30)
        served.edit("### 11. Dados de disparo", "### 11. Dados de disparo renovados")
        listener.join(timeout=60)
        assert announced[0] == str(shown)  # as it is
        version, how = announced[1].split()  # only its HTML changed: put in place, not reloaded
        assert int(version) > shown and how == "page", announced
        assert re.search(r"updated .*viewed pages [\d.]+s.*reloading", served.text())
        assert "Dados de disparo renovados" in served.get(PAGE)[1]
        assert _version(served, query + "/" + PAGE) > shown  # the page as it was loaded is stale
        assert _version(served, query + "/" + LISTING) > shown
        unchanged = next(name for name in ("tablas.html", "glosario.html", "index.html")
                         if (served.get(name)[0] == 200 and _version(served, query + "/" + name) == shown))
        assert unchanged  # a page the edit did not change is not reloaded
        assert _version(served) > shown  # no page given: every version
    finally:
        served.proc.kill()
        served.proc.wait()
