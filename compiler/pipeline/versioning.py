"""The semantic version a build publishes, from what changed since the previous build.

Reads a checked :class:`rulebook.compiler.ir.Program` and the previous published build:
the one already in the output folder, or ``--base PATH`` (a build folder, or a rulebook
folder of ``.rules`` compiled here). Produces :func:`release(program, previous) ->
Release`: the version, the level of the change and the history of published versions
(:attr:`rulebook.compiler.ir.RulebookInfo.releases`), which the build stamps on the program
(:func:`stamped`) before anything is written — so the manifest, every schema ``$id``, the
Python package (``__version__``, its pyproject), the site and the JS package all carry it.

How the version is found (README, "Versions"):

* no previous build: the declared version with a ``.0`` patch (``version "1.0"`` →
  ``1.0.0``), so a build into an empty folder is reproducible;
* the previous build has the same content (``content_hash``) and the same declared
  version: its version and history, unchanged (building twice gives the same bytes);
* otherwise the previous version bumped by the highest level of the changes
  (:mod:`rulebook.compiler.emit.data.changes`: MAJOR, MINOR, PATCH; sources edited with no
  published change: PATCH) — unless the declared version is higher: then it wins.

The previous build is read as DATA only, never its ``python/``: ``json/manifest.json``,
``json/rulebook.json``, ``json/logic.json`` and ``json/changelog.json``, each bounded
(:mod:`rulebook.compiler.support.untrusted_json`), checked against shapes stated here
(not the build's own schemas) and against the sha256 its manifest lists. A previous
build in the output folder that cannot be used so (another rulebook, an older format, a
file changed by hand) is a warning, and the build counts from the declared version; a
``--base`` that cannot be used is an error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.data import changes, logic, shapes
from rulebook.compiler.ir.sources import content_hash
from rulebook.compiler.support import terminal, untrusted_json

MAX_FILE = 64 * 1024 * 1024
"""The largest file of a previous build read."""




_S = {"type": "string", "maxLength": 100_000}
_DIGEST = {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}
MAX_VERSIONS, MAX_CHANGES, MAX_TEXT = changes.MAX_VERSIONS, changes.MAX_CHANGES, changes.MAX_TEXT

MANIFEST_SHAPE = {
    "type": "object",
    "required": ["rulebook", "version", "declared_version", "content_hash", "documents"],
    "properties": {
        "rulebook": _S, "version": {"type": "string", "pattern": changes.SEMVER}, "declared_version": _S,
        "content_hash": _DIGEST, "documents": {"type": "object", "additionalProperties": _DIGEST},
    },
}
"""What is read of a previous build's ``json/manifest.json``."""

HISTORY_ENTRY, CHANGELOG_BODY = changes.HISTORY_ENTRY, changes.CHANGELOG_BODY


class PreviousBuildError(Exception):
    """A previous build that cannot be used (the message, one line, names the file)."""


@dataclass
class Previous:
    """What a previous version publishes, as plain data: its version (None: a rulebook
    folder, never published), declared version, content hash, bundle, logic and history."""

    rulebook: str
    version: str | None
    declared: str
    content_hash: str
    bundle: dict
    logic: dict
    history: list[dict] = field(default_factory=list)


@dataclass
class Release:
    """The version this build publishes: ``level`` of the change since ``previous``
    (None: none, or no previous build), the ``changes`` and the ``history`` (newest first)."""

    version: str
    declared: str
    previous: str | None
    level: str | None
    changes: list[changes.Change]
    history: list[dict]


def stamped(program: ir.Program, release: Release) -> ir.Program:
    """``program`` with the published version and history on its :class:`RulebookInfo`
    (the declared version stays in ``declared``)."""
    rb = program.rulebook
    if rb is None:
        return program
    info = dataclasses.replace(rb, version=release.version, declared=release.declared, releases=tuple(release.history))
    return dataclasses.replace(program, rulebook=info)


def _sha256(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _read(folder: Path, name: str, shape: dict, digests: dict | None) -> Any:
    file = folder / "json" / name
    try:
        raw = untrusted_json.read_at_most(file, MAX_FILE, "the previous build's file")
        if len(raw) > MAX_FILE:
            raise PreviousBuildError(f"{file}: larger than {MAX_FILE:,} bytes")
        if digests is not None and digests.get(f"json/{name}") != _sha256(raw):
            raise PreviousBuildError(f"{file}: not the file its manifest lists (its sha256 differs)")
        doc = untrusted_json.loads(raw, str(file))
    except untrusted_json.UntrustedJson as exc:
        raise PreviousBuildError(str(exc)) from None
    problem = untrusted_json.shape_problem(doc, shape)
    if problem is not None:
        raise PreviousBuildError(f"{file}: not what rulebook build writes: {terminal.one_line(problem)}")
    return doc


def read_build(folder: Path) -> Previous:
    """A previous build, read as data (see the module docstring); :class:`PreviousBuildError`
    when it cannot be used."""
    manifest = _read(folder, "manifest.json", MANIFEST_SHAPE, None)
    digests = manifest["documents"]
    for name in ("rulebook.json", "logic.json", "changelog.json"):
        if f"json/{name}" not in digests:
            raise PreviousBuildError(f"{folder / 'json' / 'manifest.json'}: lists no json/{name} (a build of an older format)")
    history = _read(folder, "changelog.json", CHANGELOG_BODY, digests)
    return Previous(
        manifest["rulebook"],
        manifest["version"], manifest["declared_version"], manifest["content_hash"],
        _read(folder, "rulebook.json", shapes.BUNDLE_SHAPE, digests), _read(folder, "logic.json", logic.LOGIC_SCHEMA, digests),
        history["versions"],
    )


def read_previous(path: Path, rulebook: str, compile_folder: Callable[[Path], ir.Program | None]) -> Previous:
    """The previous version at ``path``: a build folder (one with ``json/manifest.json``) or
    a rulebook folder (``compile_folder`` checks it: None when it has errors);
    :class:`PreviousBuildError` when it cannot be used, or is of another rulebook than ``rulebook``."""
    if (path / "json" / "manifest.json").is_file():
        previous = read_build(path)
    else:
        program = compile_folder(path) if path.exists() else None
        if program is None:
            raise PreviousBuildError(f"{path}: neither a build (no json/manifest.json) nor a rulebook without errors")
        previous = from_program(program)
    if previous.rulebook != rulebook:
        raise PreviousBuildError(f"{path}: a version of another rulebook ({terminal.one_line(previous.rulebook)}, not {rulebook})")
    return previous


def from_program(program: ir.Program) -> Previous:
    """A rulebook compiled here (``--base`` a rulebook folder), as a previous version that
    was never published: it counts from its declared version."""
    bundle, logic_doc = published(program)
    rb = program.rulebook
    return Previous(rb.name if rb else "", None, rb.declared if rb else "", content_hash(program), bundle, logic_doc)


def published(program: ir.Program) -> tuple[dict, dict]:
    """The bundle (without odds) and the logic document of ``program``, as a build writes
    them (so that they compare with a build's, read back)."""
    from rulebook.compiler.emit.data import to_json

    bundle = json.loads(to_json.dumps(to_json.documents(program)["rulebook.json"]))
    return bundle, json.loads(to_json.dumps(logic.logic_doc(program)))


def _short(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def history_entry(version: str, previous: str | None, level: str | None, digest: str, found: list[changes.Change]) -> dict:
    """One version of the history, with its changes (most important first, at most
    :data:`MAX_CHANGES`)."""
    order = {lv: i for i, lv in enumerate(reversed(changes.LEVELS))}
    ranked = sorted(found, key=lambda c: order[c.level])  # stable: in the diff's order within a level
    return {
        "version": version, "previous": previous, "level": level, "content_hash": digest,
        "changes": [{"level": c.level, "kind": c.kind, "label": c.label, "where": c.where, "old": _short(c.old), "new": _short(c.new)}
                    for c in ranked[:MAX_CHANGES]],
        "omitted": max(0, len(ranked) - MAX_CHANGES),
    }


def release(program: ir.Program, previous: Previous | None) -> Release:
    """The version ``program`` publishes after ``previous`` (None: no previous build)."""
    declared = program.rulebook.declared if program.rulebook else ""
    digest = content_hash(program)
    if previous is None:
        version = changes.first_version(declared)
        entry = history_entry(version, None, None, digest, []) if changes.parse(declared) else None
        return Release(version, declared, None, None, [], [entry] if entry else [])
    if previous.version is not None and previous.content_hash == digest and previous.declared == declared:
        return Release(previous.version, declared, previous.version, None, [], previous.history)
    bundle, logic_doc = published(program)
    data = changes.compare_data(previous.bundle, bundle)
    found = data + changes.compare_logic(previous.logic, logic_doc, data)
    level = changes.level(found) or (changes.PATCH if previous.content_hash != digest else None)
    base = previous.version or changes.first_version(previous.declared)
    version = changes.next_version(base, declared, level)
    if version == base:  # the same version (a source base that declares as much): nothing to add
        return Release(version, declared, base, level, found, previous.history)
    entry = history_entry(version, base, level, digest, found)
    history = ([entry] + previous.history)[:MAX_VERSIONS] if changes.parse(version) else previous.history
    return Release(version, declared, base, level, found, history)
