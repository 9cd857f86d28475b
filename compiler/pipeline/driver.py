"""The pipeline: load → parse → check (→ typed IR) → emit, with atomic output.

Entry points:
    :func:`check(path) -> Checked` — diagnostics (and the program when clean);
    :func:`build(path, out_dir, site=True) -> Checked` — every output (python/, json/,
    schemas/, js/, docs/, site/), written to a fresh folder and swapped in only when
    everything succeeded, so a failed or interrupted build leaves the previous output intact;
    :func:`bundled_rulebooks() -> list[Path]` — the rulebooks of ``content/``, which
    the command line checks, tests and builds when it is given none.

The output folder is never missing: the swap exchanges the two folders in one
step (``renameat2(RENAME_EXCHANGE)`` on Linux); where that is not available it
falls back to two renames, and a build killed between them is undone by the
next build. Each staging folder is locked (``flock``) by the process writing
it, so the next build removes the folders of killed builds and leaves those of
builds still running. SIGTERM during a build stops it like Ctrl-C: the staging
folder is removed and mkdocs is stopped. ``out_dir`` must be a folder that is
empty or holds a previous build; anything else there is refused rather than
replaced. Errors of the file system (read-only, full, file too large) are
diagnostics naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import glob
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rulebook.rules_dsl.diagnostics import Diagnostic, Reporter, Span

from rulebook.compiler.support import package_data
from rulebook.compiler.check import check_program
from rulebook.compiler.ir import Program
from rulebook.compiler.check.loader import load

if TYPE_CHECKING:  # the emitters are imported when a build runs
    from types import ModuleType

    from rulebook.compiler.emit.data import to_json
    from rulebook.compiler.emit.site import to_pages
    from rulebook.compiler.support.ahead import Ahead

CONTENT = package_data.folder("content")


bundled_rulebooks = package_data.bundled_rulebooks


DEFAULT_RULEBOOK = (bundled_rulebooks() or [CONTENT])[0]
"""The first bundled rulebook by name: what ``rulebook resolve`` reads without ``--rulebook``."""

OPTIONAL_OUTPUTS = frozenset({"site"})
"""Entries of a previous build that this build may not write (``--no-site``)."""


@dataclass
class Checked:
    """The outcome of a check or build."""

    program: Program | None
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


class Stages:
    """The stages of :func:`build` that a long-running caller runs its own way: by default
    each is the stage's function. ``rulebook serve`` (:class:`rulebook.compiler.commands.serve.Preview`)
    passes a subclass that remembers, from one build to the next, what a stage's
    answer depends on, and answers again without redoing the work."""

    pages: to_pages.PageMemo | None = None
    """The section pages of the previous build (:func:`rulebook.compiler.emit.site.to_pages.write_docs`)."""

    json: to_json.JsonMemo | None = None
    """What the previous build serialised, validated and wrote of json/ and schemas/ (:func:`rulebook.compiler.emit.data.to_json.write_all`)."""

    def parse(self, text: str, filename: str) -> tuple:
        """One file's text → its syntax tree and diagnostics (:func:`rulebook.rules_dsl.parser.parse`)."""
        from rulebook.rules_dsl.parser import parse

        return parse(text, filename)

    def generate(self, program: Program) -> dict[str, str]:
        """The checked program → the generated package's modules (:func:`rulebook.compiler.emit.python.to_python.generate`)."""
        from rulebook.compiler.emit.python import to_python

        return to_python.generate(program)

    def odds_ahead(self, package: ModuleType) -> Ahead | None:
        """A worker computing the odds tables of ``package`` while the build resolves the worked
        examples (:func:`rulebook.compiler.analysis.odds.ahead`); None: the odds stage computes them."""
        from rulebook.compiler.analysis import odds

        return odds.ahead(package)

    def balance_ahead(self, program: Program, package: ModuleType) -> Ahead | None:
        """A worker computing the balance of the program's matchups (the designers' page) while
        the build goes on; None: the page computes it."""
        if not program.matchups:
            return None
        from rulebook.compiler.emit.site.pages import balance_page
        from rulebook.compiler.support.ahead import Ahead

        return Ahead.start(balance_page.compute, program, package, wait=None)

    def listings(self, sources: dict[str, str]) -> to_pages.ListingsAhead | None:
        """The source listings highlighted meanwhile, on a second core
        (:class:`rulebook.compiler.emit.site.to_pages.ListingsAhead`); None: the docs stage does it."""
        from rulebook.compiler.emit.site import to_pages

        return to_pages.ListingsAhead.start(sources)


def check(path: Path, stages: Stages | None = None) -> Checked:
    """Parse and check a rulebook (a folder of .rules files, or one file)."""
    import sys

    # deeply nested expressions recurse in the parser and checker
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    modules, sources, diags = load(path, stages.parse) if stages is not None else load(path)
    rep = Reporter(list(diags))
    try:
        program = check_program(modules, sources, rep) if modules else None
    except RecursionError:
        rep.error("an expression is nested too deeply to check", Span(next(iter(sources), "<rulebook>"), 1, 1, 1, 1), "split it with let", "limit")
        program = None
    if program is not None and program.rulebook is not None:
        _check_language(program.rulebook, sources, rep)
    return Checked(program, rep.diagnostics, sources)


def _check_language(rb, sources: dict[str, str], rep: Reporter) -> None:
    """``lang "xx"`` must name a language with message catalogs (:mod:`rulebook.compiler.i18n`)."""
    from rulebook.compiler.support import i18n

    if not rb.lang or i18n.supported(rb.lang):  # no lang: the default language (an empty lang is the checker's error)
        return
    span = rb.span
    lines = sources.get(span.file, "").splitlines()
    for number in range(span.line, min(span.end_line, len(lines)) + 1):
        m = re.search(r'\blang\s+("(?:[^"\\]|\\.)*")', lines[number - 1])
        if m:
            span = Span(span.file, number, m.start(1) + 1, number, m.end(1) + 1)
            break
    rep.error(
        f"unknown language {rb.lang!r}: the site, the data page and the resolvers' traces have no phrases for it",
        span, f"supported languages: {', '.join(i18n.SUPPORTED)}", "lang",
    )


PREVIOUS = "previous"
"""``build(base=PREVIOUS)``: the version counts from the build already in ``out_dir``."""


def build(path: Path, out_dir: Path, site: bool = True, stages: Stages | None = None,
          allow_failing_examples: bool = False, base: Path | str | None = PREVIOUS) -> Checked:
    """Check, then emit json/, schemas/, python/, js/, docs/ (and site/) into ``out_dir``.

    Nothing in ``out_dir`` changes unless the whole build succeeds; what it writes does
    not depend on where ``out_dir`` is. A worked example that the rules contradict is an
    error, one per example at its failing ``expect`` (the build publishes no vector its
    own rules break); ``allow_failing_examples`` makes them warnings and builds a draft
    whose vectors say ``"holds": false``. ``stages``: see :class:`Stages` (by default,
    each stage's function).

    The version published (:mod:`rulebook.compiler.pipeline.versioning`) counts from
    ``base``: :data:`PREVIOUS`, the build already in ``out_dir`` (if any; one that cannot be
    used is a warning); a path, a previous build or rulebook folder (one that cannot be
    used is an error); None, no previous version (the declared one, ``1.0`` → ``1.0.0``).
    ``result.program`` is then the program stamped with it.
    """
    stages = stages or Stages()
    t0 = time.perf_counter()
    try:
        out_dir = out_dir.resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links
        return Checked(None, [_error(f"the output path cannot be used: {exc}", out_dir, "choose a folder with -o")], {})
    if out_dir.exists() and not out_dir.is_dir():
        return Checked(None, [_error("the output path is a file, not a folder; it was left untouched", out_dir, "choose a folder with -o")], {})
    result = check(path, stages)
    result.timings["check"] = time.perf_counter() - t0
    if not result.ok or result.program is None:
        return result
    staging: Path | None = None
    with _stop_on_sigterm() as stopped, contextlib.ExitStack() as locks, _settled():
        try:
            out_dir.parent.mkdir(parents=True, exist_ok=True)
            _clean_after_killed_builds(out_dir)
            if not _versioned(result, out_dir, base):
                return result
            staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.building-", dir=out_dir.parent))
            locks.enter_context(_locked(staging))
            _emit_all(result, staging, site, stages, allow_failing_examples)
            if result.ok:
                foreign = _foreign_entries(out_dir, staging)
                if foreign:
                    result.diagnostics.append(_error(
                        f"this folder holds {', '.join(foreign[:3])}{', …' if len(foreign) > 3 else ''}, which a build does not write; it was left untouched",
                        out_dir, "choose an empty folder or a previous build's folder with -o",
                    ))
                elif not stopped:  # a SIGTERM whose exception a finalizer swallowed
                    _swap(staging, out_dir, locks)
                    staging = None
        except OSError as exc:
            result.diagnostics.append(_os_error(exc, staging, out_dir))
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
    return result


def _versioned(result: Checked, out_dir: Path, base: Path | str | None) -> bool:
    """Stamp ``result.program`` with the version it publishes after ``base`` (see :func:`build`);
    False (with the error) when an explicit base cannot be used."""
    from rulebook.compiler.pipeline import versioning

    program = result.program
    assert program is not None
    if program.rulebook is None:
        return True
    previous = None
    where = out_dir if base == PREVIOUS else base
    if where is not None and (base != PREVIOUS or (Path(where) / "json" / "manifest.json").is_file()):
        try:
            previous = versioning.read_previous(Path(where), program.rulebook.name, _checked_program)
        except versioning.PreviousBuildError as exc:
            if base != PREVIOUS:
                result.diagnostics.append(_error(f"the base version cannot be used: {exc}", Path(where), "give --base a build or rulebook folder of this rulebook"))
                return False
            result.diagnostics.append(Diagnostic(
                "warning", f"the previous build cannot be compared ({exc}); this build publishes the declared version",
                Span(str(out_dir), 0, 0, 0, 0), "build into an empty folder, or give --base the previous build", "version"))
    from rulebook.compiler.support import i18n

    with i18n.using(i18n.of_rulebook(program)):  # the changes' labels are published: in the rulebook's language
        result.program = versioning.stamped(program, versioning.release(program, previous))
    return True


def _checked_program(folder: Path) -> Program | None:
    """A rulebook folder's program when it checks without errors (a ``--base`` folder)."""
    checked = check(folder)
    return checked.program if checked.ok else None


def _emit_all(result: Checked, staging: Path, site: bool, stages: Stages, allow_failing_examples: bool = False) -> None:
    """Python package → odds (computed by that package) → JSON → pages → site."""
    program = result.program
    assert program is not None
    ahead = stages.listings(program.sources)
    try:
        _emit_stages(result, program, staging, site, stages, ahead, allow_failing_examples)
    finally:
        if ahead is not None:
            ahead.close()


@contextlib.contextmanager
def _settled():
    """While a build emits, what each stage leaves for the next (the IR, the package, the
    odds, the documents) is taken out of the cyclic garbage collector's generations
    (``gc.freeze()`` after each stage), and put back when the build ends: it lives until
    then anyway, and each full collection used to traverse all of it again, a cost that
    grew with the content (at 50× content the collector made the python and JSON stages
    superlinear; ``build --no-site`` of the largest bundled rulebook: 2.9–3.0 → 2.8 s)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _emit_stages(result: Checked, program: Program, staging: Path, site: bool, stages: Stages,
                 ahead: to_pages.ListingsAhead | None, allow_failing_examples: bool = False) -> None:
    from rulebook.compiler.analysis import evaluations, odds
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.emit.data import to_json
    from rulebook.compiler.emit.js import to_js
    from rulebook.compiler.emit.js import armies as js_armies
    from rulebook.compiler.emit.site import to_pages
    from rulebook.compiler.emit.python import to_python

    t = time.perf_counter()
    to_python.write_package(program, staging / "python", stages.generate(program))
    result.timings["python"] = time.perf_counter() - t
    t = time.perf_counter()
    package = pyload.load_package(staging / "python")
    gc.freeze()  # see _settled
    worker, odds_tables = stages.odds_ahead(package), None
    balance_worker = stages.balance_ahead(program, package)  # the designers' page: the matchups, on the other core
    if worker is not None:  # the worked examples here, which the JSON and docs stages read, while a worker computes the odds
        try:
            t_examples = time.perf_counter()
            evaluations.evaluate_all(package)
            result.timings["examples"] = time.perf_counter() - t_examples
            odds_tables = worker.answer()
        finally:
            worker.close()
    if odds_tables is None:
        odds_tables = odds.compute(package)
    result.timings["odds"] = time.perf_counter() - t - result.timings.get("examples", 0.0)
    gc.freeze()
    failing = _failing_examples(package, result.sources, "warning" if allow_failing_examples else "error")
    result.diagnostics.extend(failing)
    if failing and not allow_failing_examples:
        return
    t = time.perf_counter()
    problems = to_json.write_all(program, staging, odds_tables, package, stages.json)
    result.timings["json"] = time.perf_counter() - t
    gc.freeze()
    for msg in problems:
        result.diagnostics.append(Diagnostic("error", msg, Span("<build>", 0, 0, 0, 0), None, "schema"))
    if problems:
        return
    t = time.perf_counter()
    to_js.write_package(program, staging / "js", to_js.generate(program, to_js.schemas_in(staging / "schemas")))
    js_armies.write_build(staging)  # js/armies*.js: the army documents and their roster validator, for JavaScript
    result.timings["js"] = time.perf_counter() - t
    t = time.perf_counter()
    try:
        to_pages.write_docs(program, staging, package, to_json.odds_doc(odds_tables)["tables"], stages.pages, ahead, balance_worker)
    finally:
        if balance_worker is not None:
            balance_worker.close()
    result.timings["docs"] = time.perf_counter() - t
    if site:
        t = time.perf_counter()
        err = to_pages.run_mkdocs(staging)
        result.timings["mkdocs"] = time.perf_counter() - t
        if err:
            result.diagnostics.append(Diagnostic("error", "mkdocs build --strict failed:\n" + _without_traceback(err), Span("<build>", 0, 0, 0, 0), None, "site"))


def _failing_examples(package: ModuleType, sources: dict[str, str], severity: str) -> list[Diagnostic]:
    """One diagnostic per worked example that does not hold (:func:`rulebook.compiler.analysis.examples.verdict`),
    at its first failing ``expect`` (or at the example when it stopped with an error)."""
    from rulebook.compiler.analysis import evaluations, examples

    out = []
    for index, example in enumerate(package.examples.EXAMPLES):
        ev, _ = evaluations.evaluated(package, index)
        res = examples.verdict(package, example, ev, with_distribution=False)
        if res.ok:
            continue
        reasons = res.failures + ([f"{example.src}: stopped with a rule error: {res.error}"] if res.error else [])
        where, reason = example.src, reasons[0]
        for src in [c.src for c in ev.checks] + [example.src]:
            if reason.startswith(src + ": "):
                where, reason = src, reason[len(src) + 2:]
                break
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        out.append(Diagnostic(
            severity, f"worked example {example.title!r} of {example.procedure} does not hold: {reason}{more}",
            _line_span(where, sources),
            "the rules give another result: fix the rule or the example (`rulebook test` shows the distribution); "
            "`rulebook build --allow-failing-examples` builds a draft whose vectors say \"holds\": false",
            "example",
        ))
    return out


def _line_span(src: str, sources: dict[str, str]) -> Span:
    """``file:line`` → the span of that line's text (without its indentation)."""
    file, _, line = src.rpartition(":")
    number = int(line) if line.isascii() and line.isdigit() else 0
    lines = sources.get(file, "").splitlines()
    if not 1 <= number <= len(lines):
        return Span(file or src, 0, 0, 0, 0)
    text = lines[number - 1]
    start = len(text) - len(text.lstrip())
    return Span(file, number, start + 1, number, max(len(text.rstrip()), start) + 1)


def _error(message: str, where: Path, hint: str | None = None) -> Diagnostic:
    return Diagnostic("error", message, Span(str(where), 0, 0, 0, 0), hint, "io")


def _os_error(exc: OSError, staging: Path | None, out_dir: Path) -> Diagnostic:
    """A file-system failure as a plain message with the cause, at the path (as it
    would be in ``out_dir``): ``build/json/x.json: error: cannot write the build
    output: No space left on device``."""
    where = exc.filename or exc.filename2
    shown = str(out_dir)
    if where is not None:
        path = Path(os.fsdecode(where))
        if staging is not None and path.is_relative_to(staging):
            shown = str(out_dir / path.relative_to(staging))
        elif not path.name.startswith(f".{out_dir.name}."):  # not a folder of the swap
            shown = str(path)
    cause = exc.strerror or str(exc)
    return Diagnostic("error", f"cannot write the build output: {cause}", Span(shown, 0, 0, 0, 0), _OS_HINTS.get(exc.errno), "io")


_OS_HINTS = {
    errno.ENOSPC: "free some disk space and build again",
    errno.EROFS: "the output folder is on a read-only file system; choose another with -o",
    errno.EACCES: "you may not write there; choose another folder with -o",
    errno.EFBIG: "a file of the build is over the file size limit (ulimit -f)",
    errno.EDQUOT: "the disk quota is exhausted",
}


def _without_traceback(err: str) -> str:
    """mkdocs' error output with a Python traceback reduced to its last line (the error itself)."""
    marker = "Traceback (most recent call last):"
    if marker not in err:
        return err
    head, _, tail = err.partition(marker)
    last = [line for line in tail.strip().splitlines() if line and not line.startswith((" ", "\t"))]
    return (head.rstrip() + "\n" + (last[-1] if last else "")).strip()


def _foreign_entries(out_dir: Path, staging: Path) -> list[str]:
    """What ``out_dir`` holds that a build does not write (sorted); [] when it is absent."""
    if not out_dir.exists():
        return []
    ours = {p.name for p in staging.iterdir()} | OPTIONAL_OUTPUTS
    return sorted(p.name for p in out_dir.iterdir() if p.name not in ours)


# ---------------------------------------------------------------------------- the swap


@contextlib.contextmanager
def _locked(folder: Path):
    """Hold an exclusive ``flock`` on ``folder`` (a no-op where flock does not exist).

    The lock lives as long as this process keeps the folder open, so another
    build can tell a folder being written from one left by a killed build."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _orphaned(folder: Path) -> bool:
    """Whether no running build holds ``folder`` (its lock can be taken)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no folder is known to be left over
        return False
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _clean_after_killed_builds(out_dir: Path) -> None:
    """Remove the staging folders of killed builds next to ``out_dir``; put back the
    previous output when a build died between the two renames of the fallback swap."""
    name = glob.escape(out_dir.name)
    for old in sorted(out_dir.parent.glob(f".{name}.old-*")):
        if old.is_dir() and _orphaned(old):
            if not out_dir.exists():
                os.rename(old, out_dir)
            else:
                shutil.rmtree(old, ignore_errors=True)
    for stale in sorted(out_dir.parent.glob(f".{name}.building-*")):
        if stale.is_dir() and _orphaned(stale):
            shutil.rmtree(stale, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False when
    the system or the file system cannot."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap(staging: Path, out_dir: Path, locks: contextlib.ExitStack) -> None:
    """Put ``staging`` in place of ``out_dir``; ``out_dir`` exists at every moment
    once it has existed. The previous output is removed afterwards."""
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    if _exchange(staging, out_dir):
        shutil.rmtree(staging, ignore_errors=True)  # the previous output, now at the staging path
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    locks.enter_context(_locked(out_dir))  # the lock moves with the folder: no other build restores it
    os.rename(out_dir, old)  # replaces the empty folder just made
    try:
        os.rename(staging, out_dir)
    except BaseException:
        os.rename(old, out_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def _stop_on_sigterm():
    """Turn SIGTERM into SystemExit while building (main thread only), so that the
    staging folder is removed and subprocesses (mkdocs) are killed on the way out.

    The exception can be lost when the signal lands in a finalizer ("Exception
    ignored in …"), so the signals received are also kept in the list this yields:
    the build does not swap after one, and leaves with SystemExit."""
    requested: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield requested
        return

    def stop(signum, frame):
        requested.append(signum)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield requested
    finally:
        signal.signal(signal.SIGTERM, previous)
    if requested:
        raise SystemExit(128 + requested[0])
