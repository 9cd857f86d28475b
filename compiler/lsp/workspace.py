"""A rulebook folder as the language server sees it: files on disk, some of
them open (and edited) in the editor, checked again after every change.

Entry point: :meth:`Rulebook.analyze() -> Analysis`. It reads the rulebook's
``.rules`` files (the text of the open documents instead of the file on disk, within
the loader's limits: :mod:`rulebook.compiler.lsp.files`), parses each with :func:`rulebook.rules_dsl.parser.parse` and checks them all with
:func:`rulebook.compiler.check.check_program`, as ``rulebook check`` does: the same
files, the same names in diagnostics, the same messages.

It is incremental where it can be: a file's parse is kept, keyed by its text,
so an edit re-parses only the edited file. The checker runs over the whole
rulebook each time (declarations are global: an edit in one file can change
diagnostics in any other), and an analysis is reused as long as no text changed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Diagnostic, Reporter, Span
from rulebook.rules_dsl.parser import parse

from rulebook.compiler import ir
from rulebook.compiler.check import check_program
from rulebook.compiler.lsp.files import file_key, read_rulebook


@dataclass(slots=True)
class Analysis:
    """One checked state of a rulebook: the texts, their parses, every
    diagnostic and the program (built even when there are errors)."""

    root: Path
    paths: dict[str, Path]  # display name (as in spans) -> file
    sources: dict[str, str]
    modules: dict[str, n.Module]
    diagnostics: list[Diagnostic]
    program: ir.Program | None
    known: dict[str, ir.Declaration] = field(default_factory=dict)  # every declaration as last checked (completion)
    failure: str | None = None  # the checker itself failed on this text (a bug to report)
    cache: dict = field(default_factory=dict)  # what the features derive from it (the symbol index)

    def name_of(self, path: Path) -> str | None:
        """The display name of ``path`` in this rulebook, if it is one of its files."""
        key = file_key(path)
        return next((name for name, p in self.paths.items() if file_key(p) == key), None)


class Rulebook:
    """A rulebook folder (or a lone file, see :func:`~rulebook.compiler.lsp.files.rulebook_root`)
    with the texts of its open documents."""

    def __init__(self, root: Path):
        self.root = root.resolve() if root.is_dir() else file_key(root)
        self.open_texts: dict[Path, str] = {}
        self._parses: dict[str, tuple[str, n.Module, list[Diagnostic]]] = {}
        self._last: Analysis | None = None
        self._read_problems: list[Diagnostic] = []  # the files refused when the last analysis read them
        self._known: dict[str, ir.Declaration] = {}  # kept while a declaration is half-typed
        self.parse_count = 0  # how many files were parsed (the tests check that unchanged files are not)

    def set_text(self, path: Path, text: str | None) -> None:
        """The editor's text of ``path`` (None: closed, read it from disk again)."""
        if text is None:
            self.open_texts.pop(file_key(path), None)
        else:
            self.open_texts[file_key(path)] = text

    def analyze(self) -> Analysis:
        """Parse what changed and check the whole rulebook (or reuse the last
        analysis when no text changed)."""
        paths, sources, diags = read_rulebook(self.root, self.open_texts)
        last = self._last
        if last is not None and last.sources == sources and last.paths == paths and self._read_problems == diags:
            return last
        self._read_problems = list(diags)
        modules: dict[str, n.Module] = {}
        for name, text in sources.items():
            module, errors = self._parse(name, text)
            modules[name] = module
            diags.extend(errors)
        self._parses = {k: v for k, v in self._parses.items() if k in sources}
        reporter = Reporter(diags)
        program, failure = _check(list(modules.values()), sources, reporter)
        declared = {getattr(item, "name", None) for module in modules.values() for item in module.items}
        self._known = {name: d for name, d in self._known.items() if name in declared}
        if program is not None:
            self._known.update(program.decls)
            self._known.update(program.armies)  # armies are not declarations of the program's namespace, but have names
        self._last = Analysis(self.root, paths, sources, modules, reporter.diagnostics, program, dict(self._known), failure)
        return self._last

    def _parse(self, name: str, text: str) -> tuple[n.Module, list[Diagnostic]]:
        cached = self._parses.get(name)
        if cached is not None and cached[0] == text:
            return cached[1], list(cached[2])
        self.parse_count += 1
        module, errors = parse(text, name)
        self._parses[name] = (text, module, errors)
        return module, list(errors)


def check_texts(sources: dict[str, str]) -> list[Diagnostic]:
    """The diagnostics of a rulebook made of ``sources`` (display name → text), checked in
    memory as :meth:`Rulebook.analyze` checks the files (what a rename would leave)."""
    diags: list[Diagnostic] = []
    modules = []
    for name, text in sources.items():
        module, errors = parse(text, name)
        modules.append(module)
        diags.extend(errors)
    reporter = Reporter(diags)
    _check(modules, sources, reporter)
    return reporter.diagnostics


def _check(modules: list[n.Module], sources: dict[str, str], reporter: Reporter) -> tuple[ir.Program | None, str | None]:
    """The checker over the parsed modules, as ``rulebook.compiler.pipeline.driver.check`` runs it.

    Returns the program and, when the checker raised on this text, a
    description of the failure (its diagnostics so far are kept)."""
    if not modules:
        return None, None
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    try:
        return check_program(modules, sources, reporter), None
    except RecursionError:
        reporter.error("an expression is nested too deeply to check", Span(next(iter(sources)), 1, 1, 1, 1), "split it with let", "limit")
        return None, None
    except Exception as exc:  # a checker bug on half-typed text: the server must go on
        return None, f"{type(exc).__name__}: {exc}"
