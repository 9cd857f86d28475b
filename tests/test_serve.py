"""``rulebook serve`` as a designer uses it: started in a subprocess on a free
port over a copy of a small rulebook, edited on disk, read over HTTP.

A page is served with the reload script; a prose edit is announced on the
event stream and then served; a broken edit keeps the last good page, adds a
banner with the diagnostics (escaped) and prints them in the terminal; the fix
removes the banner; nothing outside the site is served; Ctrl-C stops the
command and removes its temporary folder.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from conftest import DATA, ROOT

RULES = DATA / "python" / "shooting.rules"
PAGE = "01-disparo.html"
START_SECONDS = 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """The running command, its output (read by a thread) and its address."""

    def __init__(self, folder, tmp) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "TMPDIR": str(tmp)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rulebook.compiler.commands.cli", "serve", str(folder), "--port", str(self.port)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for_output("serving http://127.0.0.1:", START_SECONDS)

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.output.append(line)

    def text(self) -> str:
        return "".join(self.output)

    def wait_for_output(self, needle: str, seconds: float, after: int = 0) -> None:
        deadline = time.monotonic() + seconds
        while needle not in "".join(self.output[after:]):
            assert self.proc.poll() is None, self.text()
            assert time.monotonic() < deadline, f"no {needle!r} in:\n{self.text()}"
            time.sleep(0.1)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8")

    def edit(self, old: str, new: str, seconds: float = START_SECONDS) -> None:
        """Replace ``old`` by ``new`` in the rulebook and wait until the rebuild is over."""
        mark = len(self.output)
        path = self.folder / "reglas.rules"
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        deadline = time.monotonic() + seconds
        while not re.search(r"reloading|the last good site is still served", "".join(self.output[mark:])):
            assert self.proc.poll() is None, self.text()
            assert time.monotonic() < deadline, self.text()
            time.sleep(0.1)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    folder = tmp / "reglas"
    folder.mkdir()
    shutil.copy(RULES, folder / "reglas.rules")
    running = Served(folder, tmp)
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait()


def test_pages_are_served_with_the_reload_script(served):
    status, page = served.get("")
    assert status == 200 and "<html" in page
    assert '/__rulebook__/events' in page and "location.reload" in page
    status, page = served.get(PAGE)
    assert status == 200 and "Dados de disparo" in page
    assert 'id="rulebook-serve-errors"' not in page


def test_head_answers_without_a_body(served):
    request = urllib.request.Request(served.url + PAGE, method="HEAD")
    with urllib.request.urlopen(request, timeout=30) as r:
        assert r.status == 200 and int(r.headers["Content-Length"]) > 0 and r.read() == b""


def test_nothing_outside_the_site_is_served(served):
    for path in ("../../../../etc/passwd", "%2e%2e/%2e%2e/%2e%2e/etc/passwd", "..%2f..%2f..%2fetc%2fpasswd"):
        status, page = served.get(path)
        assert "root:" not in page


def test_only_localhost_names_are_answered(served):
    """A request whose Host is another name (DNS rebinding: a page elsewhere resolving to 127.0.0.1) is refused."""
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
        request = urllib.request.Request(served.url + PAGE, headers={"Host": host})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                status = r.status
        except urllib.error.HTTPError as exc:
            status = exc.code
        assert status == 403, host
    for host in ("localhost", "127.0.0.1"):
        request = urllib.request.Request(served.url + PAGE, headers={"Host": host})
        with urllib.request.urlopen(request, timeout=30) as r:
            assert r.status == 200, host


def _version(served, query: str = "") -> int:
    """The site version the event stream (with ``query``: ``?v=…&page=…``) announces first."""
    with urllib.request.urlopen(served.url + "__rulebook__/events" + query, timeout=30) as stream:
        for raw in stream:
            line = raw.decode()
            if line.startswith("data: "):
                return int(line[6:].split()[0])  # "<version>" or "<version> page"
    raise AssertionError("no version on the event stream")


def test_a_prose_edit_is_announced_and_served(served):
    before = _version(served)
    served.edit("### 11. Dados de disparo", "### 11. Dados de disparo renovados")
    assert _version(served) > before
    status, page = served.get(PAGE)
    assert status == 200 and "Dados de disparo renovados" in page


def test_a_broken_edit_keeps_the_last_good_page_and_shows_the_errors(served):
    status, good = served.get(PAGE)
    before = _version(served)
    served.edit("enum Conserva {", "enum <b>Conserva</b> {")
    assert "error:" in served.text() and "the last good site is still served" in served.text()
    assert _version(served) > before
    status, page = served.get(PAGE)
    assert status == 200
    assert 'id="rulebook-serve-errors"' in page
    assert "&lt;b&gt;Conserva&lt;/b&gt;" in page and "<b>Conserva</b>" not in page
    assert "Dados de disparo" in page  # the last good page, under the banner
    served.edit("enum <b>Conserva</b> {", "enum Conserva {")
    status, page = served.get(PAGE)
    assert 'id="rulebook-serve-errors"' not in page and "Dados de disparo" in page


def test_ctrl_c_stops_and_cleans_up(served, tmp_path_factory):
    served.proc.send_signal(signal.SIGINT)
    assert served.proc.wait(timeout=60) in (0, 130)
    tmp = served.folder.parent
    assert not [p for p in tmp.iterdir() if p.name.startswith("rulebook-serve-")]


def _wait_for_page(preview, text: str, seconds: float = 120) -> str:
    deadline = time.monotonic() + seconds
    while True:
        page = (preview.site / PAGE).read_text(encoding="utf-8") if (preview.site / PAGE).is_file() else ""
        if text in page:
            return page
        assert time.monotonic() < deadline, f"{text!r} never served"
        time.sleep(0.05)


def _watched(tmp_path, before_watching: str | None):
    """A preview of the small rulebook built, with the rules replaced by ``before_watching``
    (if given) after the fingerprint the first build starts with; then the watcher started."""
    from rulebook.compiler.commands.serve import Preview, fingerprint, start_watching

    folder = tmp_path / "reglas"
    folder.mkdir()
    rules = folder / "reglas.rules"
    rules.write_text(RULES.read_text(encoding="utf-8"), encoding="utf-8")
    logs: list[str] = []
    preview = Preview(folder, tmp_path / "work", log=logs.append)
    since = fingerprint(folder)
    assert preview.build_all()
    if before_watching is not None:
        rules.write_text(before_watching, encoding="utf-8")
    stopping = threading.Event()
    return preview, rules, logs, stopping, start_watching(preview, stopping, since)


def test_an_edit_saved_during_the_first_build_is_rebuilt_when_the_watcher_is_ready(tmp_path):
    """An edit saved while the first build runs (before any watcher exists, so no
    watcher reports it) is rebuilt as soon as the watcher is ready."""
    during = RULES.read_text(encoding="utf-8").replace("### 11. Dados de disparo", "### 11. Dados editados al construir", 1)
    preview, rules, logs, stopping, watcher = _watched(tmp_path, during)
    try:
        _wait_for_page(preview, "Dados editados al construir")
        assert any("while the site was built" in line for line in logs)
    finally:
        stopping.set()
        watcher.join(timeout=10)
    assert not watcher.is_alive()


def test_an_edit_saved_the_moment_the_watcher_is_ready_is_rebuilt(tmp_path):
    """``start_watching`` returns (and ``serve`` prints "serving") only once the watch
    exists: an edit saved right then is seen (bench/run.py once waited 15 minutes for an
    edit saved before the watch existed)."""
    preview, rules, logs, stopping, watcher = _watched(tmp_path, None)
    try:
        rules.write_text(rules.read_text(encoding="utf-8").replace("### 11. Dados de disparo", "### 11. Dados editados al instante", 1),
                         encoding="utf-8")
        _wait_for_page(preview, "Dados editados al instante")
    finally:
        stopping.set()
        watcher.join(timeout=10)
    assert not watcher.is_alive()


def test_no_edit_no_rebuild_once_the_watcher_is_ready(tmp_path):
    """Rules as they were when the first build started: the watcher's readiness rebuilds nothing."""
    preview, rules, logs, stopping, watcher = _watched(tmp_path, None)
    version = preview.version
    time.sleep(1.0)  # a few empty reports of the watcher
    stopping.set()
    watcher.join(timeout=10)
    assert preview.version == version


def _tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _served_after_edits_is_a_fresh_build(tmp_path, text: str, edits: list[tuple[str, str, bool]]):
    """Serve ``text``, apply ``edits`` (old, new, whether the rebuild succeeds) one
    rebuild each, and compare the served folder with a full build, file by file."""
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.commands.serve import Preview

    folder = tmp_path / "reglas"
    folder.mkdir()
    rules = folder / "reglas.rules"
    rules.write_text(text, encoding="utf-8")
    preview = Preview(folder, tmp_path / "work", log=lambda text: None)
    assert preview.build_all()
    for old, new, ok in edits:
        text = rules.read_text(encoding="utf-8")
        assert old in text
        rules.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert preview.rebuild() is ok, old
    fresh = driver.build(folder, tmp_path / "fresh", site=True)
    assert fresh.ok, fresh.diagnostics
    served, built = _tree(preview.live), _tree(tmp_path / "fresh")
    assert sorted(served) == sorted(built)
    assert [name for name in built if served[name] != built[name]] == []
    return preview


def test_after_a_sequence_of_edits_the_served_site_is_a_fresh_builds(tmp_path):
    """What ``serve`` shows after prose, data and broken edits (its caches of the
    resolved examples, odds, highlighting and compiled templates at work) is, file
    by file, what a full ``rulebook build`` of the same rules writes."""
    edits = [
        ("### 11. Dados de disparo", "### 11. Dados de disparo renovados", True),
        ("### 11. Dados de disparo renovados", "### 11. Dados de disparo otra vez", True),
        ("regular  | 2 | todos", "regular  | 3 | todos", True),
        ("enum Conserva {", "enum Conserva { {", False),
        ("enum Conserva { {", "enum Conserva {", True),
    ]
    preview = _served_after_edits_is_a_fresh_build(tmp_path, RULES.read_text(encoding="utf-8"), edits)
    assert preview.changed == []  # the fix gives back the rules of the last good site
    assert "Dados de disparo otra vez" in (preview.site / PAGE).read_text(encoding="utf-8")


SECOND = """
```rules
section VII "Moral"
term cubierto "Cubierto" "Una unidad tras una cobertura."
show dados_calidad
```

### 12. Moral

La moral usa los [[dados_calidad]] y el estado Cubierto.
"""


def test_pages_that_read_what_an_edit_changed_are_rendered_again(tmp_path, monkeypatch):
    """Section pages are kept across rebuilds under a key of all they read: a prose edit
    renders only its section's page (from the first rebuild on); edits of a glossary term
    and of a title that another section links to and shows render the pages reading them;
    after all of them the served site is, file by file, a fresh build's."""
    from rulebook.compiler.emit.site.pages.sections import SectionBlocks
    from rulebook.compiler.commands.serve import Preview

    edits = [
        ("La moral usa", "La moral, en esta versión, usa", True),  # prose of section VII only
        ('"Una unidad tras una cobertura."', '"Una unidad tras una cobertura sólida."', True),  # a glossary term
        ('"Dados de disparo y Calidad"', '"Dados de Calidad, renombrados"', True),  # linked and shown from section VII
    ]
    rendered: list[str] = []
    section_blocks = SectionBlocks.section_blocks
    monkeypatch.setattr(SectionBlocks, "section_blocks",
                        lambda self, items, page, *args: rendered.append(page) or section_blocks(self, items, page, *args))
    per_rebuild: list[list[str]] = []
    rebuild = Preview.rebuild

    def counting(self):
        rendered.clear()
        ok = rebuild(self)
        per_rebuild.append([page for page in rendered if page.startswith(("01-", "02-"))])
        return ok

    monkeypatch.setattr(Preview, "rebuild", counting)
    preview = _served_after_edits_is_a_fresh_build(tmp_path, RULES.read_text(encoding="utf-8") + SECOND, edits)
    assert per_rebuild[0] == ["02-moral.md"]
    assert "01-disparo.md" in per_rebuild[2] and "02-moral.md" in per_rebuild[2]  # the title is on both
    page = (preview.site / "02-moral.html").read_text(encoding="utf-8")
    assert "Dados de Calidad, renombrados" in page and "La moral, en esta versión, usa" in page


REFUSED = """
```rules
procedure acotada "Tirada acotada" (x: int) -> int {
  require x < 3, "demasiado grande"
  return x + roll d6
}
example acotada "Demasiado grande" {
  given (x: 4)
  expect error "demasiado grande"
}
example acotada "Pequeña" {
  given (x: 1)
  expect probability(result >= 5) == 1/2
}
```
"""


def test_prose_edits_that_move_lines_keep_every_cited_position_a_fresh_builds(tmp_path):
    """Prose lines added and removed above a procedure whose example stops with a rule
    error: the results kept across the edits (same code, other positions) cite the
    lines of the edited rules, as a full build does — the error's and every check's."""
    edits = [
        ("### 11. Dados de disparo\n", "### 11. Dados de disparo\n\nUna línea más de prosa.\n", True),
        ("Una línea más de prosa.\n", "Una línea más de prosa.\n\nY otra, con\nmás líneas.\n", True),
        ("regular  | 2 | todos", "regular  | 3 | todos", True),
        ("\nY otra, con\nmás líneas.\n", "", True),
    ]
    text = RULES.read_text(encoding="utf-8") + REFUSED
    preview = _served_after_edits_is_a_fresh_build(tmp_path, text, edits)
    final = (preview.rulebook / "reglas.rules").read_text(encoding="utf-8").splitlines()
    line = 1 + final.index('example acotada "Pequeña" {')
    assert line == 1 + 2 + text.splitlines().index('example acotada "Pequeña" {')  # two lines down after the edits
    assert f"reglas.rules:{line}" in (preview.live / "json" / "examples.json").read_text(encoding="utf-8")
    assert "la resolución se detiene: «demasiado grande»" in (preview.site / PAGE).read_text(encoding="utf-8")


def test_a_prose_edit_does_not_generate_the_package_again(tmp_path, monkeypatch):
    """A prose edit that moves no declaration reuses the generated package; a data edit
    and lines added above declarations generate it again; after all of them the served
    site is, file by file, a fresh build's."""
    from rulebook.compiler.emit.python import to_python
    from rulebook.compiler.commands.serve import Preview

    calls: list[int] = []
    generate = to_python.ModuleMemo.generate  # the modules whose reads changed (what serve generates)
    monkeypatch.setattr(to_python.ModuleMemo, "generate", lambda self, program, *digests: calls.append(1) or generate(self, program, *digests))
    edits = [
        ("### 11. Dados de disparo", "### 11. Dados de disparo renovados", True),  # 0: prose, same lines
        ("regular  | 2 | todos", "regular  | 3 | todos", True),  # 1: data
        ("### 11. Dados de disparo renovados\n", "### 11. Dados de disparo renovados\n\nMás prosa.\n", True),  # 1: lines move
        ("Más prosa.", "Más prosa, otra vez.", True),  # 0: prose, same lines
    ]
    counted = []

    def rebuild(original=Preview.rebuild):
        def counting(self):
            before = len(calls)
            ok = original(self)
            counted.append(len(calls) - before)
            return ok
        return counting

    monkeypatch.setattr(Preview, "rebuild", rebuild())
    _served_after_edits_is_a_fresh_build(tmp_path, RULES.read_text(encoding="utf-8"), edits)
    assert counted == [0, 1, 1, 0]
