"""``rulebook check`` and ``rulebook test`` without RULEBOOK run on every bundled rulebook (issue 9 §5).

(``rulebook build`` without RULEBOOK is run by tests/test_readme.py, as the README writes it.)
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

BUNDLED = sorted(p.name for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules")))


def run(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_test_without_rulebook_runs_every_bundled_rulebook():
    proc = run("test")
    assert proc.returncode == 0, proc.stdout[-2000:]
    headers = [line for line in proc.stdout.splitlines() if line.startswith("== ")]
    assert headers == [f"== content/{name}" for name in BUNDLED]
    summaries = [line for line in proc.stdout.splitlines() if line.endswith(" failed")]
    assert len(summaries) == len(BUNDLED) and all(s.endswith(", 0 failed") for s in summaries)


def test_test_without_rulebook_as_json_is_one_list():
    proc = run("test", "--format", "json")
    assert proc.returncode == 0
    verdicts = json.loads(proc.stdout)
    files = {v["src"].split("/")[-2] for v in verdicts if v["src"].count("/") >= 1}
    assert set(BUNDLED) <= files and all(v["ok"] for v in verdicts)


def test_check_without_rulebook_checks_every_bundled_rulebook():
    proc = run("check", "--format", "json")
    assert proc.returncode == 0, proc.stdout[-2000:]
    diagnostics = json.loads(proc.stdout)
    assert all(d["severity"] == "warning" for d in diagnostics)
    text = run("check")
    assert [line for line in text.stdout.splitlines() if line.startswith("== ")] == [f"== content/{name}" for name in BUNDLED]
