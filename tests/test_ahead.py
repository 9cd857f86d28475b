"""A one-shot build hands work to a second core (:mod:`rulebook.compiler.support.ahead`): a forked
worker highlights the source listings while it runs the Python, odds and JSON stages
(:class:`rulebook.compiler.emit.site.pages.listings.ListingsAhead`), and another computes the odds tables
while it resolves the worked examples (:func:`rulebook.compiler.analysis.odds.ahead`).

A worker's answer is what the build computes itself (the same lines for the same text, the
same odds tables); a text it was not given, a worker that dies, or one that is not
started leaves the build to work it out, and the output is the same bytes either way.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from conftest import DATA

from rulebook.compiler.support import ahead
from rulebook.compiler.pipeline import driver, pyload
from rulebook.compiler.analysis import odds
from rulebook.compiler.emit.site import to_pages
from rulebook.compiler.emit.site.pages import listings

RULES = DATA / "python" / "shooting.rules"


def _die(sources):  # a worker that dies at its task (module level: the worker finds it by name)
    os._exit(3)


def test_the_workers_lines_are_the_builds_own():
    sources = {"a.rules": RULES.read_text(encoding="utf-8"), "b.rules": "# Prosa <b>&</b>\n\n```rules\nenum E { a }\n```\n"}
    ahead = to_pages.ListingsAhead(sources)
    try:
        for file, text in sources.items():
            assert ahead.lines(file, text) == listings.source_lines(text)
        assert ahead.lines("a.rules", sources["a.rules"] + "\n") is None  # another text: not its answer
        assert ahead.lines("c.rules", "x") is None
    finally:
        ahead.close()


def _docs(folder: Path) -> dict[str, bytes]:
    docs = folder / "docs"
    return {str(p.relative_to(docs)): p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file()}


def test_a_worker_that_dies_leaves_the_listings_to_the_build(tmp_path, monkeypatch):
    plain = driver.build(RULES, tmp_path / "plain", site=False)
    assert plain.ok
    started: list[to_pages.ListingsAhead] = []
    monkeypatch.setattr(listings, "all_source_lines", _die)
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: started.append(cls(sources)) or started[-1]))
    died = driver.build(RULES, tmp_path / "died", site=False)
    assert died.ok and started and started[0]._answer == {}  # the worker's answer never came
    assert _docs(tmp_path / "died") == _docs(tmp_path / "plain")
    assert any(name.startswith("codigo-") for name in _docs(tmp_path / "plain"))


def test_a_working_worker_gives_the_same_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: None))
    assert driver.build(RULES, tmp_path / "plain", site=False).ok
    started: list[to_pages.ListingsAhead] = []
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: started.append(cls(sources)) or started[-1]))
    assert driver.build(RULES, tmp_path / "ahead", site=False).ok
    assert started and started[0]._answer  # the listings came from the worker
    assert _docs(tmp_path / "ahead") == _docs(tmp_path / "plain")


def test_no_worker_beside_other_threads():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert to_pages.ListingsAhead.start({"a.rules": ""}) is None
    finally:
        stop.set()
        other.join()


def _children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to find the worker")
def test_a_killed_build_leaves_no_worker(tmp_path):
    """The worker waits on nothing: once its build is killed, it ends by itself."""
    import subprocess
    import sys
    import time

    from conftest import ROOT

    build = subprocess.Popen([sys.executable, "-m", "rulebook.compiler.commands.cli", "build", "--no-site", str(ROOT / "content" / "1936"),
                              "-o", str(tmp_path / "out")], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (workers := _children(build.pid)):
        assert build.poll() is None and time.monotonic() < deadline, "no worker seen"
        time.sleep(0.005)
    build.kill()
    build.wait(30)
    deadline = time.monotonic() + 20
    while any(_alive(w) for w in workers):
        assert time.monotonic() < deadline, "the worker outlived its build"
        time.sleep(0.05)


def _dies_too(package):  # an odds worker that dies at its task
    os._exit(3)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_workers_odds_are_the_builds_own(tmp_path):
    checked = driver.check(RULES)
    assert checked.program is not None
    package = pyload.compile_and_load(checked.program)
    worker = ahead.Ahead(odds.compute, package)  # as odds.ahead starts it (when no other thread runs)
    try:
        tables = worker.answer()
    finally:
        worker.close()
    assert tables and tables == odds.compute(package)


def test_the_odds_worker_gives_the_same_build_and_one_that_dies_leaves_them_to_it(tmp_path, monkeypatch):
    asked: list = []
    monkeypatch.setattr(odds, "ahead", lambda package: asked.append(package) or ahead.Ahead(odds.compute, package))
    assert driver.build(RULES, tmp_path / "worker", site=False).ok and asked
    monkeypatch.setattr(odds, "ahead", lambda package: ahead.Ahead(_dies_too, package))
    assert driver.build(RULES, tmp_path / "died", site=False).ok
    monkeypatch.setattr(driver.Stages, "odds_ahead", lambda self, package: None)
    assert driver.build(RULES, tmp_path / "alone", site=False).ok
    alone = _tree(tmp_path / "alone")
    assert any(name.startswith("json/") for name in alone) and any(name.startswith("docs/") for name in alone)
    assert _tree(tmp_path / "worker") == alone
    assert _tree(tmp_path / "died") == alone


def test_a_worker_answers_none_when_it_fails_and_stops_when_closed():
    died = ahead.Ahead(_dies_too, None)
    assert died.answer() is None
    slow = ahead.Ahead(time_sleep, 60)
    slow.close()  # killed, not waited for
    assert slow.answer() is None


def test_a_worker_is_waited_for_as_long_as_it_was_told():
    assert ahead.Ahead(time_sleep, 1.0, wait=0.2).answer() is None  # late: the caller does the work
    assert ahead.Ahead(time_sleep, 0.5, wait=None).answer() == 0.5  # the odds worker's way: until it ends


def time_sleep(seconds):  # a worker still at its task
    import time

    time.sleep(seconds)
    return seconds
