"""Worked examples resolved once per generated package (:mod:`rulebook.compiler.analysis.evaluations`):
two byte-identical packages share their results, an edited one gets its own, and
the shared results are what a fresh resolution gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulebook import runtime
from rulebook.compiler.pipeline import driver, pyload
from rulebook.compiler.analysis import evaluations, reads
from rulebook.compiler.emit.python import to_python
from rulebook.compiler.analysis.examples import evaluate
from conftest import DATA
from test_serve import REFUSED  # a procedure whose example stops with a rule error

RULES = DATA / "python" / "shooting.rules"


def _package(rules_text: str, folder):
    source = folder / "reglas.rules"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(rules_text, encoding="utf-8")
    checked = driver.check(source)
    assert checked.ok
    to_python.write_package(checked.program, folder / "python")
    return pyload.load_package(folder / "python")


@pytest.fixture(autouse=True)
def _across_builds():
    """These tests build packages as ``rulebook serve`` does: results kept from one to the next."""
    with reads.across_builds():
        yield


def test_a_one_shot_build_shares_results_between_its_stages_only(tmp_path, monkeypatch):
    """Outside :func:`reads.across_builds` (``rulebook build``), the keys are the package's
    own: a byte-identical package shares its results, a package whose positions moved
    resolves again, and the code is never analysed."""
    text = RULES.read_text(encoding="utf-8")
    monkeypatch.setattr(reads, "_compute", lambda package: pytest.fail("the code was analysed"))
    monkeypatch.setattr(reads, "_ACROSS_BUILDS", [0])  # as outside every block
    first = _package(text, tmp_path / "a")
    again = pyload.load_package(tmp_path / "a" / "python")
    shifted = _package(text.replace("### 11. Dados de disparo\n", "### 11. Dados de disparo\n\nUna línea más.\n", 1), tmp_path / "b")
    ev = evaluations.evaluated(first, 0)[0]
    assert evaluations.evaluated(first, 0)[0] is ev and evaluations.evaluated(again, 0)[0] is ev
    assert evaluations.evaluated(shifted, 0)[0] is not ev


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


def test_the_vectors_and_odds_of_a_second_identical_package_are_a_fresh_computations(tmp_path):
    """Test vectors and odds tables are remembered like the examples: a byte-identical
    package gets, from memory, exactly what computing them afresh gives."""
    from rulebook.compiler.analysis import odds
    from rulebook.compiler.emit.data import vectors

    text = RULES.read_text(encoding="utf-8")
    first = _package(text, tmp_path / "a")
    program = driver.check(tmp_path / "a" / "reglas.rules").program
    remembered = [vectors.vectors_doc(program, first, {}, "x") for _ in range(2)]
    tables = odds.compute(first)
    again = pyload.load_package(tmp_path / "a" / "python")
    for cache in (evaluations._LATEST, vectors._LATEST, odds._LATEST):
        cache.source, cache.values = None, {}
    fresh = vectors.vectors_doc(program, again, {}, "x")
    assert remembered[0] == remembered[1] == fresh
    assert any(v["distribution"] for v in fresh["vectors"])
    assert [v["digest"] for v in fresh["vectors"]] == [
        vectors.digest(v["distribution"]) if v["distribution"] is not None else v["digest"] for v in fresh["vectors"]
    ]
    assert [(t.name, t.cells) for t in odds.compute(again)] == [(t.name, t.cells) for t in tables]


def test_a_package_whose_positions_moved_keeps_its_results_with_its_own_positions(tmp_path):
    """A prose line added above the rules changes only the positions the package cites:
    its examples' keys are the previous one's, each result is reused (not resolved again) with
    this package's positions, and equals a fresh resolution; a result that stopped with
    a rule error is resolved again."""
    text = RULES.read_text(encoding="utf-8") + REFUSED
    first = _package(text, tmp_path / "a")
    shifted = _package(text.replace("### 11. Dados de disparo\n", "### 11. Dados de disparo\n\nUna línea más.\n", 1), tmp_path / "b")
    assert shifted.__rulebook_source_hash__ != first.__rulebook_source_hash__
    assert reads.example_keys(shifted) == reads.example_keys(first)
    indexes = range(len(first.examples.EXAMPLES))
    before = [evaluations.evaluated(first, i)[0] for i in indexes]
    after = [evaluations.evaluated(shifted, i)[0] for i in indexes]
    refused = [i for i in indexes if before[i].error is not None]
    assert refused and len(refused) < len(before)
    for i in indexes:
        fresh = evaluate(shifted, shifted.examples.EXAMPLES[i])
        assert (after[i].distribution is before[i].distribution if i not in refused else after[i] is not before[i])
        assert [(c.text, c.src, c.ok, c.detail) for c in after[i].checks] == [(c.text, c.src, c.ok, c.detail) for c in fresh.checks]
        assert [c.src for c in after[i].checks] != [c.src for c in before[i].checks] or not fresh.checks
        if i in refused:
            assert after[i].error.src == fresh.error.src != before[i].error.src
        else:
            assert _listed(after[i].distribution) == _listed(fresh.distribution)



CALLED = """
```rules
example tirada_calidad "Veterano" {
  given (calidad: Calidad.veteran)
  expect result >= -2
}
```
"""


def test_an_edit_resolves_again_only_the_examples_and_odds_that_read_what_it_changed(tmp_path, monkeypatch):
    """Each example and odds table is remembered under the code and data it can reach: a
    data edit of one catalog resolves again only what reads that catalog; a data edit of a
    table read by a called procedure, what calls it; an edit in a procedure, its examples
    and its callers'. What is reused is what resolving afresh gives."""
    from rulebook.compiler.analysis import odds
    from rulebook.compiler.emit.data import vectors

    resolved: list[str] = []
    computed: list[str] = []
    evaluate_one, table_one = evaluations.evaluate, odds._table
    monkeypatch.setattr(evaluations, "evaluate", lambda package, ex: resolved.append(ex.procedure) or evaluate_one(package, ex))
    monkeypatch.setattr(odds, "_table", lambda package, o: computed.append(o.name) or table_one(package, o))

    def build(text: str, name: str):
        resolved.clear()
        computed.clear()
        package = _package(text, tmp_path / name)
        doc = vectors.vectors_doc(driver.check(tmp_path / name / "reglas.rules").program, package, {}, "x")
        tables = odds.compute(package)
        return package, doc, tables, sorted(resolved), sorted(computed)

    text = RULES.read_text(encoding="utf-8") + CALLED
    _, _, _, first, first_odds = build(text, "a")
    assert first == ["danio_perfil", "impacto", "tirada_calidad"]
    assert first_odds == ["danio_por_perfil", "tabla_impacto", "tiradas"]
    edits = [
        ('pistola | "Pistola" | [(1, -)]', 'pistola | "Pistola" | [(2, -)]', ["danio_perfil"], ["danio_por_perfil"]),
        ("regular  | 2 | todos", "regular  | 3 | todos", ["impacto", "tirada_calidad"], ["tabla_impacto", "tiradas"]),
        ("    return roll DadoDisparo times 2\n", "    return roll DadoDisparo times 2 + 0 * 1\n", ["impacto", "tirada_calidad"],
         ["tabla_impacto", "tiradas"]),
        ("return d.normal + extra + roll d6", "return d.normal + extra + roll d6 + 0", ["danio_perfil"], ["danio_por_perfil"]),
    ]
    for n, (old, new, again, again_odds) in enumerate(edits):
        assert old in text
        text = text.replace(old, new, 1)
        package, doc, tables, resolved_now, computed_now = build(text, f"e{n}")
        assert (resolved_now, computed_now) == (again, again_odds), old
        for cache in (evaluations._LATEST, vectors._LATEST, odds._LATEST):
            cache.source, cache.values = None, {}
        fresh = pyload.load_package(tmp_path / f"e{n}" / "python")
        assert vectors.vectors_doc(driver.check(tmp_path / f"e{n}" / "reglas.rules").program, fresh, {}, "x") == doc
        assert [(t.name, t.cells, t.errors) for t in odds.compute(fresh)] == [(t.name, t.cells, t.errors) for t in tables]


def test_a_package_loaded_again_elsewhere_reuses_its_compiled_code_under_its_own_file_names(tmp_path):
    """``rulebook serve`` loads the package after every edit: a module whose bytes were
    loaded before is not compiled again, yet its functions name the files they were loaded
    from (tracebacks, ``inspect``), and an edited module is compiled from its new bytes."""
    import shutil

    text = RULES.read_text(encoding="utf-8")
    first = _package(text, tmp_path / "a")
    shutil.copytree(tmp_path / "a" / "python", tmp_path / "b" / "python")
    again = pyload.load_package(tmp_path / "b" / "python")
    for name in ("traced", "procedures"):
        module = getattr(again, name)
        # a public resolver checks its arguments (runtime.resolver): the function it wraps is the module's
        functions = [getattr(f, "__wrapped__", f) for f in vars(module).values()
                     if callable(f) and getattr(f, "__code__", None) is not None and f.__module__ == module.__name__]
        assert functions and all(f.__code__.co_filename == module.__file__ for f in functions), name
        assert module.__file__.startswith(str(tmp_path / "b"))
    assert [evaluate(again, x).checks for x in again.examples.EXAMPLES] == [evaluate(first, x).checks for x in first.examples.EXAMPLES]
    edited = _package(text.replace("regular  | 2 | todos", "regular  | 3 | todos"), tmp_path / "c")
    assert edited.data.TABLE_dados_calidad["regular"].dados == 3


def test_a_module_cut_statement_by_statement_is_the_module_cut_whole(tmp_path, monkeypatch):
    """reads parses a generated module one top-level statement at a time (each remembered by
    its text, so a data edit parses only the catalog it changed): the pieces and keys are
    those of parsing the module whole, for every module of a package."""
    package = _package(RULES.read_text(encoding="utf-8"), tmp_path / "a")
    folder = Path(package.__file__).parent
    texts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.py"))]
    assert any(len(reads._chunks(text)) > 10 for text in texts)  # the catalogs' module is cut
    pieces = [reads._cut(text) for text in texts]
    monkeypatch.setattr(reads, "_chunks", lambda text: [text])
    monkeypatch.setattr(reads, "_STATEMENTS", {})
    assert [reads._cut(text) for text in texts] == pieces
