"""The `rulebook` command line, run as a user would (subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import DATA, ROOT


def run(*args, check=False):
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=ROOT)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("cmd", [[], ["check"], ["build"], ["resolve"], ["test"]])
def test_help_on_every_command(cmd):
    proc = run(*cmd, "--help", check=True)
    assert "usage: rulebook" in proc.stdout


def test_check_bundled_rulebook_is_clean_of_errors():
    proc = run("check", "--format", "json", check=True)
    diags = json.loads(proc.stdout)
    assert all(d["severity"] == "warning" for d in diags)


def test_check_reports_all_errors_with_positions(tmp_path):
    bad = tmp_path / "malo.rules"
    bad.write_text(
        '```rules\nrulebook t "T"\nenum E { a, b }\nrecord R { x: Entero, y: E }\n'
        'catalog c of R {\n  uno | 1 | z\n}\n```\n',
        encoding="utf-8",
    )
    proc = run("check", str(bad))
    assert proc.returncode == 1
    assert "malo.rules:4:" in proc.stdout and "unknown type 'Entero'" in proc.stdout
    assert "malo.rules:6:" in proc.stdout and "'z' is not a value of E" in proc.stdout
    assert "^" in proc.stdout
    as_json = json.loads(run("check", str(bad), "--format", "json").stdout)
    assert {d["line"] for d in as_json} >= {4, 6}


def test_resolve_list_json_lists_procedures_with_types():
    procs = json.loads(run("resolve", "--list", "--format", "json", check=True).stdout)
    by_name = {p["name"]: p for p in procs}
    for name in ("tirada_calidad", "resolucion_impacto", "resolucion_danio", "modificador_total", "disparo_directo"):
        assert name in by_name
    assert by_name["resolucion_impacto"]["result"] == "ResultadoImpacto"
    assert {"name": "calidad", "type": "Calidad", "required": True} in by_name["resolucion_impacto"]["params"]


def test_resolve_exact_and_sampled_with_trace():
    exact = json.loads(run("resolve", "resolucion_impacto", "--input", '{"i_base": 6, "m": 0, "p": 7, "calidad": "regular"}', "--exact", check=True).stdout)
    probs = {json.dumps(d["outcome"], sort_keys=True): d["probability"] for d in exact["distribution"]}
    hit = [p for k, p in probs.items() if '"impacto": true' in k]
    assert hit == ["1/3"]
    sampled = json.loads(run("resolve", "resolucion_impacto", "--input", '{"i_base": 6, "m": 0, "p": 7, "calidad": "regular"}', "--seed", "7", "--explain", check=True).stdout)
    assert "result" in sampled and sampled["trace"]["events"]
    again = json.loads(run("resolve", "resolucion_impacto", "--input", '{"i_base": 6, "m": 0, "p": 7, "calidad": "regular"}', "--seed", "7", "--explain", check=True).stdout)
    assert again == sampled


def test_resolve_bad_input_names_the_json_path():
    proc = run("resolve", "resolucion_impacto", "--input", '{"i_base": "seis", "m": 0, "p": 7, "calidad": "regular"}', "--exact")
    assert proc.returncode == 1
    assert "$.i_base" in proc.stdout + proc.stderr
    proc = run("resolve", "resolucion_impacto", "--input", '{"i_base": 6, "m": 0, "p": 7, "calidad": "Verdes"}', "--exact")
    assert proc.returncode == 1 and "$.calidad" in proc.stdout + proc.stderr


def test_resolve_unknown_procedure_suggests():
    proc = run("resolve", "resolucion_impacta", "--exact")
    assert proc.returncode == 2 and "resolucion_impacto" in proc.stdout + proc.stderr


def test_test_command_runs_examples(tmp_path):
    proc = run("test", str(DATA / "python" / "shooting.rules"), check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("ok   impacto: ")
    assert lines[-2:] == ["", "2 passed, 0 failed"]


FAILING = DATA / "cli" / "failing_example.rules"


def test_test_command_shows_the_actual_probability_next_to_the_expected_one():
    proc = run("test", str(FAILING))
    assert proc.returncode == 1
    assert "failing_example.rules:27: expect probability(result == Estado.firme) == 1/2: actual 1/3 (≈ 0.3333), expected 1/2 (≈ 0.5000)" in proc.stdout
    # the probability may be on either side; the operator reads from the actual value
    assert "expect probability(result >= 7) > 2/3: actual 7/12 (≈ 0.5833), expected > 2/3 (≈ 0.6667)" in proc.stdout
    assert "ok   chequeo: Moral 4: exaltado con 5 o 6" in proc.stdout


def test_test_command_summary_stands_on_its_own_line_after_the_results():
    proc = run("test", str(FAILING))
    lines = proc.stdout.splitlines()
    assert lines[-2:] == ["", "1 passed, 3 failed"]
    assert "passed" not in proc.stderr
    as_json = json.loads(run("test", str(FAILING), "--format", "json").stdout)
    assert [r["ok"] for r in as_json] == [False, False, True, False]


def _outcomes(lines: list[str]) -> list:
    """The outcomes of distribution lines (probability, percentage, outcome as JSON)."""
    return [json.loads(line.split("%", 1)[1]) for line in lines if "%" in line]


def test_test_command_lists_ordered_results_in_outcome_order():
    out = run("test", str(FAILING)).stdout
    # the outcomes an expectation does not hold for, in the enum's order (not alphabetical)
    assert 'does not hold for: "vacilante" (p=1/3), "exaltado" (p=1/3)' in out
    blocks = out.split("distribution of results:")[1:]
    assert _outcomes(blocks[0].split("FAIL")[0].splitlines()) == ["vacilante", "firme", "exaltado"]
    assert _outcomes(blocks[-1].splitlines()) == list(range(2, 13))


def test_resolve_exact_text_lists_ordered_results_in_outcome_order():
    proc = run("resolve", "chequeo", "--rulebook", str(FAILING), "--input", '{"moral": 4}', "--exact", "--format", "text", check=True)
    assert _outcomes(proc.stdout.splitlines()) == ["vacilante", "firme", "exaltado"]
    assert proc.stdout.splitlines()[0].split() == ["1/3", "33.33", "%", '"vacilante"']


def test_build_into_folder(tmp_path):
    out = tmp_path / "out"
    run("build", str(DATA / "python" / "shooting.rules"), "-o", str(out), "--no-site", check=True)
    assert (out / "json" / "manifest.json").exists() and (out / "python" / "prueba" / "procedures.py").exists()


def test_a_build_whose_examples_fail_publishes_nothing(tmp_path):
    """Vectors are expectations: a worked example its own rules contradict is an error of
    the build, at the failing expect, one per example, and nothing is written."""
    out = tmp_path / "out"
    proc = run("build", str(FAILING), "-o", str(out), "--no-site")
    assert proc.returncode == 1 and not out.exists()
    errors = [line for line in proc.stderr.splitlines() if ": error: worked example" in line]
    assert len(errors) == 3, proc.stderr  # one per failing example (the fourth holds)
    assert any("failing_example.rules:27:" in line and "actual 1/3 (≈ 0.3333), expected 1/2" in line for line in errors)
    assert "--allow-failing-examples" in proc.stderr and "Traceback" not in proc.stderr


def test_a_draft_build_marks_the_vectors_that_do_not_hold(tmp_path):
    out = tmp_path / "out"
    proc = run("build", str(FAILING), "-o", str(out), "--no-site", "--allow-failing-examples")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(": warning: worked example") == 3
    vectors = json.loads((out / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
    assert [v["holds"] for v in vectors] == [r["ok"] for r in json.loads(run("test", str(FAILING), "--format", "json").stdout)]
    assert [v["holds"] for v in vectors] == [False, False, True, False]
