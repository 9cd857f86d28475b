"""Rosters: validate one against an army document, print it as a sheet.

Reads ONLY an army document (``json/armies/<army>.json``, written by
:mod:`rulebook.compiler.emit.data.to_armies`) and a roster (the format of
``schemas/roster.schema.json``), so that a JavaScript port agrees exactly.
Entry points:

* :func:`validate(army, roster) -> dict` — every error at once, each unit's cost,
  the total and the budget (the result shape is described in :func:`validate`);
* :func:`sheet(army, roster, result, fmt) -> str` — a one-page sheet (HTML or
  Markdown) with each chosen unit's card, everything escaped;
* :func:`main(args) -> int` — ``rulebook roster validate|print``: exit 0 legal
  (or printed), 1 illegal, 2 a file that cannot be read, is larger than
  :data:`MAX_BYTES` or has more than :data:`MAX_UNITS` units (refused before any
  check), is not JSON, holds a number over :data:`MAX_NUMBER`, does not follow the
  roster schema (or is for another rulebook), has units made of more than
  :data:`MAX_TROOPS` troops, or a rulebook that cannot be found or built.

A build folder given as ``--rulebook`` is read as data only: its army documents are
checked against the army schema the compiler writes (made here, not the build's copy)
and for what the validator looks up (:func:`read_build_armies`), and the roster against
the compiler's roster schema for those armies. Everything printed goes through
:mod:`rulebook.compiler.support.terminal` (the command line puts it in front of the
standard streams; a sheet written with ``-o`` through it too).

The rules, in the order they are applied (the order of the errors):

1. the roster's ``rulebook`` is the army's (``rulebook-mismatch``); a different
   ``content_hash`` is a warning (``stale-rulebook``);
2. ``side`` (``side-required``, ``unknown-side``, ``side-not-allowed``), then
   ``role`` (``role-…``, the same three);
3. the budget: ``size`` or ``points``, not both nor neither (``budget-both``,
   ``budget-required``), a known size (``unknown-size``), agreed points allowed
   (``agreed-not-allowed``) and at least ``agreed_min`` (``points-too-low``);
4. each unit in order: a known entry (``unknown-entry``; the unit then costs 0
   and nothing else of it is checked), of the roster's side
   (``entry-wrong-side``), its quality (``quality-required``,
   ``unknown-quality``, ``quality-not-allowed``), models (``models-required``,
   ``models-range``, ``models-not-allowed``), each option (``unknown-option``,
   ``option-not-allowed``; then ``option-max`` at the first occurrence over the
   most), the choices (``choices-count``, then ``choice-not-allowed`` for each),
   and what its options remove from the composition (``option-remove-missing``);
5. a roster without units (``no-units``);
6. the limits in the army's order (``units-``, ``category-``, ``entry-`` ``min``
   then ``max``), counting known entries (categories with their ``weight``);
7. the total against the budget (``over-budget``).

Costs follow :mod:`rulebook.compiler.emit.data.to_armies`: a missing or unknown quality counts as
0 %, missing or out-of-range models as ``models.min``, unknown and refused
options as 0. A did-you-mean (``suggestion``) is a candidate equal but for
case, else :func:`difflib.get_close_matches` (``n=1``, ``cutoff=0.6``) over the
candidates in the army's order.
"""

from __future__ import annotations

import collections
import difflib
import functools
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from rulebook.compiler.emit.data.to_armies import ROSTER_MAX_BYTES, ROSTER_MAX_UNITS
from rulebook.compiler.support import untrusted_json
from rulebook.compiler.support.terminal import one_line, visible

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, params: dict[str, str]) -> str:
    """``{name}`` → ``params[name]`` (unknown names stay as written); the JS port
    is ``template.replace(/\\{(\\w+)\\}/g, (m, k) => k in params ? params[k] : m)``."""
    return _PLACEHOLDER.sub(lambda m: params.get(m.group(1), m.group(0)), template)


def suggest(value: Any, candidates: list[str]) -> str | None:
    """The did-you-mean for an unknown id (see the module docstring)."""
    if not isinstance(value, str):
        return None
    return _suggested(value, tuple(candidates))


@functools.lru_cache(maxsize=256)
def _suggested(value: str, candidates: tuple[str, ...]) -> str | None:
    """:func:`suggest`, once for each value and candidates (a roster may repeat an unknown id
    thousands of times; ``get_close_matches`` compares it with every candidate)."""
    for c in candidates:
        if c.lower() == value.lower():
            return c
    found = difflib.get_close_matches(value, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def round_half_up(n: int, d: int) -> int:
    """``n / d`` to the nearest integer, halves up (n ≥ 0, d > 0): ``floor((2n + d) / 2d)``."""
    return (2 * n + d) // (2 * d)


class _Run:
    """One validation: the errors found so far, in order, and the troops placed so far."""

    def __init__(self, army: dict):
        self.army = army
        self.errors: list[dict] = []
        self.warnings: list[dict] = []
        self.troop_steps = 0  # troops placed in and taken from the units' compositions (at most MAX_TROOPS)

    def add(self, code: str, path: str, rule: dict | None, suggestion: str | None = None, severity: str = "error", **params: Any) -> None:
        shown = {k: str(v) for k, v in params.items()}
        item = {
            "severity": severity, "code": code, "path": path,
            "message": fill(self.army["messages"].get(code, code), shown), "params": shown,
            "rule": rule or self.army["rule"], "suggestion": suggestion,
        }
        (self.warnings if severity == "warning" else self.errors).append(item)


MAX_TROOPS = 100_000
"""The most troops the units of a roster may be made of, counting each troop placed by a
composition or an option and each taken away: past it the roster is refused (exit 2),
so that a roster taking an option tens of thousands of times, or an army whose lines
hold millions of troops, costs bounded time and memory."""


class RosterTooLarge(Exception):
    """The units of a roster are made of more than :data:`MAX_TROOPS` troops."""


class _Troops:
    """A unit's troops in order, as ``list.extend`` and ``list.remove`` (the first one)
    would leave them, each step in constant time: a roster that takes an option
    thousands of times does not make a quadratic validation."""

    def __init__(self, run: _Run):
        self.run = run
        self.items: list[str | None] = []  # None: taken away
        self.where: dict[str, collections.deque[int]] = {}  # troop → the places it is at, in order

    def room(self, count: int) -> int:
        """``count``, once counted against :data:`MAX_TROOPS`."""
        self.run.troop_steps += count
        if self.run.troop_steps > MAX_TROOPS:
            raise RosterTooLarge(f"the units are made of more than {MAX_TROOPS:,} troops")
        return count

    def place(self, troop: str, count: int) -> None:
        self.room(count)  # before the list is made: a count may be huge
        self._add([troop] * count)

    def extend(self, troops: list[str]) -> None:
        self.room(len(troops))
        self._add(troops)

    def _add(self, troops: list[str]) -> None:
        for t in troops:
            self.where.setdefault(t, collections.deque()).append(len(self.items))
            self.items.append(t)

    def remove(self, troop: str) -> bool:
        """Take the first ``troop`` away; False when there is none."""
        self.room(1)
        places = self.where.get(troop)
        if not places:
            return False
        self.items[places.popleft()] = None
        return True

    def listed(self) -> list[str]:
        return [t for t in self.items if t is not None]


def _ids(items: list[dict]) -> list[str]:
    return [x["id"] for x in items]


def _titles(items: list[dict]) -> dict[str, str]:
    return {x["id"]: x["title"] for x in items}


def _choice(run: _Run, roster: dict, key: str, items: list[dict], codes: tuple[str, str, str]) -> str | None:
    """``side`` or ``role``: the id when valid."""
    required, unknown, not_allowed = codes
    value = roster.get(key)
    ids = _ids(items)
    if not ids:
        if value is not None:
            run.add(not_allowed, f"$.{key}", None)
        return None
    if value is None:
        run.add(required, "$", None, choices=", ".join(ids))
        return None
    if value not in ids:
        run.add(unknown, f"$.{key}", None, suggest(value, ids), value=value, choices=", ".join(ids))
        return None
    return value


def _budget(run: _Run, roster: dict, role: str | None) -> tuple[int | None, dict | None]:
    """The budget (None when it cannot be known) and the rule it comes from."""
    b = run.army["budget"]
    sizes = {s["id"]: s for s in b["sizes"]}
    size_rule = b["sizes_rule"] or run.army["rule"]
    has_size, has_points = "size" in roster, "points" in roster
    if has_size and has_points:
        run.add("budget-both", "$", size_rule)
        return None, size_rule
    if has_size:
        size = sizes.get(roster["size"])
        if size is None:
            run.add("unknown-size", "$.size", size_rule, suggest(roster["size"], list(sizes)), value=roster["size"], choices=", ".join(sizes))
            return None, size_rule
        points = size["points"]
        if isinstance(points, dict):
            return (points.get(role) if role is not None else None), size_rule
        return points, size_rule
    if has_points:
        points = roster["points"]
        if not b["agreed"]:
            run.add("agreed-not-allowed", "$.points", size_rule, choices=", ".join(sizes))
            return None, size_rule
        if points < b["agreed_min"]:
            run.add("points-too-low", "$.points", run.army["rule"], min=b["agreed_min"], value=points)
            return None, run.army["rule"]
        bonus = b["bonus_percent"].get(role, 0) if role is not None else 0
        return points + round_half_up(points * bonus, 100), run.army["rule"]
    run.add("budget-required", "$", size_rule, choices=", ".join(sizes))
    return None, size_rule


def _unit(run: _Run, i: int, unit: dict, entries: dict, side: str | None) -> dict:
    """Check one unit; returns its line of the result."""
    army = run.army
    path = f"$.units[{i}]"
    entry = entries.get(unit["entry"])
    line = {"path": path, "entry": unit["entry"] if entry else None, "name": unit.get("name"), "known": entry is not None,
            "cost": {"base": 0, "quality": 0, "options": 0, "total": 0}, "troops": [], "options": []}
    if entry is None:
        run.add("unknown-entry", f"{path}.entry", None, suggest(unit["entry"], list(entries)), value=unit["entry"])
        return line
    rule = entry["rule"]
    sides = _titles(army["sides"])
    if entry["side"] is not None and side is not None and entry["side"] != side:
        run.add("entry-wrong-side", f"{path}.entry", None, entry=entry["name"], entry_side=sides.get(entry["side"], entry["side"]), side=sides.get(side, side))
    # quality
    percent = 0
    quality = army["quality"]
    if quality is not None:
        values = {q["id"]: q for q in quality["values"]}
        q = unit.get("quality")
        if q is None:
            run.add("quality-required", path, quality["rule"], entry=entry["name"], quality=quality["title"], choices=", ".join(values))
        elif q not in values:
            run.add("unknown-quality", f"{path}.quality", quality["rule"], suggest(q, list(values)), entry=entry["name"], quality=quality["title"], value=q, choices=", ".join(values))
        else:
            percent = values[q]["percent"]
    elif "quality" in unit:
        run.add("quality-not-allowed", f"{path}.quality", None, entry=entry["name"])
    # models
    extra = 0
    models = entry["models"]
    if models is not None:
        m = unit.get("models")
        if m is None:
            run.add("models-required", path, rule, entry=entry["name"], min=models["min"], max=models["max"])
        elif not models["min"] <= m <= models["max"]:
            run.add("models-range", f"{path}.models", rule, entry=entry["name"], min=models["min"], max=models["max"], value=m)
        else:
            extra = m - models["min"]
    elif "models" in unit:
        run.add("models-not-allowed", f"{path}.models", rule, entry=entry["name"])
    # options
    allowed = {army["options"][k]["id"]: army["options"][k] for k in entry["options"]}
    every = {o["id"]: o for o in army["options"].values()}
    taken: list[tuple[int, dict]] = []
    counts: dict[str, int] = {}
    for j, oid in enumerate(unit.get("options", [])):
        option = allowed.get(oid)
        if option is None:
            if oid in every:
                run.add("option-not-allowed", f"{path}.options[{j}]", None, entry=entry["name"], option=every[oid]["title"])
            else:
                run.add("unknown-option", f"{path}.options[{j}]", rule, suggest(oid, list(allowed)), entry=entry["name"], value=oid)
            continue
        counts[oid] = counts.get(oid, 0) + 1
        if counts[oid] == option["max"] + 1:
            run.add("option-max", f"{path}.options[{j}]", option["rule"], entry=entry["name"], option=option["title"], count=unit["options"].count(oid), max=option["max"])
        taken.append((j, option))
    # choices and composition
    choosing = [s for s in entry["composition"] if len(s["alternatives"]) > 1]
    choices = unit.get("choices", [])
    if len(choices) != len(choosing):
        run.add("choices-count", f"{path}.choices" if "choices" in unit else path, rule, entry=entry["name"], expected=len(choosing), count=len(choices))
    troops = _Troops(run)
    k = 0
    for slot in entry["composition"]:
        chosen = slot["alternatives"][0]
        if len(slot["alternatives"]) > 1:
            chosen = choices[k] if k < len(choices) else None
            if chosen is not None and chosen not in slot["alternatives"]:
                names = [army["troops"].get(t, {}).get("name", t) for t in slot["alternatives"]]
                run.add("choice-not-allowed", f"{path}.choices[{k}]", rule, suggest(chosen, slot["alternatives"]), entry=entry["name"], value=chosen, choices=", ".join(names))
                chosen = None
            k += 1
        if chosen is not None:
            troops.place(chosen, slot["count"])
    for j, option in taken:
        for t in option["remove"]:
            if not troops.remove(t):
                run.add("option-remove-missing", f"{path}.options[{j}]", option["rule"], entry=entry["name"], option=option["title"], troop=army["troops"].get(t, {}).get("name", t))
        troops.extend(option["add"])
    # cost
    own = entry["cost"] + entry["per_model"] * extra
    with_quality = round_half_up(own * (100 + percent), 100) if quality is not None else own
    options_cost = sum(o["cost"] for _, o in taken)
    line["cost"] = {"base": own, "quality": with_quality, "options": options_cost, "total": with_quality + options_cost}
    line["troops"] = troops.listed()
    line["options"] = [o["key"] for _, o in taken]
    return line


def _limits(run: _Run, lines: list[dict], entries: dict) -> None:
    army = run.army
    known = [entries[x["entry"]] for x in lines if x["known"]]
    categories = _titles(army["categories"])
    for limit in army["limits"]:
        kind, target = limit["kind"], limit["target"]
        if kind == "units":
            count, params = len(known), {}
        elif kind == "category":
            count = sum(e["weight"] for e in known if e["category"] == target)
            params = {"category": categories.get(target, target)}
        else:
            count = sum(1 for e in known if e["id"] == target)
            params = {"entry": entries[target]["name"] if target in entries else target}
        if limit["min"] is not None and count < limit["min"]:
            run.add(f"{kind}-min", "$.units", limit["rule"], count=count, min=limit["min"], **params)
        if limit["max"] is not None and count > limit["max"]:
            run.add(f"{kind}-max", "$.units", limit["rule"], count=count, max=limit["max"], **params)


def validate(army: dict, roster: dict) -> dict:
    """Validate a roster (already checked against the roster schema) against an army document.

    Returns ``{"legal": bool, "army": id, "errors": [...], "warnings": [...],
    "units": [...], "total": int, "budget": int | None}``. Each error (and
    warning) is ``{"severity", "code", "path" (JSON path), "message" (the
    army's template for the code, filled), "params" (texts), "rule" ({"id",
    "title", "source"}: the declaration stating the rule and its manual
    section), "suggestion" (did-you-mean or None)}``. Each unit is ``{"path",
    "entry" (None when unknown), "name", "known", "cost": {"base", "quality",
    "options", "total"}, "troops" (its composition after choices and options),
    "options" (keys of the options counted)}``.
    """
    run = _Run(army)
    _suggested.cache_clear()  # what it holds is this roster's (its values may be long texts)
    if roster.get("rulebook") != army["rulebook"]:
        run.add("rulebook-mismatch", "$.rulebook", None, roster=roster.get("rulebook"), rulebook=army["rulebook"])
    if "content_hash" in roster and roster["content_hash"] != army["content_hash"]:
        run.add("stale-rulebook", "$.content_hash", None, severity="warning")
    side = _choice(run, roster, "side", army["sides"], ("side-required", "unknown-side", "side-not-allowed"))
    role = _choice(run, roster, "role", army["roles"], ("role-required", "unknown-role", "role-not-allowed"))
    budget, budget_rule = _budget(run, roster, role)
    entries = {e["id"]: e for e in army["entries"]}
    lines = [_unit(run, i, unit, entries, side) for i, unit in enumerate(roster.get("units", []))]
    if not lines:
        run.add("no-units", "$.units", None)
    _limits(run, lines, entries)
    total = sum(x["cost"]["total"] for x in lines)
    if budget is not None and total > budget:
        run.add("over-budget", "$", budget_rule, total=total, budget=budget, excess=total - budget)
    return {"legal": not run.errors, "army": army["id"], "errors": run.errors, "warnings": run.warnings, "units": lines, "total": total, "budget": budget}


# ---------------------------------------------------------------------------- files


class RosterFileError(Exception):
    """A roster or rulebook that cannot be used (exit status 2); the message says why."""


_RULEBOOK_LINE = re.compile(r"^rulebook\s+(\w+)\b", re.M)

MAX_BYTES, MAX_UNITS = ROSTER_MAX_BYTES, ROSTER_MAX_UNITS  # the roster format's limits (rulebook.compiler.emit.data.to_armies)


def _json_context(text: str, exc: json.JSONDecodeError) -> str:
    """The line of ``text`` where the JSON stops being JSON, with a caret (long lines cut)."""
    line = text.splitlines()[exc.lineno - 1] if 0 < exc.lineno <= len(text.splitlines()) else ""
    start = max(0, exc.colno - 1 - 60)
    shown = line[start:start + 120].replace("\t", " ")
    return f"\n{exc.lineno:>5} | {shown}\n      | {' ' * (exc.colno - 1 - start)}^"


MAX_NUMBER = 2**53 - 1
"""The largest number a roster may hold (in absolute value): what a JavaScript port (the
site's army builder) reads exactly, and far over any count of models or points."""


def _whole(digits: str) -> int:
    n = int(digits)  # more than 4300 digits: Python's ValueError, which says so
    if abs(n) > MAX_NUMBER:
        raise ValueError(f"the number {digits[:24]}{'…' if len(digits) > 24 else ''} is larger than {MAX_NUMBER}")
    return n


def _decimal(text: str) -> float | int:
    """A number written with a fraction or an exponent: a float (a whole one as an int,
    as JavaScript reads it: ``2.0`` is 2), within :data:`MAX_NUMBER`."""
    x = float(text)
    if not abs(x) <= MAX_NUMBER:  # also inf from 1e400
        raise ValueError(f"the number {text[:24]} is larger than {MAX_NUMBER}")
    return int(x) if x.is_integer() else x


def _not_a_number(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def read_roster(path: Path) -> dict:
    """The roster file as JSON (an object), or :class:`RosterFileError`.

    Refuses, before parsing, a file over :data:`MAX_BYTES`; after parsing, a
    roster of more than :data:`MAX_UNITS` units (so a huge file costs neither
    time nor memory)."""
    try:
        raw = untrusted_json.read_at_most(path, MAX_BYTES)
    except untrusted_json.UntrustedJson as exc:
        raise RosterFileError(str(exc)) from None
    if len(raw) > MAX_BYTES:
        raise RosterFileError(f"{path}: error: the file is larger than {MAX_BYTES // 1000} kB, the most a roster may be\n"
                              "hint: a roster lists a force's units; is this the right file?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RosterFileError(f"{path}: error: the file is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_int=_whole, parse_float=_decimal, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise RosterFileError(f"{path}:{exc.lineno}:{exc.colno}: error: not JSON: {exc.msg}{_json_context(text, exc)}\n"
                              "hint: a roster is a JSON object; see schemas/roster.schema.json of a build") from None
    except RecursionError:
        raise RosterFileError(f"{path}: error: the JSON is nested too deeply") from None
    except ValueError as exc:  # a number of more than 4300 digits (int_max_str_digits), or over MAX_NUMBER
        raise RosterFileError(f"{path}: error: not JSON this program reads: {str(exc).split(';')[0]}\n"
                              "hint: the numbers of a roster are small whole numbers (models, points)") from None
    if not isinstance(data, dict):
        raise RosterFileError(f"{path}: error: a roster is a JSON object ({{…}}), not {type(data).__name__}")
    units = data.get("units")
    if isinstance(units, list) and len(units) > MAX_UNITS:
        raise RosterFileError(f"{path}: error: $.units: {len(units)} units; a roster may have at most {MAX_UNITS}\n"
                              "hint: is this the right file?")
    return data


def find_rulebook(roster: dict, given: Path | None) -> Path:
    """The rulebook to validate against: ``given``, else the bundled rulebook
    (``content/*``) whose ``rulebook`` declaration is the roster's ``rulebook``."""
    if given is not None:
        if not given.exists():
            raise RosterFileError(f"{given}: error: no such rulebook folder")
        return given
    from rulebook.compiler.pipeline.driver import CONTENT

    wanted = roster.get("rulebook")
    found = {}
    for folder in sorted(p for p in CONTENT.iterdir() if p.is_dir()):
        for f in sorted(folder.glob("*.rules")):
            m = _RULEBOOK_LINE.search(f.read_text(encoding="utf-8"))
            if m:
                found[m.group(1)] = folder
                break
    if not isinstance(wanted, str):
        raise RosterFileError(
            "error: $.rulebook: " + ("missing" if wanted is None else f"{json.dumps(wanted)[:40]} is not a text")
            + f" (the id of the rulebook the roster is for; bundled: {', '.join(found)})\nhint: write it, or give the rulebook with --rulebook")
    if wanted in found:
        return found[wanted]
    guess = suggest(wanted, list(found)) if isinstance(wanted, str) else None
    raise RosterFileError(
        f"error: no bundled rulebook is '{one_line(wanted)}' (the roster's \"rulebook\")\nhint: "
        + (f"did you mean '{guess}'? " if guess else "") + f"bundled: {', '.join(found)}; or give one with --rulebook")


MAX_ARMY_FILES, MAX_ARMY_BYTES = 100, 64 * 1024 * 1024
"""The most army documents of a build read, and their largest total size (the bundled
rulebooks have one each, under 200 kB)."""
MAX_ARMY_NUMBER = 10**100
"""The largest number an army document may hold: a rules file's numbers have at most 100 digits."""


def _shape(**fields: Any) -> Any:
    """An object with just these attributes: what :mod:`rulebook.compiler.emit.data.to_armies`
    reads of a program to write the army and roster schemas."""
    return type("ProgramShape", (), fields)()


def read_build_armies(rulebook: Path) -> tuple[dict[str, dict], dict]:
    """The army documents (by id) of a build folder and the roster schema for them, read
    as data: each document is checked against the army schema the compiler writes
    (:func:`rulebook.compiler.emit.data.to_armies.army_schema`, made here, not read from the
    build: a build that was tampered with may ship schemas to match) and for what the
    validator looks up in it (:func:`army_problem`); the roster schema is the compiler's
    for those armies. Anything else is :class:`RosterFileError`, naming the file."""
    from rulebook.compiler.emit.data import to_armies

    files = sorted((rulebook / "json" / "armies").glob("*.json"))[:MAX_ARMY_FILES + 1]
    if not files:
        raise RosterFileError(f"{rulebook}: error: this build has no army documents (json/armies/*.json)\n"
                              "hint: a rulebook declares armies with 'army' (rules_dsl/LANGUAGE.md); build it again")
    if len(files) > MAX_ARMY_FILES:
        raise RosterFileError(f"{rulebook / 'json' / 'armies'}: error: more than {MAX_ARMY_FILES} army documents")
    schema = to_armies.army_schema(_shape(rulebook=None))
    docs: dict[str, dict] = {}
    budget = MAX_ARMY_BYTES
    for path in files:
        try:
            size = path.stat().st_size
            doc = untrusted_json.load(path, budget, max_int=MAX_ARMY_NUMBER, what="the army document")
        except untrusted_json.UntrustedJson as exc:
            raise RosterFileError(str(exc)) from None
        except OSError as exc:
            raise RosterFileError(f"{path}: error: cannot read the army document: {exc.strerror or exc}") from None
        budget -= size
        problem = untrusted_json.shape_problem(doc, schema) or army_problem(doc)
        if problem is None and doc["id"] in docs:
            problem = f"$.id: a second army '{doc['id']}'"
        if problem is not None:
            raise RosterFileError(f"{path}: error: not an army document as rulebook build writes it: {one_line(problem)}")
        docs[doc["id"]] = doc
    return docs, to_armies.roster_schema(_shape(rulebook=None, armies=docs))


def army_problem(army: dict) -> str | None:
    """What the validator and the sheet look up in an army document (one that follows its
    schema) and is not there: an option key an entry offers, an option filed under
    another key, a label of the report; as ``$.path: message``, or None."""
    for i, entry in enumerate(army["entries"]):
        for k in entry["options"]:
            if k not in army["options"]:
                return f"$.entries[{i}].options: '{k}' is not a key of $.options"
    for k, option in army["options"].items():
        if option["key"] != k:
            return f"$.options.{k}.key: '{option['key']}' is not its key"
    missing = sorted(set(_LABELS_READ) - set(army["labels"]))
    return f"$.labels: no '{missing[0]}'" if missing else None


_LABELS_READ = ("side", "role", "size", "points", "total", "budget", "legal", "illegal", "errors", "rule", "source", "did_you_mean", "models", "options")
"""The labels :func:`report_text` and :func:`sheet` print."""


def load_armies(rulebook: Path) -> tuple[dict[str, dict], dict]:
    """The army documents (by id) and the roster schema of a rulebook: read from a
    build folder (``json/manifest.json`` there, as data: :func:`read_build_armies`),
    else checked from its sources."""
    if (rulebook / "json" / "manifest.json").is_file():
        return read_build_armies(rulebook)
    from rulebook.rules_dsl.diagnostics import render_all

    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.emit.data import to_armies, to_json

    checked = driver.check(rulebook)
    if not checked.ok or checked.program is None:
        errors = [d for d in checked.diagnostics if d.severity == "error"]
        raise RosterFileError(render_all(errors, checked.sources) + f"\nerror: the rulebook {rulebook} has errors; fix them first")
    program = checked.program
    if not program.armies:
        raise RosterFileError(f"{rulebook}: error: this rulebook declares no army\nhint: see 'army' in rules_dsl/LANGUAGE.md")
    docs = to_armies.documents(program, to_json.content_hash(program))
    return {d["id"]: d for d in docs.values()}, to_armies.roster_schema(program)


def schema_problems(roster: dict, schema: dict) -> list[str]:
    """Where the roster does not follow the roster schema (JSON path: message); a roster
    that follows it is said so by jsonschema-rs, without building jsonschema's validator
    (a roster of a thousand units: 0.12 s → under 1 ms)."""
    from rulebook.compiler.support.untrusted_json import fast_valid

    if fast_valid(roster, schema):
        return []
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(roster), key=lambda e: [str(p) for p in e.absolute_path]):
        out.append(f"{err.json_path}: {err.message[:300]}")
    return out


def open_roster(path: Path, rulebook: Path | None) -> tuple[dict, dict]:
    """The roster and its army document, or :class:`RosterFileError`."""
    roster = read_roster(path)
    folder = find_rulebook(roster, rulebook)
    armies, schema = load_armies(folder)
    problems = schema_problems(roster, schema)
    wanted, theirs = roster.get("rulebook"), sorted({a["rulebook"] for a in armies.values()})
    if problems and isinstance(wanted, str) and wanted not in theirs:
        # a roster for another rulebook: that is the news, not the schema's details (one that
        # follows this rulebook's format gets the validator's rulebook-mismatch error instead)
        raise RosterFileError(
            f"{path}: error: $.rulebook: the roster is for the rulebook '{one_line(wanted)}', and {folder} is '{one_line(', '.join(theirs))}'\n"
            "hint: leave out --rulebook to use the bundled rulebook the roster names, or give that rulebook's folder")
    if problems:
        raise RosterFileError("\n".join(f"{path}: error: {one_line(p)}" for p in problems) + "\nhint: the roster format is schemas/roster.schema.json of a build")
    return roster, armies[roster["army"]]


# ---------------------------------------------------------------------------- the sheet

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def _md(text: Any) -> str:
    """Text safe inside a Markdown line (never at its start): HTML escaped, then
    the characters of emphasis, code, links, tables and strikethrough."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False)).replace("\n", " ")


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _summary(army: dict, roster: dict, result: dict) -> list[tuple[str, str]]:
    labels = army["labels"]
    rows = []
    if roster.get("side") is not None:
        rows.append((labels["side"], _titles(army["sides"]).get(roster["side"], roster["side"])))
    if roster.get("role") is not None:
        rows.append((labels["role"], _titles(army["roles"]).get(roster["role"], roster["role"])))
    if "size" in roster:
        rows.append((labels["size"], _titles(army["budget"]["sizes"]).get(roster["size"], roster["size"])))
    if "points" in roster:
        rows.append((labels["points"], str(roster["points"])))
    budget = result["budget"]
    rows.append((labels["total"], f"{result['total']}" + (f" / {budget}" if budget is not None else "")))
    return rows


def _unit_rows(army: dict, roster: dict, result: dict) -> list[dict]:
    """What the sheet shows of each unit: its title, facts, card and troops."""
    out = []
    quality = {q["id"]: q["title"] for q in (army["quality"] or {}).get("values", [])}
    entries = {e["id"]: e for e in army["entries"]}
    for unit, line in zip(roster.get("units", []), result["units"]):
        entry = entries.get(unit["entry"])
        facts = []
        if unit.get("quality") is not None and army["quality"]:
            facts.append((army["quality"]["title"], quality.get(unit["quality"], unit["quality"])))
        if "models" in unit:
            facts.append((army["labels"]["models"], str(unit["models"])))
        options = [army["options"][k]["title"] for k in line["options"]]
        if options:
            facts.append((army["labels"]["options"], ", ".join(options)))
        troops: dict[str, int] = {}
        for t in line["troops"]:
            troops[t] = troops.get(t, 0) + 1
        out.append({
            "title": (unit.get("name") + " — " if unit.get("name") else "") + (entry["name"] if entry else unit["entry"]),
            "cost": line["cost"]["total"], "facts": facts, "card": entry["card"] if entry else [],
            "troops": [(n, army["troops"].get(t, {"name": t, "card": []})) for t, n in troops.items()],
        })
    return out


def _problems(army: dict, result: dict) -> list[str]:
    return [f"{e['path']}: {e['message']} ({army['labels']['rule']}: {e['rule']['title']}, {e['rule']['source']})" for e in result["errors"] + result["warnings"]]


_CSS = """body{font:11px/1.35 system-ui,sans-serif;margin:1em;color:#111}h1{font-size:16px;margin:0 0 .3em}
h2{font-size:12px;margin:.6em 0 .2em;border-bottom:1px solid #999}table{border-collapse:collapse;margin:.2em 0}
td,th{border:1px solid #bbb;padding:1px 4px;text-align:left;vertical-align:top}.cost{float:right;font-weight:bold}
.unit{break-inside:avoid;margin-bottom:.4em}.card td:first-child{color:#555}.bad{color:#a00}
@media print{body{margin:0}@page{size:A4;margin:10mm}}"""


def sheet(army: dict, roster: dict, result: dict, fmt: str = "html") -> str:
    """The roster as a one-page sheet: summary, each unit with its card and troops, errors."""
    labels = army["labels"]
    title = roster.get("name") or army["title"]
    units = _unit_rows(army, roster, result)
    status = labels["legal"] if result["legal"] else labels["illegal"]
    if fmt == "markdown":
        lines = [f"# {_md(title)}", "", f"*{_md(army['title'])}* — {_md(status)}", ""]
        lines += [f"- **{_md(k)}:** {_md(v)}" for k, v in _summary(army, roster, result)] + [""]
        for u in units:
            lines += [f"## {_md(u['title'])} — {_md(u['cost'])}", ""]
            lines += [f"- **{_md(k)}:** {_md(v)}" for k, v in u["facts"]]
            if u["card"]:
                lines += ["", "| " + " | ".join(_md(c["title"]) for c in u["card"]) + " |", "|" + "---|" * len(u["card"]),
                          "| " + " | ".join(_md(c["value"]) for c in u["card"]) + " |"]
            for count, troop in u["troops"]:
                lines += ["", f"**{_md(count)} × {_md(troop['name'])}**: " + "; ".join(f"{_md(c['title'])} {_md(c['value'])}" for c in troop["card"])]
            lines.append("")
        problems = _problems(army, result)
        if problems:
            lines += [f"## {_md(labels['errors'])}", ""] + [f"- {_md(p)}" for p in problems] + [""]
        return "\n".join(lines)
    parts = [f'<!doctype html>\n<html lang="{_h(army["lang"])}"><head><meta charset="utf-8">',
             f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_h(title)}</title><style>{_CSS}</style></head><body>',
             f"<h1>{_h(title)}</h1><p><em>{_h(army['title'])}</em> — <strong{' class=bad' if not result['legal'] else ''}>{_h(status)}</strong></p>",
             "<table>" + "".join(f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in _summary(army, roster, result)) + "</table>"]
    for u in units:
        parts.append(f'<div class="unit"><h2>{_h(u["title"])}<span class="cost">{_h(u["cost"])}</span></h2>')
        if u["facts"]:
            parts.append("<p>" + " · ".join(f"<strong>{_h(k)}:</strong> {_h(v)}" for k, v in u["facts"]) + "</p>")
        if u["card"]:
            parts.append('<table class="card"><tr>' + "".join(f"<th>{_h(c['title'])}</th>" for c in u["card"]) + "</tr><tr>"
                         + "".join(f"<td>{_h(c['value'])}</td>" for c in u["card"]) + "</tr></table>")
        for count, troop in u["troops"]:
            parts.append(f"<p><strong>{_h(count)} × {_h(troop['name'])}</strong>: " + "; ".join(f"{_h(c['title'])} {_h(c['value'])}" for c in troop["card"]) + "</p>")
        parts.append("</div>")
    problems = _problems(army, result)
    if problems:
        parts.append(f"<h2 class=bad>{_h(labels['errors'])}</h2><ul>" + "".join(f"<li>{_h(p)}</li>" for p in problems) + "</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


# ---------------------------------------------------------------------------- the command


def illegal_count(army: dict, n: int) -> str:
    """``Illegal roster: 1 error`` / ``Lista no válida: 2 errores``, in the army's language
    (gettext's plural forms); with the army's own labels when its language has no catalog."""
    from rulebook.compiler.support import i18n

    lang = army.get("lang")
    if not isinstance(lang, str) or not i18n.supported(lang):
        return f"{army['labels']['illegal']}: {n} {army['labels']['errors'].lower()}"
    return i18n.language(lang).ngettext("Illegal roster: %(num)d error", "Illegal roster: %(num)d errors", n) % {"num": n}


def report_text(path: Path, army: dict, roster: dict, result: dict) -> str:
    """The validation as a person reads it: each unit's cost, the total, every error."""
    labels = army["labels"]
    out = [f"{path}: {army['title']} ({army['rulebook']})"]
    for unit, line in zip(roster.get("units", []), result["units"]):
        name = unit["entry"] + ("" if line["known"] else " (?)")
        out.append(f"  {line['path']}: {name}{' «' + line['name'] + '»' if line['name'] else ''}: {line['cost']['total']}")
    budget = result["budget"]
    out.append(f"  {labels['total']}: {result['total']}" + (f" / {labels['budget']}: {budget}" if budget is not None else ""))
    for e in result["errors"] + result["warnings"]:
        out.append(f"{path}: {e['severity']}: {e['path']}: {e['message']} [{e['code']}]")
        out.append(f"  {labels['rule']}: {e['rule']['title']} ({labels['source']} {e['rule']['source'] or '–'})")
        if e["suggestion"]:
            out.append("  hint: " + fill(labels["did_you_mean"], {"suggestion": e["suggestion"]}))
    n = len(result["errors"])
    out.append(labels["legal"] if result["legal"] else illegal_count(army, n))
    return "\n".join(one_line(line) for line in out)  # what a roster says cannot move the cursor, recolour a terminal or start a line


def main(args) -> int:
    """``rulebook roster validate|print`` (see the module docstring for exit statuses)."""
    try:
        roster, army = open_roster(args.roster, args.rulebook)
    except RosterFileError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    try:
        result = validate(army, roster)
    except RosterTooLarge as exc:
        print(f"{args.roster}: error: {exc}, the most a roster may be\nhint: is this the right file?", file=sys.stderr)
        return 2
    if args.roster_command == "validate":
        if args.format == "json":
            from rulebook.compiler.emit.data.to_json import dumps  # json.dumps(indent=2)'s text, twice as fast

            sys.stdout.write(dumps({"file": str(args.roster), **result}))
        else:
            print(report_text(args.roster, army, roster, result))
        return 0 if result["legal"] else 1
    text = sheet(army, roster, result, args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(visible(text), encoding="utf-8")  # as on the terminal: the sheet may be shown with cat
        except OSError as exc:
            print(f"{args.output}: error: cannot write the sheet: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if not result["legal"]:
        print(f"{args.roster}: {illegal_count(army, len(result['errors']))} (see the sheet)", file=sys.stderr)
    return 0
