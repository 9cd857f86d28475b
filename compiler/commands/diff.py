"""``rulebook diff OLD NEW``: what changed between two versions of a rulebook.

Reads two rulebooks, each a folder of ``.rules`` files (checked and compiled
here) or a build folder (``json/rulebook.json`` and ``python/``, as written by
``rulebook build``). Produces a :class:`RulebookDiff` — entry point
:func:`diff_rulebooks(old, new) -> RulebookDiff`:

* data: catalog entries and table rows added, removed and changed field by
  field; special rules, enums, constants and procedure signatures changed;
* the **odds impact**: every cell of the odds tables and every outcome of the
  worked examples' exact distributions whose probability changed, with both
  values (``1/3 → 4/9``).

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
from rulebook.compiler.emit.python import to_project, to_python
from rulebook.compiler.analysis.examples import evaluate


class DiffError(Exception):
    """A side of the diff cannot be read (with the reason, ready to print)."""


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
    bundle: dict
    package: ModuleType | None
    code: dict[str, str]  # the generated modules, without the lines naming source files


def _code_without_positions(modules: dict[str, str]) -> dict[str, str]:
    """Generated modules with the lines that cite ``.rules`` files removed: two
    copies of a rulebook in different folders then compare equal."""
    return {Path(name).name: "\n".join(line for line in text.splitlines() if ".rules" not in line) for name, text in modules.items()}


def _load(path: Path) -> _Side:
    """A rulebook folder (compiled here) or a build folder (read as built)."""
    if not path.exists():
        raise DiffError(f"{path}: no such file or folder")
    bundle_file = path / "json" / "rulebook.json"
    if bundle_file.is_file():
        try:
            bundle = json.loads(bundle_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DiffError(f"{bundle_file}: cannot read the build's bundle ({exc})") from None
        python = path / "python"
        package = pyload.load_package(python) if python.is_dir() else None
        generated = [p for p in sorted(python.rglob("*.py")) if to_project.VENDORED not in p.relative_to(python).parts]
        code = {str(p.relative_to(python)): p.read_text(encoding="utf-8") for p in generated} if package else {}
        return _Side(bundle, package, _code_without_positions(code))
    checked = driver.check(path)
    if not checked.ok or checked.program is None:
        from rulebook.rules_dsl.diagnostics import render_all

        errors = [d for d in checked.diagnostics if d.severity == "error"]
        raise DiffError(f"{path} has errors:\n" + render_all(errors, checked.sources))
    package = pyload.compile_and_load(checked.program)
    documents = to_json.documents(checked.program, odds.compute(package))
    code = _code_without_positions(to_python.generate(checked.program))
    return _Side(json.loads(to_json.dumps(documents["rulebook.json"])), package, code)


def diff_rulebooks(old: Path, new: Path) -> RulebookDiff:
    """Compare two versions of a rulebook (folders of ``.rules`` or builds).

    Raises:
        DiffError: when a side does not exist, does not check, or is not a build.
    """
    a, b = _load(old), _load(new)
    result = RulebookDiff(str(a.bundle.get("version", "")), str(b.bundle.get("version", "")))
    _diff_documents(a.bundle, b.bundle, result.data)
    _diff_odds(a.bundle.get("odds", {}).get("tables", {}), b.bundle.get("odds", {}).get("tables", {}), result.odds)
    same_code = a.code == b.code and a.bundle == b.bundle
    if a.package is not None and b.package is not None and not same_code:  # same code, same distributions
        _diff_examples(a.package, b.package, result.examples)
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


def _odds_cells(table: dict) -> dict[tuple, Any]:
    """(group, row value, column value) → cell, for one odds table."""
    rows = table.get("rows", {}).get("values", [])
    cols = table.get("columns", {}).get("values", [])
    groups = (table.get("groups") or {}).get("values")
    grids = table.get("cells", []) if groups else [table.get("cells", [])]
    out = {}
    for g, grid in zip(groups or [None], grids):
        for r, line in zip(rows, grid):
            for c, cell in zip(cols, line):
                out[(g, r, c)] = cell
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


def _examples_by_key(package: ModuleType) -> dict[tuple[str, str, int], Any]:
    """Examples by (procedure, title, occurrence): source lines move between versions."""
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for ex in package.examples.EXAMPLES:
        n = seen.get((ex.procedure, ex.title), 0)
        seen[(ex.procedure, ex.title)] = n + 1
        out[(ex.procedure, ex.title, n)] = ex
    return out


def _distribution(package: ModuleType, example) -> dict[str, Fraction] | str:
    ev = evaluate(package, example)
    if ev.distribution is None:
        return f"error: {ev.error.message if ev.error is not None else ''}"  # the message, without the file position
    return {_show(runtime.to_jsonable(o)): p for o, p in ev.distribution.items()}


def _diff_examples(old: ModuleType, new: ModuleType, out: list[Change]) -> None:
    a, b = _examples_by_key(old), _examples_by_key(new)
    for key in list(a) + [k for k in b if k not in a]:
        procedure, title, _n = key
        label = f"ejemplo «{title}» ({procedure})"
        if key not in b or key not in a:
            out.append(Change("removed" if key not in b else "added", ("examples", procedure, title), label))
            continue
        da, db = _distribution(old, a[key]), _distribution(new, b[key])
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
    return "\n".join(lines)


def as_json(d: RulebookDiff) -> dict:
    """The differences for tools (fractions as ``"n/d"``)."""

    def change(c: Change) -> dict:
        return {"kind": c.kind, "path": list(c.path), "label": c.label, "old": runtime.to_jsonable(c.old), "new": runtime.to_jsonable(c.new)}

    return {
        "old_version": d.old_version, "new_version": d.new_version,
        "data": [change(c) for c in d.data], "odds": [change(c) for c in d.odds], "examples": [change(c) for c in d.examples],
    }
