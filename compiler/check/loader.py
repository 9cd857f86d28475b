"""Find and read a rulebook's files.

Reads: the file system under a rulebook's folder (or a single file). Produces:
:func:`load(path) -> (modules, sources, diagnostics)`, the parsed files (read in
file-name order) with a diagnostic for each problem; and, for the language server
(:mod:`rulebook.compiler.lsp.files`), which reads the same files within the same
limits, its parts: :func:`find` (a rulebook's files, over a bounded walk),
:func:`read_file` (one file's text, or why it is not read) and
:func:`read_within_total` (the files read in order up to :data:`MAX_RULEBOOK_BYTES`).

What is read is bounded and stays inside the rulebook: listing a folder looks at
no more than :data:`MAX_ENTRIES` files and folders (past them the folder is not
read: ``rulebook check /`` would walk the whole disk); a file found in the
folder that is a link to something outside it is refused, as is a file whose
name holds a control character (it would be written into generated code,
pages and terminals), a file over :data:`MAX_FILE_BYTES` and a rulebook over
:data:`MAX_RULEBOOK_BYTES`. Each refusal is a diagnostic naming the file (or the
folder).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Diagnostic, Span, escaped, has_control
from rulebook.rules_dsl.parser import parse

from rulebook.compiler.support import package_data

MAX_FILE_BYTES = 1024 * 1024
"""The largest ``.rules`` file read (the biggest file of the bundled manual is about 100 KB)."""

MAX_RULEBOOK_BYTES = 4 * 1024 * 1024
"""The most bytes of ``.rules`` files read for one rulebook (the bundled manual has about 520 KB)."""

MAX_ENTRIES = 10_000
"""The most files and folders looked at to list a rulebook folder (the bundled
rulebooks have a few dozen)."""

SUFFIX = ".rules"

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


def io_error(message: str, where: str, hint: str | None = None) -> Diagnostic:
    """A diagnostic about reading (code ``io``) at the start of ``where``."""
    return Diagnostic("error", message, Span(where, 0, 0, 0, 0), hint, "io")


def _control_in_name(shown: str) -> Diagnostic:
    return io_error(
        "this file name contains a control character; such names are not read", escaped(shown),
        "rename the file (names end up in generated code, pages and terminals)",
    )


def too_many_entries(folder: Path, limit: int, consequence: str, hint: str) -> Diagnostic:
    """The diagnostic of a rulebook folder whose listing stopped at ``limit`` entries."""
    where = escaped(str(folder))
    return io_error(f"the rulebook folder {where} holds over {limit} files and folders; {consequence}", where, hint)


def too_large(size: int, name: str) -> Diagnostic:
    return io_error(f"this file has {size} bytes; a .rules file may have at most {MAX_FILE_BYTES}", name, "split it into several files")


def over_total(name: str) -> Diagnostic:
    return io_error(f"the rulebook is over {MAX_RULEBOOK_BYTES} bytes at this file; the rest is not read", name, None)


def no_rules(path: Path) -> Diagnostic:
    where = escaped(str(path))
    return io_error(f"no .rules files in {where}", where)


def walk(root: Path, limit: int | None = None) -> tuple[list[Path], bool]:
    """The entries named ``*.rules`` under ``root`` (into folders, not into links to
    folders, as :meth:`Path.rglob` goes), looking at no more than ``limit`` files and
    folders (:data:`MAX_ENTRIES` by default), and whether all of it was looked at."""
    found: list[Path] = []
    folders = [root]
    budget = MAX_ENTRIES if limit is None else limit
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(itertools.islice(listing, budget + 1))
        except OSError:
            continue
        if len(entries) > budget:
            return found, False
        budget -= len(entries)
        for entry in entries:
            if entry.name.endswith(SUFFIX):
                found.append(folder / entry.name)
            try:
                if entry.is_dir() and not entry.is_symlink():
                    folders.append(folder / entry.name)
            except OSError:
                continue
    return found, True


def find(path: Path, limit: int | None = None) -> tuple[list[Path], list[Diagnostic], bool]:
    """The readable ``.rules`` files of a rulebook (a folder or a single file) in manual
    (file-name) order, a diagnostic for each file refused (a link out of the folder or to
    nowhere, a control character in its name), and whether the folder was listed whole
    (:func:`walk`, bounded by ``limit``); when it was not, the files are those found."""
    if path.is_file():
        shown = display_path(path, path.parent)
        return ([], [_control_in_name(shown)], True) if has_control(shown) else ([path], [], True)
    entries, complete = walk(path, limit)
    root = path.resolve()
    files: list[Path] = []
    diags: list[Diagnostic] = []
    for p in sorted(entries):
        shown = display_path(p, path.parent)
        if has_control(shown):
            diags.append(_control_in_name(shown))
            continue
        try:
            target = p.resolve(strict=True)
        except (OSError, RuntimeError):  # a dangling link or a loop of links
            diags.append(io_error("this file is a link that leads nowhere", shown, "remove the link or restore its target"))
            continue
        if not target.is_relative_to(root):
            diags.append(io_error(
                f"this file is a link to {escaped(str(target))}, outside the rulebook folder; links out of the rulebook are not followed",
                shown, "copy the file into the rulebook folder if it belongs to the rulebook",
            ))
            continue
        if target.is_file():
            files.append(p)
    return files, diags, complete


def rule_files(path: Path) -> list[Path]:
    """The ``.rules`` files of a rulebook that :func:`load` reads, in manual (file-name) order."""
    files, _, complete = find(path)
    return files if complete else []


def read_file(path: Path, name: str) -> tuple[str | None, int, Diagnostic | None]:
    """A file's text and its size in bytes, or ``None``, its size as far as known (over
    :data:`MAX_FILE_BYTES` when it is too large) and why it is not read; ``name`` is the
    file as diagnostics show it."""
    size = 0
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, size, too_large(size, name)
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)  # the file may have grown since stat()
        if len(data) > MAX_FILE_BYTES:
            return None, len(data), io_error(
                f"this file has over {MAX_FILE_BYTES} bytes; a .rules file may have at most {MAX_FILE_BYTES}", name, "split it into several files")
        return data.decode("utf-8"), len(data), None
    except OSError as exc:
        return None, size, io_error(f"cannot read file: {exc.strerror or exc}", name)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
        return None, len(data), Diagnostic(
            "error", f"this file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded",
            Span(name, line, col, line, col + 1), "save the file as UTF-8", "io",
        )


Read = Callable[[Path, str], tuple[str | None, int, Diagnostic | None]]
"""What reads one file (and its name as shown): :func:`read_file`, or the language
server's version of it that takes an open document's text instead."""


def read_within_total(files: Iterable[tuple[str, Path]], read: Read = read_file) -> Iterator[tuple[str, str | None, Diagnostic | None]]:
    """``(name, text, None)`` for each ``(name, file)`` read, in order, or ``(name, None, why)``
    for a file not read; a file not read does not count towards :data:`MAX_RULEBOOK_BYTES`,
    and past it the files are not read (the last one yielded says so)."""
    total = 0
    for name, f in files:
        text, size, problem = read(f, name)
        if problem is not None:
            yield name, None, problem
            continue
        total += size
        if total > MAX_RULEBOOK_BYTES:
            yield name, None, over_total(name)
            return
        yield name, text, None


Parse = Callable[[str, str], tuple[n.Module, list[Diagnostic]]]
"""What parses one file's text (and its name as shown): :func:`rulebook.rules_dsl.parser.parse`,
or a caller's version of it that remembers (``rulebook serve``)."""


def load(path: Path, parse: Parse = parse) -> tuple[list[n.Module], dict[str, str], list[Diagnostic]]:
    """Parse every file of the rulebook at ``path`` with ``parse``; never raises on bad input."""
    modules: list[n.Module] = []
    sources: dict[str, str] = {}
    where = escaped(str(path))
    if not path.exists():
        return modules, sources, [io_error(f"no such file or folder: {where}", where)]
    try:
        files, diags, complete = find(path)
    except OSError as exc:
        return modules, sources, [io_error(f"cannot read the rulebook folder: {exc.strerror or exc}", where)]
    if not complete:
        return modules, sources, [too_many_entries(
            path, MAX_ENTRIES, "it is not read", "check the rulebook's own folder, the one holding its .rules files",
        )]
    if not files and not diags:
        diags.append(no_rules(path))
    for name, text, problem in read_within_total((display_path(f, path.parent), f) for f in files):
        if problem is not None:
            diags.append(problem)
            continue
        sources[name] = text
        module, errs = parse(text, name)
        modules.append(module)
        diags.extend(errs)
    return modules, sources, diags
