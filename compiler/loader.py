"""Find and parse a rulebook's files.

Entry point: :func:`load(path) -> (modules, sources, diagnostics)`; ``path`` is a
folder of ``*.rules`` files (read in file-name order) or a single file.
"""

from __future__ import annotations

from pathlib import Path

from rules_dsl import nodes as n
from rules_dsl.diagnostics import Diagnostic, Span
from rules_dsl.parser import parse


def rule_files(path: Path) -> list[Path]:
    """The ``.rules`` files of a rulebook, in manual (file-name) order."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.rules") if p.is_file())


PROJECT_ROOT = Path(__file__).resolve().parent.parent


def display_path(p: Path, base: Path | None = None) -> str:
    """A stable path for diagnostics and generated code, independent of the cwd.

    Relative to the project root when the file is inside it, else relative to
    the rulebook folder's parent (``base``), else as given.
    """
    resolved = p.resolve()
    for root in (PROJECT_ROOT, base):
        if root is None:
            continue
        try:
            return resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return p.as_posix()


def load(path: Path) -> tuple[list[n.Module], dict[str, str], list[Diagnostic]]:
    """Parse every file of the rulebook at ``path``; never raises on bad input."""
    modules: list[n.Module] = []
    sources: dict[str, str] = {}
    diags: list[Diagnostic] = []
    if not path.exists():
        diags.append(Diagnostic("error", f"no such file or folder: {path}", Span(str(path), 0, 0, 0, 0), None, "io"))
        return modules, sources, diags
    files = rule_files(path)
    if not files:
        diags.append(Diagnostic("error", f"no .rules files in {path}", Span(str(path), 0, 0, 0, 0), None, "io"))
    for f in files:
        name = display_path(f, path.parent)
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            diags.append(Diagnostic("error", f"cannot read file: {exc}", Span(name, 0, 0, 0, 0), "files must be UTF-8 text", "io"))
            continue
        sources[name] = text
        module, errs = parse(text, name)
        modules.append(module)
        diags.extend(errs)
    return modules, sources, diags
