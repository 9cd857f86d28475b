"""``rulebook diff OLD NEW``: what changed between two versions of a rulebook.

Reads two rulebooks, each a folder of ``.rules`` files (checked and compiled
here: the user's own sources) or a build folder, read as DATA only — its
``json/rulebook.json`` and ``json/examples.json`` (the test vectors), checked against
shapes this module states (:data:`BUNDLE_SHAPE`, :data:`VECTORS_SHAPE`); the build's
``python/`` is never imported, so diffing a build someone sent runs none of its code.
Produces a :class:`RulebookDiff` — entry point
:func:`diff_rulebooks(old, new) -> RulebookDiff`:

* data: catalog entries and table rows added, removed and changed field by
  field; special rules, enums and constants changed
  (:func:`rulebook.compiler.emit.data.changes.compare_data`);
* logic: procedures statement by statement (signature, steps, each statement's
  normalized text and line), records, the other declarations by digest, the prose
  (:func:`rulebook.compiler.emit.data.changes.compare_logic`, from ``json/logic.json``
  or the program compiled here); every change is classified MAJOR, MINOR or PATCH;
* the **balance shifts** (both sides sources with matchups): each unit whose effect per
  point against the field moved, with its rank in its category before and after
  (:func:`rulebook.compiler.analysis.balance.shifts`; the second side reuses the first's
  distributions, so a cost edit resolves nothing again);
* the **odds impact**: every cell of the odds tables and every outcome of the
  worked examples' exact distributions whose probability changed, with both
  values (``1/3 → 4/9``). A build lists a distribution of at most 100 results
  (:data:`rulebook.compiler.emit.data.vectors.MAX_LISTED`); a longer one is compared by its
  digest, unless both sides are sources (then resolved again, outcome by outcome).

:func:`render_text` and :func:`as_json` print it for people and for tools (the JSON as
``schemas/diff.schema.json`` describes it); ``rulebook diff`` exits 0 when nothing
differs, 1 when something does, 2 when a side cannot be read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

from rulebook import runtime

from rulebook.compiler.pipeline import driver
from rulebook.compiler.analysis import odds
from rulebook.compiler.emit.data import changes, logic, shapes, to_json
from rulebook.compiler.emit.data.changes import Change
from rulebook.compiler.analysis.examples import evaluate
from rulebook.compiler.support import terminal, untrusted_json
from rulebook.compiler.support.i18n import _, ngettext


class DiffError(Exception):
    """A side of the diff cannot be read (with the reason, ready to print); ``status``:
    the exit status, 2 (as ``diff``'s: 0 no differences, 1 differences, 2 trouble): a
    side is missing, has rule errors, or is a build whose files are not what
    ``rulebook build`` writes (:class:`BadBuild`)."""

    status = 2


class BadBuild(DiffError):
    status = 2


@dataclass
class RulebookDiff:
    """Every difference between two versions: data, logic, then the odds impact.
    ``next_version``: what a build of the new side would publish over a build of the
    old one (:func:`rulebook.compiler.emit.data.changes.next_version`)."""

    old_version: str
    new_version: str
    data: list[Change] = field(default_factory=list)
    odds: list[Change] = field(default_factory=list)
    examples: list[Change] = field(default_factory=list)
    logic: list[Change] = field(default_factory=list)
    logic_note: str | None = None  # why the logic was not compared (a build without json/logic.json)
    next_version: str = ""
    balance: list = field(default_factory=list)  # rulebook.compiler.analysis.balance.Shift, when both sides are sources

    @property
    def empty(self) -> bool:
        return not (self.data or self.logic or self.odds or self.examples)

    @property
    def level(self) -> str | None:
        """The highest level of the changes (None: no change)."""
        return changes.level([*self.data, *self.logic, *self.odds, *self.examples])


@dataclass
class _Side:
    """What a side of the diff is, as data: its bundle (``json/rulebook.json``) and its
    test vectors (the ``vectors`` of ``json/examples.json``); ``package``: the generated
    package of a rulebook compiled here from its sources (None for a build, whose code is
    never run)."""

    bundle: dict
    vectors: list[dict]
    package: ModuleType | None = None
    logic: dict | None = None  # json/logic.json (None: a build from before it was written)
    declared: str = ""  # the version the rulebook declares (a build: its published version)
    program: Any = None  # the checked program of a side compiled here (None for a build)


MAX_BUILD_JSON = 64 * 1024 * 1024
"""The largest ``json/rulebook.json`` or ``json/examples.json`` of a build read (the bundled
rulebooks': under 1 MB each)."""

BUNDLE_SHAPE, VECTORS_SHAPE = shapes.BUNDLE_SHAPE, shapes.VECTORS_SHAPE


def _read_build(path: Path) -> _Side:
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
    side = _Side(read[0], read[1]["vectors"], declared=str(read[0].get("version", "")))
    file = path / "json" / "logic.json"
    if file.is_file():
        try:
            doc = untrusted_json.load(file, MAX_BUILD_JSON, what="the build's file")
        except untrusted_json.UntrustedJson as exc:
            raise BadBuild(str(exc)) from None
        problem = untrusted_json.shape_problem(doc, logic.LOGIC_SCHEMA)
        if problem is not None:
            raise BadBuild(f"{file}: error: not what rulebook build writes: {terminal.one_line(problem)}")
        side.logic = doc
    return side


def _load(path: Path) -> _Side:
    """A rulebook folder (compiled here) or a build folder (read as data: :func:`_read_build`)."""
    if not path.exists():
        raise DiffError(f"{path}: no such file or folder")
    if (path / "json" / "rulebook.json").is_file():
        return _read_build(path)
    checked = driver.check(path)
    if not checked.ok or checked.program is None:
        from rulebook.rules_dsl.diagnostics import render_all

        errors = [d for d in checked.diagnostics if d.severity == "error"]
        raise DiffError(f"{path} has errors:\n" + render_all(errors, checked.sources))
    from rulebook.compiler.commands.balance import load_package

    package = load_package(checked.program)  # with the keys of its procedures: the balance shifts reuse distributions
    documents = to_json.documents(checked.program, odds.compute(package), package)
    # as a build writes them (json/rulebook.json, json/examples.json): the two kinds of side compare alike
    bundle = json.loads(to_json.dumps(documents["rulebook.json"]))
    vectors = json.loads(to_json.dumps(documents["examples.json"]))["vectors"]
    rb = checked.program.rulebook
    return _Side(bundle, vectors, package, logic.logic_doc(checked.program), rb.declared if rb else "", checked.program)


def diff_rulebooks(old: Path, new: Path) -> RulebookDiff:
    """Compare two versions of a rulebook (folders of ``.rules`` or builds).

    Raises:
        DiffError: when a side does not exist or does not check (status 1), or is a
            build whose files are not what ``rulebook build`` writes (status 2).
    """
    a, b = _load(old), _load(new)
    result = RulebookDiff(str(a.bundle.get("version", "")), str(b.bundle.get("version", "")))
    result.data = changes.compare_data(a.bundle, b.bundle)
    if a.logic is not None and b.logic is not None:
        result.logic = changes.compare_logic(a.logic, b.logic, result.data)
    else:
        result.logic_note = _("the logic is not compared: a build without json/logic.json (older than its format 2.1)")
    _diff_odds(a.bundle.get("odds", {}).get("tables", {}), b.bundle.get("odds", {}).get("tables", {}), result.odds)
    _diff_examples(a, b, result.examples)
    result.balance = _balance_shifts(a, b)
    result.next_version = changes.next_version(result.old_version, b.declared, result.level)
    return result


def _balance_shifts(a: _Side, b: _Side) -> list:
    """What an edit moves in ``rulebook balance``: both sides compiled here, with matchups."""
    if a.program is None or b.program is None or not (a.program.matchups and b.program.matchups):
        return []
    from rulebook.compiler.analysis import balance
    from rulebook.compiler.commands.balance import BalanceError, analyse_program

    try:
        old, new = analyse_program(a.program, a.package), analyse_program(b.program, b.package)
    except BalanceError:
        return []
    return balance.shifts(old.balance, new.balance)


def _ordinal(n: int | None) -> str:
    return "—" if n is None else f"#{n}"


def _shift_line(s) -> str:
    """``  ~ <unit> (<quality>): effect per 100 points against the field (<matchup>) +12.0 %; now 3rd of 11 in <category>, was 5th``."""
    if s.old is None or s.new is None or s.old == 0:
        change = f"{_value_text_number(s.old)} → {_value_text_number(s.new)}"
    else:
        change = f"{float((s.new - s.old) / s.old * 100):+.1f} %"
    return "  ~ " + _("%(unit)s: effect per point against the field in “%(matchup)s” %(change)s; now %(rank)s of %(size)s in %(category)s (was %(was)s)") % {
        "unit": s.label, "matchup": s.matchup_title, "change": change, "rank": _ordinal(s.new_rank), "size": s.size,
        "category": s.category, "was": _ordinal(s.old_rank)}


def _value_text_number(v) -> str:
    return "—" if v is None else f"{float(v):.3f}"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


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
        parts.append(f"{cols.get('title') or cols.get('variable') or _('result')} = {c}")
    return f"{table.get('title') or name}: " + ", ".join(parts)


def _diff_odds(old: dict, new: dict, out: list[Change]) -> None:
    for name in list(old) + [t for t in new if t not in old]:
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append(Change("added" if a is None else "removed", ("odds", name), _("odds table «%(name)s»") % {"name": name},
                              level=changes.MINOR if a is None else changes.MAJOR))
            continue
        cells_a, cells_b = _odds_cells(a), _odds_cells(b)
        for key in list(cells_a) + [k for k in cells_b if k not in cells_a]:
            x, y = _fraction(cells_a.get(key, 0)), _fraction(cells_b.get(key, 0))  # an outcome column missing on one side: probability 0
            if x != y:  # the path names the group (when the table has groups), the row and the column
                path = ("odds", name) + tuple(k if isinstance(k, str) else _show(k) for k in key if k is not None)
                out.append(Change("changed", path, _cell_label(b, name, key), x, y))


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
    return _("no result") if vector["digest"] is None else _digest_text(vector)


def _digest_text(vector: dict) -> str:
    return ngettext("%(count)s result, %(digest)s", "%(count)s results, %(digest)s", vector["results"]) % {"count": vector["results"], "digest": vector["digest"]}


def _same_vector(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in ("input", "error", "results", "digest", "distribution"))


def _diff_examples(old: _Side, new: _Side, out: list[Change]) -> None:
    """Each example's outcomes, from the test vectors; two sides compiled here from
    sources resolve the examples that differ again, so that distributions of more than
    100 results are compared outcome by outcome too."""
    a, b = _examples_by_key(old.vectors), _examples_by_key(new.vectors)
    for key in list(a) + [k for k in b if k not in a]:
        procedure, title, _n = key
        label = _("example «%(title)s» (%(procedure)s)") % {"title": title, "procedure": procedure}
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
                out.append(Change("changed", ("examples", procedure, title), _("%(label)s: distribution") % {"label": label}, _digest_text(va), _digest_text(vb)))
            continue
        else:
            da, db = _listed(va), _listed(vb)
        if isinstance(da, str) or isinstance(db, str):
            if da != db:
                out.append(Change("changed", ("examples", procedure, title), label, da if isinstance(da, str) else _("resolves"), db if isinstance(db, str) else _("resolves")))
            continue
        for outcome in list(da) + [o for o in db if o not in da]:
            pa, pb = da.get(outcome, Fraction(0)), db.get(outcome, Fraction(0))
            if pa != pb:
                out.append(Change("changed", ("examples", procedure, title, outcome), _("%(label)s: result %(outcome)s") % {"label": label, "outcome": outcome}, pa, pb))


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
        return _("no changes")
    return "\n".join(terminal.one_line(line) for line in _text_lines(d))  # a build's texts cannot start lines of their own


def _text_lines(d: RulebookDiff) -> list[str]:
    level = d.level
    lines = [_("version %(old)s → %(new)s: %(level)s change (a build over the previous one would publish %(next)s)") % {
        "old": d.old_version or "—", "new": d.new_version or "—", "level": level.upper() if level else "—", "next": d.next_version or "—"}]
    if d.logic_note:
        lines.append(d.logic_note)
    for title, group in ((_("Data"), d.data), (_("Logic"), d.logic), (_("Odds"), d.odds), (_("Examples"), d.examples)):
        if not group:
            continue
        lines += ["", f"{title} ({len(group)})"]
        for c in group:
            lines.append(_change_line(c))
    if d.balance:
        lines += ["", f"{_('Balance')} ({len(d.balance)})"]
        lines += [_shift_line(s) for s in d.balance]
    return lines


def _change_line(c: Change) -> str:
    """``  ~ [PATCH] label: old → new (file:line)``; a statement's text between backticks."""
    code = "statements" in c.path
    shown = (lambda v: f"`{v}`") if code else _value_text
    where = f" ({c.where})" if c.where else ""
    tag = f"[{c.level.upper()}]"
    if c.kind == "changed":
        return f"  ~ {tag} {c.label}: {shown(c.old)} → {shown(c.new)}{where}"
    value = c.new if c.kind == "added" else c.old
    text = f": {shown(value)}" if code or (isinstance(value, str) and value) else ""
    return f"  {'+' if c.kind == 'added' else '-'} {tag} {c.label}{text}{where}"


def _jsonable(value: Any) -> Any:
    """A change's value in JSON: a probability always as a fraction string (``"1/27"``, ``"0"``)."""
    if isinstance(value, Fraction):
        return str(value)
    return runtime.to_jsonable(value)


def as_json(d: RulebookDiff) -> dict:
    """The differences for tools, as :data:`rulebook.compiler.emit.data.changes.DIFF_BODY`
    describes them (``schemas/diff.schema.json`` of every build)."""

    def change(c: Change) -> dict:
        return {"kind": c.kind, "level": c.level, "path": [str(p) for p in c.path], "label": c.label, "where": c.where,
                "old": _jsonable(c.old), "new": _jsonable(c.new)}

    return {
        "format": "rulebook-diff/1", "old_version": d.old_version, "new_version": d.new_version,
        "level": d.level, "next_version": d.next_version,
        "data": [change(c) for c in d.data], "logic": [change(c) for c in d.logic],
        "odds": [change(c) for c in d.odds], "examples": [change(c) for c in d.examples],
        "balance": [{
            "matchup": s.matchup, "unit": s.attacker, "label": s.label, "category": s.category,
            "old": None if s.old is None else str(s.old), "new": None if s.new is None else str(s.new),
            "change_percent": None if s.old in (None, 0) or s.new is None else round(float((s.new - s.old) / s.old * 100), 2),
            "old_rank": s.old_rank, "new_rank": s.new_rank, "category_size": s.size,
        } for s in d.balance],
    }
