"""Find and parse a rulebook's files.

Entry point: :func:`load(path) -> (modules, sources, diagnostics)`; ``path`` is a
folder of ``*.rules`` files (read in file-name order) or a single file.

What is read is bounded and stays inside the rulebook: a file found in the
folder that is a link to something outside it is refused, as is a file whose
name holds a control character (it would be written into generated code,
pages and terminals), a file over :data:`MAX_FILE_BYTES` and a rulebook over
:data:`MAX_RULEBOOK_BYTES`. Each refusal is a diagnostic naming the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Diagnostic, Span, escaped, has_control
from rulebook.rules_dsl.parser import parse

from rulebook.compiler.support import package_data

MAX_FILE_BYTES = 1024 * 1024
"""The largest ``.rules`` file read (the biggest file of the bundled manual is about 100 KB)."""

MAX_RULEBOOK_BYTES = 4 * 1024 * 1024
"""The most bytes of ``.rules`` files read for one rulebook (the bundled manual has about 520 KB)."""

PROJECT_ROOT = package_data.folder("content").parent
"""The folder holding the bundled rulebooks (the checkout, or the installed ``rulebook`` package)."""


def display_path(p: Path, base: Path | None = None) -> str:
    """A stable path for diagnostics and generated code, independent of the cwd.

    Relative to the project root when the file is inside it, else relative to
    the rulebook folder's parent (``base``), else as given. The file keeps its
    own name when it is a link (only the folders above it are resolved).
    """
    resolved = p.parent.resolve() / p.name
    for root in (PROJECT_ROOT, base):
        if root is None:
            continue
        try:
            return resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return p.as_posix()


def _io_error(message: str, where: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic("error", message, Span(where, 0, 0, 0, 0), hint, "io")


def _control_in_name(shown: str) -> Diagnostic:
    return _io_error(
        "this file name contains a control character; such names are not read", escaped(shown),
        "rename the file (names end up in generated code, pages and terminals)",
    )


def _find(path: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The readable ``.rules`` files of a rulebook in manual order, and a diagnostic
    for each file refused (a link out of the folder, a control character in its name)."""
    if path.is_file():
        shown = display_path(path, path.parent)
        return ([], [_control_in_name(shown)]) if has_control(shown) else ([path], [])
    root = path.resolve()
    files: list[Path] = []
    diags: list[Diagnostic] = []
    for p in sorted(path.rglob("*.rules")):
        shown = display_path(p, path.parent)
        if has_control(shown):
            diags.append(_control_in_name(shown))
            continue
        try:
            target = p.resolve(strict=True)
        except (OSError, RuntimeError):  # a dangling link or a loop of links
            diags.append(_io_error("this file is a link that leads nowhere", shown, "remove the link or restore its target"))
            continue
        if not target.is_relative_to(root):
            diags.append(_io_error(
                f"this file is a link to {escaped(str(target))}, outside the rulebook folder; links out of the rulebook are not followed",
                shown, "copy the file into the rulebook folder if it belongs to the rulebook",
            ))
            continue
        if target.is_file():
            files.append(p)
    return files, diags


def rule_files(path: Path) -> list[Path]:
    """The ``.rules`` files of a rulebook that :func:`load` reads, in manual (file-name) order."""
    return _find(path)[0]


Parse = Callable[[str, str], tuple[n.Module, list[Diagnostic]]]
"""What parses one file's text (and its name as shown): :func:`rulebook.rules_dsl.parser.parse`,
or a caller's version of it that remembers (``rulebook serve``)."""


def load(path: Path, parse: Parse = parse) -> tuple[list[n.Module], dict[str, str], list[Diagnostic]]:
    """Parse every file of the rulebook at ``path`` with ``parse``; never raises on bad input."""
    modules: list[n.Module] = []
    sources: dict[str, str] = {}
    where = escaped(str(path))
    if not path.exists():
        return modules, sources, [_io_error(f"no such file or folder: {where}", where)]
    try:
        files, diags = _find(path)
    except OSError as exc:
        return modules, sources, [_io_error(f"cannot read the rulebook folder: {exc.strerror or exc}", where)]
    if not files and not diags:
        diags.append(_io_error(f"no .rules files in {where}", where))
    total = 0
    for f in files:
        name = display_path(f, path.parent)
        try:
            size = f.stat().st_size
            if size > MAX_FILE_BYTES:
                diags.append(_io_error(f"this file has {size} bytes; a .rules file may have at most {MAX_FILE_BYTES}", name, "split it into several files"))
                continue
            total += size
            if total > MAX_RULEBOOK_BYTES:
                diags.append(_io_error(f"the rulebook is over {MAX_RULEBOOK_BYTES} bytes at this file; the rest is not read", name, None))
                break
            with f.open("rb") as stream:
                data = stream.read(MAX_FILE_BYTES + 1)  # the file may have grown since stat()
            if len(data) > MAX_FILE_BYTES:
                diags.append(_io_error(f"this file has over {MAX_FILE_BYTES} bytes; a .rules file may have at most {MAX_FILE_BYTES}", name, "split it into several files"))
                continue
            text = data.decode("utf-8")
        except OSError as exc:
            diags.append(_io_error(f"cannot read file: {exc.strerror or exc}", name))
            continue
        except UnicodeDecodeError as exc:
            line_start = data.rfind(b"\n", 0, exc.start) + 1
            line = data.count(b"\n", 0, exc.start) + 1
            col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
            diags.append(Diagnostic(
                "error", f"this file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded",
                Span(name, line, col, line, col + 1), "save the file as UTF-8", "io",
            ))
            continue
        sources[name] = text
        module, errs = parse(text, name)
        modules.append(module)
        diags.extend(errs)
    return modules, sources, diags
