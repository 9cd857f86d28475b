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

from compiler import driver, to_armies, to_json

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
