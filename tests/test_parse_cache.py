"""Parse trees remembered by text (the language server's edit loop) give the same AST as a fresh parse.

``rules_dsl.parser.remember_parses`` keeps each declaration's Lark tree keyed by its text; the
positions in the AST come from the declaration's place in the file. Editing a line and shifting
every declaration below it must give exactly the AST a parse without the cache gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulebook.rules_dsl import parser

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "content").glob("*/*.rules"))


@pytest.fixture
def remembering():
    parser.remember_parses(4096)
    yield
    parser.remember_parses(0)


def _variants(text: str) -> list[str]:
    lines = text.splitlines()
    shifted = lines[:3] + ["Una línea nueva de prosa.", ""] + lines[3:]
    edited = [line.replace("1", "2", 1) if "|" in line else line for line in lines]
    return [text, "\n".join(shifted) + "\n", "\n".join(edited) + "\n", "\n".join(lines[len(lines) // 2:]) + "\n"]


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_remembered_parses_equal_fresh_ones(path, remembering):
    text = path.read_text(encoding="utf-8")
    for variant in _variants(text):
        parser.parse(variant, path.name)  # fills the cache (and hits it for unchanged declarations)
        remembered = parser.parse(variant, path.name)
        parser.remember_parses(0)
        fresh = parser.parse(variant, path.name)
        parser.remember_parses(4096)
        assert remembered == fresh


def test_the_cache_is_bounded(remembering):
    parser.remember_parses(3)
    for i in range(10):
        parser.parse(f'```rules\nconst c{i} = {i}\n```\n', "x.rules")
    assert len(parser._remembered) == 3
