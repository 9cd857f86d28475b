"""The language server on this session's constructs, in-process: ``repeat``,
``stacking sum``, ``@display``, ``@allow``, ``@internal``, ``lang``, army
clauses (the bundled rulebooks' armies are in tests/data/lsp/*.txt, driven over
stdio by tests/test_lsp.py) and the documentation tables hover and completion
read, which must name exactly the words the checker knows.

The rulebook is ``tests/data/lsp/rulebook/``; each case puts the cursor at the
``‸`` of a fragment of one of its lines, as tests/data/lsp/*.txt do.
"""

from __future__ import annotations

import re
import shutil

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from conftest import DATA, ROOT

RULEBOOK = DATA / "lsp" / "rulebook"
FILE = "00-constructs.rules"
CURSOR = "‸"


@pytest.fixture(scope="module")
def rulebook(tmp_path_factory):
    from rulebook.compiler.lsp.positions import Locator
    from rulebook.compiler.lsp.workspace import Rulebook

    folder = tmp_path_factory.mktemp("lsp") / "reglamento"
    shutil.copytree(RULEBOOK, folder)
    analysis = Rulebook(folder).analyze()
    assert not analysis.diagnostics, [d.message for d in analysis.diagnostics]
    name = next(k for k in analysis.sources if k.endswith(FILE))
    return analysis, Locator(analysis, PositionCodec()), name


def _at(analysis, name: str, fragment: str) -> tuple[int, int]:
    """The 1-based line and column of ``‸`` in the one line holding ``fragment``."""
    plain = fragment.replace(CURSOR, "")
    found = [(i, text.index(plain)) for i, text in enumerate(analysis.sources[name].splitlines()) if plain in text]
    assert len(found) == 1, fragment
    line, start = found[0]
    return line + 1, start + fragment.index(CURSOR) + 1


def _hover(rulebook, fragment: str) -> str:
    from rulebook.compiler.lsp import features

    analysis, locator, name = rulebook
    found = features.hover(analysis, locator, name, *_at(analysis, name, fragment))
    assert found is not None, fragment
    return found.contents.value


def _lines(rulebook, feature, fragment: str, *extra) -> list[int]:
    """The 1-based lines of the locations a feature answers at ``fragment``."""
    analysis, locator, name = rulebook
    return sorted(loc.range.start.line + 1 for loc in feature(analysis, locator, name, *_at(analysis, name, fragment), *extra))


def _line_of(rulebook, fragment: str) -> int:
    analysis, _, name = rulebook
    return _at(analysis, name, fragment + CURSOR)[0]


def _complete(rulebook, fragment: str, typed: str, kind: types.CompletionItemKind | None = None) -> list[str]:
    """The labels of the completions (of one ``kind``) after typing ``typed`` at the ``‸`` of ``fragment``."""
    from rulebook.compiler.lsp import features

    analysis, _, name = rulebook
    line, col = _at(analysis, name, fragment)
    lines = analysis.sources[name].split("\n")
    text = lines[line - 1]
    edited = (text[: col - 1] + typed).split("\n")
    new = lines[: line - 1] + edited[:-1] + [edited[-1] + text[col - 1 :]] + lines[line:]
    items = features.completion(analysis, "\n".join(new), line + len(edited) - 1, len(edited[-1]) + 1)
    return [i.label for i in items if kind is None or i.kind == kind]


# ---------------------------------------------------------------------------- repeat … until


def test_a_value_bound_in_a_repeat_is_known_after_until_and_in_later_steps(rulebook):
    from rulebook.compiler.lsp import features

    assert "atacante: int" in _hover(rulebook, "} until ataca‸nte != defensor")
    bound = _line_of(rulebook, "      let atacante")
    assert _lines(rulebook, features.definition, "} until ataca‸nte != defensor") == [bound]
    uses = _lines(rulebook, features.references, "let ataca‸nte = roll", True)
    assert uses == [bound, _line_of(rulebook, "    } until atacante"), _line_of(rulebook, "    return if atacante")]


# ---------------------------------------------------------------------------- annotations


def test_the_fields_of_display_go_to_the_record_and_are_renamed_with_it(rulebook):
    from rulebook.compiler.lsp import features

    assert "field of record `Dotacion`" in _hover(rulebook, '@display "{cant‸idad}')
    assert _lines(rulebook, features.definition, '@display "{cantidad} × {ar‸ma}"') == [_line_of(rulebook, "  arma: text")]
    assert _line_of(rulebook, "@display") in _lines(rulebook, features.references, "  canti‸dad: int", True)


def test_annotations_and_warning_kinds_have_their_documentation(rulebook):
    assert "**@internal** · annotation" in _hover(rulebook, "@inter‸nal")
    assert "off the player pages" in _hover(rulebook, "@inter‸nal")
    assert "**unused** · kind of warning" in _hover(rulebook, "@allow un‸used")
    assert "**sum** · stacking clause" in _hover(rulebook, "  stacking s‸um")


def test_completion_after_allow_display_stacking_and_lang(rulebook):
    assert {"unused", "gap", "missing-key"} <= set(_complete(rulebook, "@allow ‸unused", ""))
    assert _complete(rulebook, '@display "{cantidad} × {‸arma}"', "") == ["cantidad", "arma"]
    assert _complete(rulebook, "  stacking ‸sum", "") == ["sum", "max", "min", "first"]
    assert _complete(rulebook, 'lang "‸es"', "") == ["en", "es"]
    assert {"allow", "display", "internal", "as_printed", "changelog"} <= set(_complete(rulebook, "@‸internal", ""))



def test_completion_inside_as_printed_offers_the_ids_the_declaration_below_cannot_resolve(tmp_path):
    """``@as_printed(ids: [`` above a table whose rows name entries no catalog has: the
    ids the checker reports inside that table (not those of another declaration),
    less the ones already typed."""
    from rulebook.compiler.lsp import features
    from rulebook.compiler.lsp.workspace import Rulebook

    folder = tmp_path / "reglamento"
    folder.mkdir()
    (folder / "00.rules").write_text(
        '```rules\nrulebook prueba "Prueba" version "1.0" lang "es"\nsection I "Todo"\n'
        'record Peloton "Pelotón" { nombre: text "Nombre" }\n'
        'catalog pelotones "Pelotones" of Peloton {\n  fusileros | "Fusileros"\n}\n'
        'table movimiento "Movimiento" by peloton: ref pelotones "Pelotón" -> cm: int "cm" {\n'
        '  fusileros | 15\n  morteros | 10\n  zapadores | 12\n}\n'
        'table alcance "Alcance" by peloton: ref pelotones "Pelotón" -> cm: int "cm" {\n'
        '  fusileros | 60\n  cañones | 90\n}\n```\n',
        encoding="utf-8",
    )
    analysis = Rulebook(folder).analyze()
    assert [d.code for d in analysis.diagnostics if d.severity == "error"] == ["unknown-ref"] * 3, analysis.diagnostics
    name = next(iter(analysis.sources))
    lines = analysis.sources[name].split("\n")
    at = next(i for i, text in enumerate(lines) if text.startswith("table movimiento"))

    def complete(typed: str) -> list[str]:
        text = "\n".join(lines[:at] + [typed] + lines[at:])
        return [i.label for i in features.completion(analysis, text, at + 1, len(typed) + 1)]

    assert complete("@as_printed(ids: [") == ["morteros", "zapadores"]
    assert complete("@as_printed(ids: [mor") == ["morteros", "zapadores"]
    assert complete("@as_printed(ids: [morteros, ") == ["zapadores"]


def test_limit_category_and_quality_column_go_to_what_they_name(tmp_path):
    """In an army, ``limit category: horse`` names a value of the enum the units'
    ``category:`` field has, and ``quality … percent: t column: c`` a column of ``t``:
    both go to their definition."""
    from rulebook.compiler.lsp import features
    from rulebook.compiler.lsp.positions import Locator
    from rulebook.compiler.lsp.workspace import Rulebook

    folder = tmp_path / "skirmish"
    shutil.copytree(DATA / "armies" / "skirmish", folder)
    path = folder / "skirmish.rules"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "quality Grade percent: grade_cost\n", "quality Grade percent: grade_cost column: percent\n"), encoding="utf-8")
    analysis = Rulebook(folder).analyze()
    assert not [d for d in analysis.diagnostics if d.severity == "error"], analysis.diagnostics
    name = next(iter(analysis.sources))
    rulebook = (analysis, Locator(analysis, PositionCodec()), name)
    assert _lines(rulebook, features.definition, "  limit category: ho‸rse max: 1") == [_line_of(rulebook, '  horse "Horse"')]
    assert _lines(rulebook, features.definition, "percent: grade_cost column: perc‸ent") == [_line_of(rulebook, "  -> percent: int")]

def test_snippets_for_repeat_and_stack_inside_a_procedure(rulebook):
    snippet = types.CompletionItemKind.Snippet
    assert sorted(_complete(rulebook, "    return d.cantidad‸", "\n    ", snippet)) == ["if", "let", "repeat", "step"]
    assert _complete(rulebook, "    return ‸d.cantidad", "", snippet) == ["stack"]
    assert {"army", "repeat", "stack", "allow"} <= set(_complete(rulebook, 'section I "Todo"‸', "\n", snippet))


def test_semantic_tokens_of_repeat_and_annotations(rulebook):
    from rulebook.compiler.lsp import features

    analysis, locator, name = rulebook
    data = features.semantic_tokens(analysis, locator, name)
    lines = analysis.sources[name].splitlines()
    seen, line, char = {}, 0, 0
    for i in range(0, len(data), 5):
        line, char = line + data[i], (char + data[i + 1] if data[i] == 0 else data[i + 1])
        seen.setdefault(lines[line][char : char + data[i + 2]], set()).add(features.TOKEN_TYPES[data[i + 3]])
    assert seen["@display"] == seen["@allow"] == {"decorator"}
    assert seen["unused"] == {"enumMember"} and seen["cantidad"] == {"property"} and seen["atacante"] >= {"variable"}
    assert seen["refuerzo"] == {"function"} and seen["sum"] == {"keyword"}


# ---------------------------------------------------------------------------- the documentation tables


def test_the_documentation_tables_name_exactly_what_the_checker_knows():
    from rulebook.compiler.check.armies import TOP_CLAUSES, UNIT_ARGS, UNIT_CLAUSES
    from rulebook.compiler.check.declarations import ANNOTATIONS
    from rulebook.compiler.lsp.docs import ANNOTATION_DOCS, CLAUSE_ARGUMENTS, CLAUSE_DOCS, WARNING_KINDS

    assert set(ANNOTATION_DOCS) == set(ANNOTATIONS)
    assert {w for c, w in CLAUSE_DOCS if c == "army"} == set(TOP_CLAUSES)
    assert {w for c, w in CLAUSE_DOCS if c == "units"} == set(UNIT_CLAUSES)
    for clause, names in CLAUSE_ARGUMENTS.items():
        doc = CLAUSE_DOCS.get(("army", clause)) or CLAUSE_DOCS[("units", clause)]
        assert all(f"{name}:" in doc for name in names), clause
    assert all(f"{name}:" in CLAUSE_DOCS[("army", "units")] for name in UNIT_ARGS)
    warned = set()
    for path in sorted((ROOT / "compiler" / "check").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for call in re.finditer(r"\.warn\((.*?)\)\n", text, flags=re.S):
            warned.update(re.findall(r'"([a-z-]+)",?\s*$', call.group(1)))
    assert warned == set(WARNING_KINDS), warned ^ set(WARNING_KINDS)
    language = (ROOT / "rules_dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
    assert all(f"`@{a}" in language for a in ANNOTATIONS)


# ---------------------------------------------------------------------------- diagnostics


def test_the_errors_of_an_army_are_at_the_word_that_is_wrong(tmp_path):
    """What ``rulebook check`` says of an army, at the clause word or value it names, in the editor's units."""
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.lsp import features
    from rulebook.compiler.lsp.positions import Locator
    from rulebook.compiler.lsp.workspace import Rulebook
    from rulebook.rules_dsl.diagnostics import render_all

    folder = tmp_path / "reglamento"
    shutil.copytree(RULEBOOK, folder)
    (folder / "01-ejército.rules").write_text(
        '```rules\nrecord Tropa "Tropa" {\n  nombre: text "Nombre"\n  puntos: int "Puntos"\n}\n\n'
        'catalog tropas "Tropas" of Tropa {\n  t_a | "Tropa A" | 3\n}\n\n'
        'army ejército "Ejército" {\n  agred\n  units tropas cost: puntoz\n  limit entry: t_b max: 1\n}\n```\n',
        encoding="utf-8",
    )
    analysis = Rulebook(folder).analyze()
    checked = driver.check(folder)
    assert render_all(analysis.diagnostics, analysis.sources) == render_all(checked.diagnostics, checked.sources)
    uri = Locator(analysis, PositionCodec()).uri(next(k for k in analysis.sources if k.endswith("01-ejército.rules")))
    found = features.diagnostics(analysis, Locator(analysis, PositionCodec()))[uri]
    lines = (folder / "01-ejército.rules").read_text(encoding="utf-8").split("\n")
    marked = {lines[d.range.start.line][d.range.start.character : d.range.end.character]: d for d in found}
    assert {"agred", "puntoz", "t_b"} <= set(marked), [d.message for d in found]
    assert "did you mean 'agreed'?" in marked["agred"].message
    assert all(d.source == "rulebook" and d.severity == types.DiagnosticSeverity.Error for d in marked.values())
