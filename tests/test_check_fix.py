"""``rulebook check --fix`` (issue 23, point 4.6): the diagnostics whose hint is an exact
rewrite carry it as edits (span + replacement, also in ``--format json``); ``--fix`` makes
them in the files, leaves a file whose edits overlap untouched, and checks again."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import DATA, ROOT

OLD = DATA / "diagnostics" / "fixable.rules"


def rulebook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_old_syntax_is_fixed_to_the_new_and_fixing_twice_changes_nothing(tmp_path):
    book = tmp_path / "old.rules"
    shutil.copy(OLD, book)
    first = rulebook("check", "--fix", str(book))
    assert "Traceback" not in first.stderr
    assert "fixed 5 problems in 1 file" in first.stderr, first.stderr
    fixed = book.read_text(encoding="utf-8")
    assert "Quality.veteran | 2" in fixed and "  green | 1" in fixed and "q == Quality.veteran" in fixed
    assert "expect probability(result.hit) == 1/3" in fixed
    assert 'odds hit_odds "Hit odds" {\n  procedure shot(n: x)\n  rows x in 2..6 "Target"\n  cell probability(result.hit)\n}' in fixed
    # what remains is checked again and printed: the one error that had no exact rewrite
    assert "result.casualties is a whole number, never 5/48" in first.stdout and "1 error" in first.stdout, first.stdout
    assert first.returncode == 1
    second = rulebook("check", "--fix", str(book))
    assert "nothing to fix" in second.stderr
    assert book.read_text(encoding="utf-8") == fixed


def test_the_edits_are_in_the_json_output():
    run = rulebook("check", "--format", "json", str(OLD))
    diags = json.loads(run.stdout)
    fixes = {d["line"]: d["fix"] for d in diags if d["fix"]}
    assert fixes[11] == [{"line": 11, "column": 3, "end_line": 11, "end_column": 8, "replacement": "green"}]
    assert len(fixes) == 5
    assert all(d["fix"] is None for d in diags if "whole number" in d["message"]), "not an exact rewrite: no edit"


def test_overlapping_edits_leave_the_file_untouched(tmp_path):
    from rulebook.compiler.commands import fix
    from rulebook.rules_dsl.diagnostics import Diagnostic, Edit, Span

    book = tmp_path / "a.rules"
    text = "```rules\nrulebook a \"A\"\n```\n"
    book.write_text(text, encoding="utf-8")
    name = "a.rules"  # as the loader shows it: relative to the rulebook's folder
    one = Diagnostic("error", "x", Span(name, 2, 10, 2, 11), None, "", (Edit(Span(name, 2, 10, 2, 11), "b"),))
    two = Diagnostic("error", "y", Span(name, 2, 10, 2, 14), None, "", (Edit(Span(name, 2, 10, 2, 16), "c"),))
    applied = fix.apply(book, [one, two], {name: text})
    assert applied.edits == 0 and book.read_text(encoding="utf-8") == text
    assert "a.rules: its 2 fixes overlap; it was left untouched" in applied.summary()
    assert fix.rewrite(text, [one.fix[0]]) == text.replace('a "A"', 'b "A"')
    changed = fix.apply(book, [one], {name: "something else"})
    assert changed.edits == 0 and "changed since it was checked" in changed.summary()


def test_check_help_names_fix():
    run = rulebook("check", "--help")
    assert "--fix" in run.stdout
