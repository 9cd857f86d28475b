"""Which files make a document's rulebook, and their texts, as the language server
reads them: within the editor's workspace and the loader's limits.

Reads: the file system (a bounded walk) and the texts of the documents open in the
editor. Produces: :func:`rulebook_root` (the folder, or the lone file, that is a
document's rulebook) and :func:`read_rulebook` (the rulebook's files by display
name, their texts, and a diagnostic for each file refused).

The server never reads more than ``rulebook check`` would, nor outside what the
editor opened:

* a rulebook folder never lies above the workspace folder that holds the document
  (``rootUri``/``workspaceFolders``); a document outside every workspace folder, or
  with no other ``.rules`` file beside it or above it, is a rulebook of its own;
* listing a folder looks at no more than :data:`MAX_ENTRIES` files and folders;
* the loader's limits (:mod:`rulebook.compiler.check.loader`) hold for files on disk
  and open documents alike: a file over ``MAX_FILE_BYTES`` is not read (nor checked)
  but reported, and reading stops at ``MAX_RULEBOOK_BYTES``; a link out of the folder,
  a link to nowhere and a control character in a name are refused, with the loader's
  messages.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from rulebook.rules_dsl.diagnostics import Diagnostic, Span, escaped, has_control

from rulebook.compiler.check.loader import MAX_FILE_BYTES, MAX_RULEBOOK_BYTES, display_path

MAX_ENTRIES = 10_000
"""The most files and folders looked at to list a rulebook folder (the bundled
rulebooks have a few dozen); past them, the files found so far are the rulebook."""

SUFFIX = ".rules"


def _io_error(message: str, where: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic("error", message, Span(where, 0, 0, 0, 0), hint, "io")


def _holds_rules(folder: Path, besides: Path | None = None) -> bool:
    """Does ``folder`` itself hold a ``.rules`` file (other than ``besides``)? Looks at
    :data:`MAX_ENTRIES` of its entries at most."""
    try:
        with os.scandir(folder) as entries:
            for entry in itertools.islice(entries, MAX_ENTRIES):
                if entry.name.endswith(SUFFIX) and (besides is None or entry.name != besides.name) and entry.is_file():
                    return True
    except OSError:
        return False
    return False


def rulebook_root(file: Path, workspace: Sequence[Path] = ()) -> Path:
    """The rulebook of a ``.rules`` document: its folder, or the highest folder above it
    that holds ``.rules`` files itself (a rulebook may keep files in subfolders), never
    above the workspace folder that holds it (with no workspace folder, never above its
    own); the document alone when it is in none of the ``workspace`` folders (resolved
    paths), or when no other ``.rules`` file is beside it nor in a folder above it."""
    folder = file.parent
    holding = [w for w in workspace if w == folder or w in folder.parents]
    if workspace and not holding:
        return file
    top = max(holding, key=lambda w: len(w.parts)) if holding else folder
    while folder != top and _holds_rules(folder.parent):
        folder = folder.parent
    if folder == file.parent and not _holds_rules(folder, besides=file):
        return file
    return folder


def _walk(root: Path) -> tuple[list[Path], bool]:
    """The entries named ``*.rules`` under ``root`` (into folders, not into links to
    folders, as :meth:`Path.rglob` goes), and whether all of it was looked at."""
    found: list[Path] = []
    folders = [root]
    budget = MAX_ENTRIES
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


def _control_in_name(shown: str) -> Diagnostic:
    return _io_error(
        "this file name contains a control character; such names are not read", escaped(shown),
        "rename the file (names end up in generated code, pages and terminals)",
    )


def rule_files(root: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The readable ``.rules`` files of a rulebook folder, in manual (file-name) order, and
    a diagnostic for each file refused: the loader's ``rule_files`` over a bounded walk."""
    entries, complete = _walk(root)
    resolved = root.resolve()
    files: list[Path] = []
    diags: list[Diagnostic] = []
    if not complete:
        diags.append(_io_error(
            f"the rulebook folder {escaped(str(root))} holds over {MAX_ENTRIES} files and folders; only the .rules files among the first are read",
            escaped(str(root)), "open the rulebook's own folder in the editor",
        ))
    for p in sorted(entries):
        shown = display_path(p, root.parent)
        if has_control(shown):
            diags.append(_control_in_name(shown))
            continue
        try:
            target = p.resolve(strict=True)
        except (OSError, RuntimeError):  # a dangling link or a loop of links
            diags.append(_io_error("this file is a link that leads nowhere", shown, "remove the link or restore its target"))
            continue
        if not target.is_relative_to(resolved):
            diags.append(_io_error(
                f"this file is a link to {escaped(str(target))}, outside the rulebook folder; links out of the rulebook are not followed",
                shown, "copy the file into the rulebook folder if it belongs to the rulebook",
            ))
            continue
        if target.is_file():
            files.append(p)
    return files, diags


def _too_large(size: int, name: str) -> Diagnostic:
    return _io_error(f"this file has {size} bytes; a .rules file may have at most {MAX_FILE_BYTES}", name, "split it into several files")


def _read_file(path: Path, name: str) -> tuple[str | None, int, Diagnostic | None]:
    """A file's text and size in bytes, or why it is not read (as the loader says it)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, size, _too_large(size, name)
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)  # the file may have grown since stat()
        if len(data) > MAX_FILE_BYTES:
            return None, len(data), _too_large(len(data), name)
        return data.decode("utf-8"), len(data), None
    except OSError as exc:
        return None, 0, _io_error(f"cannot read file: {exc.strerror or exc}", name)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
        return None, len(data), Diagnostic(
            "error", f"this file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded",
            Span(name, line, col, line, col + 1), "save the file as UTF-8", "io",
        )


def _size_of(text: str) -> int:
    """The bytes of a text in UTF-8 (a lone surrogate, which JSON can carry, counted as three)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def read_rulebook(root: Path, open_texts: dict[Path, str]) -> tuple[dict[str, Path], dict[str, str], list[Diagnostic]]:
    """The files of the rulebook at ``root`` (a folder, or a lone file) by display name,
    the texts read (an open document's text instead of its file), and the diagnostics of
    the files refused or not read. ``open_texts`` is keyed by :func:`file_key`."""
    diags: list[Diagnostic] = []
    if root.is_dir():
        found, diags = rule_files(root)
        files = {file_key(p) for p in found}
        files |= {p for p in open_texts if p.suffix == SUFFIX and root in p.parents}
    else:
        files = {root} if root.is_file() or root in open_texts else set()
    paths: dict[str, Path] = {}
    sources: dict[str, str] = {}
    total = 0
    for f in sorted(files):
        name = display_path(f, root.parent)
        paths[name] = f
        text = open_texts.get(f)
        if text is None:
            text, size, problem = _read_file(f, name)
        else:
            size = _size_of(text)
            problem = _too_large(size, name) if size > MAX_FILE_BYTES else None
        if problem is not None:
            diags.append(problem)
            continue
        total += size
        if total > MAX_RULEBOOK_BYTES:
            diags.append(_io_error(f"the rulebook is over {MAX_RULEBOOK_BYTES} bytes at this file; the rest is not read", name, None))
            break
        sources[name] = text
    if not paths and not diags:
        diags.append(_io_error(f"no .rules files in {escaped(str(root))}", escaped(str(root))))
    return paths, sources, diags


def file_key(path: Path) -> Path:
    """A file as the loader names it: its folders resolved, its own name kept (a link stays a link)."""
    return path.parent.resolve() / path.name
