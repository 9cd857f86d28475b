"""Players read rules, not code: no code name of the rulebook and no doubled word on a player page.

Builds every bundled rulebook once (``bundled_builds``) and reads the text of each
player page outside the "Detalles técnicos" blocks and code listings
(tests/site/player_words.py). A code name is a name the rules files give to a
declaration, field, enum value, table key or column, parameter, local value or
entry, written as the files spell it (``vehiculo_normal``, ``inf``); names that
are also words of the rulebook's language (``moral``) are not code. A procedure's
steps and the worked examples are checked on their own, so a failure says which
part of the site shows code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bundled import BUNDLED, ROOT, bundled_builds  # noqa: F401 - the fixture
from player_words import Finding, own_words, scan

STEPS = "rb-steps"  # the class of a procedure's list of steps
EXAMPLE = "rb-example"  # the class of a worked example


@pytest.fixture(scope="session")
def bundled_programs(program) -> dict[str, object]:
    """Rulebook folder name → its checked program (the default rulebook's is the session's)."""
    from rulebook.compiler.pipeline import driver

    programs = {}
    for name in BUNDLED:
        source = ROOT / "content" / name
        if source.resolve() == driver.DEFAULT_RULEBOOK.resolve():
            programs[name] = program
        else:
            checked = driver.check(source)
            assert checked.ok, name
            programs[name] = checked.program
    return programs


@pytest.fixture(scope="session")
def findings(bundled_builds, bundled_programs) -> dict[str, list[Finding]]:  # noqa: F811 - the fixture
    """Rulebook → what a player should not read on its site. A name is a word when any bundled
    rulebook of the same language writes it."""
    lang = {name: p.rulebook.lang for name, p in bundled_programs.items()}
    words = {name: own_words(p) for name, p in bundled_programs.items()}
    found = {}
    for name, program in bundled_programs.items():
        language_words = set().union(*(w for other, w in words.items() if lang[other] == lang[name]))
        found[name] = scan(program, Path(bundled_builds[name]) / "site", language_words)
    return found


def _report(found: list[Finding]) -> str:
    return f"{len(found)} on the player pages:\n" + "\n".join(str(f) for f in found[:40])


def _in(finding: Finding, cls: str) -> bool:
    return cls in finding.where.split()


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_player_pages_show_no_code_names_and_no_doubled_words(findings, rulebook):
    """Tables, cards, notes, glossary, quick reference: everything but a procedure's steps and worked examples."""
    found = [f for f in findings[rulebook] if not _in(f, STEPS) and not _in(f, EXAMPLE)]
    assert not found, _report(found)


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_worked_examples_show_no_code_names_and_no_doubled_words(findings, rulebook):
    found = [f for f in findings[rulebook] if _in(f, EXAMPLE) and not _in(f, STEPS)]
    assert not found, _report(found)


@pytest.mark.parametrize("rulebook", BUNDLED)
def test_procedure_steps_show_no_code_names_and_no_doubled_words(findings, rulebook):
    found = [f for f in findings[rulebook] if _in(f, STEPS)]
    assert not found, _report(found)


def test_the_scanner_finds_code_and_spares_words(bundled_programs, tmp_path):
    """The check itself: code names and doubled words are found with their page and text;
    words, technical details and code listings are not."""
    program = bundled_programs["1936"]
    page = tmp_path / "site" / "pagina.html"
    page.parent.mkdir()
    page.write_text(
        "<html><nav>vehiculo_normal</nav><article>"
        "<p>Tipo: inf. La moral de la unidad.</p>"
        "<ol class='rb-steps'><li>usa vehiculo_normal</li></ol>"
        "<p>desgaste previo desgaste previo</p>"
        "<div class='rb-tech'><p>vehiculo_normal inf</p></div><pre>vehiculo_normal</pre>"
        "</article></html>", encoding="utf-8")
    found = scan(program, page.parent, own_words(program))
    assert [(f.page, f.what, f.where) for f in found] == [
        ("pagina.html", "inf", ""), ("pagina.html", "vehiculo_normal", STEPS),
        ("pagina.html", "desgaste previo desgaste previo", "")]
    assert "Tipo: inf" in found[0].context and "row of costes_terreno_dificil" in str(found[1])
