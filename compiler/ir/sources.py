"""A rulebook's sources by their names inside its folder, and its content hash.

Reads: a checked :class:`rulebook.compiler.ir.Program` (its files and their text).
Produces: :func:`source_names(program)` (each file as built → its name inside the
rulebook folder) and :func:`content_hash(program)` (sha256 over those names and texts:
two copies of a rulebook in different folders have the same hash).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import PurePath

from rulebook.compiler import ir


def source_names(program: ir.Program) -> dict[str, str]:
    """Each source file's name as built → its name inside the rulebook folder
    (``juegos/escaramuza/04-movimiento.rules`` → ``04-movimiento.rules``)."""
    files = program.files
    if not files:
        return {}
    parents = [os.path.dirname(os.path.abspath(f)) for f in files]
    root = os.path.commonpath(parents)
    return {f: PurePath(os.path.relpath(os.path.abspath(f), root)).as_posix() for f in files}


def content_hash(program: ir.Program) -> str:
    """sha256 of the sources by their names inside the rulebook folder: two copies of a
    rulebook in different folders have the same hash."""
    digest = hashlib.sha256()
    for built, name in sorted(source_names(program).items(), key=lambda kv: kv[1]):
        digest.update(name.encode() + b"\0" + program.sources[built].encode() + b"\0")
    return "sha256:" + digest.hexdigest()
