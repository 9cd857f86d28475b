"""What changed between two published versions of a rulebook, each change classified
MAJOR, MINOR or PATCH, and the semantic version that follows.

Reads plain JSON values only — a side's bundle (``json/rulebook.json``) and logic
(``json/logic.json``, :mod:`rulebook.compiler.emit.data.logic`), made here from a program or
read from a build as data — so ``rulebook diff`` and the build's versioning
(:mod:`rulebook.compiler.pipeline.versioning`) classify alike. Entry points:

* :func:`compare_data(old, new) -> list[Change]` — catalogs, tables, rules, enums, constants;
* :func:`compare_logic(old, new) -> list[Change]` — procedures (signature and statements),
  records, the other declarations (by digest) and prose;
* :func:`level(changes)`, :func:`next_version(previous, declared, level)`.

The policy (README, "Versions"): MAJOR when something a reader calls or reads is gone or
has another shape (an id, field, procedure, input, enum value, type or result type removed
or changed, an input made required); MINOR when something is added or the rules'
logic changes (a statement, a step, an input's default); PATCH for values and words
(costs, table cells, prose, titles, odds and example outcomes).
"""

from __future__ import annotations

from rulebook.compiler.support.i18n import N_, _

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

MAJOR, MINOR, PATCH = "major", "minor", "patch"
LEVELS = (PATCH, MINOR, MAJOR)
"""The levels, lowest first."""


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` is added, removed or changed; ``path`` says where
    (e.g. ``("catalogs", "weapon_kits", "long_rifle", "reach")``); ``label`` is
    the same place in words, for people; ``level`` is MAJOR, MINOR or PATCH; ``where``
    the new (or old) source line, ``06-disparo.rules:1075``, when known."""

    kind: str
    path: tuple[str, ...]
    label: str
    old: Any = None
    new: Any = None
    level: str = PATCH
    where: str | None = None


def level(changes: list[Change]) -> str | None:
    """The highest level of ``changes`` (None: no change)."""
    found = {c.level for c in changes}
    return next((lv for lv in reversed(LEVELS) if lv in found), None)


# ---------------------------------------------------------------------------- versions

_VERSION = re.compile(r"(0|[1-9][0-9]{0,8})(?:\.(0|[1-9][0-9]{0,8}))?(?:\.(0|[1-9][0-9]{0,8}))?")
SEMVER = r"^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$"
"""A published version: ``major.minor.patch``."""


def parse(version: str) -> tuple[int, int, int] | None:
    """``"1.0"`` → (1, 0, 0); ``"1.2.3"`` → (1, 2, 3); anything else (``"2ª edición"``) → None."""
    m = _VERSION.fullmatch(version or "")
    return (int(m[1]), int(m[2] or 0), int(m[3] or 0)) if m else None


def text(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def first_version(declared: str) -> str:
    """The version of a build with no previous one: the declared version with a ``.0``
    patch (``1.0`` → ``1.0.0``); a declared version that is not numbers is kept as written."""
    v = parse(declared)
    return text(v) if v else declared


def next_version(previous: str, declared: str, change: str | None) -> str:
    """The version after ``previous`` (published) for a change of level ``change``
    (None: the same content); a declared version above the result wins.

    >>> next_version("1.0.0", "1.0", "patch"), next_version("1.0.1", "1.0", "minor"), next_version("1.1.0", "1.0", "major")
    ('1.0.1', '1.1.0', '2.0.0')
    >>> next_version("1.0.3", "1.0", None), next_version("1.0.3", "2.0", "patch"), next_version("1.0.3", "1.0", PATCH)
    ('1.0.3', '2.0.0', '1.0.4')
    """
    base, wanted = parse(previous), parse(declared)
    if wanted is None:
        return declared  # not a version the build can count from: published as declared
    if base is None:
        return text(wanted)
    major, minor, patch = base
    bumped = {None: base, PATCH: (major, minor, patch + 1), MINOR: (major, minor + 1, 0), MAJOR: (major + 1, 0, 0)}[change]
    return text(max(bumped, wanted))


# ---------------------------------------------------------------------------- data


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _diff_values(old: Any, new: Any, path: tuple[str, ...], label: str, out: list[Change], lv: str = PATCH) -> None:
    """Nested values compared down to the leaves that differ (``kit_lines[0].aimed.middle``);
    a key added below: MINOR, removed: MAJOR; a value changed: ``lv``."""
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for f in list(old) + [k for k in new if k not in old]:
            if f not in new or f not in old:
                gone = f not in new
                out.append(Change("removed" if gone else "added", path + (f,), f"{label}.{f}", old.get(f), new.get(f), MAJOR if gone else MINOR))
            else:
                _diff_values(old[f], new[f], path + (f,), f"{label}.{f}", out, lv)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            _diff_values(a, b, path + (str(i),), f"{label}[{i}]", out, lv)
    else:
        out.append(Change("changed", path, label, old, new, lv))


def _diff_fields(old: dict, new: dict, path: tuple[str, ...], label: str, out: list[Change], levels: dict[str, str] | None = None) -> None:
    """Two objects field by field: a field removed is MAJOR, added MINOR, changed PATCH
    (or the level ``levels`` gives the field)."""
    levels = levels or {}
    for f in list(old) + [k for k in new if k not in old]:
        if f not in old or f not in new:
            gone = f not in new
            out.append(Change("removed" if gone else "added", path + (f,), f"{label}, {f}", old.get(f), new.get(f), MAJOR if gone else MINOR))
        elif f in levels and callable(levels[f]):
            levels[f](old[f], new[f], path + (f,), f"{label}, {f}", out)
        else:
            _diff_values(old[f], new[f], path + (f,), f"{label}, {f}", out, levels.get(f, PATCH))


def _diff_keyed(old: dict, new: dict, path: tuple[str, ...], label: str, out: list[Change], removed: str = MAJOR,
                levels: dict[str, Any] | None = None) -> None:
    """Items by id: removed (``removed``), added (MINOR), or changed field by field."""
    for ident in list(old) + [k for k in new if k not in old]:
        where = f"{label} «{ident}»"
        if ident not in new:
            out.append(Change("removed", path + (ident,), where, old[ident], None, removed))
        elif ident not in old:
            out.append(Change("added", path + (ident,), where, None, new[ident], MINOR))
        elif isinstance(old[ident], dict) and isinstance(new[ident], dict):
            _diff_fields(old[ident], new[ident], path + (ident,), where, out, levels)
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


def _columns(table: dict) -> dict[str, str]:
    """A table's keys, ``across`` and columns by name → their type."""
    out = {}
    for part in ("keys", "columns"):
        for col in table.get(part) or []:
            if isinstance(col, dict):
                out[f"{part}.{col.get('name')}"] = str(col.get("type"))
    across = table.get("across")
    if isinstance(across, dict):
        out[f"across.{across.get('name')}"] = str(across.get("type"))
    return out


def _typed(old: dict, new: dict, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    """Named types: removed MAJOR, added MINOR, type changed MAJOR."""
    for name in list(old) + [k for k in new if k not in old]:
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        kind = "removed" if b is None else "added" if a is None else "changed"
        out.append(Change(kind, path + (name,), _("%(label)s, %(name)s (type)") % {"label": label, "name": name}, a, b, MINOR if kind == "added" else MAJOR))


def _params(old: list, new: list, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    """Inputs (of a procedure or a rule) by name: removed, made required, a new required
    one or another type: MAJOR; a new optional one, one made optional, another default:
    MINOR; only their order: PATCH."""
    a = {p.get("name"): p for p in old if isinstance(p, dict)}
    b = {p.get("name"): p for p in new if isinstance(p, dict)}
    for name in list(a) + [k for k in b if k not in a]:
        pa, pb = a.get(name), b.get(name)
        where = _("%(label)s, input %(name)s") % {"label": label, "name": name}
        if pb is None:
            out.append(Change("removed", path + (name,), where, _param_text(pa), None, MAJOR))
        elif pa is None:
            out.append(Change("added", path + (name,), where, None, _param_text(pb), MAJOR if pb.get("required") else MINOR))
        elif pa != pb:
            if pa.get("type") != pb.get("type"):
                lv = MAJOR
            elif pa.get("required") != pb.get("required"):
                lv = MAJOR if pb.get("required") else MINOR
            elif {k: v for k, v in pa.items() if k != "title"} == {k: v for k, v in pb.items() if k != "title"}:
                lv = PATCH  # only the words players read
            else:
                lv = MINOR  # the default: callers that leave it out get other results
            out.append(Change("changed", path + (name,), where, _param_text(pa), _param_text(pb), lv))
    if [p for p in a if p in b] != [p for p in b if p in a]:
        out.append(Change("changed", path, _("%(label)s: order of the inputs") % {"label": label}, list(a), list(b), PATCH))


def _param_text(p: dict) -> str:
    default = p.get("default")
    return f"{p.get('name')}: {p.get('type')}" + (f" = {default}" if default is not None else "")


def _enum_values(old: list, new: list, path: tuple[str, ...], label: str, out: list[Change]) -> None:
    a = {v.get("id"): v.get("title") for v in old if isinstance(v, dict)}
    b = {v.get("id"): v.get("title") for v in new if isinstance(v, dict)}
    for ident in list(a) + [k for k in b if k not in a]:
        if ident not in b:
            out.append(Change("removed", path + (ident,), f"{label}.{ident}", a[ident], None, MAJOR))
        elif ident not in a:
            out.append(Change("added", path + (ident,), f"{label}.{ident}", None, b[ident], MINOR))
        elif a[ident] != b[ident]:
            out.append(Change("changed", path + (ident,), f"{label}.{ident}", a[ident], b[ident], PATCH))
    if [v for v in a if v in b] != [v for v in b if v in a]:
        out.append(Change("changed", path, _("%(label)s: order") % {"label": label}, list(a), list(b), MINOR))


def compare_data(old: dict, new: dict) -> list[Change]:
    """Two bundles (``json/rulebook.json``): catalogs and table rows field by field, rules,
    enums and constants. (Procedures: :func:`compare_logic`.)"""
    out: list[Change] = []
    old_catalogs, new_catalogs = old.get("catalogs", {}), new.get("catalogs", {})
    for name in list(old_catalogs) + [c for c in new_catalogs if c not in old_catalogs]:
        a, b = old_catalogs.get(name), new_catalogs.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("catalogs", name), _("catalog «%(name)s»") % {"name": name}, level=MINOR if a is None else MAJOR))
            continue
        if a.get("record") != b.get("record"):
            out.append(Change("changed", ("catalogs", name, "record"), _("catalog «%(name)s»: type of its entries") % {"name": name}, a.get("record"), b.get("record"), MAJOR))
        _diff_keyed(a.get("entries", {}), b.get("entries", {}), ("catalogs", name), _("catalog «%(name)s»") % {"name": name}, out)
    old_tables, new_tables = old.get("tables", {}), new.get("tables", {})
    for name in list(old_tables) + [t for t in new_tables if t not in old_tables]:
        a, b = old_tables.get(name), new_tables.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("tables", name), _("table «%(name)s»") % {"name": name}, level=MINOR if a is None else MAJOR))
            continue
        _typed(_columns(a), _columns(b), ("tables", name, "columns"), _("table «%(name)s»") % {"name": name}, out)
        ranged = any(isinstance(k, dict) and k.get("range") for k in (a.get("keys") or []) + (b.get("keys") or []))
        # a range's bounds are values: a row of a ranged table moved, added or removed is MINOR at most
        _diff_keyed(_rows(a), _rows(b), ("tables", name), _("table «%(name)s», row") % {"name": name}, out, removed=MINOR if ranged else MAJOR)
    sections = (("rules", _("rule"), {"params": _params}), ("enums", _("enumeration"), {"values": _enum_values, "ordered": MAJOR}),
                ("constants", _("constant"), {"type": MAJOR}))
    for section, label, levels in sections:
        _diff_keyed(old.get(section, {}).get(section, {}), new.get(section, {}).get(section, {}), (section,), label, out, levels=levels)
    return out


# ---------------------------------------------------------------------------- logic


def _statement_lines(proc: dict) -> list[dict]:
    return [s for s in proc.get("statements", []) if isinstance(s, dict)]


def _step_name(proc: dict, number: Any) -> str:
    if number is None:
        return _("outside the steps")
    label = next((s.get("label") for s in proc.get("steps", []) if s.get("number") == number), "")
    return _("step %(number)s «%(label)s»") % {"number": number, "label": label}


def _where(s: dict) -> str:
    return f"{s.get('file')}:{s.get('line')}"


def _similar(old: list, new: list, i0: int, j0: int) -> list[tuple[int, int]]:
    """Statements of a replaced run paired, in order, with the most similar one of the
    same depth (at least half alike): the edited ones; the others were added or removed."""
    pairs, start = [], 0
    for i, (depth, text) in enumerate(old):
        best, best_j = 0.5, None
        for j in range(start, len(new)):
            if new[j][0] == depth:
                ratio = difflib.SequenceMatcher(None, text or "", new[j][1] or "", autojunk=False).ratio()
                if ratio > best:
                    best, best_j = ratio, j
        if best_j is not None:
            pairs.append((i0 + i, j0 + best_j))
            start = best_j + 1
    return pairs


def _compare_statements(name: str, a: dict, b: dict, out: list[Change]) -> None:
    """The statements of two versions of procedure ``name``, aligned as a text diff (by
    their normalized text and depth): each one changed, added or removed is MINOR."""
    sa, sb = _statement_lines(a), _statement_lines(b)
    keys_a = [(s.get("depth"), s.get("text")) for s in sa]
    keys_b = [(s.get("depth"), s.get("text")) for s in sb]
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        pairs = _similar(keys_a[i1:i2], keys_b[j1:j2], i1, j1) if op == "replace" else []
        for i, j in pairs:
            old, new = sa[i], sb[j]
            step = _step_name(b, new.get("step"))
            out.append(Change("changed", ("procedures", name, "statements", str(j + 1)), _("procedure %(name)s, %(step)s") % {"name": name, "step": step},
                              old.get("text"), new.get("text"), MINOR, _where(new)))
        for i in sorted(set(range(i1, i2)) - {i for i, _ in pairs}):
            old = sa[i]
            out.append(Change("removed", ("procedures", name, "statements", str(i + 1)), _("procedure %(name)s, %(step)s") % {"name": name, "step": _step_name(a, old.get("step"))},
                              old.get("text"), None, MINOR, _where(old)))
        for j in sorted(set(range(j1, j2)) - {j for _, j in pairs}):
            new = sb[j]
            out.append(Change("added", ("procedures", name, "statements", str(j + 1)), _("procedure %(name)s, %(step)s") % {"name": name, "step": _step_name(b, new.get("step"))},
                              None, new.get("text"), MINOR, _where(new)))


def _compare_steps(name: str, a: dict, b: dict, out: list[Change]) -> None:
    """Steps by number: a label changed is PATCH (words); a step added or removed MINOR."""
    sa = {s.get("number"): s for s in a.get("steps", []) if isinstance(s, dict)}
    sb = {s.get("number"): s for s in b.get("steps", []) if isinstance(s, dict)}
    for n in list(sa) + [k for k in sb if k not in sa]:
        x, y = sa.get(n), sb.get(n)
        path = ("procedures", name, "steps", str(n))
        if y is None:
            out.append(Change("removed", path, _("procedure %(name)s, step %(number)s") % {"name": name, "number": n}, x.get("label"), None, MINOR))
        elif x is None:
            out.append(Change("added", path, _("procedure %(name)s, step %(number)s") % {"name": name, "number": n}, None, y.get("label"), MINOR))
        elif x.get("label") != y.get("label"):
            out.append(Change("changed", path, _("procedure %(name)s, step %(number)s: title") % {"name": name, "number": n}, x.get("label"), y.get("label"), PATCH,
                              f"{b.get('file')}:{y.get('line')}"))


def _compare_procedures(old: dict, new: dict, out: list[Change]) -> None:
    for name in list(old) + [p for p in new if p not in old]:
        a, b = old.get(name), new.get(name)
        path = ("procedures", name)
        if b is None:
            out.append(Change("removed", path, _("procedure %(name)s") % {"name": name}, a.get("title"), None, MAJOR, f"{a.get('file')}:{a.get('line')}"))
            continue
        if a is None:
            out.append(Change("added", path, _("procedure %(name)s") % {"name": name}, None, b.get("title"), MINOR, f"{b.get('file')}:{b.get('line')}"))
            continue
        if a.get("title") != b.get("title"):
            out.append(Change("changed", path + ("title",), _("procedure %(name)s: title") % {"name": name}, a.get("title"), b.get("title"), PATCH))
        _params(a.get("params", []), b.get("params", []), path + ("params",), _("procedure %(name)s") % {"name": name}, out)
        if a.get("result") != b.get("result"):
            out.append(Change("changed", path + ("result",), _("procedure %(name)s: type of the result") % {"name": name}, a.get("result"), b.get("result"), MAJOR))
        _compare_steps(name, a, b, out)
        _compare_statements(name, a, b, out)


def _compare_records(old: dict, new: dict, out: list[Change]) -> None:
    for name in list(old) + [r for r in new if r not in old]:
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("records", name), _("record %(name)s") % {"name": name}, level=MINOR if a is None else MAJOR))
            continue
        fa = {f.get("name"): f.get("type") for f in a.get("fields", []) if isinstance(f, dict)}
        fb = {f.get("name"): f.get("type") for f in b.get("fields", []) if isinstance(f, dict)}
        _typed(fa, fb, ("records", name, "fields"), _("record %(name)s, field") % {"name": name}, out)


_REMOVED = {"term": PATCH}
"""The level of a declaration of a kind compared only by its digest removed (default MAJOR)
or added (MINOR; a glossary term: PATCH)."""

_DETAILED = {"procedure", "record", "catalog", "table", "rule", "enum", "const"}
"""The kinds compared item by item elsewhere: their digest only says that words changed
(a title, a doc) when nothing else was reported of them."""


def _compare_declarations(old: dict, new: dict, out: list[Change], reported: set[str]) -> None:
    for name in list(old) + [d for d in new if d not in old]:
        a, b = old.get(name), new.get(name)
        kind = (b or a).get("kind")
        detailed = kind in _DETAILED
        where = f"{(b or a).get('file')}:{(b or a).get('line')}"
        label = f"{kind} «{name}»"
        if a is None or b is None:
            if detailed:
                continue
            lv = _REMOVED.get(kind, MAJOR if b is None else MINOR)
            out.append(Change("added" if a is None else "removed", ("declarations", name), label, level=lv, where=where))
        elif a.get("digest") != b.get("digest") and not (detailed and name in reported):
            out.append(Change("changed", ("declarations", name), _("%(label)s: text") % {"label": label}, a.get("title"), b.get("title"), PATCH, where))


def _compare_prose(old: dict, new: dict, out: list[Change]) -> None:
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        title = (b or a).get("title") or _("front matter")
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("prose", key), _("prose, section %(title)s") % {"title": title}, level=PATCH))
            continue
        ba, bb = a.get("blocks", []), b.get("blocks", [])
        matcher = difflib.SequenceMatcher(None, [x.get("digest") for x in ba], [x.get("digest") for x in bb], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            pairs = list(zip(range(i1, i2), range(j1, j2))) if op == "replace" else []
            for i, j in pairs:
                out.append(Change("changed", ("prose", key, str(j + 1)), _("prose, section %(title)s") % {"title": title}, ba[i].get("excerpt"), bb[j].get("excerpt"),
                                  PATCH, _("line %(line)s") % {"line": bb[j].get("line")}))
            for i in range(i1 + len(pairs), i2):
                out.append(Change("removed", ("prose", key, str(i + 1)), _("prose, section %(title)s") % {"title": title}, ba[i].get("excerpt"), None, PATCH))
            for j in range(j1 + len(pairs), j2):
                out.append(Change("added", ("prose", key, str(j + 1)), _("prose, section %(title)s") % {"title": title}, None, bb[j].get("excerpt"), PATCH,
                                  _("line %(line)s") % {"line": bb[j].get("line")}))


def compare_logic(old: dict, new: dict, data: list[Change] = ()) -> list[Change]:
    """Two logic documents (``json/logic.json``): procedures, records, the other
    declarations and prose, classified; ``data``: the changes :func:`compare_data` found
    (a declaration they report is not reported again for its words)."""
    out: list[Change] = []
    _compare_procedures(old.get("procedures", {}), new.get("procedures", {}), out)
    _compare_records(old.get("records", {}), new.get("records", {}), out)
    reported = {c.path[1] for c in [*data, *out] if len(c.path) > 1}
    _compare_declarations(old.get("declarations", {}), new.get("declarations", {}), out, reported)
    _compare_prose(old.get("prose", {}), new.get("prose", {}), out)
    return out


# ---------------------------------------------------------------------------- the diff's JSON

FRACTION = {"type": "string", "pattern": r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$", "maxLength": 200}
"""An exact probability as written in JSON: ``"1/27"``, ``"0"``, ``"1"``."""

_LEVEL = {"enum": list(LEVELS)}
_KIND = {"enum": ["added", "removed", "changed"]}


def _change_schema(title: str, description: str, value: dict) -> dict:
    props = {
        "kind": {**_KIND, "description": N_("Whether it was added, removed or changed.")},
        "level": {**_LEVEL, "description": N_("Its level: major, minor or patch.")},
        "path": {"type": "array", "items": {"type": "string"}, "description": N_("Where: section, id, field… (never “None”).")},
        "label": {"type": "string", "description": N_("What changed, in words.")},
        "where": {"type": ["string", "null"], "description": N_("file:line of the source, when known.")},
        "old": {**value, "description": N_("The value before (null: none).")}, "new": {**value, "description": N_("The value after (null: none).")},
    }
    return {"title": title, "description": description, "type": "object", "properties": props,
            "required": list(props), "additionalProperties": False}


DIFF_BODY = {
    "type": "object",
    "properties": {
        "format": {"const": "rulebook-diff/1", "description": N_("The version of this output's shape.")},
        "old_version": {"type": "string", "description": N_("The version of OLD.")},
        "new_version": {"type": "string", "description": N_("The version of NEW.")},
        "level": {"anyOf": [_LEVEL, {"type": "null"}], "description": N_("The highest level of the changes (null: no change).")},
        "next_version": {"type": "string", "description": N_("The version a build of NEW would publish over a build of OLD.")},
        "data": {"type": "array", "items": {"$ref": "#/$defs/DataChange"}, "description": N_("The changes of data: catalogs, tables, rules, enums, constants…")},
        "logic": {"type": "array", "items": {"$ref": "#/$defs/DataChange"}, "description": N_("The changes of logic: procedures, records, declarations, prose.")},
        "odds": {"type": "array", "items": {"$ref": "#/$defs/ProbabilityChange"}, "description": N_("The changed cells of the odds tables.")},
        "examples": {"type": "array", "items": {"$ref": "#/$defs/ExampleChange"}, "description": N_("The changed results of the worked examples.")},
        "balance": {"type": "array", "items": {"$ref": "#/$defs/BalanceShift"}, "description": N_(
            "The units whose effect per point against the field moved (rulebook balance), when both sides are sources.")},
    },
    "required": ["format", "old_version", "new_version", "level", "next_version", "data", "logic", "odds", "examples"],
    "additionalProperties": False,
    "$defs": {
        "DataChange": _change_schema("DataChange", N_("A change of data or logic: JSON values before and after (null when there was none)."), {}),
        "ProbabilityChange": _change_schema("ProbabilityChange", N_("A cell of odds: the exact fraction before and after (null: the procedure does not take those inputs)."),
                                            {"anyOf": [FRACTION, {"type": "null"}]}),
        "BalanceShift": {
            "title": "BalanceShift", "description": N_("A unit whose effect per point moved: exact values before and after, and its rank in its category."),
            "type": "object", "additionalProperties": False,
            "required": ["matchup", "unit", "label", "category", "old", "new", "change_percent", "old_rank", "new_rank", "category_size"],
            "properties": {
                "matchup": {"type": "string", "description": N_("The matchup's id.")},
                "unit": {"type": "string", "description": N_("The unit's id.")},
                "label": {"type": "string", "description": N_("The unit's name (and quality).")},
                "category": {"type": "string", "description": N_("Its category.")},
                "old": {"anyOf": [FRACTION, {"type": "null"}], "description": N_("Its effect per 100 points before (null: no cost).")},
                "new": {"anyOf": [FRACTION, {"type": "null"}], "description": N_("Its effect per 100 points after (null: no cost).")},
                "change_percent": {"type": ["number", "null"], "description": N_("The change, in percent of the value before.")},
                "old_rank": {"type": ["integer", "null"], "description": N_("Its rank in its category before.")},
                "new_rank": {"type": ["integer", "null"], "description": N_("Its rank in its category after.")},
                "category_size": {"type": "integer", "description": N_("How many units of its category are ranked.")},
            },
        },
        "ExampleChange": _change_schema("ExampleChange", N_("A result of an example: its exact probability before and after, or a text (expected error, digest)."),
                                        {"type": ["string", "null"]}),
    },
}
"""The body of the schema of ``rulebook diff --format json`` (written by every build as
``schemas/diff.schema.json``; :func:`diff_schema` gives it with a tool-wide ``$id``)."""

DIFF_SCHEMA_ID = "https://rulebook.invalid/rulebook-diff/1/diff.schema.json"


def diff_schema() -> dict:
    """The schema of ``rulebook diff --format json``, standing alone."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": DIFF_SCHEMA_ID, "title": "RulebookDiff",
            "description": N_("What changes between two versions of a rulebook, classified (major, minor, patch)."), **DIFF_BODY}


# ---------------------------------------------------------------------------- the history of versions

MAX_VERSIONS = 100
"""How many published versions the history keeps (newest first)."""

MAX_CHANGES = 200
"""How many changes of one version the history lists (the rest are counted)."""

MAX_TEXT = 300
"""How long a value of a change in the history may be (longer ones are cut with "…")."""

_S = {"type": "string", "maxLength": 100_000}
_DIGEST = {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}

HISTORY_ENTRY = {
    "type": "object", "additionalProperties": False,
    "required": ["version", "previous", "level", "content_hash", "changes", "omitted"],
    "properties": {
        "version": {"type": "string", "pattern": SEMVER, "description": N_("The version published.")},
        "previous": {"type": ["string", "null"], "pattern": SEMVER, "description": N_("The version published before it (null: none).")},
        "level": {"anyOf": [_LEVEL, {"type": "null"}], "description": N_("The level of its changes (null: none).")},
        "content_hash": {**_DIGEST, "description": N_("The content hash of its sources.")},
        "changes": {"type": "array", "maxItems": MAX_CHANGES, "description": N_("Its changes, the highest level first."), "items": {
            "type": "object", "additionalProperties": False, "required": ["level", "kind", "label", "where", "old", "new"],
            "properties": {
                "level": {**_LEVEL, "description": N_("Its level: major, minor or patch.")},
                "kind": {**_KIND, "description": N_("Whether it was added, removed or changed.")},
                "label": {**_S, "description": N_("What changed, in words.")},
                "where": {"type": ["string", "null"], "maxLength": 1000, "description": N_("file:line of the source, when known.")},
                "old": {"type": ["string", "null"], "maxLength": MAX_TEXT + 1, "description": N_("The value before, as text (null: none).")},
                "new": {"type": ["string", "null"], "maxLength": MAX_TEXT + 1, "description": N_("The value after, as text (null: none).")},
            }}},
        "omitted": {"type": "integer", "minimum": 0, "description": N_("How many more changes it had (not listed).")},
    },
}

CHANGELOG_BODY = {
    "type": "object", "additionalProperties": False,
    "required": ["$schema", "id", "kind", "rulebook", "version", "declared_version", "versions"],
    "properties": {
        "$schema": {**_S, "description": N_("The $id of this document's schema.")},
        "id": {"const": "changelog", "description": N_("The id of this document: the name of its declaration.")},
        "kind": {"const": "changelog", "description": N_("What this document is.")},
        "rulebook": {**_S, "description": N_("The rulebook's id.")},
        "version": {"type": "string", "description": N_("The published version (major.minor.patch), computed by the build against the previous one: see json/changelog.json.")},
        "declared_version": {"type": "string", "description": N_("The version the rulebook declares (version \"…\"): the base of the published one.")},
        "versions": {"type": "array", "maxItems": MAX_VERSIONS, "items": {"$ref": "#/$defs/PublishedVersion"},
                     "description": N_("The published versions, the latest first.")},
    },
    "$defs": {"PublishedVersion": {"title": "PublishedVersion", "description": N_("A published version and its classified changes."), **HISTORY_ENTRY}},
}
"""The shape of ``json/changelog.json`` (the build's ``schemas/changelog.schema.json``), which
a previous build's copy is checked against (:mod:`rulebook.compiler.pipeline.versioning`)."""
