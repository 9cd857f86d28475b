"""A rulebook folder as the language server sees it: files on disk, some of
them open (and edited) in the editor, checked again after every change.

Entry point: :meth:`Rulebook.analyze() -> Analysis`. It reads the rulebook's
``.rules`` files (the text of the open documents instead of the file on disk),
parses each with :func:`rulebook.rules_dsl.parser.parse` and checks them all with
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
from rulebook.compiler.check.loader import display_path, rule_files


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


def file_key(path: Path) -> Path:
    """A file as the loader names it: its folders resolved, its own name kept (a link stays a link)."""
    return path.parent.resolve() / path.name


def rulebook_root(file: Path) -> Path:
    """The rulebook folder a ``.rules`` file belongs to: its folder, or the
    highest folder above it that holds ``.rules`` files itself (a rulebook may
    keep some files in subfolders; ``rulebook check`` reads them all)."""
    folder = file.parent
    while folder.parent != folder and any(folder.parent.glob("*.rules")):
        folder = folder.parent
    return folder


class Rulebook:
    """A rulebook folder with the texts of its open documents."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self.open_texts: dict[Path, str] = {}
        self._parses: dict[str, tuple[str, n.Module, list[Diagnostic]]] = {}
        self._last: Analysis | None = None
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
        paths, sources, diags = self._read()
        last = self._last
        if last is not None and last.sources == sources and last.paths == paths:
            return last
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

    def _read(self) -> tuple[dict[str, Path], dict[str, str], list[Diagnostic]]:
        """The rulebook's files in manual order, with their texts, as the loader reads them."""
        files = {file_key(p) for p in rule_files(self.root)} if self.root.is_dir() else set()
        files |= {p for p in self.open_texts if p.suffix == ".rules" and self.root in p.parents}
        paths: dict[str, Path] = {}
        sources: dict[str, str] = {}
        diags: list[Diagnostic] = []
        for f in sorted(files):
            name = display_path(f, self.root.parent)
            paths[name] = f
            text = self.open_texts.get(f)
            if text is None:
                try:
                    text = f.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    diags.append(Diagnostic("error", f"cannot read file: {exc}", Span(name, 0, 0, 0, 0), "files must be UTF-8 text", "io"))
                    continue
            sources[name] = text
        if not paths:
            diags.append(Diagnostic("error", f"no .rules files in {self.root}", Span(str(self.root), 0, 0, 0, 0), None, "io"))
        return paths, sources, diags

    def _parse(self, name: str, text: str) -> tuple[n.Module, list[Diagnostic]]:
        cached = self._parses.get(name)
        if cached is not None and cached[0] == text:
            return cached[1], list(cached[2])
        self.parse_count += 1
        module, errors = parse(text, name)
        self._parses[name] = (text, module, errors)
        return module, list(errors)


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
