"""Shared fixtures: the bundled rulebook checked and built once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CONTENT = ROOT / "content" / "1936"


LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def loosely(fragment: str):
    """A pattern of ``fragment`` (a piece of a rules file) however ``rulebook fmt`` aligned it:
    each run of spaces in it matches any run of spaces (the padding of aligned columns)."""
    import re

    return re.compile(" +".join(re.escape(part) for part in re.split(" +", fragment)))


def replace_loosely(text: str, old: str, new: str) -> str:
    """``text`` with the first match of ``loosely(old)`` replaced by ``new`` (AssertionError when none)."""
    found = loosely(old).search(text)
    assert found is not None, old
    return text[: found.start()] + new + text[found.end():]


def pytest_configure(config):
    """The command line speaks the user's language (issue 25): the tests read its English, whatever
    the locale they are run in; a test that wants Spanish sets ``LANG`` for its own command."""
    import os

    for var in LOCALE_VARIABLES:
        os.environ.pop(var, None)
    os.environ["LANG"] = "C.UTF-8"


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", help="rewrite expected outputs of data-driven tests")


@pytest.fixture(scope="session")
def update_goldens(request) -> bool:
    return request.config.getoption("--update-goldens")


@pytest.fixture(scope="session")
def checked():
    from rulebook.compiler.pipeline import driver

    result = driver.check(CONTENT)
    assert result.ok, "the bundled rulebook must check without errors"
    return result


@pytest.fixture(scope="session")
def program(checked):
    return checked.program


@pytest.fixture(scope="session")
def package(program):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(program)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The bundled rulebook built once (with the site) into a temporary folder."""
    return build_rulebook(tmp_path_factory, CONTENT, "build", site=True)[1]


def build_rulebook(tmp_path_factory, content: Path, name: str, site: bool):
    """Build ``content`` into a fresh temporary folder; (the checked result, the build folder).
    Fails the test with the rendered errors when the build does not succeed."""
    from rulebook.compiler.pipeline import driver

    out = tmp_path_factory.mktemp(name) / "build"
    result = driver.build(content, out, site=site)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return result, out


def compare_golden(actual: str, expected_path: Path, update: bool) -> None:
    """Assert ``actual`` equals the golden file (or rewrite it with --update-goldens)."""
    if update or not expected_path.exists():
        expected_path.write_text(actual, encoding="utf-8")
        if not update:
            pytest.fail(f"golden file {expected_path.name} was missing and has been written; check it and rerun")
        return
    assert actual == expected_path.read_text(encoding="utf-8")


def filled_in(snippet: str, lang: str, rulebook: Path | str, output: Path | str) -> str:
    """A command or snippet of a data page (in the rulebook's language ``lang``) with its
    placeholders for the rulebook's folder and the output folder replaced by ``rulebook`` and
    ``output``, as a reader fills them in."""
    from rulebook.compiler.emit.site.pages.data_page import OUTPUT_FOLDER, RULEBOOK_FOLDER
    from rulebook.compiler.support import i18n

    with i18n.using(lang):
        rulebook_folder, output_folder = i18n._(RULEBOOK_FOLDER), i18n._(OUTPUT_FOLDER)
    return snippet.replace(rulebook_folder, str(rulebook)).replace(output_folder, str(output))


def decode_semantic_tokens(data: list[int], legend, text: str) -> dict[tuple[int, str], tuple[str, list[str]]]:
    """LSP semantic tokens decoded with the server's legend: (0-based line, the token's text) →
    (token type, modifiers)."""
    lines = text.split("\n")
    tokens: dict[tuple[int, str], tuple[str, list[str]]] = {}
    line = char = 0
    for i in range(0, len(data), 5):
        delta_line, delta_char, length, kind, modifiers = data[i : i + 5]
        line, char = line + delta_line, (char + delta_char if delta_line == 0 else delta_char)
        mods = [m for bit, m in enumerate(legend.token_modifiers) if modifiers & (1 << bit)]
        tokens[(line, lines[line][char : char + length])] = (legend.token_types[kind], mods)
    return tokens
