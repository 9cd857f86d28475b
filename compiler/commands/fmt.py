"""``rulebook fmt [PATHS] [--check] [--diff]``: rewrite ``.rules`` files in the canonical layout.

Reads the ``.rules`` files of the paths given (files, or rulebook folders; by default every
bundled rulebook). Produces, per file changed by :func:`rulebook.compiler.format.format_source`:
the file rewritten in one step (a temporary file beside it, then ``os.replace``), or with
``--check`` its name ("would reformat"), or with ``--diff`` a unified diff; then a summary.
Entry point: :func:`main(args) -> int` (0: nothing to do or done; 1: ``--check`` found a file
to reformat, or a file could not be formatted).

Before a file is written (or reported as one to reformat) its new text is parsed and its
syntax tree compared with the original's, positions aside
(:func:`rulebook.compiler.format.same_meaning`); for a rulebook folder the checked IR of the
whole rulebook is compared too (:func:`rulebook.compiler.format.same_program`). A file that
does not parse gets the parser's diagnostics (file:line:col, caret, hint) and is not written;
a file whose meaning would change is refused, named, and not written. A file already in
the canonical layout is not parsed at all: ``rulebook check`` reports its errors.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rulebook.rules_dsl.diagnostics import render_all

from rulebook.compiler.check.loader import display_path, find, read_file
from rulebook.compiler.commands.fix import _write_atomically
from rulebook.compiler.format import Formatted, format_source, same_meaning, same_program
from rulebook.compiler.support.i18n import diagnostics_summary
from rulebook.compiler.support.i18n import tell as _
from rulebook.compiler.support.i18n import tell_n as ngettext


@dataclass
class _Book:
    """The files of one path given: (shown name, path, original text, formatted text), and the
    rulebook folder whose checked IR is compared before writing (None: the syntax trees only)."""

    folder: Path | None
    files: list[tuple[str, Path, str, Formatted]] = field(default_factory=list)


def _books(paths: list[Path], problems: list) -> list[_Book]:
    books: list[_Book] = []
    for path in paths:
        if not path.exists():
            problems.append(None)
            print(_("error: %(message)s") % {"message": _("no such file or folder: %(path)s") % {"path": path}}, file=sys.stderr)
            continue
        files, diags, _complete = find(path)
        problems.extend(diags)
        book = _Book(folder=path if path.is_dir() else (path.parent if path.suffix == ".rules" else None))
        for f in files:
            name = display_path(f, (book.folder or path).parent)
            text, _size, problem = read_file(f, name)
            if problem is not None:
                problems.append(problem)
                continue
            book.files.append((name, f, text, format_source(text)))
        books.append(book)
    return books


def _rulebook_sources(book: _Book) -> dict[str, str] | None:
    """The texts of every file of the rulebook folder of ``book`` (by shown name), or None when
    one cannot be read."""
    files, diags, complete = find(book.folder)
    if diags or not complete:
        return None
    sources = {}
    for f in files:
        name = display_path(f, book.folder.parent)
        text, _size, problem = read_file(f, name)
        if problem is not None:
            return None
        sources[name] = text
    return sources


def _parse_errors(name: str, text: str) -> bool:
    """Print the parser's errors of a file (file:line:col, caret, hint); whether it had any."""
    from rulebook.rules_dsl.parser import parse

    _module, diags = parse(text, name)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        print(render_all(errors, {name: text}, "text", summarize=diagnostics_summary), file=sys.stderr)
    return bool(errors)


def main(args) -> int:
    """Run ``rulebook fmt`` with the parsed command line (``paths``, ``check``, ``diff``)."""
    from rulebook.compiler.pipeline import driver

    paths = list(args.paths) or driver.bundled_rulebooks()
    problems: list = []
    books = _books(paths, problems)
    failed = any(p is None for p in problems)
    shown_problems = [p for p in problems if p is not None]
    if shown_problems:
        print(render_all(shown_problems, {}, "text", summarize=diagnostics_summary), file=sys.stderr)
        failed = True
    changed: list[tuple[str, Path, str, str]] = []
    unchanged = 0
    for book in books:
        ok_files = []
        for name, path, old, formatted in book.files:
            if formatted.kept:  # a fence it could not read: the parser says why
                if _parse_errors(name, old):
                    print(_("error: %(file)s cannot be formatted: it does not parse") % {"file": name}, file=sys.stderr)
                    failed = True
                    continue
                for line, col, _why in formatted.kept:
                    print(_("%(file)s:%(line)d:%(col)d: warning: this code block was left as it was") % {"file": name, "line": line, "col": col}, file=sys.stderr)
            new = formatted.text
            if new == old:
                unchanged += 1
                continue
            if not same_meaning(old, new, name):
                if _parse_errors(name, old):
                    print(_("error: %(file)s cannot be formatted: it does not parse") % {"file": name}, file=sys.stderr)
                else:
                    print(_("error: %(file)s was not formatted: the new layout would not mean the same "
                            "(a bug of rulebook fmt; please report it with the file)") % {"file": name}, file=sys.stderr)
                failed = True
                continue
            ok_files.append((name, path, old, new))
        if ok_files and book.folder is not None and not args.check and not args.diff:
            before = _rulebook_sources(book)
            if before is not None and all(name in before for name, *_rest in ok_files):
                after = {**before, **{name: new for name, _p, _o, new in ok_files}}
                if same_program(before, after) is False:
                    print(_("error: %(files)s not formatted: the rulebook's checked program would differ "
                            "(a bug of rulebook fmt; please report it with the files)") % {"files": ", ".join(n for n, *_r in ok_files)}, file=sys.stderr)
                    failed = True
                    continue
        changed.extend(ok_files)
    for name, path, old, new in changed:
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"{name}", f"{name}"))
        if args.check:
            print(_("would reformat %(file)s") % {"file": name}, file=sys.stderr)
        elif not args.diff:
            _write_atomically(path, new)
    _summary(len(changed), unchanged, args)
    if failed or (args.check and changed):
        return 1
    return 0


def _summary(changed: int, unchanged: int, args) -> None:
    if args.check or args.diff:
        done = ngettext("%(num)d file would be reformatted", "%(num)d files would be reformatted", changed) % {"num": changed}
    else:
        done = ngettext("%(num)d file reformatted", "%(num)d files reformatted", changed) % {"num": changed}
    same = ngettext("%(num)d file left unchanged", "%(num)d files left unchanged", unchanged) % {"num": unchanged}
    print(f"{done}, {same}", file=sys.stderr)
