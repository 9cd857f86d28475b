"""The examples of rules_dsl/LANGUAGE.md compile, and the document covers the language.

Reads ``rules_dsl/LANGUAGE.md``: every ```` ```rules ```` fence is an example.
The examples are fragments that use each other's declarations, so they are
compiled together as one rulebook: each block is written to a temporary folder
as its own ``.rules`` file (numbered in document order, padded with blank lines
so that its lines keep their LANGUAGE.md line numbers) and the folder is checked
with ``rulebook.compiler.pipeline.driver.check``; it must report no error (warnings are fine).

A fence written ```` ```rules error ```` shows a mistake: it is compiled with the
other blocks and must produce at least one error of its own. A block that uses
``@doc`` without text keeps, in its file, the prose paragraph right above it in
LANGUAGE.md (the text that ``@doc`` takes).

Also checked against the document: every annotation the checker accepts, every
``@status`` value, every keyword (in an example) and every construct of the
grammar (in the parse trees of the examples).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.rules_dsl import parser
from rulebook.rules_dsl.keywords import KEYWORDS

LANGUAGE_MD = Path(parser.__file__).with_name("LANGUAGE.md")
FENCE = re.compile(r"^```rules(?P<info>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
RULEBOOK_DECLARATION = '```rules\nrulebook doc_lenguaje "Ejemplos de LANGUAGE.md" version "1.0" lang "es"\n```\n'

#: The annotations the checker accepts and the values of @status, written out
#: here so that the test does not depend on where the checker keeps them
#: (today ANNOTATIONS and STATUSES in compiler/check/declarations.py; compared
#: below when that module exists).
ANNOTATIONS = ("source", "status", "doc", "datasheet", "cost_field", "cost_modifier", "as_printed", "changelog", "allow", "display", "internal", "quick_reference")
STATUSES = ("active", "deferred", "not_playable")

BARE_DOC = re.compile(r"^@doc[ \t]*$", re.M)
#: A prose line that is a paragraph (not a heading, list item, note, table row or fence).
PARAGRAPH_LINE = re.compile(r"^(?![#>|]|```|[-*+] |\d+[.)] |---)\S")


@dataclass(frozen=True)
class Block:
    """One ```rules fence of LANGUAGE.md."""

    line: int  # line of the opening fence
    body: str
    shows_error: bool
    paragraph_above: tuple[int, str] | None  # (line, text), kept for a bare @doc

    @property
    def label(self) -> str:
        return f"LANGUAGE.md:{self.line}"

    def as_rules_file(self) -> str:
        """The block as a literate file whose fence sits at the block's line of LANGUAGE.md."""
        lines = [""] * (self.line - 1)
        if self.paragraph_above is not None:
            line, text = self.paragraph_above
            lines[line - 1] = text
        return "".join(f"{line}\n" for line in lines) + "```rules\n" + self.body + "```\n"


def doc_text() -> str:
    return LANGUAGE_MD.read_text(encoding="utf-8")


def paragraph_above(lines: list[str], fence_index: int) -> tuple[int, str] | None:
    """The paragraph line closest above the fence at ``lines[fence_index]``, if the prose there is one."""
    index = fence_index - 1
    while index >= 0 and not lines[index].strip():
        index -= 1
    if index >= 0 and PARAGRAPH_LINE.match(lines[index]):
        return index + 1, lines[index]
    return None


def doc_blocks() -> list[Block]:
    text = doc_text()
    lines = text.splitlines()
    blocks = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        info = match.group("info").split()
        assert info in ([], ["error"]), f"unknown fence info {match.group('info')!r} at line {line}"
        body = match.group("body")
        above = paragraph_above(lines, line - 1) if BARE_DOC.search(body) else None
        blocks.append(Block(line, body, info == ["error"], above))
    return blocks


def correct_blocks() -> list[Block]:
    return [b for b in doc_blocks() if not b.shows_error]


def error_blocks() -> list[Block]:
    return [b for b in doc_blocks() if b.shows_error]


def write_rulebook(folder: Path, blocks: list[Block]) -> dict[str, Block]:
    """One file per block; a rulebook declaration if no block has one. Returns file name -> block."""
    files = {}
    for number, block in enumerate(blocks, start=1):
        name = f"{number:03d}-linea-{block.line}.rules"
        (folder / name).write_text(block.as_rules_file(), encoding="utf-8")
        files[name] = block
    if not any(re.search(r"^rulebook\b", b.body, re.M) for b in blocks):
        (folder / "000-rulebook.rules").write_text(RULEBOOK_DECLARATION, encoding="utf-8")
    return files


def errors_of(result: driver.Checked) -> list:
    return [d for d in result.diagnostics if d.severity == "error"]


def rendered(diagnostics, result: driver.Checked) -> str:
    return "\n".join(d.render(result.sources) for d in diagnostics)


# ----------------------------------------------------------------------------- the examples compile


def test_language_md_has_examples():
    assert len(correct_blocks()) >= 15
    assert error_blocks(), "LANGUAGE.md shows no mistake in a ```rules error fence"


def test_examples_compile_together(tmp_path):
    write_rulebook(tmp_path, correct_blocks())
    result = driver.check(tmp_path)
    errors = errors_of(result)
    assert not errors, (
        "the ```rules blocks of LANGUAGE.md do not compile (file NNN-linea-L.rules holds the block "
        "at line L of LANGUAGE.md and keeps its line numbers):\n" + rendered(errors, result)
    )


@pytest.mark.parametrize("block", error_blocks(), ids=lambda b: b.label)
def test_error_example_reports_an_error(tmp_path, block):
    files = write_rulebook(tmp_path, [*correct_blocks(), block])
    result = driver.check(tmp_path)
    error_file = next(name for name, b in files.items() if b is block)
    own = [d for d in errors_of(result) if Path(d.span.file).name == error_file]
    others = [d for d in errors_of(result) if Path(d.span.file).name != error_file]
    assert own, f"the ```rules error block at {block.label} compiles without error:\n" + rendered(result.diagnostics, result)
    assert not others, f"the ```rules error block at {block.label} breaks other blocks:\n" + rendered(others, result)


# ----------------------------------------------------------------------------- the document covers the language


@pytest.mark.parametrize("name", ANNOTATIONS)
def test_annotation_is_documented_with_an_example(name):
    assert f"@{name}" in doc_text(), f"LANGUAGE.md does not mention @{name}"
    used = re.compile(rf"^@{name}\b", re.M)
    assert any(used.search(b.body) for b in correct_blocks()), f"no ```rules example of LANGUAGE.md uses @{name}"


def test_annotation_lists_match_the_checker():
    declarations = pytest.importorskip("rulebook.compiler.check.declarations")
    if not hasattr(declarations, "ANNOTATIONS") or not hasattr(declarations, "STATUSES"):
        pytest.skip("the checker keeps its annotation lists elsewhere")
    assert set(declarations.ANNOTATIONS) == set(ANNOTATIONS)
    assert set(declarations.STATUSES) == set(STATUSES)


@pytest.mark.parametrize("status", STATUSES)
def test_status_value_is_documented(status):
    assert re.search(rf"\b{status}\b", doc_text()), f"LANGUAGE.md does not mention @status {status}"


def code_words(body: str) -> set[str]:
    """The words of a block outside strings and comments."""
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', " ", body)
    code = re.sub(r"#[^\n]*", " ", code)
    return set(re.findall(r"[^\W\d]\w*", code))


def test_every_keyword_is_used_in_an_example():
    used = set().union(*(code_words(b.body) for b in correct_blocks()))
    assert not KEYWORDS - used, f"keywords no ```rules example of LANGUAGE.md uses: {sorted(KEYWORDS - used)}"


def test_reserved_words_list_is_the_keyword_list():
    section = doc_text().split("## Reserved words", 1)
    assert len(section) == 2, "LANGUAGE.md has no '## Reserved words' section"
    bullets = [line for line in section[1].split("\n## ", 1)[0].splitlines() if line.startswith("* ")]
    listed = set(re.findall(r"`([a-z_]+)`", "\n".join(bullets)))
    assert listed == KEYWORDS, (
        f"listed but not keywords: {sorted(listed - KEYWORDS)}; keywords not listed: {sorted(KEYWORDS - listed)}"
    )


def grammar_constructs() -> set[str]:
    """The tree names the grammar can build: rule names and aliases.

    Not counted: helpers Lark inlines (``_name``) and ``?rule`` alternatives
    without an alias, which never make a tree node of their own.
    """
    names = set()
    for rule in parser._lark().rules:
        inlined = rule.options.expand1 and not rule.alias
        name = str(rule.alias or rule.origin.name)
        if not inlined and not name.startswith("_"):
            names.add(name)
    return names


def example_constructs() -> set[str]:
    """The tree names found in the parse trees of the correct examples."""
    lark = parser._lark()
    found = set()
    for block in correct_blocks():
        found.update(str(tree.data) for tree in lark.parse(block.body).iter_subtrees())
    return found


def test_every_grammar_construct_appears_in_an_example():
    missing = grammar_constructs() - example_constructs()
    assert not missing, f"grammar constructs no ```rules example of LANGUAGE.md shows: {sorted(missing)}"
