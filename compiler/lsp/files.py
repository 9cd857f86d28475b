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
* listing a folder looks at no more than the loader's ``MAX_ENTRIES`` files and folders
  (past them, the files found so far are the rulebook);
* the loader's limits (:mod:`rulebook.compiler.check.loader`) hold for files on disk
  and open documents alike: a file over ``MAX_FILE_BYTES`` is not read (nor checked)
  but reported, and reading stops at ``MAX_RULEBOOK_BYTES``; a link out of the folder,
  a link to nowhere and a control character in a name are refused, with the loader's
  messages.

Finding the files, reading one from disk and the total are the loader's own functions
(:func:`~rulebook.compiler.check.loader.find`, :func:`~rulebook.compiler.check.loader.read_file`,
:func:`~rulebook.compiler.check.loader.read_within_total`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from rulebook.rules_dsl.diagnostics import Diagnostic

from rulebook.compiler.check.loader import (
    MAX_ENTRIES, MAX_FILE_BYTES, SUFFIX, display_path, find, no_rules, read_file, read_within_total, too_large, too_many_entries,
)


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


def rule_files(root: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The readable ``.rules`` files of a rulebook folder, in manual (file-name) order, and
    a diagnostic for each file refused: the loader's :func:`find`, and past ``MAX_ENTRIES``
    the files found so far."""
    files, diags, complete = find(root, MAX_ENTRIES)
    if not complete:
        diags.insert(0, too_many_entries(
            root, MAX_ENTRIES, "only the .rules files among the first are read", "open the rulebook's own folder in the editor",
        ))
    return files, diags


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
    named = [(display_path(f, root.parent), f) for f in sorted(files)]

    def read(f: Path, name: str) -> tuple[str | None, int, Diagnostic | None]:
        text = open_texts.get(f)
        if text is None:
            return read_file(f, name)
        size = _size_of(text)
        return (None, size, too_large(size, name)) if size > MAX_FILE_BYTES else (text, size, None)

    paths: dict[str, Path] = {}
    sources: dict[str, str] = {}
    for (name, f), (_, text, problem) in zip(named, read_within_total(named, read)):  # stops where reading stops
        paths[name] = f
        if problem is not None:
            diags.append(problem)
        else:
            sources[name] = text
    if not paths and not diags:
        diags.append(no_rules(root))
    return paths, sources, diags


def file_key(path: Path) -> Path:
    """A file as the loader names it: its folders resolved, its own name kept (a link stays a link)."""
    return path.parent.resolve() / path.name
