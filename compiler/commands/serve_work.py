"""The private folder of ``rulebook serve`` in the temporary folder, and the leftovers of killed serves.

Reads: the system's temporary folder (``tempfile.gettempdir()``, so ``TMPDIR``). Produces: a
folder ``rulebook-serve-*`` for one serve (its builds: 20–30 MB for a large rulebook), removed
when the serve stops; and, first, the removal of the folders of serves that died without
removing theirs (``kill -9``, a crash, a machine that lost power). Entry point:
:func:`claimed` (a context manager giving the folder).

A serve holds an exclusive ``flock`` on its folder for as long as it runs; the system releases
it when the process ends, however it ends. A folder whose lock can be taken has no owner left,
so it is removed. The folder is made under another name (``.rulebook-serve-new-*``), locked,
and only then renamed: a folder under the final name is never one whose owner has not locked it
yet. A folder under the final name with no :data:`OWNER` file was made by an older ``rulebook``
that took no lock: it may be live, so it is left alone. Only folders of this user are looked at
(not links); a folder made but never renamed (its serve killed in between) is removed once it is
:data:`STALE_SECONDS` old.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from rulebook.rules_dsl.diagnostics import counted

PREFIX = "rulebook-serve-"
"""The folders of serves in the temporary folder."""

NEW_PREFIX = ".rulebook-serve-new-"
"""A serve's folder before it is locked and renamed."""

OWNER = "serve.pid"
"""The file in a serve's folder naming its process (for people; the lock decides)."""

STALE_SECONDS = 60.0
"""How old an unrenamed folder must be to be taken for a leftover."""


def _lock(fd: int, wait: bool) -> bool:
    """Take the exclusive lock of an open folder; False when another process holds it."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        return True
    except OSError:
        return False


def _open_folder(path: Path) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None


def clean_leftovers(base: Path) -> list[str]:
    """Remove the folders of dead serves from ``base``; returns their names."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    removed = []
    uid = os.getuid()
    now = time.time()
    for entry in entries:
        final = entry.name.startswith(PREFIX)
        if not (final or entry.name.startswith(NEW_PREFIX)):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
            continue
        path = Path(entry.path)
        if final and not (path / OWNER).is_file():
            continue  # an older rulebook's, which takes no lock: it may be live
        if not final and now - info.st_mtime < STALE_SECONDS:
            continue  # a serve making its folder right now
        fd = _open_folder(path)
        if fd is None:
            continue
        try:
            if _lock(fd, wait=False):  # its owner is gone
                shutil.rmtree(path, ignore_errors=True)
                if not path.exists():
                    removed.append(entry.name)
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def claimed(log=print):
    """A new folder for this serve, locked while it runs and removed afterwards; the folders of
    dead serves are removed first (and said so through ``log``). Without ``flock`` (not POSIX),
    a plain temporary folder."""
    if os.name != "posix":  # pragma: no cover - no flock
        with tempfile.TemporaryDirectory(prefix=PREFIX) as tmp:
            yield Path(tmp)
        return
    base = Path(tempfile.gettempdir())
    removed = clean_leftovers(base)
    if removed:
        log(f"removed {counted(len(removed), 'folder')} left in {base} by serves that were killed")
    new = Path(tempfile.mkdtemp(prefix=NEW_PREFIX, dir=base))
    fd = os.open(new, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _lock(fd, wait=True)
        (new / OWNER).write_text(f"{os.getpid()}\n", encoding="ascii")
        folder = base / (PREFIX + new.name.removeprefix(NEW_PREFIX))
        os.rename(new, folder)  # the lock goes with the folder
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        os.close(fd)
        raise
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(fd)
