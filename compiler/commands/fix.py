"""``rulebook check --fix``: apply the exact rewrites the diagnostics carry, then check again.

Reads the diagnostics of a check (each may carry :class:`~rulebook.rules_dsl.diagnostics.Edit`
s: a span and its replacement, given only where the hint is an exact rewrite: an
old syntax written the new way, an enum value's spelling from before the naming rule,
``probability()`` around a true/false result) and the rulebook's files. Produces the
files rewritten and a report of what was done. Entry point:
:func:`apply(path, diagnostics, sources) -> Applied`.

Per file, all edits are applied together or none: a file whose edits overlap is left
untouched (and said so), as is a file that changed since it was checked. A file is
replaced in one step (a temporary file beside it, then ``os.replace``), so an
interrupted fix never leaves half a file. Applying the edits a second time finds
nothing to do: a fixed file no longer has the diagnostics that carried them.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rulebook.rules_dsl.diagnostics import Diagnostic, Edit, rewrite

from rulebook.compiler.check.loader import display_path, find, read_file
from rulebook.compiler.support.i18n import tell as _
from rulebook.compiler.support.i18n import tell_n as ngettext


@dataclass
class Applied:
    """What :func:`apply` did: edits made, files rewritten, and the files left untouched with why."""

    edits: int = 0
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "<file>: why it was left untouched"

    def summary(self) -> str:
        """What was fixed and what was not, in the user's language."""
        if self.edits:
            problems = ngettext("%(num)d problem", "%(num)d problems", self.edits) % {"num": self.edits}
            files = ngettext("%(num)d file", "%(num)d files", len(self.files)) % {"num": len(self.files)}
            done = _("fixed %(problems)s in %(files)s") % {"problems": problems, "files": files}
        else:
            done = _("nothing to fix")
        return "\n".join([done, *(_("not fixed: %(reason)s") % {"reason": why} for why in self.skipped)])


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".fix", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fp:
            fp.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with _quiet():
            os.unlink(tmp)
        raise


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], OSError)


def apply(path: Path, diagnostics: list[Diagnostic], sources: dict[str, str]) -> Applied:
    """Make the edits of ``diagnostics`` in the files of the rulebook at ``path`` (a folder
    or one file); ``sources``: the text each file had when it was checked, by its shown name."""
    by_file: dict[str, list[Edit]] = {}
    for d in diagnostics:
        for e in d.fix:
            by_file.setdefault(e.span.file, []).append(e)
    done = Applied()
    if not by_file:
        return done
    files, _folder, _problems = find(path)
    real = {display_path(f, path.parent): f for f in files}
    for name, edits in sorted(by_file.items()):
        file = real.get(name)
        if file is None or name not in sources:
            done.skipped.append(_("%(file)s: not a file of this rulebook") % {"file": name})
            continue
        text, _raw, problem = read_file(file, name)
        if problem is not None or text != sources[name]:
            done.skipped.append(_("%(file)s: it changed since it was checked; run the check again") % {"file": name})
            continue
        new = rewrite(text, edits)
        if new is None:
            done.skipped.append(ngettext("%(file)s: its %(num)d fix overlaps; it was left untouched (fix it by hand, or one at a time)",
                                         "%(file)s: its %(num)d fixes overlap; it was left untouched (fix it by hand, or one at a time)",
                                         len(edits)) % {"file": name, "num": len(edits)})
            continue
        if new != text:
            _write_atomically(file, new)
            done.edits += len({(e.span, e.text) for e in edits})
            done.files.append(name)
    return done
