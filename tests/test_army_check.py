"""The checker of ``army`` declarations (compiler/check/armies.py), as data.

``tests/data/armies/bad/bad.rules`` marks each line that must get an error
with ``# E: text`` (several on one line when it has several errors); the test
checks that every marked line gets exactly those errors and no other line
any, each positioned at its line with the source shown under it. The
bundled rulebooks' armies check, and their documents are the same bytes from
two separate checks (deterministic output).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.compiler.emit.data import to_armies, to_json

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "data" / "armies" / "bad"
MARK = re.compile(r"# E: (.*?)(?= # E: |$)")


def test_every_marked_mistake_is_reported_at_its_line():
    source = (BAD / "bad.rules").read_text(encoding="utf-8")
    expected = {}
    for number, line in enumerate(source.splitlines(), 1):
        found = MARK.findall(line)
        if found:
            expected[number] = sorted(found)
    result = driver.check(BAD)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    got: dict[int, list[str]] = {}
    for d in errors:
        got.setdefault(d.span.line, []).append(d.message)
    assert sorted(got) == sorted(expected), "lines with errors differ from the marked lines"
    for number, texts in expected.items():
        messages = got[number]
        assert len(messages) == len(texts), (number, messages)
        for text in texts:
            assert any(text in m for m in messages), (number, text, messages)
    rendered = errors[0].render(result.sources)
    assert "bad.rules:" in rendered and "^" in rendered and "Traceback" not in rendered


def test_misspelt_words_get_a_did_you_mean():
    result = driver.check(BAD)
    hints = {(d.message, d.hint or "") for d in result.diagnostics}
    for message, hint in [
        ("unknown army clause 'sidez'", "did you mean 'side'"),
        ("unknown catalog 'squadz'", "did you mean 'squads'"),
        ("'cost:' names no field of the catalog's record", "did you mean 'points'"),
        ("'attackr' is not a role of this army", "did you mean 'attacker'"),
        ("unknown clause 'optoin' in a units block", "did you mean 'option'"),
    ]:
        assert any(m == message and hint in h for m, h in hints), (message, hint)


@pytest.mark.parametrize("folder,army,entries", [("content/1936", "listas_genericas", 123), ("content/tercios", "lista_ejercito", 17)])
def test_bundled_armies_check_and_emit_the_same_bytes_twice(folder, army, entries):
    first, second = driver.check(ROOT / folder), driver.check(ROOT / folder)
    assert first.ok and second.ok
    assert len(first.program.armies[army].entries) == entries
    one = {k: to_json.dumps(v) for k, v in to_armies.documents(first.program, to_json.content_hash(first.program)).items()}
    two = {k: to_json.dumps(v) for k, v in to_armies.documents(second.program, to_json.content_hash(second.program)).items()}
    assert one == two and list(one) == [f"armies/{army}.json"]


MINI = ROOT / "tests" / "data" / "armies" / "mini" / "00-mini.rules"


def _check_edited(tmp_path: Path, *edits: tuple[str, str]):
    """The small army of tests/data/armies/mini with some lines rewritten, checked."""
    text = MINI.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (tmp_path / "00-mini.rules").write_text(text, encoding="utf-8")
    result = driver.check(tmp_path)
    return [(d.message, d.hint or "", d.span.line) for d in result.diagnostics if d.severity == "error"]


def test_a_designers_first_army_checks(tmp_path):
    assert _check_edited(tmp_path) == []


@pytest.mark.parametrize("edits,expected", [
    # a misspelt units catalog: one error, not also "no units" and "unknown entry" for the limit on its entries
    ((("units guerreros cost: puntos {", "units guerros cost: puntos {"),), [("unknown catalog 'guerros'", "did you mean 'guerreros'")]),
    # a misspelt quality enum does not hide the misspelt percentage table
    ((("quality Calidad percent: coste_calidad", "quality Calidd percent: coste_calidd"),),
     [("unknown enum 'Calidd'", "did you mean 'Calidad'"), ("unknown table 'coste_calidd'", "did you mean 'coste_calidad'")]),
    # wrong types: each with a hint saying what to write
    ((("points: 100", 'points: "cien"'), ("agreed min: 50", "agreed min: 1.5")),
     [("points must be a whole number", "without quotes"), ("the least agreed budget must be a whole number", "without quotes")]),
    ((("cost: puntos {", "cost: nombre {"),), [("'cost:' field nombre is text, not int", "fields that fit: puntos")]),
    # one error per mistake, even when the clause offers several upgrades
    ((("options equipo cost: coste max: 1", "options equipo cost: coste max: 0 entries: [lancro]"),),
     [("'max:' must be at least 1, got 0", "write 1 or more"), ("unknown entry of guerreros 'lancro'", "did you mean 'lancero'")]),
    # no close name: the hint lists the known ones
    ((("limit entry: jefe max: 1", "limit entry: capitan max: 1"),), [("unknown entry 'capitan'", "known: lancero, arquero, jefe")]),
    # a units-block clause at the top says where it goes
    ((("limit total min: 2", 'limit total min: 2\n  option estandarte "Estandarte" cost: 5'),),
     [("unknown army clause 'option'", "goes in a units block")]),
    ((("  units guerreros cost: puntos {", "  units guerreros {"),), [("units guerreros needs 'cost:'", "e.g. cost: puntos")]),
    # no budget at all
    ((('  size normal "Normal" points: 100\n', ""), ("  agreed min: 50\n", "")), [("army banda has no budget", "add 'agreed'")]),
])
def test_each_mistake_is_one_error_with_a_hint(tmp_path, edits, expected):
    got = _check_edited(tmp_path, *edits)
    assert len(got) == len(expected), got
    for (message, hint_text), (m, h, _) in zip(expected, got):
        assert message in m and hint_text in h, (m, h)


def test_all_mistakes_of_an_army_are_reported_in_one_run(tmp_path):
    got = _check_edited(
        tmp_path,
        ("units guerreros cost: puntos {", "units guerreros cost: punts side: rojo {"),
        ("options equipo cost: coste max: 1", "options equpo cost: coste"),
        ("limit total min: 2", "limit totl min: 2"),
        ("agreed min: 50", "agred"),
    )
    assert sorted(m for m, _, _ in got) == sorted([
        "'cost:' names no field of the catalog's record", "unknown side 'rojo'", "unknown catalog 'equpo'",
        "unknown army clause 'agred'", "a limit counts the units ('total'), a 'category:' or an 'entry:'",
    ]), got
    assert all(h for _, h, _ in got), got


def test_exclude_offers_an_option_to_all_but_the_named_units(tmp_path):
    text = MINI.read_text(encoding="utf-8").replace("options equipo cost: coste max: 1", "options equipo cost: coste exclude: [jefe]")
    (tmp_path / "00-mini.rules").write_text(text, encoding="utf-8")
    result = driver.check(tmp_path)
    assert result.ok, [d.message for d in result.diagnostics]
    offered = {e.id: e.options for e in result.program.armies["banda"].entries}
    assert offered["jefe"] == () and offered["lancero"] == offered["arquero"] == ("equipo.escudo", "equipo.caballo")


def test_entries_and_exclude_do_not_go_together_and_unknown_ids_are_named(tmp_path):
    got = _check_edited(tmp_path, ("options equipo cost: coste max: 1", "options equipo cost: coste entries: [lancero] exclude: [jef]"))
    assert [(m, h) for m, h, _ in got] == [
        ("write 'entries:' (the units offered it) or 'exclude:' (the units not offered it), not both", "keep the shorter list"),
    ], got
    got = _check_edited(tmp_path, ("options equipo cost: coste max: 1", "options equipo cost: coste exclude: [jef]"))
    assert [(m, h) for m, h, _ in got] == [("unknown entry of guerreros 'jef'", "did you mean 'jefe'?")], got
