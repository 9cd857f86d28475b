"""Data and types a designer of a new game reaches for (issue 23, point 3).

Each case is a small rulebook written in place: an army whose units take their side
from a catalog field, references to several catalogs read through their shared
fields, list concatenation, filters that narrow optional types, odds tables over
booleans, catalog ids and lists, a cost field without a quality table, and
catalog rows with named cells. The working forms check and run (through the
generated resolvers, the army documents and the roster validator); each mistake is
one error at its line, with a hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver

HEAD = '```rules\nrulebook skirm "Skirmish" version "0.1" lang "en"\nsection I "Forces"\n```\n\n'


def _check(tmp_path: Path, body: str):
    (tmp_path / "00-game.rules").write_text(HEAD + "```rules\n" + body + "\n```\n", encoding="utf-8")
    return driver.check(tmp_path)


def _errors(tmp_path: Path, body: str) -> list[tuple[str, str, int]]:
    checked = _check(tmp_path, body)
    return [(d.message, d.hint or "", d.span.line - 6) for d in checked.diagnostics if d.severity == "error"]


def _ok(tmp_path: Path, body: str):
    checked = _check(tmp_path, body)
    assert checked.ok, [(d.message, d.span.line - 6) for d in checked.diagnostics if d.severity == "error"]
    return checked


def _load(tmp_path: Path, body: str):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(_ok(tmp_path, body).program)


def _expect_one_error(tmp_path: Path, body: str, message: str, hint_text: str, line: int | None = None) -> None:
    got = _errors(tmp_path, body)
    assert len(got) == 1, got
    m, h, at = got[0]
    assert message in m and hint_text in h, got
    if line is not None:
        assert at == line, got


# ---- 1. an army side taken from a catalog field --------------------------------------------------

UNITS = """
enum Faction "Faction" {
  red "Red"
  blue "Blue"
}

record Unit "Unit" {
  name: text "Name"
  faction: Faction "Faction"
  points: int "Points"
  shoot: int "Shoot"
}

catalog units "Units" of Unit {
  red_guard | "Red Guard" | red | 10 | 4
  blue_guard | "Blue Guard" | blue | 12 | 5
}
"""

ARMY = UNITS + """
army skirmish "Skirmish" {
  sides Faction
  size normal "Normal" points: 100
  units units side: faction cost: points
}
"""


def _army_document(checked, army: str) -> dict:
    from rulebook.compiler.emit.data import to_armies, to_json

    docs = to_armies.documents(checked.program, to_json.content_hash(checked.program))
    return {d["id"]: d for d in docs.values()}[army]


def test_a_side_field_gives_each_unit_its_side_and_a_roster_gets_the_wrong_side_error(tmp_path):
    from rulebook.compiler.commands import roster

    doc = _army_document(_ok(tmp_path, ARMY), "skirmish")
    assert {e["id"]: e["side"] for e in doc["entries"]} == {"red_guard": "red", "blue_guard": "blue"}
    result = roster.validate(doc, {"format": 1, "rulebook": "skirm", "army": "skirmish", "side": "red", "size": "normal",
                                   "units": [{"entry": "red_guard"}, {"entry": "blue_guard"}]})
    assert [(e["code"], e["path"], e["message"]) for e in result["errors"]] == [
        ("entry-wrong-side", "$.units[1].entry", "Blue Guard belongs to Blue, not Red.")]


@pytest.mark.parametrize("old,new,message,hint_text", [
    ("side: faction", "side: points", "'side:' field points is int, not an enum, ref, text or id", "fields that fit: name, faction"),
    ("side: faction", "side: factoin", "unknown side 'factoin'", "did you mean 'faction'"),
    ("sides Faction", 'side red "Red"', "entry blue_guard's side 'blue' (field 'faction') is not a side of army skirmish", "sides: red"),
    ("sides Faction", "", "'side: faction' reads each unit's side from a field, but the army declares no sides", "declare the sides first"),
])
def test_side_field_mistakes(tmp_path, old, new, message, hint_text):
    _expect_one_error(tmp_path, ARMY.replace(old, new), message, hint_text)


def test_a_side_field_that_is_empty_is_refused(tmp_path):
    body = ARMY.replace("faction: Faction", "faction: Faction?").replace("| blue | 12", "| - | 12")
    _expect_one_error(tmp_path, body, "entry blue_guard has no side in 'faction'", "give it one of the army's sides: red, blue")
