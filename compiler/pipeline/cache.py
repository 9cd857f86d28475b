"""Compiled resolver packages kept by the rulebook's content hash, so that a warm
``rulebook resolve`` neither re-checks nor re-generates the rulebook.

Reads: the bytes of a rulebook's ``.rules`` files (no parsing) and of the
compiler's own sources; on a miss, the checked :class:`rulebook.compiler.ir.Program`.
Produces: a verified cache entry — the generated package with its bytecode,
and ``resolve.json`` (the JSON Schemas and the procedure listing that
``rulebook resolve`` needs) — and, from it, an imported :class:`Compiled`.
Entry points: :func:`key(rulebook) -> str | None`, :func:`open_entry(key) ->
Compiled | None`, :func:`store(key, program) -> Compiled`, :func:`clear()`.

Layout: ``$XDG_CACHE_HOME/rulebook/`` (``~/.cache/rulebook/`` when the variable
is unset), one folder per key holding ``python/<package>/`` (sources and
``__pycache__/*.pyc``), ``resolve.json`` and ``manifest.json`` (the SHA-256 of
every other file of the entry). At most :data:`MAX_ENTRIES` entries are kept,
the least recently used are removed. ``rulebook resolve --clear-cache`` (or
removing the folder) empties it; ``--no-cache`` neither reads nor writes it.

The key is the SHA-256 of: the format of an entry, the Python version, the
bytes of every ``.py``/``.lark`` file of ``compiler/``, ``rules_dsl/`` and
``runtime/`` (the compiler version: any change to the compiler or the
runtime makes a new key), the rulebook's resolved location (positions cited
by generated code depend on it), and the name, link target and bytes of every
``*.rules`` file under it — a superset of what :func:`rulebook.compiler.check.loader.load`
reads, so two rulebooks with one key check and compile identically.

An entry is written into a fresh folder beside the others and renamed into
place under an exclusive ``flock`` on ``.lock``, so a reader sees a whole entry
or none; the bytecode is written hash-checked
(:attr:`py_compile.PycInvalidationMode.CHECKED_HASH`). Before anything is
imported, the entry is verified against its manifest (every file's hash, no
file more or less): an interrupted, truncated or altered entry is removed and
built again, never trusted.

Threat model. The cache holds code that this process imports, so whoever can
write to it can run code as the user. Other local users are the threat; the
user's own processes are trusted. The cache folder is created ``0700``; the
cache folder, the entry, every folder and file in it must be owned by the
current user, must not be writable by group or others, and must not be a
symbolic link — otherwise the cache is not used at all (a warning says why,
and the rulebook is compiled into a private temporary folder as without a
cache). An attacker cannot create files owned by someone else, so a planted
folder is refused; one who can already write as the user is out of scope.
The hashes in the manifest protect against accidents (a full disk, a killed
process, a truncated copy), not against the user.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


FORMAT = "rulebook-resolve-cache 1"
"""Changes when the layout of an entry changes."""

MAX_ENTRIES = 8
"""Entries kept; the least recently used are removed when a new one is written."""

_SOURCE_DIRS = ("compiler", "rules_dsl", "runtime")
_ROOT = Path(__file__).resolve().parents[2]


class CacheUnsafe(Exception):
    """The cache folder could be written by someone else; it is not used."""


@dataclass
class Compiled:
    """What ``rulebook resolve`` needs of a rulebook: the imported package, every
    JSON Schema by path under ``schemas/`` and the procedures' listing (as in
    ``json/procedures.json``)."""

    package: ModuleType
    schemas: dict[str, dict]
    procedures: dict[str, dict]


def root() -> Path:
    """The cache folder: ``$XDG_CACHE_HOME/rulebook`` or ``~/.cache/rulebook``."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulebook"


# ---------------------------------------------------------------------------- the key


def _compiler_files() -> list[Path]:
    files: list[Path] = []
    for folder in _SOURCE_DIRS:
        files += [p for p in (_ROOT / folder).rglob("*") if p.suffix in (".py", ".lark") and "__pycache__" not in p.parts]
    return sorted(files)


def _add_file(digest, path: Path) -> None:
    """A file's size and bytes into ``digest``, read in blocks: a huge file costs time, never memory
    (the loader refuses it afterwards, with a diagnostic)."""
    if not path.is_file():
        digest.update((0).to_bytes(8, "big"))
        return
    digest.update(path.stat().st_size.to_bytes(8, "big"))
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)


def key(rulebook: Path) -> str | None:
    """The content hash of ``rulebook`` with this compiler; None when a file cannot
    be read (the caller then checks the rulebook, which reports the problem)."""
    digest = hashlib.sha256()

    def add(*parts: bytes) -> None:
        for part in parts:
            digest.update(len(part).to_bytes(8, "big") + part)

    add(FORMAT.encode(), sys.version.encode(), (sys.implementation.cache_tag or "").encode())
    try:
        for path in _compiler_files():
            add(path.relative_to(_ROOT).as_posix().encode(), path.read_bytes())
        where = rulebook.resolve(strict=True)
        add(os.fsencode(where))
        rules = [rulebook] if where.is_file() else sorted(rulebook.rglob("*.rules"))
        for path in rules:
            name = path.relative_to(rulebook).as_posix() if path != rulebook else ""
            add(os.fsencode(name), os.fsencode(path.resolve(strict=True)))
            _add_file(digest, path)
    except (OSError, RuntimeError, ValueError):
        return None
    return digest.hexdigest()


# ---------------------------------------------------------------------------- trust


def _check_owned(path: Path, st: os.stat_result | None = None) -> os.stat_result:
    """``path`` is ours and writable only by us, and not a link; raises :class:`CacheUnsafe`."""
    st = st or os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise CacheUnsafe(f"{path} is a symbolic link")
    if st.st_uid != os.geteuid():
        raise CacheUnsafe(f"{path} belongs to another user (uid {st.st_uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheUnsafe(f"{path} can be written by other users (mode {stat.filemode(st.st_mode)})")
    return st


def _safe_root(create: bool) -> Path | None:
    """The cache folder when it is safe to use (created ``0700`` if asked); None when absent."""
    folder = root()
    if create:
        folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        raise CacheUnsafe(f"{folder} is not a folder")
    _check_owned(folder, st)
    return folder


# ---------------------------------------------------------------------------- reading


class _Invalid(Exception):
    """An entry that does not match its manifest."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _verify(entry: Path) -> dict:
    """The manifest of ``entry`` once every file matches it; raises :class:`_Invalid`
    or :class:`CacheUnsafe`."""
    _check_owned(entry)
    try:
        manifest = json.loads((entry / "manifest.json").read_bytes())
        expected: dict[str, str] = manifest["files"]
        if manifest.get("format") != FORMAT or manifest.get("key") != entry.name:
            raise _Invalid("manifest of another format or key")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _Invalid(f"unreadable manifest: {exc}") from None
    _check_owned(entry / "manifest.json")
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(entry):
        for name in dirnames:
            _check_owned(Path(dirpath) / name)
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(entry).as_posix()
            if rel == "manifest.json":
                continue
            _check_owned(path)
            found.add(rel)
            if expected.get(rel) != _sha256(path):
                raise _Invalid(f"{rel} does not match the manifest")
    if found != set(expected):
        raise _Invalid("files missing from the entry")
    return manifest


def _import(entry: Path, package_name: str) -> ModuleType:
    from rulebook.compiler.pipeline.pyload import load_package

    writes = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # the entry's bytecode was written with it; nothing else goes there
    try:
        module = load_package(entry / "python")
    finally:
        sys.dont_write_bytecode = writes
    if not module.__name__.endswith("_" + package_name):
        raise _Invalid("another package than the manifest's")
    return module


def open_entry(key: str) -> Compiled | None:
    """The verified, imported entry for ``key``; None on a miss. A corrupted entry is
    removed (and None returned); :class:`CacheUnsafe` when the cache may not be used."""
    folder = _safe_root(create=False)
    if folder is None:
        return None
    entry = folder / key
    if not os.path.lexists(entry):
        return None
    try:
        manifest = _verify(entry)
        data = json.loads((entry / "resolve.json").read_bytes())
        compiled = Compiled(_import(entry, manifest["package"]), data["schemas"], data["procedures"])
    except _Invalid:
        _remove(folder, entry)
        return None
    with contextlib.suppress(OSError):
        os.utime(entry)  # recently used
    return compiled


# ---------------------------------------------------------------------------- writing


@contextlib.contextmanager
def _lock(folder: Path):
    import fcntl

    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _remove(folder: Path, entry: Path) -> None:
    """Move ``entry`` out of the way in one step, then delete it."""
    trash = Path(tempfile.mkdtemp(prefix=".trash-", dir=folder))
    with contextlib.suppress(OSError):
        os.rename(entry, trash / "entry")
    shutil.rmtree(trash, ignore_errors=True)


def _write_entry(staging: Path, key: str, program) -> None:
    import py_compile

    from rulebook.compiler.emit.data import to_json
    from rulebook.compiler.emit.python import to_python

    python = staging / "python"
    to_python.write_package(program, python)
    for source in sorted(python.rglob("*.py")):
        py_compile.compile(str(source), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    resolve_data = {
        "schemas": to_json.all_schemas(program),
        "procedures": to_json.procedures_doc(program)["procedures"],
    }
    (staging / "resolve.json").write_text(json.dumps(resolve_data, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    files = {
        p.relative_to(staging).as_posix(): _sha256(p)
        for p in sorted(staging.rglob("*")) if p.is_file()
    }
    (package,) = [p.name for p in python.iterdir() if p.is_dir()]
    manifest = {"format": FORMAT, "key": key, "package": package, "files": files}
    (staging / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=1), encoding="utf-8")
    for path in staging.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)


def _prune(folder: Path, keep: str) -> None:
    entries = [p for p in folder.iterdir() if not p.name.startswith(".") and p.name != keep and p.is_dir()]
    entries.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES - 1:]:
        _remove(folder, old)


def store(key: str, program) -> Compiled:
    """Write the entry of ``program`` under ``key`` (unless another process just
    did) and open it. Raises :class:`CacheUnsafe` or :class:`OSError`."""
    folder = _safe_root(create=True)
    assert folder is not None
    with _lock(folder):
        compiled = open_entry(key)
        if compiled is not None:
            return compiled
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=folder))
        try:
            _write_entry(staging, key, program)
            entry = folder / key
            if os.path.lexists(entry):
                _remove(folder, entry)
            os.rename(staging, entry)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        _prune(folder, key)
    compiled = open_entry(key)
    if compiled is None:
        raise OSError(f"the cache entry {folder / key} could not be read back")
    return compiled


def clear() -> Path:
    """Remove the cache folder (only when it is ours); returns its path."""
    folder = _safe_root(create=False)
    if folder is not None:
        with _lock(folder):
            for entry in folder.iterdir():
                if entry.name != ".lock":
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        entry.unlink()
        shutil.rmtree(folder, ignore_errors=True)
    return root()
