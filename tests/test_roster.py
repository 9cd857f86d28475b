"""The roster validator, as data: ``tests/data/rosters/*.json``, one parametrized test.

Each case file holds ``rulebook`` (a folder of .rules files), a ``roster`` and
what :func:`rulebook.compiler.commands.roster.validate` must answer: ``legal``, ``total``,
``budget``, each unit's total, and the errors and warnings in order, each
compared on the keys the case gives (``path``, ``code``, ``suggestion``,
``message``). The rulebooks are checked once and their army documents built
by :mod:`rulebook.compiler.emit.data.to_armies`, as a build writes them; every roster is first
validated against the rulebook's roster schema, as the command does.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.compiler.support import i18n
from rulebook.compiler.commands import roster
from rulebook.compiler.emit.data import to_armies, to_json

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((Path(__file__).parent / "data" / "rosters").glob("*.json"))


@lru_cache(maxsize=None)
def _rulebook(folder: str) -> tuple[dict, dict]:
    checked = driver.check(ROOT / folder)
    assert checked.ok, [d.message for d in checked.diagnostics if d.severity == "error"]
    docs = {d["id"]: d for d in to_armies.documents(checked.program, to_json.content_hash(checked.program)).values()}
    return docs, to_armies.roster_schema(checked.program)


def _shown(items: list[dict], expected: list[dict]) -> list[dict]:
    """The result's errors reduced to the keys each expected error gives."""
    keys = [set(e) for e in expected] + [{"path", "code"}] * max(0, len(items) - len(expected))
    return [{k: item[k] for k in sorted(want)} for item, want in zip(items, keys)]


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_roster_case(case: Path):
    data = json.loads(case.read_text(encoding="utf-8"))
    armies, schema = _rulebook(data["rulebook"])
    assert roster.schema_problems(data["roster"], schema) == []
    result = roster.validate(armies[data["roster"]["army"]], data["roster"])
    want = data["expected"]
    assert _shown(result["errors"], want["errors"]) == want["errors"]
    assert _shown(result["warnings"], want["warnings"]) == want["warnings"]
    assert [u["cost"]["total"] for u in result["units"]] == want["unit_totals"]
    assert (result["legal"], result["total"], result["budget"]) == (want["legal"], want["total"], want["budget"])
    for error in result["errors"]:  # every message is the army's template, filled: no placeholder left
        assert "{" not in error["message"] and error["rule"]["title"]


def test_the_army_documents_follow_their_schema():
    from jsonschema import Draft202012Validator

    checked = driver.check(ROOT / "tests/data/armies/skirmish")
    schema = to_armies.army_schema(checked.program)
    Draft202012Validator.check_schema(schema)
    for doc in to_armies.documents(checked.program, "sha256:0").values():
        assert list(Draft202012Validator(schema).iter_errors(doc)) == []
    spanish = i18n.language("es")  # the catalogs translate every error code's message (test_i18n: every label too)
    assert [code for code, text in to_armies.MESSAGES.items() if spanish.gettext(text) == text] == []


def test_fill_replaces_only_known_placeholders():
    assert roster.fill("{a} y {b} {c}", {"a": "1", "b": "{c}"}) == "1 y {c} {c}"
    assert roster.round_half_up(11050, 100) == 111 and roster.round_half_up(5600, 100) == 56 and roster.round_half_up(6750, 100) == 68


def _random_rosters():
    """Rosters that follow the schema, built from the army's own ids, misspellings and junk."""
    from hypothesis import strategies as s

    armies, _ = _rulebook("tests/data/armies/skirmish")
    army = armies["patrol"]
    word = s.sampled_from(["", "x", "grenade", "RED", "captain ", "riflemen", "banner", "veteran"])
    ids = lambda items: s.one_of(s.sampled_from(items), word)  # noqa: E731
    options = [o["id"] for o in army["options"].values()]
    unit = s.fixed_dictionaries(
        {"entry": ids([e["id"] for e in army["entries"]])},
        optional={"quality": ids([q["id"] for q in army["quality"]["values"]]), "models": s.integers(0, 12),
                  "options": s.lists(ids(options), max_size=4), "choices": s.lists(word, max_size=2), "name": word},
    )
    header = s.fixed_dictionaries(
        {"format": s.just(1), "rulebook": s.sampled_from(["skirmish", "other"]), "army": s.just("patrol"),
         "units": s.lists(unit, max_size=7)},
        optional={"side": ids(["red", "blue"]), "role": ids(["attacker", "defender"]), "size": ids(["small", "big"]),
                  "points": s.integers(-5, 400), "content_hash": s.just("sha256:0")},
    )
    return army, header


def test_any_roster_that_follows_the_schema_gets_an_answer():
    """Never an exception; the total is the units' sum; legal exactly when there is no error;
    every error has a path into the roster, a filled message and the rule's section."""
    from hypothesis import given, settings

    army, rosters = _random_rosters()
    _, schema = _rulebook("tests/data/armies/skirmish")

    @settings(max_examples=200, deadline=None)
    @given(rosters)
    def check(r):
        assert roster.schema_problems(r, schema) == []
        result = roster.validate(army, r)
        assert result["total"] == sum(u["cost"]["total"] for u in result["units"])
        assert result["legal"] == (result["errors"] == [])
        for e in result["errors"] + result["warnings"]:
            assert e["path"].startswith("$") and e["code"] in army["messages"] and "{" not in e["message"]
            assert e["rule"]["source"] == "I"
        if result["budget"] is not None and result["total"] > result["budget"]:
            assert result["errors"][-1]["code"] == "over-budget"

    check()


def test_the_roster_shown_in_language_md_is_legal_for_its_army(tmp_path):
    """LANGUAGE.md's roster example (the JSON after "A roster (a player's list)"), checked against
    the army of its own examples (compiled together as tests/test_language_doc.py does)."""
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_language_doc import LANGUAGE_MD, correct_blocks, write_rulebook

    write_rulebook(tmp_path, correct_blocks())
    checked = driver.check(tmp_path)
    assert checked.ok
    docs = {d["id"]: d for d in to_armies.documents(checked.program, to_json.content_hash(checked.program)).values()}
    text = LANGUAGE_MD.read_text(encoding="utf-8")
    (shown,) = re.findall(r"A roster \(a player's list\).*?```json\n(.*?)```", text, re.S)
    example = json.loads(shown)
    army = docs[example["army"]]
    example["rulebook"] = army["rulebook"]  # the doc's examples compile as their own rulebook
    assert not roster.schema_problems(example, to_armies.roster_schema(checked.program))
    result = roster.validate(army, example)
    assert result["legal"], result["errors"]
    assert result["total"] == 130 + 5 + 40 and result["budget"] == 1200
