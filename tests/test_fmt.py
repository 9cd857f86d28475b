"""``rulebook fmt``: the canonical layout of ``.rules`` files.

The cases of ``tests/data/fmt/cases.txt`` (``=== title``, the input, ``--- formatted``, the
expected output) pin the layout: alignment, wrapping, comments, prose untouched. Every
bundled rulebook and the language's examples (the ```rules blocks of LANGUAGE.md and
README.md) are formatted twice (the second changes nothing), and each rulebook's syntax
trees and checked IR are the same before and after. The command's ``--check``, ``--diff``,
writing and its refusal of a file that does not parse run as a user runs them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, ROOT
from rulebook.compiler.format import fences, format_source, same_meaning, same_program

BUNDLED = sorted(p for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules")))
LANGUAGE_EXAMPLES = [ROOT / "rules_dsl" / "LANGUAGE.md", ROOT / "README.md"]


def read_cases() -> list[tuple[str, str, str]]:
    text = (DATA / "fmt" / "cases.txt").read_text(encoding="utf-8")
    out = []
    for case in text.split("=== ")[1:]:
        title, body = case.split("\n", 1)
        before, after = body.split("--- formatted\n")
        out.append((title, before, after))
    return out


def rulebook(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})


def outside_fences(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    inside = {i for a, b in fences(text) for i in range(a, b + 1)}
    return [line for i, line in enumerate(lines) if i not in inside]


@pytest.mark.parametrize("title,before,after", [pytest.param(*c, id=c[0]) for c in read_cases()])
def test_layout_cases(title, before, after):
    assert format_source(before).text == after
    assert format_source(after).text == after  # idempotent
    assert outside_fences(after) == outside_fences(before)  # prose byte for byte


def mangled(text: str) -> str:
    """``text`` with the whitespace of its code scrambled (as an author might leave it): tabs
    for indentation, single spaces between tokens (alignment gone), trailing spaces, blank
    lines doubled; strings, comments and prose untouched."""
    lines = text.splitlines(keepends=True)
    inside = {i for a, b in fences(text) for i in range(a + 1, b)}
    out = []
    for i, line in enumerate(lines):
        if i not in inside or not line.strip():
            out += [line, line] if i in inside else [line]
            continue
        body = line.rstrip("\n")
        lead = len(body) - len(body.lstrip(" "))
        parts = re.split(r'("(?:[^"\\\n]|\\.)*"|#.*)', body.lstrip(" "))
        parts = [p if p.startswith(('"', "#")) else re.sub(r" +", " ", p) for p in parts]
        out.append("\t" * (lead and (lead // 2 or 1)) + "".join(parts) + "  \n")
    return "".join(out)


@pytest.mark.parametrize("book", BUNDLED, ids=lambda p: p.name)
def test_bundled_rulebook_formats_stably_to_the_same_program(book):
    """Formatting is idempotent, keeps the prose, does not depend on the author's whitespace
    (the scrambled rulebook formats to the same text), and the checked IR of the formatted
    scrambled rulebook is the original's."""
    before = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in sorted(book.glob("*.rules"))}
    after = {}
    for name, text in before.items():
        once = format_source(text).text
        assert format_source(once).text == once, f"{name}: formatting twice changes it again"
        assert outside_fences(once) == outside_fences(text), f"{name}: prose changed"
        scrambled = format_source(mangled(text)).text
        assert scrambled == once, f"{name}: the layout depends on the author's whitespace"
        after[name] = scrambled
    assert same_program(before, after) is True


@pytest.mark.parametrize("doc", LANGUAGE_EXAMPLES, ids=lambda p: p.name)
def test_language_examples_format_stably(doc):
    text = doc.read_text(encoding="utf-8")
    once = format_source(text).text
    assert format_source(once).text == once
    assert outside_fences(once) == outside_fences(text)


def test_check_diff_and_write(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(ROOT / "content" / "cookbook", book)
    target = book / "03-morale.rules"
    target.write_text(target.read_text(encoding="utf-8").replace("\n  ", "\n      ", 3), encoding="utf-8")
    messy = target.read_text(encoding="utf-8")
    assert format_source(messy).changed

    check = rulebook("fmt", "--check", str(book))
    assert check.returncode == 1
    assert "would reformat" in check.stderr and "03-morale.rules" in check.stderr
    assert target.read_text(encoding="utf-8") == messy  # --check writes nothing

    diff = rulebook("fmt", "--diff", str(target))
    assert diff.returncode == 0
    assert diff.stdout.startswith("---") and "\n+" in diff.stdout and "\n-" in diff.stdout
    assert target.read_text(encoding="utf-8") == messy  # --diff writes nothing

    write = rulebook("fmt", str(book))
    assert write.returncode == 0, write.stderr
    assert target.read_text(encoding="utf-8") == format_source(messy).text
    assert not [p for p in book.iterdir() if p.name.startswith(".")]  # no temporary file left

    again = rulebook("fmt", "--check", str(book))
    assert again.returncode == 0, again.stderr


def test_a_file_that_does_not_parse_is_reported_and_left_untouched(tmp_path):
    bad = tmp_path / "bad.rules"
    text = "# Broken\n\n```rules\nenum E \"E\" {\n      a \"A\"\n  b \"B\" c c\n}\n```\n"
    bad.write_text(text, encoding="utf-8")
    result = rulebook("fmt", str(bad))
    assert result.returncode == 1
    assert "bad.rules:6:" in result.stderr and "^" in result.stderr
    assert "Traceback" not in result.stderr
    assert bad.read_text(encoding="utf-8") == text


def test_the_safety_checks_see_a_change_of_meaning():
    name = "content/cookbook/03-morale.rules"
    text = (ROOT / name).read_text(encoding="utf-8")
    changed = text.replace("1..2", "1..3", 1)
    assert changed != text
    assert not same_meaning(text, changed, name)
    assert same_meaning(text, format_source(text).text, name)


def test_line_ends_are_kept():
    text = '# T\r\n\r\n```rules\r\nenum E "E" {\r\na "A"\r\n}\r\n```\r\nend\r\n'
    assert format_source(text).text == '# T\r\n\r\n```rules\r\nenum E "E" {\r\n  a "A"\r\n}\r\n```\r\nend\r\n'


def test_a_block_it_cannot_read_is_kept_and_the_parser_says_why(tmp_path):
    text = "```rules\nenum E \"E\" {\n      a \"A\" §\n}\n```\n"
    assert format_source(text).text == text and format_source(text).kept == ((3, 13, "unreadable character"),)
    bad = tmp_path / "odd.rules"
    bad.write_text(text, encoding="utf-8")
    result = rulebook("fmt", "--check", str(bad))
    assert result.returncode == 1
    assert "odd.rules:3:" in result.stderr and "Traceback" not in result.stderr


def test_spanish_messages():
    result = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", "fmt", "--help"], capture_output=True, text=True,
                            cwd=ROOT, env={"LANG": "es_ES.UTF-8", "LANGUAGE": "es", "PATH": "/usr/bin:/bin"})
    assert "se reformatearían" in result.stdout and "cada reglamento incluido" in result.stdout


def test_every_bundled_rulebook_is_formatted():
    """The bundled rulebooks are kept in the canonical layout (after an edit: ``rulebook fmt``)."""
    result = rulebook("fmt", "--check")
    assert result.returncode == 0, result.stderr
    assert "0 files would be reformatted" in result.stderr
