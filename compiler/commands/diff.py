"""``rulebook diff OLD NEW``: what changed between two versions of a rulebook.

Reads two rulebooks, each a folder of ``.rules`` files (checked and compiled
here: the user's own sources) or a build folder, read as DATA only — its
``json/rulebook.json`` and ``json/examples.json`` (the test vectors), checked against
shapes this module states (:data:`BUNDLE_SHAPE`, :data:`VECTORS_SHAPE`); the build's
``python/`` is never imported, so diffing a build someone sent runs none of its code.
Produces a :class:`RulebookDiff` — entry point
:func:`diff_rulebooks(old, new) -> RulebookDiff`:

* data: catalog entries and table rows added, removed and changed field by
  field; special rules, enums, constants and procedure signatures changed;
* the **odds impact**: every cell of the odds tables and every outcome of the
  worked examples' exact distributions whose probability changed, with both
  values (``1/3 → 4/9``). A build lists a distribution of at most 100 results
  (:data:`rulebook.compiler.emit.data.vectors.MAX_LISTED`); a longer one is compared by its
  digest, unless both sides are sources (then resolved again, outcome by outcome).

:func:`render_text` and :func:`as_json` print it for people and for tools.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

from rulebook import runtime

from rulebook.compiler.pipeline import driver, pyload
from rulebook.compiler.analysis import odds
from rulebook.compiler.emit.data import to_json
from rulebook.compiler.analysis.examples import evaluate
from rulebook.compiler.support import terminal, untrusted_json


class DiffError(Exception):
    """A side of the diff cannot be read (with the reason, ready to print); ``status``:
    the exit status (1: a side is missing or has rule errors; 2: a build's files are
    not what ``rulebook build`` writes)."""

    status = 1


class BadBuild(DiffError):
    status = 2


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` is added, removed or changed; ``path`` says where
    (e.g. ``("catalogs", "perfiles_armas", "fusiles_seccion", "alcance")``);
    ``label`` is the same place in words, for people."""

    kind: str
    path: tuple[str, ...]
    label: str
    old: Any = None
    new: Any = None


@dataclass
class RulebookDiff:
    """Every difference between two versions, data first, then the odds impact."""

    old_version: str
    new_version: str
    data: list[Change] = field(default_factory=list)
    odds: list[Change] = field(default_factory=list)
    examples: list[Change] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.data or self.odds or self.examples)


@dataclass
class _Side:
    """What a side of the diff is, as data: its bundle (``json/rulebook.json``) and its
    test vectors (the ``vectors`` of ``json/examples.json``); ``package``: the generated
    package of a rulebook compiled here from its sources (None for a build, whose code is
    never run)."""

    bundle: dict
    vectors: list[dict]
    package: ModuleType | None = None


MAX_BUILD_JSON = 64 * 1024 * 1024
"""The largest ``json/rulebook.json`` or ``json/examples.json`` of a build read (the bundled
rulebooks': under 1 MB each)."""

_FRACTION = {"type": "string", "pattern": r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$", "maxLength": 200}
_CELL = {"anyOf": [{"type": ["number", "boolean", "null"]}, _FRACTION]}
_GRID = {"type": "array", "items": {"type": "array", "items": _CELL}}
_AXIS = {"type": "object", "required": ["values"], "properties": {"values": {"type": "array"}}}
_KEYED = {"type": "object", "additionalProperties": {"type": "object"}}


def _section(name: str) -> dict:
    return {"type": "object", "required": [name], "properties": {name: {"type": "object"}}}


BUNDLE_SHAPE = {
    "type": "object",
    "required": ["version", "catalogs", "tables", "rules", "enums", "constants", "procedures", "odds"],
    "properties": {
        "version": {"type": "string", "maxLength": 200},
        "catalogs": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["entries"], "properties": {"entries": {"type": "object"}}}},
        "tables": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "items": {
                "type": "object", "required": ["key"],
                "properties": {"key": {"type": "object"}, "values": {"type": ["object", "null"]}}}}}}},
        **{name: _section(name) for name in ("rules", "enums", "constants", "procedures")},
        "odds": {"type": "object", "required": ["tables"], "properties": {"tables": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["rows", "columns", "cells"],
            "properties": {"rows": _AXIS, "columns": _AXIS, "groups": {"anyOf": [{"type": "null"}, _AXIS]}},
            "if": {"required": ["groups"], "properties": {"groups": {"type": "object"}}},
            "then": {"properties": {"cells": {"type": "array", "items": _GRID}}},
            "else": {"properties": {"cells": _GRID}},
        }}}},
    },
}
"""What diff reads of ``json/rulebook.json``, as a JSON Schema of its own: the shape of the
bundle ``rulebook build`` writes, only as deep as diff looks. (Not the build's
``schemas/rulebook.schema.json``: a build that was tampered with may ship schemas to match.)"""

VECTORS_SHAPE = {
    "type": "object", "required": ["vectors"], "properties": {"vectors": {"type": "array", "items": {
        "type": "object", "required": ["procedure", "title", "input", "error", "results", "digest", "distribution"],
        "properties": {
            "procedure": {"type": "string"}, "title": {"type": "string"}, "input": {"type": "object"},
            "error": {"type": ["string", "null"]}, "results": {"type": ["integer", "null"]},
            "digest": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$"},
            "distribution": {"anyOf": [{"type": "null"}, {"type": "array", "items": {
                "type": "object", "required": ["result", "probability"], "properties": {"probability": _FRACTION}}}]},
        }}}},
}
"""What diff reads of ``json/examples.json`` (the test vectors), in the same way."""


def _read_build(path: Path) -> tuple[dict, list[dict]]:
    """A build folder's bundle and test vectors, read as data: its ``python/`` is never
    imported. A file that is missing, too large, not JSON, nested too deeply or not of
    the shape diff reads (:data:`BUNDLE_SHAPE`, :data:`VECTORS_SHAPE`) is :class:`BadBuild`."""
    read = []
    for name, shape in (("rulebook.json", BUNDLE_SHAPE), ("examples.json", VECTORS_SHAPE)):
        file = path / "json" / name
        if not file.is_file():
            raise BadBuild(f"{file}: error: no such file (a build folder holds json/rulebook.json and json/examples.json, "
                           "as rulebook build writes them)")
        try:
            doc = untrusted_json.load(file, MAX_BUILD_JSON, what="the build's file")
        except untrusted_json.UntrustedJson as exc:
            raise BadBuild(str(exc)) from None
        problem = untrusted_json.shape_problem(doc, shape)
        if problem is not None:
            raise BadBuild(f"{file}: error: not what rulebook build writes: {terminal.one_line(problem)}")
        read.append(doc)
    return read[0], read[1]["vectors"]


def _load(path: Path) -> _Side:
    """A rulebook folder (compiled here) or a build folder (read as data: :func:`_read_build`)."""
    if not path.exists():
        raise DiffError(f"{path}: no such file or folder")
    if (path / "json" / "rulebook.json").is_file():
        return _Side(*_read_build(path))
    checked = driver.check(path)
    if not checked.ok or checked.program is None:
        from rulebook.rules_dsl.diagnostics import render_all

        errors = [d for d in checked.diagnostics if d.severity == "error"]
        raise DiffError(f"{path} has errors:\n" + render_all(errors, checked.sources))
    package = pyload.compile_and_load(checked.program)
    documents = to_json.documents(checked.program, odds.compute(package), package)
    # as a build writes them (json/rulebook.json, json/examples.json): the two kinds of side compare alike
    bundle = json.loads(to_json.dumps(documents["rulebook.json"]))
    vectors = json.loads(to_json.dumps(documents["examples.json"]))["vectors"]
    return _Side(bundle, vectors, package)


def diff_rulebooks(old: Path, new: Path) -> RulebookDiff:
    """Compare two versions of a rulebook (folders of ``.rules`` or builds).

    Raises:
        DiffError: when a side does not exist or does not check (status 1), or is a
            build whose files are not what ``rulebook build`` writes (status 2).
    """
    a, b = _load(old), _load(new)
    result = RulebookDiff(str(a.bundle.get("version", "")), str(b.bundle.get("version", "")))
    _diff_documents(a.bundle, b.bundle, result.data)
    _diff_odds(a.bundle.get("odds", {}).get("tables", {}), b.bundle.get("odds", {}).get("tables", {}), result.odds)
    _diff_examples(a, b, result.examples)
    return result


# ---------------------------------------------------------------------------- data


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _diff_values(old: Any, new: Any, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    """Nested values compared down to the leaves that differ (``tiro_tenso[0].i_preciso.media``)."""
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for f in list(old) + [k for k in new if k not in old]:
            if f not in new or f not in old:
                out.append(Change("removed" if f not in new else "added", path + (f,), f"{label}.{f}", old.get(f), new.get(f)))
            else:
                _diff_values(old[f], new[f], path + (f,), f"{label}.{f}", out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            _diff_values(a, b, path + (str(i),), f"{label}[{i}]", out)
    else:
        out.append(Change("changed", path, label, old, new))


def _diff_fields(old: dict, new: dict, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    for f in list(old) + [k for k in new if k not in old]:
        if f not in old or f not in new:
            out.append(Change("added" if f not in old else "removed", path + (f,), f"{label}, {f}", old.get(f), new.get(f)))
        else:
            _diff_values(old[f], new[f], path + (f,), f"{label}, {f}", out)


def _diff_keyed(old: dict, new: dict, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    """Items by id: added, removed, or changed field by field."""
    for ident in list(old) + [k for k in new if k not in old]:
        where = f"{label} «{ident}»"
        if ident not in new:
            out.append(Change("removed", path + (ident,), where, old[ident], None))
        elif ident not in old:
            out.append(Change("added", path + (ident,), where, None, new[ident]))
        elif isinstance(old[ident], dict) and isinstance(new[ident], dict):
            _diff_fields(old[ident], new[ident], path + (ident,), where, out)
        elif old[ident] != new[ident]:
            out.append(Change("changed", path + (ident,), where, old[ident], new[ident]))


def _key_text(v: Any) -> str:
    """A row key as written in the rules: ``regular``, ``3``, ``>2..5``."""
    if isinstance(v, dict) and "min" in v:
        lo = "" if v["min"] is None else ("" if v.get("min_inclusive") else ">") + _show(v["min"])
        hi = "" if v.get("max") is None else ("" if v.get("max_inclusive") else "<") + _show(v["max"])
        return f"{lo}..{hi}"
    return v if isinstance(v, str) else _show(v)


def _rows(table: dict) -> dict[str, dict]:
    """A table's rows by their key, as readable text (``calidad=regular``)."""
    out = {}
    for row in table.get("rows", []):
        key = ", ".join(f"{k}={_key_text(v)}" for k, v in row.get("key", {}).items())
        out[key] = {"title": row.get("title"), **{f"{c}": v for c, v in (row.get("values") or {}).items()}}
    return out


def _diff_documents(old: dict, new: dict, out: list[Change]) -> None:
    old_catalogs, new_catalogs = old.get("catalogs", {}), new.get("catalogs", {})
    for name in list(old_catalogs) + [c for c in new_catalogs if c not in old_catalogs]:
        a, b = old_catalogs.get(name), new_catalogs.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("catalogs", name), f"catálogo «{name}»"))
            continue
        _diff_keyed(a.get("entries", {}), b.get("entries", {}), ("catalogs", name), f"catálogo «{name}»", out)
    old_tables, new_tables = old.get("tables", {}), new.get("tables", {})
    for name in list(old_tables) + [t for t in new_tables if t not in old_tables]:
        a, b = old_tables.get(name), new_tables.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("tables", name), f"tabla «{name}»"))
            continue
        _diff_keyed(_rows(a), _rows(b), ("tables", name), f"tabla «{name}», fila", out)
    for section, label in (("rules", "regla"), ("enums", "enumeración"), ("constants", "constante"), ("procedures", "procedimiento")):
        _diff_keyed(old.get(section, {}).get(section, {}), new.get(section, {}).get(section, {}), (section,), label, out)


# ---------------------------------------------------------------------------- odds


def _hashable(value: Any) -> Any:
    """An axis value as a key: as it is, or the JSON text of a list or an object."""
    return _show(value) if isinstance(value, (list, dict)) else value


def _odds_cells(table: dict) -> dict[tuple, Any]:
    """(group, row value, column value) → cell, for one odds table."""
    rows = table.get("rows", {}).get("values", [])
    cols = table.get("columns", {}).get("values", [])
    grouped = isinstance(table.get("groups"), dict)  # then cells[group][row][column] (BUNDLE_SHAPE holds it so)
    grids = table.get("cells", []) if grouped else [table.get("cells", [])]
    out = {}
    for g, grid in zip(table["groups"].get("values", []) if grouped else [None], grids):
        for r, line in zip(rows, grid):
            for c, cell in zip(cols, line):
                out[(_hashable(g), _hashable(r), _hashable(c))] = cell
    return out


def _cell_label(table: dict, name: str, key: tuple) -> str:
    g, r, c = key
    parts = []
    groups = table.get("groups") or {}
    if g is not None:
        parts.append(f"{groups.get('title') or groups.get('variable')} = {g}")
    rows, cols = table.get("rows", {}), table.get("columns", {})
    parts.append(f"{rows.get('title') or rows.get('variable')} = {r}")
    if c is not None:
        parts.append(f"{cols.get('title') or cols.get('variable') or 'resultado'} = {c}")
    return f"{table.get('title') or name}: " + ", ".join(parts)


def _diff_odds(old: dict, new: dict, out: list[Change]) -> None:
    for name in list(old) + [t for t in new if t not in old]:
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("odds", name), f"tabla de probabilidades «{name}»"))
            continue
        cells_a, cells_b = _odds_cells(a), _odds_cells(b)
        for key in list(cells_a) + [k for k in cells_b if k not in cells_a]:
            x, y = cells_a.get(key, 0), cells_b.get(key, 0)  # an outcome column missing on one side: probability 0
            if _fraction(x) != _fraction(y):
                out.append(Change("changed", ("odds", name) + tuple(str(k) for k in key), _cell_label(b, name, key), x, y))


def _fraction(cell: Any) -> Fraction | None:
    if cell is None:
        return None
    return Fraction(cell) if not isinstance(cell, bool) else Fraction(int(cell))


# ---------------------------------------------------------------------------- examples


def _examples_by_key(vectors: list[dict]) -> dict[tuple[str, str, int], int]:
    """Examples by (procedure, title, occurrence) → their index: source lines move between versions."""
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for index, v in enumerate(vectors):
        n = seen.get((v["procedure"], v["title"]), 0)
        seen[(v["procedure"], v["title"])] = n + 1
        out[(v["procedure"], v["title"], n)] = index
    return out


def _evaluated(package: ModuleType, index: int) -> dict[str, Fraction] | str:
    """Example ``index`` of a package compiled here from sources, resolved: every outcome
    (a build's vectors list at most 100) or the rule error it stops with."""
    ev = evaluate(package, package.examples.EXAMPLES[index])
    if ev.distribution is None:
        return f"error: {ev.error.message if ev.error is not None else ''}"  # the message, without the file position
    return {_show(runtime.to_jsonable(o)): p for o, p in ev.distribution.items()}


def _listed(vector: dict) -> dict[str, Fraction] | str:
    """What a test vector says an example gives: its listed distribution, else a text
    (the expected rule error, or that it gives none)."""
    if vector["error"] is not None:
        return f"error: {vector['error']}"
    if vector["distribution"] is not None:
        return {_show(item["result"]): Fraction(item["probability"]) for item in vector["distribution"]}
    return "sin resultado" if vector["digest"] is None else _digest_text(vector)


def _digest_text(vector: dict) -> str:
    return f"{vector['results']} resultados, {vector['digest']}"


def _same_vector(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in ("input", "error", "results", "digest", "distribution"))


def _diff_examples(old: _Side, new: _Side, out: list[Change]) -> None:
    """Each example's outcomes, from the test vectors; two sides compiled here from
    sources resolve the examples that differ again, so that distributions of more than
    100 results are compared outcome by outcome too."""
    a, b = _examples_by_key(old.vectors), _examples_by_key(new.vectors)
    for key in list(a) + [k for k in b if k not in a]:
        procedure, title, _n = key
        label = f"ejemplo «{title}» ({procedure})"
        if key not in b or key not in a:
            out.append(Change("removed" if key not in b else "added", ("examples", procedure, title), label))
            continue
        va, vb = old.vectors[a[key]], new.vectors[b[key]]
        unresolved = va["error"] is None and va["digest"] is None  # a failing example: its message is in no vector
        if _same_vector(va, vb) and not (unresolved and old.package is not None and new.package is not None):
            continue
        if old.package is not None and new.package is not None:
            da, db = _evaluated(old.package, a[key]), _evaluated(new.package, b[key])
        elif va["digest"] is not None and vb["digest"] is not None and None in (va["distribution"], vb["distribution"]):
            if va["digest"] != vb["digest"]:  # a distribution a build does not list: what it gives is its digest
                out.append(Change("changed", ("examples", procedure, title), f"{label}: distribución", _digest_text(va), _digest_text(vb)))
            continue
        else:
            da, db = _listed(va), _listed(vb)
        if isinstance(da, str) or isinstance(db, str):
            if da != db:
                out.append(Change("changed", ("examples", procedure, title), label, da if isinstance(da, str) else "resuelve", db if isinstance(db, str) else "resuelve"))
            continue
        for outcome in list(da) + [o for o in db if o not in da]:
            pa, pb = da.get(outcome, Fraction(0)), db.get(outcome, Fraction(0))
            if pa != pb:
                out.append(Change("changed", ("examples", procedure, title, outcome), f"{label}: resultado {outcome}", pa, pb))


# ---------------------------------------------------------------------------- output


def _value_text(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if v is None:
        return "—"
    return v if isinstance(v, str) and "/" in v else _show(v)


def render_text(d: RulebookDiff) -> str:
    """The differences for people, one per line, grouped."""
    if d.empty:
        return "sin cambios"
    return "\n".join(terminal.one_line(line) for line in _text_lines(d))  # a build's texts cannot start lines of their own


def _text_lines(d: RulebookDiff) -> list[str]:
    lines = [f"versión {d.old_version or '—'} → {d.new_version or '—'}"]
    for title, changes in (("Datos", d.data), ("Probabilidades", d.odds), ("Ejemplos", d.examples)):
        if not changes:
            continue
        lines += ["", f"{title} ({len(changes)})"]
        for c in changes:
            if c.kind == "changed":
                lines.append(f"  ~ {c.label}: {_value_text(c.old)} → {_value_text(c.new)}")
            else:
                lines.append(f"  {'+' if c.kind == 'added' else '-'} {c.label}")
    return lines


def as_json(d: RulebookDiff) -> dict:
    """The differences for tools (fractions as ``"n/d"``)."""

    def change(c: Change) -> dict:
        return {"kind": c.kind, "path": list(c.path), "label": c.label, "old": runtime.to_jsonable(c.old), "new": runtime.to_jsonable(c.new)}

    return {
        "old_version": d.old_version, "new_version": d.new_version,
        "data": [change(c) for c in d.data], "odds": [change(c) for c in d.odds], "examples": [change(c) for c in d.examples],
    }
