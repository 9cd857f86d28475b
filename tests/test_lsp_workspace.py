"""The language server's layers, in-process: the incremental analysis gives
the diagnostics of `rulebook check`, re-parses only what changed, converts
positions to the client's encoding, and its snippets and hovers are safe."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from conftest import CONTENT, DATA

ERROR_CASES = sorted((DATA / "errors").glob("*.rules"))


def _analysis_of(folder: Path):
    from rulebook.compiler.lsp.workspace import Rulebook

    return Rulebook(folder).analyze()


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.stem for c in ERROR_CASES])
def test_the_server_reports_what_rulebook_check_prints(case, tmp_path):
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    folder = tmp_path / "reglamento"
    folder.mkdir()
    shutil.copy(case, folder / case.name)
    analysis = _analysis_of(folder)
    checked = driver.check(folder)
    assert render_all(analysis.diagnostics, analysis.sources) == render_all(checked.diagnostics, checked.sources)
    assert analysis.diagnostics, "every error case has diagnostics"


def test_an_edit_reparses_only_the_edited_file():
    from rulebook.compiler.lsp.workspace import Rulebook

    rulebook = Rulebook(CONTENT)
    first = rulebook.analyze()
    files = len(first.sources)
    assert rulebook.parse_count == files
    assert rulebook.analyze() is first, "no change: the analysis is reused"
    path = CONTENT / "15-clima.rules"
    rulebook.set_text(path, path.read_text(encoding="utf-8") + "\nUna línea más.\n")
    second = rulebook.analyze()
    assert rulebook.parse_count == files + 1
    assert second is not first and second.modules["content/1936/06-disparo.rules"] is first.modules["content/1936/06-disparo.rules"]
    rulebook.set_text(path, None)
    rulebook.analyze()
    assert rulebook.parse_count == files + 2


def test_a_declaration_being_typed_keeps_its_last_checked_form():
    """While a procedure does not parse, completion still knows its parameters and types."""
    from rulebook.compiler.lsp.workspace import Rulebook

    rulebook = Rulebook(CONTENT)
    rulebook.analyze()
    path = CONTENT / "06-disparo.rules"
    text = path.read_text(encoding="utf-8")
    broken = text.replace("let fila = dados_calidad_disparo[calidad]", "let fila = dados_calidad_disparo[calidad]\n    let q = fila.")
    rulebook.set_text(path, broken)
    analysis = rulebook.analyze()
    assert "tirada_calidad" not in analysis.program.decls
    assert "tirada_calidad" in analysis.known


def test_diagnostics_become_lsp_diagnostics_in_utf16(tmp_path):
    """A column after an astral character counts two UTF-16 units for it; the hint follows the message."""
    from rulebook.compiler.lsp.features import diagnostics
    from rulebook.compiler.lsp.positions import Locator
    from rulebook.rules_dsl.diagnostics import Span

    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "a.rules").write_text(
        '```rules\nrulebook r "😀 R"\n```\n\n```rules\nconst x "😀" = 1\nprocedure p "😀" (n: int) -> int {\n  return nn\n}\n```\n', encoding="utf-8",
    )
    analysis = _analysis_of(folder)
    published = diagnostics(analysis, Locator(analysis, PositionCodec(types.PositionEncodingKind.Utf16)))
    (uri,) = published
    assert uri == (folder / "a.rules").resolve().as_uri()
    (d,) = [d for d in published[uri] if "nn" in d.message]
    assert d.message == "unknown name 'nn'\nhint: did you mean 'n'?"
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (7, 9, 11)
    line = 'procedure p "😀" (n: int) -> int {'
    paren = line.index("(") + 1  # its 1-based column in characters
    locator = Locator(analysis, PositionCodec(types.PositionEncodingKind.Utf16))
    assert locator.range(Span("r/a.rules", 7, paren, 7, paren + 1)).start == types.Position(6, paren)  # 0-based, the emoji counts twice
    assert locator.span_position("r/a.rules", types.Position(6, paren)) == (7, paren)


def test_snippets_are_valid_declarations():
    """Every template, with its default placeholders, parses without a syntax error."""
    import re

    from rulebook.compiler.lsp.snippets import SNIPPETS
    from rulebook.rules_dsl.parser import parse

    statements = {"let", "if", "step", "repeat"}
    for s in SNIPPETS:
        body = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", "\n".join(s.body)).replace("$0", "")
        if s.prefix == "fence":
            continue
        if s.prefix == "stack":
            body = "return " + body
        if s.prefix == "allow":
            body += '\nconst x "X" = 1'
        if s.prefix in statements or s.prefix == "stack":
            body = 'procedure p "P" (x: int) -> int {\n' + body.replace("valor", "x").replace("condición", "x > 1") + "\n  return x\n}"
        _, errors = parse(f"```rules\n{body}\n```\n", "snippet.rules")
        assert not errors, (s.prefix, [e.message for e in errors])


def test_rules_text_is_escaped_in_hovers():
    """A title or documentation cannot inject Markdown or HTML into the editor."""
    from rulebook.compiler import ir
    from rulebook.compiler.lsp.hover import describe
    from rulebook.compiler.lsp.index import Target
    from rulebook.compiler.ir.types import T
    from rulebook.rules_dsl.diagnostics import Span

    span = Span("a.rules", 1, 1, 1, 1)
    const = ir.Const(
        name="x", title="<script>alert(1)</script> **x**", ref="I.1", status="active", doc="[enlace](javascript:1) `código`",
        file="a.rules", span=span, source_text="", value=1, type=T("int"),
    )
    shown = describe(Target("decl", "", "x"), {"x": const})
    assert "<script>" not in shown and "](javascript" not in shown and "**x**" not in shown
    assert "\\<script\\>" in shown and "\\`código\\`" in shown
