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
    return subprocess.run([sys.executable, "-m", "compiler.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


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
    assert "La lista cuesta 12 puntos y el presupuesto es 7: sobran 5." in run.stdout
    assert "Lista no válida: 7 errores" in run.stderr
