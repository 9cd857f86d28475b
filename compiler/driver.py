"""The pipeline: load → parse → check (→ typed IR) → emit, with atomic output.

Entry points:
    :func:`check(path) -> Checked` — diagnostics (and the program when clean);
    :func:`build(path, out_dir, site=True) -> Checked` — every output, written to a
    fresh folder and swapped in only when everything succeeded, so a failed or
    interrupted build leaves the previous output intact.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rules_dsl.diagnostics import Diagnostic, Reporter, Span

from .check import check_program
from .ir import Program
from .loader import load

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RULEBOOK = ROOT / "content" / "1936"


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


def check(path: Path) -> Checked:
    """Parse and check a rulebook (a folder of .rules files, or one file)."""
    import sys

    # deeply nested expressions recurse in the parser and checker
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    modules, sources, diags = load(path)
    rep = Reporter(list(diags))
    try:
        program = check_program(modules, sources, rep) if modules else None
    except RecursionError:
        rep.error("an expression is nested too deeply to check", Span(next(iter(sources), "<rulebook>"), 1, 1, 1, 1), "split it with let", "limit")
        program = None
    return Checked(program, rep.diagnostics, sources)


def build(path: Path, out_dir: Path, site: bool = True) -> Checked:
    """Check, then emit json/, schemas/, python/, docs/ (and site/) into ``out_dir``.

    Nothing in ``out_dir`` changes unless the whole build succeeds.
    """
    import time

    t0 = time.perf_counter()
    result = check(path)
    result.timings["check"] = time.perf_counter() - t0
    if not result.ok or result.program is None:
        return result
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.building-", dir=out_dir.parent))
    try:
        _emit_all(result, staging, site)
        if not result.ok:
            shutil.rmtree(staging, ignore_errors=True)
            return result
        _swap(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


def _emit_all(result: Checked, staging: Path, site: bool) -> None:
    """Python package → odds (computed by that package) → JSON → pages → site."""
    import time

    from . import odds, pyload, to_json, to_pages, to_python

    program = result.program
    assert program is not None
    t = time.perf_counter()
    to_python.write_package(program, staging / "python")
    result.timings["python"] = time.perf_counter() - t
    t = time.perf_counter()
    package = pyload.load_package(staging / "python")
    odds_tables = odds.compute(package)
    result.timings["odds"] = time.perf_counter() - t
    t = time.perf_counter()
    problems = to_json.write_all(program, staging, odds_tables)
    result.timings["json"] = time.perf_counter() - t
    for msg in problems:
        result.diagnostics.append(Diagnostic("error", msg, Span("<build>", 0, 0, 0, 0), None, "schema"))
    if problems:
        return
    t = time.perf_counter()
    to_pages.write_docs(program, staging, package, to_json.odds_doc(odds_tables)["tables"])
    result.timings["docs"] = time.perf_counter() - t
    if site:
        t = time.perf_counter()
        err = to_pages.run_mkdocs(staging)
        result.timings["mkdocs"] = time.perf_counter() - t
        if err:
            result.diagnostics.append(Diagnostic("error", "mkdocs build --strict failed:\n" + err, Span("<build>", 0, 0, 0, 0), None, "site"))


def _swap(staging: Path, out_dir: Path) -> None:
    """Replace ``out_dir`` by ``staging`` with two renames."""
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        if old.exists():
            shutil.rmtree(old)
        os.replace(out_dir, old)
    os.replace(staging, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
