"""Worked examples resolved once per generated package (:mod:`compiler.evaluations`):
two byte-identical packages share their results, an edited one gets its own, and
the shared results are what a fresh resolution gives."""

from __future__ import annotations

import json

import runtime
from compiler import driver, evaluations, pyload, to_python
from compiler.examples import evaluate
from conftest import DATA

RULES = DATA / "python" / "shooting.rules"


def _package(rules_text: str, folder):
    source = folder / "reglas.rules"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(rules_text, encoding="utf-8")
    checked = driver.check(source)
    assert checked.ok
    to_python.write_package(checked.program, folder / "python")
    return pyload.load_package(folder / "python")


def _listed(distribution) -> list:
    return sorted((json.dumps(runtime.to_jsonable(o), sort_keys=True), p) for o, p in distribution.items())


def test_identical_packages_share_results_and_an_edit_does_not(tmp_path):
    text = RULES.read_text(encoding="utf-8")
    first = _package(text, tmp_path / "a")
    again = pyload.load_package(tmp_path / "a" / "python")
    assert first is not again and first.__rulebook_source_hash__ == again.__rulebook_source_hash__
    ev, actuals = evaluations.evaluated(first, 0)
    assert evaluations.evaluated(again, 0)[0] is ev  # not resolved again
    fresh = evaluate(again, again.examples.EXAMPLES[0])
    assert [c.ok for c in fresh.checks] == [c.ok for c in ev.checks]
    assert _listed(fresh.distribution) == _listed(ev.distribution)
    edited = _package(text.replace("regular  | 2 | todos", "regular  | 3 | todos"), tmp_path / "a")
    assert edited.__rulebook_source_hash__ != first.__rulebook_source_hash__
    assert evaluations.evaluated(edited, 0)[0] is not ev
