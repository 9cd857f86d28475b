"""``rulebook roster validate|print`` as a user runs it (a subprocess), on the
example rosters shipped in ``examples/rosters/`` and on broken files.

The legal examples exit 0; the illegal ones exit 1 with exactly the errors
listed here (JSON path and code, in order); files that cannot be used exit 2
with one clear message and no traceback; the printed sheet escapes what the
roster and the rulebook say.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "rosters"
SKIRMISH = ROOT / "tests" / "data" / "armies" / "skirmish"


def rulebook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


LEGAL = {
    "1936-republicano-defensor.json": (566, 1500),
    "1936-nacional-atacante-acordado.json": (649, 1538),
    "tercios-espanol-7.json": (7, 7),
    "tercios-sueco-12.json": (12, 12),
}

ILLEGAL = {
    "1936-ilegal.json": [
        ("$.units[0].options[0]", "option-not-allowed"),
        ("$.units[1].quality", "unknown-quality"),
        ("$.units[1].options[1]", "option-max"),
        ("$.units[2].entry", "entry-wrong-side"),
        ("$.units[3].entry", "unknown-entry"),
        ("$", "over-budget"),
    ],
    "tercios-ilegal.json": [
        ("$.units[1].options[0]", "option-not-allowed"),
        ("$.units[2].choices[0]", "choice-not-allowed"),
        ("$.units[4].choices", "choices-count"),
        ("$.units[5].options[1]", "option-max"),
        ("$.units[5].options[1]", "option-remove-missing"),
        ("$.units", "category-max"),
        ("$", "over-budget"),
    ],
}


def test_every_example_is_listed():
    assert {p.name for p in EXAMPLES.glob("*.json")} == set(LEGAL) | set(ILLEGAL)


@pytest.mark.parametrize("name", sorted(LEGAL))
def test_legal_examples_pass(name):
    run = rulebook("roster", "validate", str(EXAMPLES / name), "--format", "json")
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert result["legal"] and result["errors"] == []
    assert (result["total"], result["budget"]) == LEGAL[name]
    assert result["total"] == sum(u["cost"]["total"] for u in result["units"])


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_illegal_examples_fail_with_the_expected_errors(name):
    run = rulebook("roster", "validate", str(EXAMPLES / name), "--format", "json")
    assert run.returncode == 1, run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert [(e["path"], e["code"]) for e in result["errors"]] == ILLEGAL[name]
    assert all(e["rule"]["source"] for e in result["errors"]), "each error names the manual's section"


def test_text_report_names_rule_section_and_did_you_mean():
    run = rulebook("roster", "validate", str(EXAMPLES / "1936-ilegal.json"))
    assert run.returncode == 1
    assert "error: $.units[0].options[0]: T-26 B no puede llevar Cascos. [option-not-allowed]" in run.stdout
    assert "hint: ¿Querías decir «r_bt5»?" in run.stdout
    assert "Regla: Modificador de coste por calidad (Sección II)" in run.stdout
    assert "Total: 1102 / Presupuesto: 800" in run.stdout


def test_a_build_folder_serves_as_the_rulebook(tmp_path):
    build = tmp_path / "b"
    made = rulebook("build", str(SKIRMISH), "-o", str(build), "--no-site")
    assert made.returncode == 0, made.stderr
    assert (build / "json" / "armies" / "patrol.json").is_file() and (build / "schemas" / "roster.schema.json").is_file()
    manifest = json.loads((build / "json" / "manifest.json").read_text(encoding="utf-8"))
    assert "json/armies/patrol.json" in manifest["documents"]
    roster = json.loads((ROOT / "tests/data/rosters/skirmish-agreed-blue.json").read_text(encoding="utf-8"))["roster"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(roster), encoding="utf-8")
    run = rulebook("roster", "validate", str(path), "--rulebook", str(build), "--format", "json")
    assert run.returncode == 1 and [e["code"] for e in json.loads(run.stdout)["errors"]] == ["over-budget"]


BAD_FILES = {
    "missing": (None, "no such file"),
    "not-json.json": ('{"format": 1,', "not JSON"),
    "not-object.json": ("[1, 2]", "a roster is a JSON object"),
    "not-utf8.json": (b"\xff\xfe{", "not UTF-8"),
    "schema.json": (json.dumps({"format": 1, "rulebook": "tercios", "army": "ejercito", "units": [{"entry": 3, "color": "red"}]}),
                    "$.army: 'ejercito' is not one of"),
    "unknown-rulebook.json": (json.dumps({"format": 1, "rulebook": "tercio", "army": "x", "units": []}), "did you mean 'tercios'?"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_exit_2_with_a_clear_message(tmp_path, name):
    content, expected = BAD_FILES[name]
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    run = rulebook("roster", "validate", str(path))
    assert run.returncode == 2
    assert expected in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_print_escapes_everything(tmp_path):
    case = json.loads((ROOT / "tests/data/rosters/skirmish-legal.json").read_text(encoding="utf-8"))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(case["roster"]), encoding="utf-8")
    out = tmp_path / "sheet.html"
    run = rulebook("roster", "print", str(path), "--rulebook", str(SKIRMISH), "-o", str(out))
    assert run.returncode == 0, run.stderr
    sheet = out.read_text(encoding="utf-8")
    assert "<script>" not in sheet and "<b>Shovels" not in sheet
    assert "&lt;script&gt;alert(1)&lt;/script&gt; — Riflemen" in sheet
    assert "&lt;b&gt;Shovels&lt;/b&gt; &amp; *picks*" in sheet
    assert '<html lang="en">' in sheet and "119 / 120" in sheet
    md = rulebook("roster", "print", str(path), "--rulebook", str(SKIRMISH), "--format", "markdown")
    assert md.returncode == 0
    assert "## &lt;script&gt;alert(1)&lt;/script&gt; — Riflemen — 93" in md.stdout
    assert "&lt;b&gt;Shovels&lt;/b&gt; &amp; \\*picks\\*" in md.stdout


def test_print_shows_troops_and_errors_of_an_illegal_roster(tmp_path):
    run = rulebook("roster", "print", str(EXAMPLES / "tercios-ilegal.json"), "--format", "markdown")
    assert run.returncode == 0
    assert "Lista no válida" in run.stdout and "over-budget" not in run.stdout
    assert "**2 × Cañón Medio**" in run.stdout
    assert "La lista cuesta 12 puntos y el presupuesto es 7: se pasa en 5." in run.stdout
    assert "Lista no válida: 7 errores" in run.stderr


def test_the_count_of_errors_agrees_with_it():
    from rulebook.compiler.commands.roster import illegal_count

    labels = {"illegal": "Illegal roster", "errors": "Errors"}
    assert illegal_count({"lang": "en", "labels": labels}, 1) == "Illegal roster: 1 error"
    assert illegal_count({"lang": "en", "labels": labels}, 2) == "Illegal roster: 2 errors"
    assert illegal_count({"lang": "es", "labels": labels}, 1) == "Lista no válida: 1 error"
    assert illegal_count({"lang": "es", "labels": labels}, 3) == "Lista no válida: 3 errores"


HOSTILE = ROOT / "tests" / "data" / "armies" / "hostile"


def test_print_of_a_rulebook_with_hostile_names_is_text(tmp_path):
    """Names from the rules (a unit called ``</script><img src=x onerror=alert(1)>``, the army,
    side, size and option titles) and from the roster are escaped in the HTML and Markdown sheets."""
    roster = {"format": 1, "rulebook": "hostil", "army": "banda", "side": "rojo", "size": "normal",
              "name": "<script>alert(6)</script>",
              "units": [{"entry": "lancero", "name": "<img src=z onerror=alert(5)>", "options": ["escudo"]}, {"entry": "arquero"}]}
    path = tmp_path / "hostil.json"
    path.write_text(json.dumps(roster), encoding="utf-8")
    out = tmp_path / "sheet.html"
    run = rulebook("roster", "print", str(path), "--rulebook", str(HOSTILE), "-o", str(out))
    assert run.returncode == 0, run.stderr
    sheet = out.read_text(encoding="utf-8")
    for markup in ("<img", "<script", "<svg", "<b>", "<i>", "<u>"):
        assert markup not in sheet, markup
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in sheet
    assert "&lt;img src=z onerror=alert(5)&gt;" in sheet and "&lt;script&gt;alert(6)&lt;/script&gt;" in sheet
    md = rulebook("roster", "print", str(path), "--rulebook", str(HOSTILE), "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert "<img" not in md.stdout and "<script" not in md.stdout and "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in md.stdout


def _bad(tmp_path, name: str, content: str, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    run = rulebook("roster", "validate", str(path), *extra)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    return run


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    """A 50 MB roster (a million units) is refused at once, by its size, in bounded time and memory."""
    import time

    unit = '{"entry": "r_milicia_cnt", "quality": "green"},'
    body = '{"format": 1, "rulebook": "manual_1936", "army": "listas_genericas", "units": [' + unit * 1_000_000 + '{"entry": "r_milicia_cnt"}]}'
    assert len(body) > 45_000_000
    start = time.perf_counter()
    run = _bad(tmp_path, "huge.json", body)
    assert time.perf_counter() - start < 20
    assert "larger than 1000 kB" in run.stderr


def test_too_many_units_are_refused_before_the_rules_are_checked(tmp_path):
    from rulebook.compiler.commands.roster import MAX_UNITS

    body = json.dumps({"format": 1, "rulebook": "manual_1936", "army": "listas_genericas", "units": [{"entry": "x"}] * (MAX_UNITS + 1)})
    run = _bad(tmp_path, "many.json", body)
    assert f"$.units: {MAX_UNITS + 1} units; a roster may have at most {MAX_UNITS}" in run.stderr


def test_json_errors_show_the_line_with_a_caret(tmp_path):
    run = _bad(tmp_path, "typo.json", '{"format": 1,\n "rulebook": "tercios",\n "units": [{"entry": "x",}]\n}')
    assert "typo.json:3:26: error: not JSON" in run.stderr
    assert '    3 |  "units": [{"entry": "x",}]\n      |                          ^' in run.stderr


def test_wrong_types_say_what_is_expected(tmp_path):
    run = _bad(tmp_path, "types.json", json.dumps({"format": "1", "rulebook": 5, "army": "listas_genericas", "units": {}}))
    assert "$.rulebook: 5 is not a text" in run.stderr and "--rulebook" in run.stderr
    run = _bad(tmp_path, "types2.json", json.dumps({"format": 1, "rulebook": "tercios", "army": "lista_ejercito", "units": [{"entry": 7, "models": "3"}]}))
    assert "$.units[0].entry: 7 is not of type 'string'" in run.stderr


def test_a_roster_for_another_rulebook_says_so(tmp_path):
    """--rulebook names Tercios and the roster is a 1936 list: one error naming both, not schema details."""
    run = rulebook("roster", "validate", str(EXAMPLES / "1936-republicano-defensor.json"), "--rulebook", str(ROOT / "content" / "tercios"))
    assert run.returncode == 2
    assert "the roster is for the rulebook 'manual_1936'" in run.stderr and "is 'tercios'" in run.stderr
    assert "is not one of" not in run.stderr and "Traceback" not in run.stderr
