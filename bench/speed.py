"""Benchmarks of the command line's speed for bench/run.py: ``rulebook resolve`` with
its cache (row g1), ``resolve --batch`` (g2) and the ``rulebook serve`` edit loop
(g3, g4). Each function takes what run.py passes and returns its rows, each with
the target of issue 10.

    g1  a warm ``rulebook resolve disparo_directo --seed N`` (the compiled rulebook
        comes from the cache) ÷ the same call with ``--no-cache`` (check and
        compile on every call, as before). Whole processes, timed from outside;
        the notes give their CPU time too. Target: ≤ 0.2 s.
    g2  ``rulebook resolve --batch`` on N JSON lines of sampled ``disparo_directo``
        (the scenarios of row b, seed = line number), per line, whole process ÷
        the same N resolutions by ``rulebook.runtime.sample`` in this process (no JSON, no
        process start). Target: ≥ 5,000 lines a second. Before timing, a sample
        of the answers is checked equal to ``rulebook.runtime.sample`` with the same seed.
    g3  ``rulebook serve`` on a copy of content/1936: a one-line prose edit →
        the new page served with the new text, ÷ the serve command's first full
        build (what every edit cost before). Target ≤ 1 s. The edited page is
        open (its event stream names it, as a browser's does), so serve renders
        it before the other changed pages.
    g4  the same for a one-number data edit (a catalog value shown on a page).
    g5  the same for a prose edit that adds a paragraph (two lines) above the
        chapter's rules: every source position cited below it moves.
    g6–g8  the same three edits with the page open in Chromium (Debian's
        ``chromium`` + ``chromium-driver``, as the suite's browser tests), timed
        in the page from writing the file to the first frame drawn with the new
        content (put in place by the page's own script, or reloaded). The notes
        give when Material had set the new content up too (its tables wrapped).
        Skipped, with a note, when Chromium is not installed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from rulebook import runtime

ROOT = Path(__file__).resolve().parent.parent
RULEBOOK = ROOT / "content" / "1936"


class BenchFailure(Exception):
    """A command failed or gave a wrong answer."""


def _cli(args: list[str], env: dict, stdin: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one ``rulebook`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise BenchFailure(f"rulebook {' '.join(args[:3])} … failed ({proc.returncode}): {proc.stderr[-1500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def bench_resolve(Row, fmt_time, scenario: dict, repeat: int, notes: list[str]) -> list:
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        args = ["resolve", "disparo_directo", "--seed", "7", "--input", json.dumps(scenario)]
        first, _, answer = _cli(args, env)  # fills the cache
        warm: list[tuple[float, float]] = []
        cold: list[tuple[float, float]] = []
        for i in range(repeat):
            for side in ((warm, cold) if i % 2 == 0 else (cold, warm)):
                wall, cpu, out = _cli(args + (["--no-cache"] if side is cold else []), env)
                if out != answer:
                    raise BenchFailure("(g1) the cached and uncached answers differ")
                side.append((wall, cpu))
    w, c = statistics.median(t for t, _ in warm), statistics.median(t for t, _ in cold)
    ratios = [a[0] / b[0] for a, b in zip(warm, cold)]
    notes.append(
        f"g1: {repeat} warm and {repeat} --no-cache calls, alternated; the first call (check, compile, write the "
        f"cache) took {fmt_time(first)}; CPU time, warm {fmt_time(statistics.median(u for _, u in warm))}, "
        f"--no-cache {fmt_time(statistics.median(u for _, u in cold))}; same answers ✓"
    )
    return [Row("g1", "rulebook resolve, warm cache ÷ --no-cache (CLI)", fmt_time(w), fmt_time(c), w / c,
                (min(ratios), max(ratios)), f"≤ 0.2 s {'✓' if w <= 0.2 else '✗'}")]


def bench_batch(Row, fmt_time, scenarios: list[dict], lines: int, repeat: int, notes: list[str]) -> list:
    from rulebook.compiler.commands import resolve

    work = [scenarios[i % len(scenarios)] for i in range(lines)]
    text = "".join(json.dumps({"procedure": "disparo_directo", "input": kw, "seed": i}) + "\n" for i, kw in enumerate(work))
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        _cli(["resolve", "--list"], env)  # fills the cache: the batch measures answering, not compiling
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            resolver = resolve.open_rulebook(None, "json")
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME")
            else:
                os.environ["XDG_CACHE_HOME"] = old
        assert resolver is not None
        proc = resolver.package.PROCEDURES["disparo_directo"]
        fn = proc.function

        def in_process() -> float:
            t0 = time.perf_counter()
            for i, kw in enumerate(work):
                runtime.sample(fn, seed=i, trace=False, **proc.convert(kw))
            return time.perf_counter() - t0

        subject: list[float] = []
        base: list[float] = []
        cpu: list[float] = []
        for i in range(repeat):
            if i % 2:
                base.append(in_process())
            wall, used, out = _cli(["resolve", "--batch"], env, stdin=text)
            subject.append(wall)
            cpu.append(used)
            if i % 2 == 0:
                base.append(in_process())
        answers = out.splitlines()
        if len(answers) != lines:
            raise BenchFailure(f"(g2) {lines} lines in, {len(answers)} out")
        for i in range(0, lines, max(1, lines // 50)):
            got = json.loads(answers[i])
            want, _ = runtime.sample(fn, seed=i, trace=False, **proc.convert(work[i]))
            if got.get("result") != runtime.to_jsonable(want) or got.get("seed") != i:
                raise BenchFailure(f"(g2) line {i + 1}: {answers[i][:200]} differs from runtime.sample")
    s, b = statistics.median(subject), statistics.median(base)
    rate = lines / s
    ratios = [a / c for a, c in zip(subject, base)]
    notes.append(
        f"g2: {lines} lines, {repeat} run(s): {rate:,.0f} lines/s for the whole process "
        f"(CPU {lines / statistics.median(cpu):,.0f} lines per CPU second); answers equal runtime.sample with the same seed ✓"
    )
    return [Row("g2", f"resolve --batch, {lines} lines ÷ runtime.sample in-process", fmt_time(s / lines) + "/line",
                fmt_time(b / lines) + "/line", s / b, (min(ratios), max(ratios)), f"≥ 5,000/s {'✓' if rate >= 5000 else '✗'}")]


# ---------------------------------------------------------------------------- g3, g4: the edit loop

PROSE = ("06-disparo.rules", "Esta sección sustituye al antiguo sistema de disparo.", "06-iniciativa-y-disparos.html")
"""A one-line prose edit: the file, the sentence edited, the page that shows it."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Serve:
    def __init__(self, folder: Path, tmp: Path) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rulebook.compiler.commands.cli", "serve", str(folder), "--port", str(self.port)],
            cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True).start()
        self.wait("serving http://", 600)
        built = re.search(r"built in ([\d.]+)s", "".join(self.lines))
        self.first_build = float(built.group(1)) if built else float("nan")

    def wait(self, needle: str, seconds: float, after: int = 0) -> None:
        deadline = time.monotonic() + seconds
        while needle not in "".join(self.lines[after:]):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchFailure(f"rulebook serve: no {needle!r}:\n{''.join(self.lines)[-2000:]}")
            time.sleep(0.01)

    def page(self, name: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{name}", timeout=60) as r:
            return r.read().decode("utf-8")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def _versions(stream):
    """The site versions a ``/__rulebook__/events`` stream announces, as they come."""
    for raw in stream:
        line = raw.decode()
        if line.startswith("data: "):
            yield int(line[6:].split()[0])  # "<version>" or "<version> page" (put in place)


def _edit_to_page(serve: _Serve, path: Path, old: str, new: str, page: str, shown: str) -> tuple[float, str]:
    """Seconds from writing the edit to the page, fetched once the event stream announces
    a new version of it (as the reload script of the page open in a browser does: the
    stream names the page, which serve then renders first), showing ``shown``; and the
    serve log's timings of that rebuild."""
    mark = len(serve.lines)
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise BenchFailure(f"(g3/g4) {old!r} is not in {path.name}: update bench/speed.py")
    loaded = re.search(r"var v=(\d+);", serve.page(page))  # the page open in a browser, as its reload script listens
    query = f"?v={loaded.group(1)}&page=/{page}" if loaded else ""
    with urllib.request.urlopen(f"http://127.0.0.1:{serve.port}/__rulebook__/events{query}", timeout=900) as stream:
        versions = _versions(stream)
        before = next(versions)
        t0 = time.perf_counter()
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        next(v for v in versions if v != before)
    html = serve.page(page)
    elapsed = time.perf_counter() - t0
    log = "".join(serve.lines[mark:])
    if shown not in html:
        raise BenchFailure(f"(g3/g4) after the edit, {page} does not show {shown!r}:\n{log[-2000:]}")
    serve.wait("reloading", 60, mark)
    found = re.search(r"updated .*\((.*)\); reloading", "".join(serve.lines[mark:]))
    return elapsed, found.group(1) if found else "?"


DATA_PAGE = "fichas-bando-nacional.html"


def _data_edit(folder: Path, shown_page: str) -> tuple[Path, str, str, str]:
    """A one-number data edit: a value of the 2 cm Flak 30's catalog row (shown on its
    datasheet) set to a number the page does not show yet."""
    path = folder / "02-costes-listas.rules"
    line = next((ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.split("|")[0].strip() == "n_flak_30_20"), None)
    cells = line.split("|") if line else []
    if len(cells) < 7 or not cells[6].strip().isdigit():
        raise BenchFailure("(g4) the 2 cm Flak 30 row (7th cell a number) of 02-costes-listas.rules was not found: update bench/speed.py")
    value = next(str(v) for v in range(913, 999) if f">{v}<" not in shown_page and f" {v} " not in shown_page)
    return path, line, "|".join(cells[:6] + [f" {value} "] + cells[7:]), value


def bench_edit_loop(Row, fmt_time, repeat: int, notes: list[str]) -> list:
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-serve-") as tmp:
        folder = Path(tmp) / "1936"
        shutil.copytree(RULEBOOK, folder)
        serve = _Serve(folder, Path(tmp))
        try:
            prose: list[float] = []
            data: list[float] = []
            shifted: list[float] = []
            logs: dict[str, str] = {}
            file, sentence, page = PROSE
            for i in range(repeat):
                edited = sentence.replace("antiguo", f"antiguo ({i + 1})")
                t, logs["prose"] = _edit_to_page(serve, folder / file, sentence, edited, page, f"antiguo ({i + 1})")
                prose.append(t)
                _edit_to_page(serve, folder / file, edited, sentence, page, "antiguo sistema")
                path, old, new, shown = _data_edit(folder, serve.page(DATA_PAGE))
                t, logs["data"] = _edit_to_page(serve, path, old, new, DATA_PAGE, shown)
                data.append(t)
                _edit_to_page(serve, path, new, old, DATA_PAGE, "Flak 30")
                added = f"{sentence}\n\nPárrafo añadido ({i + 1})."
                t, logs["lines"] = _edit_to_page(serve, folder / file, sentence, added, page, f"Párrafo añadido ({i + 1})")
                shifted.append(t)
                _edit_to_page(serve, folder / file, added, sentence, page, "antiguo sistema")
        finally:
            serve.stop()
    base = serve.first_build
    p, d, s = statistics.median(prose), statistics.median(data), statistics.median(shifted)
    notes.append(
        f"g3/g4: {repeat} edit(s) of each kind on a copy of content/1936, timed from writing the file to the page "
        f"served with the new text; the serve log's stages, last prose edit: {logs.get('prose')}; last data edit: {logs.get('data')}; "
        f"last line-adding edit: {logs.get('lines')}"
    )
    return [
        Row("g3", "serve: prose edit → page updated ÷ first full build", fmt_time(p), fmt_time(base), p / base,
            (min(prose) / base, max(prose) / base), f"≤ 1 s {'✓' if p <= 1 else '✗'}"),
        Row("g4", "serve: data edit → page updated ÷ first full build", fmt_time(d), fmt_time(base), d / base,
            (min(data) / base, max(data) / base), f"≤ 1 s {'✓' if d <= 1 else '✗'}"),
        Row("g5", "serve: prose edit adding lines → page updated ÷ first full build", fmt_time(s), fmt_time(base), s / base,
            (min(shifted) / base, max(shifted) / base), f"≤ 1 s {'✓' if s <= 1 else '✗'}"),
    ]


# ---------------------------------------------------------------------------- g6–g8: the edit loop in a browser

_WATCH_PAGE = """var box = document.querySelector("[data-md-component=container]");
window.__rbBench = {drawn: null, setUp: null};
(function poll() {
  var now = document.querySelector("[data-md-component=container]");
  if (now === box) return requestAnimationFrame(poll);
  setTimeout(function () { window.__rbBench.drawn = performance.timeOrigin + performance.now(); }, 0);
  (function setUp() {
    if (now.querySelector(".md-typeset__scrollwrap")) window.__rbBench.setUp = performance.timeOrigin + performance.now();
    else requestAnimationFrame(setUp);
  })();
})();"""
"""Run in the open page before an edit: the time (epoch ms) of the first frame drawn
after its content was replaced (the task after that frame's rendering), and of the
first frame where Material had wrapped its tables (set up)."""

_SEEN = """var b = window.__rbBench, n = performance.getEntriesByType("navigation")[0];
if (!b) return n && n.loadEventEnd ? ["reloaded", performance.timeOrigin + n.loadEventEnd, performance.timeOrigin + n.loadEventEnd] : null;
return b.drawn && b.setUp ? ["in place", b.drawn, b.setUp] : null;"""
"""After an edit: how the page was updated and when (epoch ms) it was drawn and set up;
a reloaded page (the mark gone) counts from its ``load`` event."""


def _edit_in_browser(browser, path: Path, old: str, new: str, shown: str) -> tuple[str, float, float]:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise BenchFailure(f"(g6–g8) {old!r} is not in {path.name}: update bench/speed.py")
    browser.execute_script(_WATCH_PAGE)
    t0 = time.time()
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    deadline = time.monotonic() + 300
    while True:
        seen = browser.execute_script(_SEEN)
        if seen and browser.execute_script("return document.readyState") == "complete":
            break
        if time.monotonic() > deadline:
            raise BenchFailure(f"(g6–g8) the page open in Chromium was not updated after editing {path.name}")
        time.sleep(0.005)
    if shown not in browser.find_element("tag name", "body").text:
        raise BenchFailure(f"(g6–g8) after the edit, the page in Chromium does not show {shown!r}")
    return seen[0], seen[1] / 1000 - t0, seen[2] / 1000 - t0


def _open(browser, url: str) -> None:
    browser.get(url)
    deadline = time.monotonic() + 120
    while browser.execute_script("return document.readyState") != "complete":
        if time.monotonic() > deadline:
            raise BenchFailure(f"(g6–g8) {url} did not load in Chromium")
        time.sleep(0.01)
    time.sleep(0.5)  # its event stream is connected


def bench_edit_in_browser(Row, fmt_time, repeat: int, notes: list[str]) -> list:
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    try:
        import chromium
    finally:
        sys.path.pop(0)
    if not chromium.AVAILABLE:
        notes.append(f"g6–g8 skipped: {chromium.SKIP_REASON}")
        return []
    drawn: dict[str, list[float]] = {"prose": [], "data": [], "lines": []}
    set_up: dict[str, list[float]] = {kind: [] for kind in drawn}
    how: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-browser-") as tmp:
        folder = Path(tmp) / "1936"
        shutil.copytree(RULEBOOK, folder)
        serve = _Serve(folder, Path(tmp))
        try:
            with chromium.chromium() as browser:
                url = f"http://127.0.0.1:{serve.port}/"
                file, sentence, page = PROSE

                def timed(kind: str, path: Path, old: str, new: str, shown: str, back: str) -> None:
                    way, t_drawn, t_set_up = _edit_in_browser(browser, path, old, new, shown)
                    how.add(way)
                    drawn[kind].append(t_drawn)
                    set_up[kind].append(t_set_up)
                    _edit_in_browser(browser, path, new, old, back)

                for i in range(repeat):
                    _open(browser, url + page)
                    edited = sentence.replace("antiguo", f"antiguo ({i + 1})")
                    timed("prose", folder / file, sentence, edited, f"antiguo ({i + 1})", "antiguo sistema")
                    added = f"{sentence}\n\nPárrafo añadido ({i + 1})."
                    timed("lines", folder / file, sentence, added, f"Párrafo añadido ({i + 1})", "antiguo sistema")
                    _open(browser, url + DATA_PAGE)
                    path, old, new, shown = _data_edit(folder, serve.page(DATA_PAGE))
                    timed("data", path, old, new, shown, "Flak 30")
        finally:
            serve.stop()
    base = serve.first_build
    med = {kind: statistics.median(times) for kind, times in drawn.items()}
    notes.append(
        f"g6–g8: {repeat} edit(s) of each kind in headless Chromium (1280×1400), the page {', '.join(sorted(how))}; "
        "timed from writing the file to the first frame drawn with the new content; set up by Material "
        "(tables wrapped) at a median of " + ", ".join(f"{kind} {fmt_time(statistics.median(t))}" for kind, t in set_up.items())
    )
    rows = []
    for row, kind, what in (("g6", "prose", "prose edit"), ("g7", "data", "data edit"), ("g8", "lines", "prose edit adding lines")):
        m = med[kind]
        rows.append(Row(row, f"serve in Chromium: {what} → new content drawn ÷ first full build", fmt_time(m), fmt_time(base), m / base,
                        (min(drawn[kind]) / base, max(drawn[kind]) / base), f"≤ 1 s {'✓' if m <= 1 else '✗'}"))
    return rows
