"""A one-shot build highlights the source listings in a forked worker while it runs
the Python, odds and JSON stages (:class:`rulebook.compiler.to_pages.ListingsAhead`).

The worker's lines are :func:`_source_lines`' for the same text; a text it was not
given, a worker that dies, or one that is not started leaves the build to work
them out itself, and the pages are the same bytes either way.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from conftest import DATA

from rulebook.compiler import driver, to_pages

RULES = DATA / "python" / "shooting.rules"


def _die(sources):  # a worker that dies at its task (module level: the worker finds it by name)
    os._exit(3)


def test_the_workers_lines_are_the_builds_own():
    sources = {"a.rules": RULES.read_text(encoding="utf-8"), "b.rules": "# Prosa <b>&</b>\n\n```rules\nenum E { a }\n```\n"}
    ahead = to_pages.ListingsAhead(sources)
    try:
        for file, text in sources.items():
            assert ahead.lines(file, text) == to_pages._source_lines(text)
        assert ahead.lines("a.rules", sources["a.rules"] + "\n") is None  # another text: not its answer
        assert ahead.lines("c.rules", "x") is None
    finally:
        ahead.close()


def _docs(folder: Path) -> dict[str, bytes]:
    docs = folder / "docs"
    return {str(p.relative_to(docs)): p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file()}


def test_a_worker_that_dies_leaves_the_listings_to_the_build(tmp_path, monkeypatch):
    shown = ("reglas", "build")
    plain = driver.build(RULES, tmp_path / "plain", site=False, shown=shown)
    assert plain.ok
    started: list[to_pages.ListingsAhead] = []
    monkeypatch.setattr(to_pages, "_all_source_lines", _die)
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: started.append(cls(sources)) or started[-1]))
    died = driver.build(RULES, tmp_path / "died", site=False, shown=shown)
    assert died.ok and started and started[0]._answer == {}  # the worker's answer never came
    assert _docs(tmp_path / "died") == _docs(tmp_path / "plain")
    assert any(name.startswith("codigo-") for name in _docs(tmp_path / "plain"))


def test_a_working_worker_gives_the_same_pages(tmp_path, monkeypatch):
    shown = ("reglas", "build")
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: None))
    assert driver.build(RULES, tmp_path / "plain", site=False, shown=shown).ok
    started: list[to_pages.ListingsAhead] = []
    monkeypatch.setattr(to_pages.ListingsAhead, "start", classmethod(lambda cls, sources: started.append(cls(sources)) or started[-1]))
    assert driver.build(RULES, tmp_path / "ahead", site=False, shown=shown).ok
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

    build = subprocess.Popen([sys.executable, "-m", "rulebook.compiler.cli", "build", "--no-site", str(ROOT / "content" / "1936"),
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
